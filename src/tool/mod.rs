//! The backend of Anthropic's `memory_20250818` memory tool over the memory directory: the
//! six commands, with the result and error texts of the SDK's reference implementation, and
//! memdir's write rules on top (credentials, the index-only rule, the file cap, and index
//! entries that follow a created, deleted or renamed file).
//!
//! Two steps, so the core decides and the host only reads and writes:
//! [`plan_tool_command`] says which paths to resolve and read; [`run_tool_command`] takes
//! what the host found and returns the result text and the effects to apply.

mod edit;
mod index_line;
mod manage;
mod path;
mod schema;
mod view;

use serde::Serialize;
use serde_json::Value;

use crate::limits::Limits;
use crate::scan::INDEX_FILE_NAME;
use crate::write::{Effect, Snapshot};

pub use path::{display_path, to_relative, MEMORIES_ROOT};
#[cfg(test)]
pub(crate) use schema::SchemaShape;
pub use schema::{input_schema, SchemaOptions};

/// One command, as the model sends it (`input` of the `tool_use` block). Read by hand from
/// the JSON value: serde's internally tagged enums cost ~26 KB of wasm for the same result.
#[derive(Debug, Clone)]
pub enum Command {
    View {
        path: String,
        view_range: Option<Vec<i64>>,
    },
    Create {
        path: String,
        file_text: String,
    },
    StrReplace {
        path: String,
        old_str: String,
        new_str: String,
    },
    Insert {
        path: String,
        insert_line: i64,
        insert_text: String,
    },
    Delete {
        path: String,
    },
    Rename {
        old_path: String,
        new_path: String,
    },
}

/// The model's command as TypeScript sees it: the same six commands as [`Command`], whose
/// decoder reads them by hand from JSON. Only the type generator uses this.
#[cfg(test)]
#[derive(serde::Serialize, ts_rs::TS)]
#[serde(tag = "command", rename_all = "snake_case")]
#[ts(rename = "MemoryToolCommand")]
#[allow(dead_code)]
pub(crate) enum CommandShape {
    View {
        path: String,
        /// `[start, end]`, 1-based; `end` -1 for the end of the file.
        #[ts(optional = nullable)]
        view_range: Option<Vec<i64>>,
    },
    Create {
        path: String,
        file_text: String,
    },
    StrReplace {
        path: String,
        old_str: String,
        /// Default: the empty string (the match is deleted).
        #[ts(optional = nullable)]
        new_str: Option<String>,
    },
    Insert {
        path: String,
        insert_line: i64,
        insert_text: String,
    },
    Delete {
        path: String,
    },
    Rename {
        old_path: String,
        new_path: String,
    },
}

/// What the host must look up before [`run_tool_command`].
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ToolPlan {
    /// Relative paths to resolve through symbolic links (`MemoryHost.resolve`).
    pub resolve: Vec<String>,
    /// Relative paths whose whole content is needed, if they are files.
    pub read: Vec<String>,
    /// How much of the listing the command needs: `kinds` (`create`, `rename`: every entry's
    /// path, kind and problem, its times and sizes not used; the named paths are looked up whole),
    /// `always` (all of it), `ifDirectory` (`view`: only a folder's listing, with sizes), or
    /// `never` (edits of one file, `delete`). A host that cannot resolve links must list anyway:
    /// the listing is how it reports links out.
    pub list: Listing,
    /// Whether the command may write (everything but `view`): the host takes the write lock.
    pub writes: bool,
    /// Set when the command is already answered (a malformed command or a bad path).
    pub result: Option<ToolResult>,
}

/// See [`ToolPlan::list`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Listing {
    #[default]
    Always,
    Kinds,
    IfDirectory,
    Never,
}

/// The answer to one command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ToolResult {
    /// The text for the `tool_result` block.
    pub text: String,
    /// `true` for an error result (`is_error` on the wire).
    pub is_error: bool,
    /// What the host must do, in order, before reporting `text`.
    pub effects: Vec<Effect>,
}

impl ToolResult {
    pub(crate) fn ok(text: impl Into<String>, effects: Vec<Effect>) -> Self {
        Self {
            text: text.into(),
            is_error: false,
            effects,
        }
    }

    pub(crate) fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
            effects: Vec::new(),
        }
    }
}

/// Reads a command from the model's JSON; a malformed one is an error *result*, not an error.
pub fn decode_command(input: &Value) -> Result<Command, ToolResult> {
    let name = input.get("command").and_then(Value::as_str).unwrap_or("");
    if schema::command_spec(name).is_none() {
        return Err(ToolResult::error(format!(
            "Unknown memory command {name:?}: expected one of {}",
            schema::command_names()
        )));
    }
    read_command(name, input)
        .map_err(|e| ToolResult::error(format!("Invalid `{name}` command: {e}")))
}

