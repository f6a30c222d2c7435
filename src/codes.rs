//! Every stable code memdir reports, as enums: the compiler checks that a check and the fix
//! that looks for it name the same code, and the TypeScript unions are generated from these.

use serde::{Deserialize, Serialize};

/// What went wrong, on a `MemdirError` (`code`). The core raises the first group; the
/// JavaScript layer raises the rest, for what only it can see (locks, the file system, the
/// WebAssembly module).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "MemdirErrorCode"))]
pub enum ErrorCode {
    /// An argument had the wrong type or shape, or an unknown key.
    InvalidArgument,
    /// A path that could leave the memory directory.
    UnsafePath,
    /// The memory itself is malformed (unknown type, empty or multi-line description, …).
    InvalidMemory,
    /// The text holds what looks like a credential.
    SecretDetected,
    /// The write would push the index or the directory past a limit.
    LimitExceeded,
    /// An existing memory has the same name or almost the same description.
    DuplicateMemory,
    /// Content (not index entries) aimed at `MEMORY.md`.
    IndexOnly,
    /// Nothing to forget.
    NotFound,
    /// A file a write must read whole is over `maxFileBytes`, or new content would be.
    TooLarge,
    /// A file a write must rewrite is not UTF-8.
    InvalidUtf8,
    /// Something changed while it was read, or since a plan was made.
    Changed,
    /// Another writer held the lock past `lock.timeoutMs` (JS).
    Locked,
    /// The memory directory, or a folder above it, is a file (JS).
    NotADirectory,
    /// The host (file system, VS Code, …) failed (JS).
    IoError,
    /// The browser build was used before `await init()` (JS).
    NotInitialized,
    /// The WebAssembly module trapped on this call and was re-instantiated (JS).
    WasmTrapped,
    /// Anything else unexpected (JS).
    Internal,
}

impl ErrorCode {
    /// The code as JavaScript sees it (`INVALID_ARGUMENT`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArgument => "INVALID_ARGUMENT",
            Self::UnsafePath => "UNSAFE_PATH",
            Self::InvalidMemory => "INVALID_MEMORY",
            Self::SecretDetected => "SECRET_DETECTED",
            Self::LimitExceeded => "LIMIT_EXCEEDED",
            Self::DuplicateMemory => "DUPLICATE_MEMORY",
            Self::IndexOnly => "INDEX_ONLY",
            Self::NotFound => "NOT_FOUND",
            Self::TooLarge => "TOO_LARGE",
            Self::InvalidUtf8 => "INVALID_UTF8",
            Self::Changed => "CHANGED",
            Self::Locked => "LOCKED",
            Self::NotADirectory => "NOT_A_DIRECTORY",
            Self::IoError => "IO_ERROR",
            Self::NotInitialized => "NOT_INITIALIZED",
            Self::WasmTrapped => "WASM_TRAPPED",
            Self::Internal => "INTERNAL",
        }
    }
}

/// What a scan diagnostic is about (`Diagnostic.code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum DiagnosticCode {
    UnsafePath,
    DuplicatePath,
    InvalidMtime,
    InvalidUtf8,
    NotAFile,
    SymlinkEscape,
    Unreadable,
    Vanished,
    HeadMissing,
    FrontmatterMissing,
    FrontmatterUnclosed,
    FrontmatterMalformed,
    FrontmatterRecovered,
    DescriptionMissing,
    DescriptionNotText,
    UnknownType,
}

/// What a doctor finding is about (`Finding.code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum FindingCode {
    IndexMissing,
    IndexOverLines,
    IndexOverSize,
    IndexContent,
    IndexPreamble,
    /// `MEMORY.md` is not in Claude Code's index form (another tool's format): never edited.
    IndexForeignFormat,
    DeadLink,
    DuplicateEntry,
    /// Two adjacent entries link one file with other words (both sides of a merge edited one
    /// entry): `--fix` joins them, every word kept.
    DuplicateLink,
    EntryTooLong,
    OutsideLink,
    OutsideLinkMissing,
    LinkUnverifiable,
    Secret,
    NotIndexed,
    BeyondCap,
    FrontmatterMissing,
    FrontmatterUnclosed,
    FrontmatterLate,
    FrontmatterMalformed,
    FrontmatterRecovered,
    DescriptionMissing,
    DescriptionNotText,
    DescriptionVague,
    DescriptionMultiline,
    UnknownType,
    DuplicateTopic,
    StaleCoreMemory,
    /// `superseded_by` names no memory of the folder (rules §4.7): it replaces nothing.
    SupersessionBroken,
    /// `superseded_by` chains come back to a memory they passed: none of them is replaced.
    SupersessionCycle,
    InvalidUtf8,
    SymlinkEscape,
    NotAFile,
    Unreadable,
    UnsafePath,
    TooLarge,
    TempFile,
    UnreadFiles,
    ClineMemoryBank,
    /// A scan diagnostic with no finding of its own.
    Scan,
}

/// What a listed entry is (`SnapshotEntry.kind`, `FileHead.kind`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum EntryKind {
    #[default]
    File,
    Directory,
    Other,
}
