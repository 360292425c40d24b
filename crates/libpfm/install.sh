#!/usr/bin/env bash
# Installs pfmlib's libpfm.so.4 and its headers:
#   PREFIX/lib/libpfm.so.4.13.0, libpfm.so.4 -> it, libpfm.so -> libpfm.so.4
#   PREFIX/include/perfmon/{pfmlib.h,pfmlib_perf_event.h,perf_event.h,err.h}
# then runs ldconfig (when installing as root). Builds the release library
# first unless --no-build.
#
#   crates/libpfm/install.sh [--prefix DIR] [--libdir DIR] [--no-build] [--no-ldconfig]
#
# Default prefix /usr/local (searched before /usr/lib by the loader on
# Debian and Ubuntu, so programs linked against Debian's libpfm4 pick this
# one up; check with `ldconfig -p | grep libpfm`).
set -euo pipefail
cd "$(dirname "$0")/../.."

prefix=/usr/local libdir="" build=1 ldconfig=1
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --libdir) libdir="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-ldconfig) ldconfig=0; shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
libdir="${libdir:-$prefix/lib}"

if [ "$build" = 1 ]; then
  cargo build --release -p libpfm
fi
target="$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
so="${target:-target}/release/libpfm.so"
[ -f "$so" ] || { echo "install.sh: $so not built (cargo build --release -p libpfm)" >&2; exit 1; }

install -d "$libdir" "$prefix/include/perfmon"
install -m 0755 "$so" "$libdir/libpfm.so.4.13.0"
ln -sf libpfm.so.4.13.0 "$libdir/libpfm.so.4"
ln -sf libpfm.so.4 "$libdir/libpfm.so"
install -m 0644 include/perfmon/*.h "$prefix/include/perfmon/"
echo "installed $libdir/libpfm.so.4 (pfmlib) and $prefix/include/perfmon/"
if [ "$ldconfig" = 1 ] && [ "$(id -u)" -eq 0 ]; then
  ldconfig
  ldconfig -p | grep 'libpfm\.so\.4' || true
fi
