//! The one error type of the core. The wasm edge maps it, once, to a JS `Error` whose
//! `code` is [`Error::code`]. A bad model answer is *not* an error: it is data
//! (see [`crate::answer`]).

use std::fmt;

/// Everything that can go wrong in a core call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An argument had the wrong shape or type (the message says which).
    InvalidArgument(String),
    /// A path that is not a safe, relative path inside the memory directory.
    UnsafePath { path: String, reason: String },
}

impl Error {
    /// A stable, machine-readable code (`INVALID_ARGUMENT`, `UNSAFE_PATH`, …).
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidArgument(_) => "INVALID_ARGUMENT",
            Self::UnsafePath { .. } => "UNSAFE_PATH",
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::InvalidArgument(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidArgument(message) => write!(f, "invalid argument: {message}"),
            Self::UnsafePath { path, reason } => write!(f, "unsafe path {path:?}: {reason}"),
        }
    }
}

impl std::error::Error for Error {}
