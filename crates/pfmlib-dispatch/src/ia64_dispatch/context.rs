//! What the IA-64 dispatch steps read (the request, resolved) and build
//! (the registers emitted so far).

use super::common::err;
use super::cover::Rr;
use super::layout::{Ia64Layout, Pmds};
use crate::error::{DispatchError, DispatchErrorKind as K};
use crate::request::Ia64Params;
use pfmlib::model_specific::{self as source, Ia64EventFacts, Ia64Model};
use pfmlib::Pmu;

/// One requested event, resolved.
pub(super) struct Ev {
    /// As requested.
    pub(super) text: String,
    /// Fully-qualified name (`pmu::EVENT[:MASK...]`).
    pub(super) fstr: String,
    pub(super) f: Ia64EventFacts,
    /// Own privilege levels (0: the default).
    pub(super) plm: u32,
    /// MESI unit masks given, bit = mask index.
    pub(super) mesi: u64,
    pub(super) thres: u32,
    pub(super) ism: u64,
    pub(super) no_qualcheck: bool,
    pub(super) all_threads: bool,
}

/// The registers emitted so far.
pub(super) struct Out<'r> {
    pub(super) model: Ia64Model,
    pub(super) unavail: &'r [u32],
    pub(super) pmcs: Vec<(u32, u64)>,
    pub(super) pmds: Vec<u32>,
}

impl Out<'_> {
    /// Emits a non-counter PMC, refusing one the caller marked unavailable.
    pub(super) fn emit(&mut self, reg: u32, value: u64) -> Result<(), DispatchError> {
        self.check_avail(reg)?;
        self.pmcs.push((reg, value));
        Ok(())
    }

    pub(super) fn check_avail(&self, reg: u32) -> Result<(), DispatchError> {
        if self.unavail.contains(&reg) {
            return Err(err(
                K::NoAssign,
                format!(
                    "PMC{reg} is needed ({:?}) but listed in unavail_pmcs",
                    self.model
                ),
            ));
        }
        Ok(())
    }

    /// Adds data registers to read.
    pub(super) fn read(&mut self, pmds: Pmds) {
        self.pmds.extend(pmds.iter().cloned().flatten());
    }
}

/// What the dispatch steps read.
#[derive(Clone, Copy)]
pub(super) struct Ctx<'a> {
    pub(super) layout: &'static Ia64Layout,
    pub(super) pmu: Pmu<'a>,
    pub(super) prm: &'a Ia64Params,
    pub(super) evs: &'a [Ev],
    /// Default privilege levels.
    pub(super) dfl: u32,
    /// System-wide (the `pm` bit of every configuration register).
    pub(super) sysw: u64,
    /// Model-specific parameters are in play (libpfm-3's `mod` input).
    pub(super) mod_present: bool,
}

impl Ctx<'_> {
    /// `plm`, or the default when 0.
    pub(super) fn plm_or_dfl(&self, plm: u32) -> u64 {
        u64::from(if plm != 0 { plm } else { self.dfl })
    }

    /// The code of a named event of the PMU (libpfm-3 tests event classes by code).
    pub(super) fn code_of(&self, name: &str) -> Option<u64> {
        source::event_code(self.pmu, name)
    }

    /// Is an event with the code of event `name` listed?
    pub(super) fn has_code(&self, name: &str) -> bool {
        let code = self.code_of(name);
        self.evs.iter().any(|e| Some(e.f.code) == code)
    }
}

/// What the steps build.
pub(super) struct State<'r> {
    pub(super) out: Out<'r>,
    /// Code range pairs.
    pub(super) irr: Rr,
    /// Data range pairs.
    pub(super) drr: Rr,
    /// Code ranges use fine mode.
    pub(super) fine: bool,
}
