pub mod arm;
pub mod head;
pub mod mips;
pub mod namespace;
pub mod power;
pub mod riscv;
pub mod sweep;
pub mod torrent;
pub mod validate;
pub mod vendor;
pub mod words;

/// The PMUs of `names` present on host `h`, in that order (the detection
/// tests' question).
#[allow(dead_code)]
pub fn present_on(
    h: pfmlib::Host,
    names: impl IntoIterator<Item = &'static str>,
) -> Vec<&'static str> {
    let lib = pfmlib::Library::with_host(h);
    names
        .into_iter()
        .filter(|n| lib.pmu(n).is_some_and(|p| p.info().is_present))
        .collect()
}

/// A synthetic host of this CPU and stepping.
#[allow(dead_code)]
pub fn stepping_host(
    vendor: pfmlib::Vendor,
    family: u32,
    model: u32,
    stepping: u32,
) -> pfmlib::Host {
    let mut h = pfmlib::Host::synthetic(vendor, family, model);
    h.stepping = stepping;
    h
}
