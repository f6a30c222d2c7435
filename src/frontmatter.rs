//! Frontmatter of a topic file: recognised only when it opens on line 1 and closes within the
//! header lines read (30 by default), vetted, then parsed with `gray_matter` (YAML).
//!
//! YAML can be hostile — aliases expand exponentially ("billion laughs"), deep nesting recurses
//! in a loader — so gray_matter reads it with memdir's own engine (`yaml_engine.rs`), which
//! refuses both in the one iterative pass that builds the value.

use gray_matter::{Matter, Pod};
use serde::{Deserialize, Serialize};

use crate::frontmatter_simple::simple_mapping;
use crate::yaml_engine::{parse_yaml, VettedYaml, YamlError};

use crate::text::fold_whitespace;

/// Frontmatter larger than this is refused unparsed (a memory's header is a few lines).
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;
pub use crate::yaml_engine::MAX_YAML_DEPTH;

/// The four memory types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum MemoryType {
    User,
    Feedback,
    Project,
    Reference,
}

impl MemoryType {
    /// Every type, in the order the reference lists them.
    pub const ALL: [Self; 4] = [Self::User, Self::Feedback, Self::Project, Self::Reference];

    /// Exactly one of `user | feedback | project | reference`, else `None`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "user" => Some(Self::User),
            "feedback" => Some(Self::Feedback),
            "project" => Some(Self::Project),
            "reference" => Some(Self::Reference),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Feedback => "feedback",
            Self::Project => "project",
            Self::Reference => "reference",
        }
    }
}

/// The fields memdir reads from frontmatter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields {
    pub name: Option<String>,
    /// Folded to one line.
    pub description: Option<String>,
    /// Only one of the four types: the top-level `type`, else `metadata.type` (the form
    /// current Claude Code writes).
    pub memory_type: Option<MemoryType>,
    /// The `metadata:` block as written (`node_type`, `type`, `originSessionId`, `modified`, …).
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// `metadata.modified` (ISO 8601) in ms since the epoch, when it is a valid time.
    pub modified_ms: Option<f64>,
    /// Problems with individual fields (wrong type value, non-scalar description, …).
    pub notes: Vec<FieldNote>,
    /// Parsed only after quoting values that held YAML-special characters (the reference's retry).
    pub recovered: bool,
    /// Line (1-based) of the closing `---`.
    pub close_line: usize,
}

/// A problem with one field: a diagnostic code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldNote {
    pub code: crate::codes::DiagnosticCode,
    pub message: String,
}

/// What the head of a file holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Header {
    /// Line 1 is not `---`.
    Missing,
    /// Opens on line 1 but does not close within the lines read.
    Unclosed {
        max_lines: usize,
        /// Lines the head had: fewer than `max_lines` means the file ends unclosed.
        read_lines: usize,
    },
    /// Opens and closes, but cannot be used; `line` is 1-based where known.
    Malformed {
        reason: String,
        line: Option<usize>,
    },
    Parsed(Fields),
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches(crate::text::is_js_whitespace) == "---"
}

/// Reads the frontmatter from the first `max_lines` lines of `head` (already BOM- and
/// CRLF-normalised).
pub fn parse_header(head: &str, max_lines: usize) -> Header {
    let mut lines = head.split('\n').take(max_lines);
    if !lines.next().is_some_and(is_delimiter) {
        return Header::Missing;
    }
    // the YAML is the lines between the delimiters: a slice of `head`, from line 2 to the
    // end of the line before the closing one
    let yaml_start = head.find('\n').map_or(head.len(), |n| n + 1);
    let mut yaml_end = yaml_start;
    let mut offset = yaml_start;
    let mut close_line = None;
    for (i, line) in lines.enumerate() {
        if is_delimiter(line) {
            close_line = Some(i + 2);
            break;
        }
        offset += line.len();
        yaml_end = offset;
        offset += 1;
    }
    let Some(close_line) = close_line else {
        let read_lines = head.split('\n').take(max_lines).count();
        return Header::Unclosed {
            max_lines,
            read_lines,
        };
    };
    let yaml = head.get(yaml_start..yaml_end.max(yaml_start)).unwrap_or("");
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Header::Malformed {
            reason: format!(
                "frontmatter is {} bytes, over the {MAX_FRONTMATTER_BYTES}-byte limit",
                yaml.len()
            ),
            line: Some(1),
        };
    }
    // the common shape without the parser; anything else through it
    if let Some(map) = simple_mapping(yaml) {
        return fields_from(Pod::Hash(map), close_line, false);
    }
    match load(yaml) {
        Ok(pod) => fields_from(pod, close_line, false),
        Err(first_error) => {
            // YAML separates a key from its value with spaces or tabs, yaml-rust2 with spaces
            // only (a tab in a name or description is folded to a space all the same); then
            // the reference's retry
            let spaced = yaml.replace(":\t", ": ");
            let quoted = quote_plain_values(&spaced);
            for (retry, recovered) in [(spaced, false), (quoted, true)] {
                if retry != yaml {
                    if let Ok(pod) = load(&retry) {
                        return fields_from(pod, close_line, recovered);
                    }
                }
            }
            Header::Malformed {
                reason: first_error.reason,
                line: first_error.line,
            }
        }
    }
}

