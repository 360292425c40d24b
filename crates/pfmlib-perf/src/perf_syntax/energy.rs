//! The unit and scale of pfmlib's own RAPL events (`rapl::`,
//! `amd64_rapl::`), as perf gives the kernel's `power/energy-*/` aliases:
//! Joules, the count multiplied by the `.scale` of the `power` PMU's
//! alias with the same event number, or by RAPL's architectural energy
//! unit, 2⁻³² J, when the kernel has no such file.

use super::sysfs_pmu::{self, DEVICES};
use pfmlib::Host;

/// pfmlib's PMUs whose events count the kernel's `power` PMU.
const RAPL_PMUS: [&str; 2] = ["rapl", "amd64_rapl"];
/// The kernel's PMU for RAPL.
const POWER_PMU: &str = "power";
/// The unit perf prints for energy.
pub const JOULES: &str = "Joules";
/// One RAPL tick in Joules when the kernel does not say: 2⁻³² J, the
/// kernel's fixed-point unit for every RAPL domain.
pub const TICK_JOULES: f64 = 1.0 / 4_294_967_296.0;

/// The scale and unit of an event of pfmlib's PMU `pmu` with `config`:
/// `None` for every PMU but RAPL's.
pub fn pfmlib_scale(host: &Host, pmu: &str, config: u64) -> Option<(f64, String)> {
    if !RAPL_PMUS.contains(&pmu) {
        return None;
    }
    let scale = alias_scale(host, config).unwrap_or(TICK_JOULES);
    Some((scale, JOULES.to_string()))
}

/// The `.scale` of the `power` alias whose terms are `event=config`.
fn alias_scale(host: &Host, config: u64) -> Option<f64> {
    let dir = format!("{DEVICES}/{POWER_PMU}/events");
    host.list_dir(&dir)
        .into_iter()
        .filter(|a| !a.contains('.'))
        .find(|a| {
            let text = host.read_file(&format!("{dir}/{a}"));
            let terms = text.and_then(|t| sysfs_pmu::parse_terms(t.trim()).ok());
            terms.is_some_and(|ts| {
                matches!(ts.as_slice(), [t] if t.name == "event"
                    && t.value.as_deref().and_then(|v| sysfs_pmu::parse_number("event", v).ok())
                        == Some(config))
            })
        })
        .and_then(|a| host.read_file(&format!("{dir}/{a}.scale")))
        .and_then(|s| s.trim().parse().ok())
        .filter(|s: &f64| s.is_finite() && *s > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_power_alias_scale_or_the_architectural_tick() {
        let h = Host::none();
        assert_eq!(pfmlib_scale(&h, "perf", 2), None);
        assert_eq!(
            pfmlib_scale(&h, "rapl", 2),
            Some((TICK_JOULES, JOULES.into()))
        );
        let ev = format!("{DEVICES}/power/events");
        let h = Host::none()
            .with_file(&format!("{ev}/energy-pkg"), "event=0x02\n")
            .with_file(&format!("{ev}/energy-pkg.scale"), "0.5e-9\n")
            .with_file(&format!("{ev}/energy-ram"), "event=0x03\n");
        assert_eq!(pfmlib_scale(&h, "amd64_rapl", 2).map(|s| s.0), Some(0.5e-9));
        // energy-ram has no .scale: the tick.
        assert_eq!(pfmlib_scale(&h, "rapl", 3).map(|s| s.0), Some(TICK_JOULES));
    }
}
