//! When consolidation runs on its own (rules §4.7), as Claude Code's auto-dream decides: enough
//! time since the last run and enough sessions since, both configurable. The state is kept in
//! `.memdir/consolidate.json` by the JavaScript layer; the decision is here.

use serde::{Deserialize, Serialize};

/// What the folder remembers of consolidation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ConsolidationState {
    /// When the last run finished (ms since the epoch); none yet when absent.
    #[serde(default)]
    pub last_run_ms: Option<f64>,
    /// Sessions opened since.
    #[serde(default)]
    pub sessions_since: u32,
}

/// How often: at least `minHours` since the last run and `minSessions` sessions since.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ConsolidationSchedule {
    #[serde(default = "default_hours")]
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub min_hours: f64,
    #[serde(default = "default_sessions")]
    #[cfg_attr(test, ts(as = "Option<u32>", optional))]
    pub min_sessions: u32,
}

fn default_hours() -> f64 {
    24.0
}
fn default_sessions() -> u32 {
    5
}

impl Default for ConsolidationSchedule {
    fn default() -> Self {
        Self {
            min_hours: default_hours(),
            min_sessions: default_sessions(),
        }
    }
}

/// Whether a run is due, and why (or why not).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ConsolidationDue {
    pub due: bool,
    pub reason: String,
}

/// The decision. A first run waits for the sessions only; a clock gone backwards waits.
pub fn consolidation_due(
    state: &ConsolidationState,
    now_ms: f64,
    schedule: &ConsolidationSchedule,
) -> ConsolidationDue {
    let sessions = state.sessions_since;
    if sessions < schedule.min_sessions {
        return ConsolidationDue {
            due: false,
            reason: format!(
                "{sessions} of {} sessions since the last run",
                schedule.min_sessions
            ),
        };
    }
    if let Some(last) = state.last_run_ms.filter(|l| l.is_finite()) {
        let hours = (now_ms - last) / 3_600_000.0;
        // NaN (a bad time) waits too
        if hours.is_nan() || hours < schedule.min_hours {
            return ConsolidationDue {
                due: false,
                reason: format!(
                    "{:.1} of {} hours since the last run",
                    hours.max(0.0),
                    schedule.min_hours
                ),
            };
        }
    }
    ConsolidationDue {
        due: true,
        reason: format!(
            "{sessions} sessions and {} hours or more since the last run",
            schedule.min_hours
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_and_sessions_both() {
        let s = ConsolidationSchedule::default();
        let due = |last: Option<f64>, sessions: u32, now: f64| {
            consolidation_due(
                &ConsolidationState {
                    last_run_ms: last,
                    sessions_since: sessions,
                },
                now,
                &s,
            )
            .due
        };
        assert!(!due(None, 4, 0.0));
        assert!(due(None, 5, 0.0));
        assert!(!due(Some(0.0), 9, 23.0 * 3_600_000.0));
        assert!(due(Some(0.0), 5, 24.0 * 3_600_000.0));
        assert!(!due(Some(1e13), 9, 0.0), "a clock gone backwards waits");
    }
}
