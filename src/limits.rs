//! The hard limits of rules §2, each configurable. Every field names its unit.

use serde::{Deserialize, Serialize};

/// All limits in one value. Missing fields take the defaults of rules §2; unknown fields are an
/// error, so a typo such as `maxIndexBytes` is caught instead of silently ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Limits {
    /// Lines of `MEMORY.md` kept (after trimming), default 200.
    pub max_index_lines: u32,
    /// UTF-16 code units of `MEMORY.md` kept, default 25,000 (what Claude Code measures).
    pub max_index_utf16: u32,
    /// Topic files considered, newest first, default 200.
    pub max_files: u32,
    /// Lines of a topic file read for its frontmatter, default 30.
    pub max_header_lines: u32,
    /// Memories selected per turn, default 5.
    pub max_selected: u32,
    /// Lines of one memory injected, default 200.
    pub max_inject_lines: u32,
    /// UTF-8 bytes of one memory injected, default 4,096.
    pub max_inject_bytes: u32,
    /// UTF-16 code units of memory content surfaced per session, default 61,440.
    pub max_session_utf16: u32,
    /// `max_tokens` of the side query, default 256.
    pub max_output_tokens: u32,
    /// UTF-8 bytes of a file memdir reads whole to edit it (or to `view` it), default 1 MiB.
    /// A larger file is refused (`TOO_LARGE`), never cut: a write never writes back content
    /// it did not read whole. New content past it is refused too.
    pub max_file_bytes: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_index_lines: 200,
            max_index_utf16: 25_000,
            max_files: 200,
            max_header_lines: 30,
            max_selected: 5,
            max_inject_lines: 200,
            max_inject_bytes: 4_096,
            max_session_utf16: 61_440,
            max_output_tokens: 256,
            max_file_bytes: 1 << 20,
        }
    }
}

/// `u32` → `usize` without a cast that clippy would question; wasm32 and 64-bit targets
/// both have `usize` of at least 32 bits.
pub(crate) fn to_usize(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
