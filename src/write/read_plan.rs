//! What a host must read before a write or a doctor run: decided here, like the memory tool's
//! plan, so no host hard-codes which files a rule needs.

use serde::Serialize;

use crate::limits::Limits;
use crate::scan::INDEX_FILE_NAME;

/// What to read, for `takeSnapshot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ReadPlan {
    /// Whole files to read, when they exist.
    pub read: Vec<String>,
    /// Paths to resolve through symbolic links (`MemoryHost.resolve`).
    pub resolve: Vec<String>,
    /// Also read this many first lines of every topic file (the duplicate checks).
    pub heads: Option<u32>,
    /// Read every topic file whole (doctor).
    pub all_topics: bool,
    /// Read whole files up to this many bytes: one past `maxFileBytes`, so that a longer file
    /// shows as not read whole and is refused rather than cut.
    pub read_bytes: u32,
}

/// Bytes of a file to read whole: one past `maxFileBytes`.
pub fn file_read_bytes(limits: &Limits) -> u32 {
    limits.max_file_bytes.saturating_add(1)
}

/// `remember`: the index whole, the heads of every topic file, and where the index and the
/// file written (when named) really are; the memory it supersedes (when named) whole.
pub fn remember_read_plan(
    file: Option<&str>,
    supersedes: Option<&str>,
    limits: &Limits,
) -> ReadPlan {
    let mut resolve = vec![INDEX_FILE_NAME.to_owned()];
    resolve.extend(file.filter(|f| !f.is_empty()).map(str::to_owned));
    let mut read = vec![INDEX_FILE_NAME.to_owned()];
    if let Some(old) = supersedes.filter(|f| !f.is_empty()) {
        read.push(old.to_owned());
        resolve.push(old.to_owned());
    }
    ReadPlan {
        read,
        resolve,
        heads: Some(limits.max_header_lines),
        all_topics: false,
        read_bytes: file_read_bytes(limits),
    }
}

/// `forget`: the index whole, and where it and the file really are.
pub fn forget_read_plan(file: &str, limits: &Limits) -> ReadPlan {
    ReadPlan {
        read: vec![INDEX_FILE_NAME.to_owned()],
        resolve: vec![INDEX_FILE_NAME.to_owned(), file.to_owned()],
        heads: None,
        all_topics: false,
        read_bytes: file_read_bytes(limits),
    }
}

/// doctor: the index and every topic file, whole.
pub fn doctor_read_plan(limits: &Limits) -> ReadPlan {
    ReadPlan {
        read: vec![INDEX_FILE_NAME.to_owned()],
        resolve: Vec::new(),
        heads: None,
        all_topics: true,
        read_bytes: file_read_bytes(limits),
    }
}