/// Parses the YAML through gray_matter, with the vetting engine ([`VettedYaml`]): aliases and
/// deep nesting are refused in the same single pass that builds the value.
pub fn load(yaml: &str) -> Result<Pod, YamlError> {
    let wrapped = format!("---\n{yaml}\n---\n");
    match Matter::<VettedYaml>::new().parse::<Pod>(&wrapped) {
        Ok(parsed) => Ok(parsed.data.unwrap_or(Pod::Null)),
        // the engine's own error carries the line in the YAML's numbering
        Err(e) => Err(parse_yaml(yaml).err().unwrap_or(YamlError {
            reason: e.to_string(),
            line: None,
        })),
    }
}

/// The reference retries a failed parse after quoting values with YAML-special characters
/// (`description: Deploy: staging first`). Top-level `key: value` lines only.
fn quote_plain_values(yaml: &str) -> String {
    yaml.split('\n')
        .map(|line| {
            let Some((key, value)) = line.split_once(": ") else {
                return line.to_owned();
            };
            let value = value.trim();
            let plain_key = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            let already = value.is_empty()
                || value.starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!']);
            if !plain_key || already {
                return line.to_owned();
            }
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            format!("{key}: \"{escaped}\"")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn fields_from(pod: Pod, close_line: usize, recovered: bool) -> Header {
    let map = match pod {
        Pod::Hash(map) => map,
        Pod::Null => Default::default(),
        _ => {
            return Header::Malformed {
                reason: "frontmatter is not a mapping of fields".into(),
                line: Some(2),
            };
        }
    };
    let mut fields = Fields {
        recovered,
        close_line,
        ..Fields::default()
    };
    fields.name = scalar(map.get("name"))
        .map(|s| fold_whitespace(&s))
        .filter(|s| !s.is_empty());
    match map.get("description") {
        None | Some(Pod::Null) => {}
        Some(value) => match scalar(Some(value)) {
            Some(text) => {
                fields.description = Some(fold_whitespace(&text)).filter(|s| !s.is_empty())
            }
            None => fields.notes.push(FieldNote {
                code: crate::codes::DiagnosticCode::DescriptionNotText,
                message: "description is a list or a mapping, not one line of text".into(),
            }),
        },
    }
    let metadata = match map.get("metadata") {
        Some(Pod::Hash(m)) => Some(m),
        _ => None,
    };
    fields.metadata =
        metadata.map(|m| m.iter().map(|(k, v)| (k.clone(), pod_to_json(v))).collect());
    fields.modified_ms = metadata
        .and_then(|m| scalar(m.get("modified")))
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s.trim()).ok())
        .map(|t| t.timestamp_millis() as f64);
    // the top-level type wins; current Claude Code writes it inside `metadata:`
    let type_value = match map.get("type") {
        None | Some(Pod::Null) => metadata.and_then(|m| m.get("type")),
        top => top,
    };
    match type_value {
        None | Some(Pod::Null) => {}
        Some(value) => {
            let raw = scalar(Some(value)).unwrap_or_default();
            fields.memory_type = MemoryType::parse(raw.trim());
            if fields.memory_type.is_none() {
                fields.notes.push(FieldNote {
                    code: crate::codes::DiagnosticCode::UnknownType,
                    message: format!(
                        "type {raw:?} is not one of user, feedback, project, reference"
                    ),
                });
            }
        }
    }
    Header::Parsed(fields)
}

/// A YAML value as JSON, for the fields memdir keeps but does not read.
fn pod_to_json(value: &Pod) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Pod::Null => Value::Null,
        Pod::String(s) => Value::String(s.clone()),
        Pod::Integer(i) => Value::from(*i),
        Pod::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Pod::Boolean(b) => Value::Bool(*b),
        Pod::Array(items) => Value::Array(items.iter().map(pod_to_json).collect()),
        Pod::Hash(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), pod_to_json(v)))
                .collect(),
        ),
    }
}

fn scalar(value: Option<&Pod>) -> Option<String> {
    match value? {
        Pod::String(s) => Some(s.clone()),
        Pod::Integer(i) => Some(i.to_string()),
        Pod::Float(f) => Some(f.to_string()),
        Pod::Boolean(b) => Some(b.to_string()),
        Pod::Null | Pod::Array(_) | Pod::Hash(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(head: &str) -> Fields {
        match parse_header(head, 30) {
            Header::Parsed(f) => f,
            other => unreachable!("parsed, not {other:?}"),
        }
    }

    #[test]
    fn a_tab_after_the_colon_separates_as_a_space_does() {
        let f = fields("---\nname:\tTabbed\ndescription: \tDeploys on Tuesdays\ntype:\tproject\nmetadata:\n  node_type:\tmemory\n---\n");
        assert_eq!(f.name.as_deref(), Some("Tabbed"));
        assert_eq!(f.description.as_deref(), Some("Deploys on Tuesdays"));
        assert_eq!(f.memory_type, Some(MemoryType::Project));
        assert!(!f.recovered, "valid YAML is not a recovery");
        // a tab inside a quoted value is the value's own
        let f = fields("---\nname: x\ndescription: \"a\\tb: c\"\n---\n");
        assert_eq!(f.description.as_deref(), Some("a b: c"));
    }
}
