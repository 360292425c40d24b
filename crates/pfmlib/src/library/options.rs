//! Library options: libpfm4's environment variables as values.

/// How a [`Library`](super::Library) chooses and uses its PMUs: the
/// equivalents of libpfm4's `LIBPFM_FORCE_PMU`, `LIBPFM_DISABLED_PMUS` and
/// `LIBPFM_ENCODE_INACTIVE`.
///
/// ```
/// use pfmlib::Options;
/// let o = Options::new().force_pmu("nhm").disable_pmus("perf,wsm");
/// assert!(o.is_disabled("wsm_dp") && !o.is_disabled("nhm"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Make this PMU the only active one, whatever the host (the first PMU,
    /// in libpfm4's lookup order, whose name starts with it, ignoring case;
    /// anything from a `,` on is ignored). PMUs after it in that order are
    /// not set up at all.
    pub force_pmu: Option<String>,
    /// Leave these PMUs out entirely: a PMU whose name contains one of them.
    pub disabled_pmus: Vec<String>,
    /// An event string may name a PMU that is not active with its `pmu::`
    /// prefix. pfmlib's default is yes; libpfm4's is no.
    pub encode_inactive: bool,
    /// With [`Options::encode_inactive`], a `pmu::` prefix also reaches the
    /// PMUs left out: those [`Options::disabled_pmus`] names and those after
    /// a forced PMU, which are not set up. Their events then encode and are
    /// found by name, though the library does not list them (`pmus`,
    /// `pmu`, `pmu_by_id` and `event_by_idx` still pass them over). This
    /// was libpfm4 4.13's rule when `LIBPFM_ENCODE_INACTIVE` was set (a
    /// prefix looked up among every PMU of the build); upstream looks a
    /// prefix up among the PMUs set up only, so the environment no longer
    /// sets it. No by default.
    pub encode_left_out: bool,
    /// Only the PMUs of libpfm4's build for the host's architecture exist
    /// (its x86_64, arm or arm64 build; `PmuDesc::in_build`): the tables of
    /// other architectures are neither listed nor reachable by prefix, as if
    /// they were not compiled in. The C library sets it, so that it answers
    /// as libpfm4's build does; pfmlib's default is no (every table).
    pub host_build_only: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options::new()
    }
}

/// Whether a value of `LIBPFM_ENCODE_INACTIVE` turns it on, as libpfm4
/// upstream reads it: its first character is a digit other than 0 (4.13
/// turned it on for any value, the empty one included).
fn encode_inactive_value(v: &str) -> bool {
    v.as_bytes()
        .first()
        .is_some_and(|c| (b'1'..=b'9').contains(c))
}

impl Options {
    /// pfmlib's defaults: nothing forced or disabled, inactive PMUs encodable.
    pub fn new() -> Options {
        Options {
            force_pmu: None,
            disabled_pmus: Vec::new(),
            encode_inactive: true,
            encode_left_out: false,
            host_build_only: false,
        }
    }

    /// libpfm4's defaults: as [`Options::new`], but inactive PMUs are not
    /// encodable unless `LIBPFM_ENCODE_INACTIVE` is set.
    pub fn libpfm4() -> Options {
        Options {
            encode_inactive: false,
            ..Options::new()
        }
    }

    /// pfmlib's defaults with libpfm4's environment variables applied:
    /// `LIBPFM_FORCE_PMU`, `LIBPFM_DISABLED_PMUS`, `LIBPFM_ENCODE_INACTIVE`
    /// (which sets [`Options::encode_inactive`], as libpfm4 upstream; not
    /// [`Options::encode_left_out`], 4.13's wider rule).
    pub fn from_env() -> Options {
        Options::new().with_env(|k| std::env::var(k).ok())
    }

    /// libpfm4's defaults with its environment variables applied, as
    /// `pfm_initialize` reads them.
    pub fn libpfm4_env() -> Options {
        Options::libpfm4().with_env(|k| std::env::var(k).ok())
    }

    /// These options with the variables `var` answers applied (see
    /// [`Options::from_env`]).
    pub fn with_env(mut self, var: impl Fn(&str) -> Option<String>) -> Options {
        if let Some(f) = var("LIBPFM_FORCE_PMU") {
            self.force_pmu = Some(f);
        }
        if let Some(d) = var("LIBPFM_DISABLED_PMUS") {
            self = self.disable_pmus(&d);
        }
        // Upstream's LIBPFM_ENCODE_INACTIVE: PMUs set up but not active
        // are reachable by prefix; those left out (disabled, after a
        // forced one) are not on its list at all (4.13 reached them too:
        // `encode_left_out`).
        if var("LIBPFM_ENCODE_INACTIVE").is_some_and(|v| encode_inactive_value(&v)) {
            self.encode_inactive = true;
        }
        self
    }

    /// Forces `pmu` (see [`Options::force_pmu`]).
    pub fn force_pmu(mut self, pmu: &str) -> Options {
        self.force_pmu = Some(pmu.to_string());
        self
    }

    /// Disables the PMUs of a comma-separated list (see [`Options::disabled_pmus`]).
    pub fn disable_pmus(mut self, list: &str) -> Options {
        self.disabled_pmus.extend(
            list.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
        self
    }

    /// Sets [`Options::encode_inactive`].
    pub fn encode_inactive(mut self, yes: bool) -> Options {
        self.encode_inactive = yes;
        self
    }

    /// Sets [`Options::encode_left_out`].
    pub fn encode_left_out(mut self, yes: bool) -> Options {
        self.encode_left_out = yes;
        self
    }

    /// Sets [`Options::host_build_only`].
    pub fn host_build_only(mut self, yes: bool) -> Options {
        self.host_build_only = yes;
        self
    }

    /// Is PMU `name` disabled?
    pub fn is_disabled(&self, name: &str) -> bool {
        self.disabled_pmus.iter().any(|d| name.contains(d.as_str()))
    }
}

/// Does PMU `name` match a forced-PMU setting (libpfm4: the setting, up to
/// its first comma, is a case-blind prefix of the name)?
pub(super) fn matches_forced(name: &str, forced: &str) -> bool {
    let f = forced.split(',').next().unwrap_or("");
    name.len() >= f.len() && name.as_bytes()[..f.len()].eq_ignore_ascii_case(f.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment() {
        let env = |k: &str| match k {
            "LIBPFM_FORCE_PMU" => Some("NHM,extra".to_string()),
            "LIBPFM_DISABLED_PMUS" => Some("perf,,wsm".to_string()),
            _ => None,
        };
        let o = Options::libpfm4().with_env(env);
        assert_eq!(o.force_pmu.as_deref(), Some("NHM,extra"));
        assert_eq!(o.disabled_pmus, ["perf", "wsm"]);
        assert!(!o.encode_inactive);
        assert!(!o.encode_left_out);
        assert!(matches_forced("nhm", "NHM,extra") && matches_forced("nhm_ex", "nhm"));
        assert!(!matches_forced("nh", "nhm"));
        let inactive = |v: &'static str| {
            Options::libpfm4()
                .with_env(move |k| (k == "LIBPFM_ENCODE_INACTIVE").then(|| v.to_string()))
        };
        let o = inactive("1");
        assert!(o.encode_inactive);
        assert!(!o.encode_left_out);
        // Upstream reads a digit: "0", "", "y" leave it off; "7x" turns it on.
        for off in ["0", "", "y", " 1", "-1"] {
            assert!(!inactive(off).encode_inactive, "{off:?}");
        }
        assert!(inactive("7x").encode_inactive);
        assert!(!Options::new().encode_left_out);
    }
}
