//! `memdir doctor` (rules §5): the article's usage rules, checked and explained. Each finding
//! has a code, a file, a line, a severity, a message and, where it is safe, a fix; the fixes
//! are planned in [`fix`] and shown as a diff before anything is written.

mod checks;
mod compact;
pub mod fix;
pub(crate) mod kept_words;
mod remedy;
pub(crate) mod repair;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::limits::Limits;
use crate::scan::Head;
use crate::write::snapshot::Entry;
use crate::write::Snapshot;

/// Days after which a `user` or `feedback` memory is reported as possibly stale.
pub const DEFAULT_STALE_CORE_DAYS: u32 = 90;

/// What doctor looks at: the listing and the whole text of `MEMORY.md` and every topic file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct DoctorInput {
    pub entries: Vec<Entry>,
    /// `MEMORY.md` and the topic files, by relative path (a file that could not be read is absent).
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, Head>>", optional))]
    pub contents: BTreeMap<String, Head>,
    pub now_ms: f64,
    #[serde(default)]
    #[cfg_attr(test, ts(type = "Partial<Limits> | null", optional))]
    pub limits: Option<Limits>,
    /// Default 90.
    #[serde(default)]
    pub stale_core_days: Option<u32>,
    /// Links of `MEMORY.md` that leave the folder (from `outsideLinks`), with whether the host
    /// found them (`null`: it could not look). Such a link is never called dead otherwise.
    #[serde(default)]
    #[cfg_attr(test, ts(as = "Option<BTreeMap<String, Option<bool>>>", optional))]
    pub outside: BTreeMap<String, Option<bool>>,
}

impl DoctorInput {
    pub(crate) fn snapshot(&self) -> Snapshot {
        Snapshot::new(self.entries.clone(), self.contents.clone(), BTreeMap::new())
    }

    fn options(&self) -> Options {
        Options {
            now_ms: self.now_ms,
            limits: self.limits.unwrap_or_default(),
            stale_core_days: self.stale_core_days.unwrap_or(DEFAULT_STALE_CORE_DAYS),
            outside: self.outside.clone(),
        }
    }
}

/// The settings of one doctor run.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub now_ms: f64,
    pub limits: Limits,
    pub stale_core_days: u32,
    pub outside: BTreeMap<String, Option<bool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Finding {
    pub code: crate::codes::FindingCode,
    pub severity: Severity,
    /// Relative path of the file the finding is about.
    pub file: String,
    /// 1-based, where it applies.
    pub line: Option<u32>,
    pub message: String,
    /// What `--fix` would do; `null` when there is no safe fix.
    pub fix: Option<String>,
}

/// Everything doctor found, with counts by severity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DoctorReport {
    pub findings: Vec<Finding>,
    pub errors: u32,
    pub warnings: u32,
    pub infos: u32,
    /// Findings `--fix` can repair.
    pub fixable: u32,
}

impl DoctorReport {
    fn from(findings: Vec<Finding>) -> Self {
        let count = |s: Severity| {
            u32::try_from(findings.iter().filter(|f| f.severity == s).count()).unwrap_or(u32::MAX)
        };
        let fixable =
            u32::try_from(findings.iter().filter(|f| f.fix.is_some()).count()).unwrap_or(u32::MAX);
        Self {
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
            fixable,
            findings,
        }
    }
}

/// Runs every check.
pub fn doctor(input: &DoctorInput) -> DoctorReport {
    report(&input.snapshot(), &input.options())
}

/// The links of an index that leave the memory folder, as written (anchors dropped): a host
/// that can look outside checks them for `DoctorInput.outside`.
pub fn outside_links(index_text: &str) -> Vec<String> {
    let mut links: Vec<String> = crate::write::entry::classify_all(index_text)
        .into_iter()
        .filter_map(|line| match line {
            crate::write::entry::Line::Entry(e) => match e.destination() {
                crate::write::entry::Target::Outside(raw) => Some(raw),
                _ => None,
            },
            _ => None,
        })
        .collect();
    crate::sort::sort(&mut links);
    links.dedup();
    links
}

fn report(snapshot: &Snapshot, options: &Options) -> DoctorReport {
    DoctorReport::from(checks::run(snapshot, options))
}
