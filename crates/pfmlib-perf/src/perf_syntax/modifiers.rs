//! perf's modifier suffixes (`:u`, `:k`, `:ppp`, `:G`, `:D`, ...) and the
//! `perf_event_attr` bits they set.

use crate::syntax_error::SyntaxError;
use pfmlib::PerfAttr;

/// The most `p` a modifier may ask for (`precise_ip` is two bits).
pub const MAX_PRECISE: u8 = 3;

/// perf's modifier letters, parsed; [`Modifiers::apply`] sets the bits.
///
/// The letters follow perf 6.1's meaning, applied left to right:
/// the first of `u`, `k`, `h` excludes every level, then each names one
/// level counted again (`u` user, `k` kernel, `h` hypervisor); the first of
/// `G`, `H` excludes both host and guest, then each names one counted again
/// (`G` guest, `H` host); `u` and `p` also exclude the guest unless `G` or
/// `H` came first; each `p` raises `precise_ip` by one (at most 3); `P`
/// asks for the highest `precise_ip` the CPU allows; `D` pins the event;
/// `e` puts it alone on the PMU (`exclusive`); `I` leaves the idle task
/// out (`exclude_idle`); `S` reads the group's values with each sample
/// (`PERF_SAMPLE_READ`); `W` makes the group weak: when it cannot be
/// opened as a group, its events are counted one by one (no bit; see
/// [`crate::CounterSet`]).
///
/// ```
/// use pfmlib_perf::perf_syntax::Modifiers;
/// let mut attr = pfmlib::PerfAttr::default();
/// Modifiers::parse("upp").unwrap().apply(&mut attr);
/// assert!(attr.exclude_kernel && attr.exclude_hv && !attr.exclude_user);
/// assert_eq!(attr.precise_ip, 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Modifiers {
    letters: String,
    /// `P`: the highest `precise_ip` the CPU allows.
    pub precise_max: bool,
    /// `S`: `PERF_SAMPLE_READ`.
    pub sample_read: bool,
    /// `I`: do not count while the CPU is idle (`exclude_idle`).
    pub exclude_idle: bool,
    /// `W`: a weak group, split into single events when it cannot be opened.
    pub weak_group: bool,
}

/// The letters perf accepts after `:`.
const LETTERS: &str = "ukhGHpPSDIeW";

impl Modifiers {
    /// True when `s` is made of perf modifier letters only (and is not empty).
    pub fn is_modifier_list(s: &str) -> bool {
        !s.is_empty() && s.chars().all(|c| LETTERS.contains(c))
    }

    /// Parses a list of letters such as `uk` or `ppp`; too many `p` is an error.
    pub fn parse(s: &str) -> Result<Modifiers, SyntaxError> {
        if !Modifiers::is_modifier_list(s) {
            return Err(SyntaxError::BadModifier {
                modifiers: s.to_string(),
            });
        }
        if s.matches('p').count() > usize::from(MAX_PRECISE) {
            return Err(SyntaxError::TooPrecise {
                modifiers: s.to_string(),
            });
        }
        Ok(Modifiers {
            letters: s.to_string(),
            precise_max: s.contains('P'),
            sample_read: s.contains('S'),
            exclude_idle: s.contains('I'),
            weak_group: s.contains('W'),
        })
    }

    /// The letters as given.
    pub fn letters(&self) -> &str {
        &self.letters
    }

    /// Sets the bits of `attr` the letters stand for (see [`Modifiers`]);
    /// an `attr` already limited to some levels is reset by `u`, `k`, `h`.
    pub fn apply(&self, attr: &mut PerfAttr) {
        let mut levels_named = false;
        let mut gh_named = false;
        for c in self.letters.chars() {
            match c {
                'u' | 'k' | 'h' => {
                    if !levels_named {
                        levels_named = true;
                        attr.exclude_user = true;
                        attr.exclude_kernel = true;
                        attr.exclude_hv = true;
                    }
                    match c {
                        'u' => {
                            attr.exclude_user = false;
                            if !gh_named {
                                attr.exclude_guest = true;
                            }
                        }
                        'k' => attr.exclude_kernel = false,
                        _ => attr.exclude_hv = false,
                    }
                }
                'G' | 'H' => {
                    if !gh_named {
                        gh_named = true;
                        attr.exclude_guest = true;
                        attr.exclude_host = true;
                    }
                    if c == 'G' {
                        attr.exclude_guest = false;
                    } else {
                        attr.exclude_host = false;
                    }
                }
                'p' => {
                    attr.precise_ip = (attr.precise_ip + 1).min(MAX_PRECISE);
                    if !gh_named {
                        attr.exclude_guest = true;
                    }
                }
                'D' => attr.pinned = true,
                'e' => attr.exclusive = true,
                _ => {}
            }
        }
    }
}

