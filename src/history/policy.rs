//! How much history is kept (rules §4.6): the bounds by size and age, and where a segment ends.

use serde::{Deserialize, Serialize};

/// The history's bounds. The newest segment is never dropped, so the history may exceed
/// `maxBytes` by at most one segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HistoryPolicy {
    /// Earlier contents up to this many bytes are kept inside the record; larger ones (and
    /// bytes that are not UTF-8) go to a blob file.
    pub inline_bytes: u32,
    /// A segment is closed when the next record would take it past this many bytes (a change
    /// rewrites the live segment twice, so this also bounds what a write costs).
    pub segment_bytes: u32,
    /// Segments and blobs together are kept under this many bytes: the oldest segments (and the
    /// blobs of their records) are dropped first.
    pub max_bytes: u32,
    /// Records older than this many days are dropped (a segment at a time, once its newest
    /// record is that old).
    pub max_age_days: u32,
}

impl Default for HistoryPolicy {
    fn default() -> Self {
        Self {
            inline_bytes: 16 * 1024,
            segment_bytes: 64 * 1024,
            max_bytes: 32 * 1024 * 1024,
            max_age_days: 90,
        }
    }
}

use super::journal::id_time;
use super::HISTORY_DIR;
use crate::write::snapshot::Entry;

/// The history files to remove so that the history keeps within `policy`, given the listing of
/// the folder (only entries under the history folder count) and the first record id of the live
/// segment. Closed segments go oldest first, by age then by size; a blob goes with the segments
/// older than its record.
pub fn plan_prune(
    entries: &[Entry],
    live_first_id: Option<&str>,
    now_ms: f64,
    policy: &HistoryPolicy,
) -> Vec<String> {
    let segment_prefix = format!("{HISTORY_DIR}/journal-");
    let blob_prefix = format!("{HISTORY_DIR}/blobs/");
    let mut closed: Vec<(&str, &Entry)> = entries
        .iter()
        .filter_map(|e| {
            let id = e
                .path
                .strip_prefix(&segment_prefix)?
                .strip_suffix(".jsonl")?;
            id_time(id).map(|_| (id, e))
        })
        .collect();
    crate::sort::sort_by(&mut closed, |a, b| a.0.cmp(b.0));
    let blobs: Vec<(&str, &Entry)> = entries
        .iter()
        .filter_map(|e| {
            let name = e.path.strip_prefix(&blob_prefix)?;
            let id = name.get(..21)?;
            id_time(id).map(|_| (id, e))
        })
        .collect();
    let live_bytes: f64 = entries
        .iter()
        .filter(|e| e.path == super::LIVE_SEGMENT)
        .map(|e| e.size)
        .sum();
    let mut total: f64 = live_bytes
        + closed.iter().map(|(_, e)| e.size).sum::<f64>()
        + blobs.iter().map(|(_, e)| e.size).sum::<f64>();
    let oldest_kept_ms = now_ms - f64::from(policy.max_age_days) * 86_400_000.0;
    let mut remove = Vec::new();
    let mut dropped = 0;
    for (i, (_, e)) in closed.iter().enumerate() {
        // every record of this segment is older than the first of the next one: its age is read
        // from the ids (the writers' clock), never from a file time (the host's)
        let next_first = closed
            .get(i + 1)
            .map(|(id, _)| *id)
            .or(live_first_id)
            .unwrap_or("9");
        let too_old = id_time(next_first).is_some_and(|t| t < oldest_kept_ms);
        if !(too_old || total > f64::from(policy.max_bytes)) {
            break;
        }
        // the blobs of this segment's records go with it
        for (id, b) in &blobs {
            if *id < next_first && !remove.contains(&b.path) {
                total -= b.size;
                remove.push(b.path.clone());
            }
        }
        total -= e.size;
        remove.push(e.path.clone());
        dropped = i + 1;
    }
    // blobs older than every kept record (left by an earlier, interrupted prune)
    let first_kept = closed.get(dropped).map(|(id, _)| *id).or(live_first_id);
    if let Some(first) = first_kept {
        for (id, b) in &blobs {
            if *id < first && !remove.contains(&b.path) {
                remove.push(b.path.clone());
            }
        }
    }
    remove
}
