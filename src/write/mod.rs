//! The write rules (rules §4): what a write may change, decided before any byte is written.
//! Every function here takes a [`Snapshot`] the host read and returns a plan of
//! [`Effect`]s for the host to apply, in order. A refused write has no effects.

pub mod entry;
pub mod forget;
pub mod frontmatter_edit;
pub mod guard;
pub mod read_plan;
pub mod remember;
pub mod similar;
pub mod snapshot;
pub mod touch;
pub mod yaml;

use serde::{Deserialize, Serialize};

pub use snapshot::Snapshot;

/// An effect as it comes back from JavaScript (the history records the effects a plan gave):
/// one plain shape, read into [`Effect`] — an internally tagged enum would cost the module a
/// buffering deserializer.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EffectIn {
    op: String,
    path: Option<String>,
    text: Option<String>,
    exclusive: Option<bool>,
    from: Option<String>,
    to: Option<String>,
}

impl TryFrom<EffectIn> for Effect {
    type Error = String;
    fn try_from(e: EffectIn) -> Result<Self, String> {
        let need = |v: Option<String>, name: &str| {
            v.ok_or_else(|| format!("a `{}` effect needs `{name}`", e.op))
        };
        match e.op.as_str() {
            "write" => Ok(Effect::Write {
                path: need(e.path.clone(), "path")?,
                text: need(e.text.clone(), "text")?,
                exclusive: e.exclusive.unwrap_or(false),
            }),
            "remove" => Ok(Effect::Remove {
                path: need(e.path.clone(), "path")?,
            }),
            "rename" => Ok(Effect::Rename {
                from: need(e.from.clone(), "from")?,
                to: need(e.to.clone(), "to")?,
            }),
            "copy" => Ok(Effect::Copy {
                from: need(e.from.clone(), "from")?,
                to: need(e.to.clone(), "to")?,
            }),
            other => Err(format!(
                "unknown effect `{other}` (write, remove, rename or copy)"
            )),
        }
    }
}

/// One change for the host to make. Applied in order; each write is atomic on the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", try_from = "EffectIn")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Effect {
    /// Write the whole file (UTF-8). `exclusive`: fail if it exists.
    #[serde(rename_all = "camelCase")]
    Write {
        path: String,
        text: String,
        exclusive: bool,
    },
    /// Remove a file, or a directory and everything in it.
    Remove { path: String },
    /// Rename a file or directory; the destination must not exist.
    Rename { from: String, to: String },
    /// Write `to` with the bytes of `from` (a history blob: `undo` and `restore` of content
    /// the history kept apart).
    Copy { from: String, to: String },
}