/// Splits a trailing `:letters` of perf modifiers from `event`:
/// `("cycles", Some("uk"))` for `cycles:uk`; `(event, None)` when the last
/// `:` part is not made of modifier letters.
pub fn split_suffix(event: &str) -> (&str, Option<&str>) {
    match event.rsplit_once(':') {
        Some((base, mods)) if !base.is_empty() && Modifiers::is_modifier_list(mods) => {
            (base, Some(mods))
        }
        _ => (event, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(m: &str) -> PerfAttr {
        let mut a = PerfAttr::default();
        Modifiers::parse(m).unwrap().apply(&mut a);
        a
    }

    #[test]
    fn privilege_levels() {
        let u = attr("u");
        assert!(!u.exclude_user && u.exclude_kernel && u.exclude_hv && u.exclude_guest);
        let k = attr("k");
        assert!(k.exclude_user && !k.exclude_kernel && k.exclude_hv && !k.exclude_guest);
        let uk = attr("uk");
        assert!(!uk.exclude_user && !uk.exclude_kernel && uk.exclude_hv);
        let h = attr("h");
        assert!(h.exclude_user && h.exclude_kernel && !h.exclude_hv);
        // A previous limit is replaced, not added to.
        let mut a = PerfAttr::default().exclude_user(true);
        Modifiers::parse("u").unwrap().apply(&mut a);
        assert!(!a.exclude_user && a.exclude_kernel);
    }

    #[test]
    fn guest_and_host() {
        let g = attr("G");
        assert!(!g.exclude_guest && g.exclude_host);
        let h = attr("H");
        assert!(g != h && h.exclude_guest && !h.exclude_host);
        let gh = attr("GH");
        assert!(!gh.exclude_guest && !gh.exclude_host);
        // `G` first: `u` leaves the guest counted.
        let gu = attr("Gu");
        assert!(!gu.exclude_guest && gu.exclude_host && gu.exclude_kernel);
        // `u` first, then `G`: G wins for the guest.
        let ug = attr("uG");
        assert!(!ug.exclude_guest && ug.exclude_host);
    }

    #[test]
    fn precise_pinned_sample_read() {
        assert_eq!(attr("p").precise_ip, 1);
        assert_eq!(attr("pp").precise_ip, 2);
        let ppp = attr("ppp");
        assert!(ppp.precise_ip == 3 && ppp.exclude_guest && !ppp.exclude_kernel);
        assert!(matches!(
            Modifiers::parse("pppp"),
            Err(SyntaxError::TooPrecise { .. })
        ));
        let pm = Modifiers::parse("P").unwrap();
        assert!(pm.precise_max && attr("P").precise_ip == 0);
        assert!(attr("D").pinned && !attr("u").pinned);
        assert!(attr("e").exclusive && !attr("D").exclusive);
        assert!(Modifiers::parse("I").unwrap().exclude_idle);
        assert_eq!(attr("I"), PerfAttr::default());
        assert!(Modifiers::parse("S").unwrap().sample_read);
        assert_eq!(attr("S"), PerfAttr::default());
        assert!(matches!(
            Modifiers::parse("ux"),
            Err(SyntaxError::BadModifier { .. })
        ));
    }

    #[test]
    fn suffixes() {
        assert_eq!(split_suffix("cycles:uk"), ("cycles", Some("uk")));
        assert_eq!(split_suffix("INST_RETIRED:ANY"), ("INST_RETIRED:ANY", None));
        assert_eq!(split_suffix("a:b:ppp"), ("a:b", Some("ppp")));
        assert_eq!(split_suffix(":u"), (":u", None));
        assert_eq!(split_suffix("cycles"), ("cycles", None));
    }

    #[test]
    fn weak_group_sets_no_bit() {
        let m = Modifiers::parse("uW").unwrap();
        assert!(m.weak_group && !Modifiers::parse("u").unwrap().weak_group);
        assert_eq!(attr("uW"), attr("u"));
        assert_eq!(split_suffix("cycles:W"), ("cycles", Some("W")));
    }
}