fn read_command(name: &str, input: &Value) -> Result<Command, String> {
    let text = |key: &str| match input.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        None | Some(Value::Null) => Err(format!("missing field `{key}`")),
        Some(other) => Err(format!("`{key}` must be a string, not {}", kind(other))),
    };
    let integer = |key: &str| match input.get(key) {
        Some(Value::Number(n)) => n
            .as_i64()
            .ok_or_else(|| format!("`{key}` must be a whole number, not {n}")),
        None | Some(Value::Null) => Err(format!("missing field `{key}`")),
        Some(other) => Err(format!(
            "`{key}` must be a whole number, not {}",
            kind(other)
        )),
    };
    Ok(match name {
        "view" => Command::View {
            path: text("path")?,
            view_range: match input.get("view_range") {
                None | Some(Value::Null) => None,
                Some(Value::Array(items)) => Some(
                    items
                        .iter()
                        .map(|v| v.as_i64().ok_or("`view_range` must hold whole numbers"))
                        .collect::<Result<_, _>>()?,
                ),
                Some(other) => {
                    return Err(format!("`view_range` must be a list, not {}", kind(other)))
                }
            },
        },
        "create" => Command::Create {
            path: text("path")?,
            file_text: text("file_text")?,
        },
        "str_replace" => Command::StrReplace {
            path: text("path")?,
            old_str: text("old_str")?,
            new_str: if input.get("new_str").is_none_or(Value::is_null) {
                String::new()
            } else {
                text("new_str")?
            },
        },
        "insert" => Command::Insert {
            path: text("path")?,
            insert_line: integer("insert_line")?,
            insert_text: text("insert_text")?,
        },
        "delete" => Command::Delete {
            path: text("path")?,
        },
        _ => Command::Rename {
            old_path: text("old_path")?,
            new_path: text("new_path")?,
        },
    })
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The paths a command names, as given.
fn named_paths(command: &Command) -> Vec<&str> {
    match command {
        Command::View { path, .. }
        | Command::Create { path, .. }
        | Command::StrReplace { path, .. }
        | Command::Insert { path, .. }
        | Command::Delete { path } => vec![path],
        Command::Rename { old_path, new_path } => vec![old_path, new_path],
    }
}

/// Step 1: which paths the host must resolve and read.
pub fn plan_tool_command(input: &Value) -> ToolPlan {
    let command = match decode_command(input) {
        Ok(c) => c,
        Err(result) => {
            return ToolPlan {
                result: Some(result),
                ..ToolPlan::default()
            }
        }
    };
    let mut plan = ToolPlan::default();
    for given in named_paths(&command) {
        match to_relative(given) {
            Ok(rel) => plan.resolve.push(rel),
            Err(text) => {
                // an answered command asks the host for nothing
                return ToolPlan {
                    result: Some(ToolResult::error(text)),
                    ..ToolPlan::default()
                };
            }
        }
    }
    plan.read = match &command {
        Command::View { .. }
        | Command::StrReplace { .. }
        | Command::Insert { .. }
        | Command::Create { .. } => plan.resolve.clone(),
        Command::Delete { .. } | Command::Rename { .. } => Vec::new(),
    };
    plan.list = match &command {
        Command::View { .. } => Listing::IfDirectory,
        // a delete needs the path's own entry and the index: its entries go by their links
        Command::StrReplace { .. } | Command::Insert { .. } | Command::Delete { .. } => {
            Listing::Never
        }
        // a create counts the topic files (the cap); a rename moves a folder's entries too:
        // neither reads a time or a size but those of the paths it names
        Command::Create { .. } | Command::Rename { .. } => Listing::Kinds,
    };
    plan.writes = !matches!(command, Command::View { .. });
    // edits of the index are checked against it; deletes and renames keep its entries true
    if !plan.read.iter().any(|p| p == INDEX_FILE_NAME) {
        plan.read.push(INDEX_FILE_NAME.to_owned());
    }
    plan.read.retain(|p| !p.is_empty());
    plan
}

/// Step 2: the result text and effects, from what the host found.
pub fn run_tool_command(input: &Value, snapshot: &Snapshot, limits: &Limits) -> ToolResult {
    let plan = plan_tool_command(input);
    if let Some(result) = plan.result {
        return result;
    }
    let Ok(command) = decode_command(input) else {
        return ToolResult::error("Invalid command");
    };
    for (given, rel) in named_paths(&command).into_iter().zip(&plan.resolve) {
        if let Err(text) = path::check_resolved(given, rel, snapshot) {
            return ToolResult::error(text);
        }
    }
    let rel = |i: usize| plan.resolve.get(i).cloned().unwrap_or_default();
    match &command {
        Command::View { path, view_range } => {
            view::view(path, &rel(0), view_range.as_deref(), snapshot, limits)
        }
        Command::Create { path, file_text } => {
            edit::create(path, &rel(0), file_text, snapshot, limits)
        }
        Command::StrReplace {
            path,
            old_str,
            new_str,
        } => edit::str_replace(path, &rel(0), old_str, new_str, snapshot, limits),
        Command::Insert {
            path,
            insert_line,
            insert_text,
        } => edit::insert(path, &rel(0), *insert_line, insert_text, snapshot, limits),
        Command::Delete { path } => manage::delete(path, &rel(0), snapshot, limits),
        Command::Rename { old_path, new_path } => {
            manage::rename(old_path, new_path, &rel(0), &rel(1), snapshot, limits)
        }
    }
}
