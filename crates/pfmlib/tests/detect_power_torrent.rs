//! IBM Power Torrent detection with synthetic hosts: libpfm4's
//! `pfm_torrent_detect` finds the hub chip when `/proc/device-tree` has an
//! entry whose name begins with `hfi-iohub@` (any entry, case as written),
//! and only its powerpc build has the PMU. Device trees of our own making,
//! in memory and on disk.

use pfmlib::{Arch, ErrorKind, Host, Library, Os, Plm};

const PMU: &str = "power_torrent";

/// A POWER7 `/proc/cpuinfo` (a Power 775 node's processors).
const CPUINFO: &str = "processor\t: 0\ncpu\t\t: POWER7 (architected), altivec supported\n\
clock\t\t: 3864.000000MHz\nrevision\t: 2.1 (pvr 003f 0201)\n\n\
timebase\t: 512000000\nplatform\t: pSeries\nmodel\t\t: IBM,9125-F2C\nmachine\t\t: CHRP IBM,9125-F2C\n";

/// A PowerPC host whose device tree holds `entries` (each a directory with a
/// `name` file, as the kernel shows device nodes).
fn powerpc(entries: &[&str]) -> Host {
    let mut h = Host::from_cpuinfo(Arch::PowerPc, CPUINFO);
    for e in entries {
        h = h.with_file(&format!("/proc/device-tree/{e}/name"), e);
    }
    h
}

fn present(h: Host) -> bool {
    Library::with_host(h)
        .pmu(PMU)
        .expect("pfmlib has power_torrent")
        .info()
        .is_present
}

/// A Power 775 drawer's device tree: the hub chips' I/O hubs beside the rest.
#[test]
fn an_iohub_in_the_device_tree_is_a_torrent_chip() {
    let tree = [
        "cpus",
        "memory@0",
        "hfi-iohub@3fe1000000000",
        "hfi-iohub@3fe1100000000",
        "rtas",
        "vdevice",
    ];
    assert!(present(powerpc(&tree)));
    assert!(present(powerpc(&["hfi-iohub@0"])));
    // Only the beginning of the name is compared: nothing after `@` needed.
    assert!(present(powerpc(&["hfi-iohub@"])));
    assert!(present(powerpc(&["hfi-iohub@x-y"])));
}

#[test]
fn other_device_trees_have_none() {
    assert!(!present(powerpc(&[])));
    assert!(!present(powerpc(&["cpus", "memory@0", "rtas"])));
    // The name must begin with `hfi-iohub@`, exactly (strncmp).
    for other in [
        "hfi-iohub",
        "hfi-iohub-0",
        "HFI-IOHUB@1",
        "xhfi-iohub@1",
        "hfi_iohub@1",
        "hfi@1",
    ] {
        assert!(!present(powerpc(&[other])), "{other}");
    }
    // An entry deeper down is not one of the directory's.
    let h = Host::from_cpuinfo(Arch::PowerPc, CPUINFO)
        .with_file("/proc/device-tree/vdevice/hfi-iohub@1/name", "x");
    assert!(!present(h));
    let h = Host::from_cpuinfo(Arch::PowerPc, CPUINFO)
        .with_file("/proc/devicetree/hfi-iohub@1/name", "x");
    assert!(!present(h));
}

/// Only libpfm4's powerpc build has the PMU: other architectures' hosts
/// with the same device tree do not find it.
#[test]
fn only_powerpc_hosts() {
    for arch in [
        Arch::X86,
        Arch::Aarch64,
        Arch::Arm,
        Arch::S390x,
        Arch::Sparc,
        Arch::Mips,
    ] {
        let mut h = powerpc(&["hfi-iohub@3fe1000000000"]);
        h.arch = arch;
        assert!(!present(h), "{arch:?}");
    }
}

/// A device tree on disk, read under the host's root: an entry that is an
/// empty directory counts (libpfm4 reads the names only).
#[test]
fn a_recorded_tree_on_disk() {
    let root = std::env::temp_dir().join(format!("pfmlib-torrent-{}", std::process::id()));
    let dt = root.join("proc/device-tree");
    std::fs::create_dir_all(dt.join("cpus")).unwrap();
    std::fs::write(root.join("proc/cpuinfo"), CPUINFO).unwrap();
    assert!(!present(Host::from_root(Arch::PowerPc, root.clone())));
    std::fs::create_dir_all(dt.join("hfi-iohub@3fe1000000000")).unwrap();
    assert!(present(Host::from_root(Arch::PowerPc, root.clone())));
    assert!(!present(Host::from_root(Arch::X86, root.clone())));
    std::fs::remove_dir_all(root).unwrap();
}

/// Present, its events are found without the prefix, and encode as when
/// named with it; absent, only with it.
#[test]
fn events_resolve_without_prefix_when_present() {
    let lib = Library::with_host(powerpc(&["hfi-iohub@1"]));
    let e = lib
        .encode("PM_PBUS_MCD0_CASTOUT", Plm::DEFAULT, Os::None)
        .expect("found");
    assert_eq!(e.pmu, PMU);
    assert_eq!(e.codes, vec![0x0120_0018]);
    assert_eq!(e.fstr, "power_torrent::");
    let p = lib
        .encode("PM_PBUS_MCD0_CASTOUT:u", Plm::DEFAULT, Os::PerfEvent)
        .expect("u is read as type=1");
    let attr = p.perf.expect("perf");
    assert_eq!((attr.type_, attr.config), (4, 0x1_0120_0018));
    let absent = Library::with_host(powerpc(&[]));
    let err = absent
        .encode("PM_PBUS_MCD0_CASTOUT", Plm::DEFAULT, Os::None)
        .expect_err("not present");
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(absent
        .encode(
            "power_torrent::PM_PBUS_MCD0_CASTOUT",
            Plm::DEFAULT,
            Os::None
        )
        .is_ok());
}
