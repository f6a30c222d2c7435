//! The one error type of the core. The wasm edge maps it, once, to a JS `Error` whose
//! `code` is [`Error::code`]. A bad model answer is *not* an error: it is data
//! (see [`crate::answer`]).

use std::fmt;

use crate::codes::ErrorCode;

/// Everything that can go wrong in a core call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// An argument had the wrong shape or type (the message says which).
    InvalidArgument(String),
    /// A path that is not a safe, relative path inside the memory directory.
    UnsafePath { path: String, reason: String },
    /// A write the rules refuse; nothing was written. The message says why and what to do.
    Refused { refusal: Refusal, message: String },
}

/// Why a write was refused; each has its own stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The memory itself is malformed: unknown type, empty or multi-line description, …
    InvalidMemory,
    /// The text holds what looks like a credential.
    SecretDetected,
    /// The write would push the index or the directory past a limit.
    LimitExceeded,
    /// An existing memory has the same name or almost the same description.
    DuplicateMemory,
    /// Content (not index entries) written into `MEMORY.md`.
    IndexOnly,
    /// Nothing to forget: no such file and no index entry.
    NotFound,
    /// A file the write must read whole is larger than `maxFileBytes` (or new content would
    /// be): it is refused, never cut.
    TooLarge,
    /// A file the write must rewrite is not valid UTF-8: rewriting it would change bytes the
    /// write never meant to touch.
    InvalidUtf8,
    /// A file changed while it was being read (shorter than listed): read again.
    Changed,
}

impl Refusal {
    pub fn code(self) -> ErrorCode {
        match self {
            Self::InvalidMemory => ErrorCode::InvalidMemory,
            Self::SecretDetected => ErrorCode::SecretDetected,
            Self::LimitExceeded => ErrorCode::LimitExceeded,
            Self::DuplicateMemory => ErrorCode::DuplicateMemory,
            Self::IndexOnly => ErrorCode::IndexOnly,
            Self::NotFound => ErrorCode::NotFound,
            Self::TooLarge => ErrorCode::TooLarge,
            Self::InvalidUtf8 => ErrorCode::InvalidUtf8,
            Self::Changed => ErrorCode::Changed,
        }
    }
}

impl Error {
    /// A stable, machine-readable code (`INVALID_ARGUMENT`, `UNSAFE_PATH`, …).
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::InvalidArgument(_) => ErrorCode::InvalidArgument,
            Self::UnsafePath { .. } => ErrorCode::UnsafePath,
            Self::Refused { refusal, .. } => refusal.code(),
        }
    }

    pub(crate) fn refused(refusal: Refusal, message: impl Into<String>) -> Self {
        Self::Refused {
            refusal,
            message: message.into(),
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
            Self::Refused { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}
