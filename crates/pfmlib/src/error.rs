//! Errors: libpfm4's error kinds, each carrying a message that names the cause.

/// The kind of an error, one per libpfm4 `PFM_ERR_*` code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum ErrorKind {
    /// `PFM_ERR_NOTSUPP` (-1): not supported (here, or by this PMU / OS layer).
    NotSupported,
    /// `PFM_ERR_INVAL` (-2): invalid parameters.
    Invalid,
    /// `PFM_ERR_NOINIT` (-3): library not initialised (kept for code compatibility).
    NotInitialized,
    /// `PFM_ERR_NOTFOUND` (-4): no such event.
    NotFound,
    /// `PFM_ERR_FEATCOMB` (-5): invalid combination of features (unit masks).
    FeatureCombination,
    /// `PFM_ERR_UMASK` (-6): invalid or missing unit mask.
    Umask,
    /// `PFM_ERR_NOMEM` (-7): out of memory.
    NoMemory,
    /// `PFM_ERR_ATTR` (-8): invalid event attribute.
    Attr,
    /// `PFM_ERR_ATTR_VAL` (-9): invalid event attribute value.
    AttrValue,
    /// `PFM_ERR_ATTR_SET` (-10): attribute value already set (conflicting settings).
    AttrSet,
    /// `PFM_ERR_TOOMANY` (-11): too many parameters.
    TooMany,
    /// `PFM_ERR_TOOSMALL` (-12): parameter is too small.
    TooSmall,
}

impl ErrorKind {
    /// libpfm4's numeric error code (negative).
    pub fn code(self) -> i32 {
        match self {
            ErrorKind::NotSupported => -1,
            ErrorKind::Invalid => -2,
            ErrorKind::NotInitialized => -3,
            ErrorKind::NotFound => -4,
            ErrorKind::FeatureCombination => -5,
            ErrorKind::Umask => -6,
            ErrorKind::NoMemory => -7,
            ErrorKind::Attr => -8,
            ErrorKind::AttrValue => -9,
            ErrorKind::AttrSet => -10,
            ErrorKind::TooMany => -11,
            ErrorKind::TooSmall => -12,
        }
    }

    /// libpfm4's symbolic name, e.g. `PFM_ERR_ATTR_SET`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::NotSupported => "PFM_ERR_NOTSUPP",
            ErrorKind::Invalid => "PFM_ERR_INVAL",
            ErrorKind::NotInitialized => "PFM_ERR_NOINIT",
            ErrorKind::NotFound => "PFM_ERR_NOTFOUND",
            ErrorKind::FeatureCombination => "PFM_ERR_FEATCOMB",
            ErrorKind::Umask => "PFM_ERR_UMASK",
            ErrorKind::NoMemory => "PFM_ERR_NOMEM",
            ErrorKind::Attr => "PFM_ERR_ATTR",
            ErrorKind::AttrValue => "PFM_ERR_ATTR_VAL",
            ErrorKind::AttrSet => "PFM_ERR_ATTR_SET",
            ErrorKind::TooMany => "PFM_ERR_TOOMANY",
            ErrorKind::TooSmall => "PFM_ERR_TOOSMALL",
        }
    }

    /// The kind for a libpfm4 numeric code, if it is one.
    pub fn from_code(code: i32) -> Option<ErrorKind> {
        ALL_KINDS.iter().copied().find(|k| k.code() == code)
    }

    /// A short generic description of the kind.
    pub fn summary(self) -> &'static str {
        match self {
            ErrorKind::NotSupported => "not supported",
            ErrorKind::Invalid => "invalid parameters",
            ErrorKind::NotInitialized => "library not initialized",
            ErrorKind::NotFound => "event not found",
            ErrorKind::FeatureCombination => "invalid combination of features",
            ErrorKind::Umask => "invalid or missing unit mask",
            ErrorKind::NoMemory => "out of memory",
            ErrorKind::Attr => "invalid event attribute",
            ErrorKind::AttrValue => "invalid event attribute value",
            ErrorKind::AttrSet => "attribute value already set",
            ErrorKind::TooMany => "too many parameters",
            ErrorKind::TooSmall => "parameter is too small",
        }
    }
}

const ALL_KINDS: [ErrorKind; 12] = [
    ErrorKind::NotSupported,
    ErrorKind::Invalid,
    ErrorKind::NotInitialized,
    ErrorKind::NotFound,
    ErrorKind::FeatureCombination,
    ErrorKind::Umask,
    ErrorKind::NoMemory,
    ErrorKind::Attr,
    ErrorKind::AttrValue,
    ErrorKind::AttrSet,
    ErrorKind::TooMany,
    ErrorKind::TooSmall,
];

/// An error from pfmlib: a libpfm4 kind and a message naming what is wrong.
///
/// ```
/// let err = pfmlib::encode("nhm::NO_SUCH_EVENT", pfmlib::Os::None).unwrap_err();
/// assert_eq!(err.kind(), pfmlib::ErrorKind::NotFound);
/// assert_eq!(err.code(), -4);
/// assert!(err.to_string().contains("NO_SUCH_EVENT"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// A new error of `kind` with a message for the person who hit it.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// The libpfm4 kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// libpfm4's numeric code for the kind.
    pub fn code(&self) -> i32 {
        self.kind.code()
    }

    /// The message, without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Result alias for pfmlib.
pub type Result<T, E = Error> = std::result::Result<T, E>;
