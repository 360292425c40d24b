//! libpfm-3's error kinds and the dispatch error.

use serde::Serialize;

/// libpfm-3's error kinds, with its numeric codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum DispatchErrorKind {
    /// `PFMLIB_ERR_NOTSUPP` (-1): not supported.
    NotSupported,
    /// `PFMLIB_ERR_INVAL` (-2): invalid parameter.
    Invalid,
    /// `PFMLIB_ERR_NOTFOUND` (-4): event not found.
    NotFound,
    /// `PFMLIB_ERR_NOASSIGN` (-5): the events cannot all be placed on counters.
    NoAssign,
    /// `PFMLIB_ERR_FEATCOMB` (-9): invalid combination of features.
    FeatureCombination,
    /// `PFMLIB_ERR_EVTSET` (-10): incompatible event sets.
    EventSet,
    /// `PFMLIB_ERR_EVTINCOMP` (-11): incompatible event and feature.
    EventIncompatible,
    /// `PFMLIB_ERR_TOOMANY` (-12): too many events or parameters.
    TooMany,
    /// `PFMLIB_ERR_IRRTOOBIG` (-13): code range too big.
    IrrTooBig,
    /// `PFMLIB_ERR_IRREMPTY` (-14): empty code range.
    IrrEmpty,
    /// `PFMLIB_ERR_IRRINVAL` (-15): invalid code range.
    IrrInvalid,
    /// `PFMLIB_ERR_IRRTOOMANY` (-16): too many code ranges.
    IrrTooMany,
    /// `PFMLIB_ERR_DRRINVAL` (-17): invalid data range.
    DrrInvalid,
    /// `PFMLIB_ERR_DRRTOOMANY` (-18): too many data ranges.
    DrrTooMany,
    /// `PFMLIB_ERR_IRRALIGN` (-20): code range not bundle-aligned.
    IrrAlign,
    /// `PFMLIB_ERR_IRRFLAGS` (-21): code ranges with different flags.
    IrrFlags,
    /// `PFMLIB_ERR_UMASK` (-22): invalid or missing unit mask.
    Umask,
}

impl DispatchErrorKind {
    /// libpfm-3's numeric code.
    pub fn code(self) -> i32 {
        use DispatchErrorKind::*;
        match self {
            NotSupported => -1,
            Invalid => -2,
            NotFound => -4,
            NoAssign => -5,
            FeatureCombination => -9,
            EventSet => -10,
            EventIncompatible => -11,
            TooMany => -12,
            IrrTooBig => -13,
            IrrEmpty => -14,
            IrrInvalid => -15,
            IrrTooMany => -16,
            DrrInvalid => -17,
            DrrTooMany => -18,
            IrrAlign => -20,
            IrrFlags => -21,
            Umask => -22,
        }
    }

    /// libpfm-3's symbolic name.
    pub fn name(self) -> &'static str {
        use DispatchErrorKind::*;
        match self {
            NotSupported => "PFMLIB_ERR_NOTSUPP",
            Invalid => "PFMLIB_ERR_INVAL",
            NotFound => "PFMLIB_ERR_NOTFOUND",
            NoAssign => "PFMLIB_ERR_NOASSIGN",
            FeatureCombination => "PFMLIB_ERR_FEATCOMB",
            EventSet => "PFMLIB_ERR_EVTSET",
            EventIncompatible => "PFMLIB_ERR_EVTINCOMP",
            TooMany => "PFMLIB_ERR_TOOMANY",
            IrrTooBig => "PFMLIB_ERR_IRRTOOBIG",
            IrrEmpty => "PFMLIB_ERR_IRREMPTY",
            IrrInvalid => "PFMLIB_ERR_IRRINVAL",
            IrrTooMany => "PFMLIB_ERR_IRRTOOMANY",
            DrrInvalid => "PFMLIB_ERR_DRRINVAL",
            DrrTooMany => "PFMLIB_ERR_DRRTOOMANY",
            IrrAlign => "PFMLIB_ERR_IRRALIGN",
            IrrFlags => "PFMLIB_ERR_IRRFLAGS",
            Umask => "PFMLIB_ERR_UMASK",
        }
    }
}

/// A dispatch error: a libpfm-3 kind and a message naming the cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DispatchError {
    kind: DispatchErrorKind,
    message: String,
}

impl DispatchError {
    /// A new error.
    pub fn new(kind: DispatchErrorKind, message: impl Into<String>) -> DispatchError {
        DispatchError {
            kind,
            message: message.into(),
        }
    }
    /// The libpfm-3 kind.
    pub fn kind(&self) -> DispatchErrorKind {
        self.kind
    }
    /// libpfm-3's numeric code.
    pub fn code(&self) -> i32 {
        self.kind.code()
    }
}
