//! Memory that keeps itself (rules §4.7): the writers that run without the main model asking —
//! extraction after a turn, consolidation — and the mode each runs in. Their prompts, schemas,
//! the checks of what a model proposes and the plans of the writes are here; JavaScript only
//! sends the requests and applies the plans.

pub mod consolidate;
pub mod extract;
pub mod schedule;
pub mod supersede;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// How an automatic writer may change the memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum KeepMode {
    /// It does not run.
    Off,
    /// It proposes; nothing is written (the default).
    #[default]
    Suggest,
    /// Each proposal is written only once a callback (a prompt, a terminal question) approves it.
    Confirm,
    /// It writes what passes the checks.
    Auto,
}

impl KeepMode {
    /// `off`, `suggest`, `confirm` or `auto`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "off" => Some(Self::Off),
            "suggest" => Some(Self::Suggest),
            "confirm" => Some(Self::Confirm),
            "auto" => Some(Self::Auto),
            _ => None,
        }
    }

    /// [`KeepMode::parse`], or `INVALID_ARGUMENT` naming the four.
    pub fn parse_arg(s: &str, what: &str) -> Result<Self, Error> {
        Self::parse(s).ok_or_else(|| {
            Error::invalid(format!(
                "{what} must be \"off\", \"suggest\", \"confirm\" or \"auto\", got {s:?}"
            ))
        })
    }
}
