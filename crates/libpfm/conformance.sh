#!/usr/bin/env bash
# Conformance of pfmlib's libpfm.so.4 with libpfm4 4.13: fetches Debian's
# libpfm4 source package (once, into a cache outside the repository: see
# .ci/libpfm4-source), then runs every test of crates/libpfm with it
# required: the layouts against libpfm4's headers, libpfm4's tests/validate,
# examples/showevtinfo and examples/check_events built against our headers
# and library and compared with the same programs on the installed libpfm4,
# llvm-exegesis's event strings, bad callers and the environment variables,
# PAPI (.ci/papi-source builds one against our headers).
# Extra arguments go to `cargo test` (for instance --release).
set -euo pipefail
cd "$(dirname "$0")/../.."
PFMLIB_LIBPFM4_SRC="$(bash .ci/libpfm4-source)"
export PFMLIB_LIBPFM4_SRC PFMLIB_REQUIRE_LIBPFM4_SRC=1
echo "== libpfm4 source: $PFMLIB_LIBPFM4_SRC" >&2
# PAPI built from its source package against our headers (optional: its
# check says SKIPPED where the build cannot be had).
if papi="$(bash .ci/papi-source)"; then
  export PFMLIB_PAPI_BUILD="$papi" PFMLIB_REQUIRE_PAPI=1
  echo "== PAPI built against our headers: $PFMLIB_PAPI_BUILD" >&2
fi
exec cargo test -p libpfm "$@" -- --nocapture --test-threads 2
