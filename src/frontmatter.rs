//! Frontmatter of a topic file: recognised only when it opens on line 1 and closes within the
//! header lines read (30 by default), vetted, then parsed with `gray_matter` (YAML).
//!
//! YAML can be hostile — aliases expand exponentially ("billion laughs"), deep nesting recurses
//! in a loader — so gray_matter reads it with memdir's own engine (`yaml_engine.rs`), which
//! refuses both in the one iterative pass that builds the value.
//!
//! Frontmatter YAML cannot parse (`name: "Unify the rule" directives need an audit`), even
//! after the reference's quoting retry, is read as a person reads it, one `key: value` entry at
//! a time (`read_by_lines`), with a `frontmatter_recovered` warning: no field that can be read
//! is lost to one line that cannot.

use std::collections::HashMap;

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
    /// `superseded_by`: the newer memory that replaces this one (rules §4.7).
    pub superseded_by: Option<String>,
    /// Problems with individual fields (wrong type value, non-scalar description, …).
    pub notes: Vec<FieldNote>,
    /// How frontmatter that is not valid YAML as written was read anyway; `None` for YAML.
    pub recovered: Option<Recovery>,
    /// Line (1-based) of the closing `---`.
    pub close_line: usize,
}

/// How frontmatter that YAML refuses was read all the same (a `frontmatter_recovered` warning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Parsed after quoting values that held YAML-special characters (the reference's retry:
    /// `description: Deploy: staging first`).
    Quoted,
    /// Read one `key: value` entry at a time, as a person reads it (see `read_by_lines`):
    /// `line` (1-based, in the file) is the first entry YAML could not read, kept as written.
    Lines { line: Option<usize> },
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
        return fields_from(Pod::Hash(map), close_line, None);
    }
    match load_retrying(yaml) {
        Ok((pod, recovered)) => fields_from(pod, close_line, recovered),
        Err(first_error) => {
            // not YAML: read as a person reads it, never losing a field that can be read (what
            // memdir refuses to build, an alias or deep nesting, is not read around)
            if first_error.syntax {
                if let Some(read) = read_by_lines(yaml, 2, 0) {
                    let line = read.first_as_written.or(first_error.line);
                    return fields_from(
                        Pod::Hash(read.map),
                        close_line,
                        Some(Recovery::Lines { line }),
                    );
                }
            }
            Header::Malformed {
                reason: first_error.reason,
                line: first_error.line,
            }
        }
    }
}

/// [`load`], then its retries: YAML separates a key from its value with spaces or tabs,
/// yaml-rust2 with spaces only (a tab in a name or description is folded to a space all the
/// same), so tabs after colons are read as spaces; then the reference's retry, quoting values.
/// The first error when none parses. (These readers are not inlined: their several callers
/// share one copy in the wasm, ~1 KB gzip.)
#[inline(never)]
fn load_retrying(yaml: &str) -> Result<(Pod, Option<Recovery>), YamlError> {
    let first_error = match load(yaml) {
        Ok(pod) => return Ok((pod, None)),
        Err(e) => e,
    };
    let spaced = yaml.replace(":\t", ": ");
    let quoted = quote_plain_values(&spaced);
    for (retry, recovered) in [(spaced, None), (quoted, Some(Recovery::Quoted))] {
        if retry != yaml {
            if let Ok(pod) = load(&retry) {
                return Ok((pod, recovered));
            }
        }
    }
    Err(first_error)
}

/// Nesting the line reader follows (`metadata:` and one more level); deeper blocks are text.
const MAX_LINE_DEPTH: usize = 4;

/// What [`read_by_lines`] read.
struct ReadByLines {
    map: HashMap<String, Pod>,
    /// The file's line (1-based) of the first entry YAML could not read, when one was read as
    /// written.
    first_as_written: Option<usize>,
}

/// Frontmatter YAML refuses, read as a person reads it, so that one line YAML cannot parse
/// (`name: "Unify the rule" directives need a full-surface audit`) does not take every field
/// with it.
///
/// The text is cut into entries: a line at the margin that is `key:` followed by a space, a
/// tab or its end, with the lines below it up to the next such line (indented lines, and lines
/// at the margin that are no key: a value wrapped by hand). Lines before the first key are
/// no field, and are left out. Each entry YAML reads alone (as written, with tabs after colons
/// read as spaces, or with its value quoted, as the reference retries) is read as YAML. Any
/// other entry is read as written ([`written_value`]): the value as it stands on the line, a
/// quote that opens it kept unless a matching quote closes the whole value, a `#` kept (no
/// comment is taken out of a line YAML could not read), the lines below it joined with single
/// spaces; an empty value over an indented block that starts with `key:` is that block, read
/// the same way (a mapping), and anything else under it (a list, wrapped text) is its words on
/// one line. A later key replaces an earlier one, as in the YAML reading. `None` when no line
/// is a key.
///
/// `first_line`: the file's line number (1-based) of `yaml`'s first line.
#[inline(never)]
fn read_by_lines(yaml: &str, first_line: usize, depth: usize) -> Option<ReadByLines> {
    let mut entries: Vec<(usize, &str, Vec<&str>)> = Vec::new();
    for (i, line) in yaml.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        match key_line(line) {
            Some((key, _)) => entries.push((i, key, vec![line])),
            None => {
                if let Some((_, _, lines)) = entries.last_mut() {
                    lines.push(line);
                }
            }
        }
    }
    if entries.is_empty() {
        return None;
    }
    let mut read = ReadByLines {
        map: HashMap::new(),
        first_as_written: None,
    };
    for (i, key, lines) in entries {
        let value = match entry_as_yaml(key, &lines.join("\n")) {
            EntryYaml::Read(value) => value,
            // an alias, nesting too deep: not read around
            EntryYaml::Refused => continue,
            EntryYaml::NotYaml => {
                let mut inner = None;
                let value = written_entry(&lines, first_line + i, depth, &mut inner);
                // the first line read as written: inside the block when its entry is a block
                read.first_as_written
                    .get_or_insert(inner.unwrap_or(first_line + i));
                value
            }
        };
        read.map.insert(key.to_owned(), value);
    }
    Some(read)
}

enum EntryYaml {
    Read(Pod),
    Refused,
    NotYaml,
}

/// One entry (`key: …` and the lines under it) read alone as YAML, with the retries.
fn entry_as_yaml(key: &str, text: &str) -> EntryYaml {
    match load_retrying(text) {
        Ok((Pod::Hash(mut map), _)) if map.len() == 1 => match map.remove(key) {
            Some(value) => EntryYaml::Read(value),
            None => EntryYaml::NotYaml,
        },
        Ok(_) => EntryYaml::NotYaml,
        Err(e) if !e.syntax => EntryYaml::Refused,
        Err(_) => EntryYaml::NotYaml,
    }
}

/// `key: rest` at the margin: the key (no longer than a memory's keys get, starting with a
/// letter, a digit or `_`) and the text after its colon; `None` for any other line.
fn key_line(line: &str) -> Option<(&str, &str)> {
    // the first colon followed by a space, a tab or the end of the line
    let colon = line.char_indices().find_map(|(i, c)| {
        let after = line.get(i + 1..)?;
        (c == ':' && (after.is_empty() || after.starts_with(blank))).then_some(i)
    })?;
    let key = line.get(..colon)?.trim_end_matches(blank);
    let first = key.chars().next()?;
    if key.len() > 128 || !(first.is_ascii_alphanumeric() || first == '_' || !first.is_ascii()) {
        return None;
    }
    Some((key, line.get(colon + 1..)?))
}

/// An entry YAML could not read, as written: see [`read_by_lines`]. `at`: the file's line of
/// its first line; `first_as_written` gets the first line of a block under it read as written.
#[inline(never)]
fn written_entry(
    lines: &[&str],
    at: usize,
    depth: usize,
    first_as_written: &mut Option<usize>,
) -> Pod {
    let rest = lines
        .first()
        .and_then(|l| key_line(l))
        .map_or("", |(_, rest)| rest.trim_matches(blank));
    // the lines under the key that hold words (no blank line, no comment), trimmed
    let below: Vec<&str> = lines
        .iter()
        .skip(1)
        .map(|l| l.trim_matches(blank))
        .filter(|t| !t.is_empty() && !t.starts_with('#'))
        .collect();
    if rest.is_empty() {
        // a block indented under the key that starts with a key: read the same way
        let start = lines
            .iter()
            .skip(1)
            .position(|l| !l.trim_matches(blank).is_empty())
            .map_or(0, |p| p + 1);
        let first = lines.get(start).copied().unwrap_or_default();
        let indent = first.len() - first.trim_start_matches(blank).len();
        if start > 0
            && indent > 0
            && depth < MAX_LINE_DEPTH
            && key_line(first.get(indent..).unwrap_or_default()).is_some()
        {
            // blank lines and comments kept, so its lines keep their numbers
            let block: Vec<&str> = lines
                .iter()
                .skip(start)
                .map(|l| dedent(l, indent))
                .collect();
            if let Some(inner) = read_by_lines(&block.join("\n"), at + start, depth + 1) {
                if let Some(line) = inner.first_as_written {
                    first_as_written.get_or_insert(line);
                }
                return Pod::Hash(inner.map);
            }
        }
        // anything else under it (a list, wrapped text): its words, on one line
        return match below.join(" ") {
            text if text.is_empty() => Pod::Null,
            text => Pod::String(text),
        };
    }
    // `|` or `>`: the text is the lines below, kept on their lines or folded
    let mut indicator = rest.chars();
    if matches!(indicator.next(), Some('|' | '>'))
        && indicator.all(|c| matches!(c, '+' | '-' | '1'..='9'))
    {
        let separator = if rest.starts_with('|') { "\n" } else { " " };
        return Pod::String(below.join(separator));
    }
    let mut text = rest.to_owned();
    for word in below {
        text.push(' ');
        text.push_str(word);
    }
    Pod::String(written_value(&text))
}

/// A space or a tab: what separates and indents in a frontmatter line.
fn blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// `line` with up to `indent` spaces or tabs taken off its start.
fn dedent(line: &str, indent: usize) -> &str {
    let mut out = line;
    for _ in 0..indent {
        match out.strip_prefix(blank) {
            Some(rest) => out = rest,
            None => break,
        }
    }
    out
}

/// A value YAML could not read, as a person reads it: the quotes that wrap the whole of it
/// taken off (`"…"` whose quotes inside are all escaped, read with `\"` as `"`; `'…'` whose
/// quotes inside are doubled or apostrophes between letters, read with `''` as `'`), else
/// exactly as written, quotes and all (`"Unify the rule" directives need a full-surface audit`).
fn written_value(value: &str) -> String {
    let inner = value
        .get(1..value.len().saturating_sub(1))
        .filter(|_| value.len() >= 2);
    let b = value.as_bytes();
    match (b.first(), b.last(), inner) {
        (Some(b'"'), Some(b'"'), Some(inner)) => {
            // every quote inside escaped: one string
            let mut escaped = false;
            let mut one = true;
            for &c in inner.as_bytes() {
                if c == b'"' && !escaped {
                    one = false;
                    break;
                }
                escaped = c == b'\\' && !escaped;
            }
            if one && !escaped {
                return inner.replace("\\\"", "\"");
            }
        }
        (Some(b'\''), Some(b'\''), Some(inner)) => {
            // every quote inside doubled, or an apostrophe between two letters (`'it's here'`)
            let b = inner.as_bytes();
            let letter = |i: Option<usize>| {
                i.and_then(|i| b.get(i))
                    .is_some_and(|&c| c.is_ascii_alphanumeric() || c >= 0x80)
            };
            let mut i = 0;
            let mut one = true;
            while let Some(&c) = b.get(i) {
                if c == b'\'' {
                    if b.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    if !(letter(i.checked_sub(1)) && letter(Some(i + 1))) {
                        one = false;
                        break;
                    }
                }
                i += 1;
            }
            if one {
                return inner.replace("''", "'");
            }
        }
        _ => {}
    }
    value.to_owned()
}

/// Parses the YAML through gray_matter, with the vetting engine ([`VettedYaml`]): aliases and
/// deep nesting are refused in the same single pass that builds the value.
#[inline(never)]
pub fn load(yaml: &str) -> Result<Pod, YamlError> {
    let wrapped = format!("---\n{yaml}\n---\n");
    match Matter::<VettedYaml>::new().parse::<Pod>(&wrapped) {
        Ok(parsed) => Ok(parsed.data.unwrap_or(Pod::Null)),
        // the engine's own error carries the line in the YAML's numbering
        Err(e) => Err(parse_yaml(yaml).err().unwrap_or(YamlError {
            reason: e.to_string(),
            line: None,
            syntax: true,
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

fn fields_from(pod: Pod, close_line: usize, recovered: Option<Recovery>) -> Header {
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
    fields.superseded_by = scalar(map.get("superseded_by"))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty());
    let metadata = match map.get("metadata") {
        Some(Pod::Hash(m)) => Some(m),
        _ => None,
    };
    fields.metadata = metadata.map(hash_to_json);
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
        Pod::Hash(map) => Value::Object(hash_to_json(map)),
    }
}

/// A YAML mapping as a JSON object, built by insertion: a `collect` into the object compiles
/// its own copy of the standard sort.
fn hash_to_json(map: &HashMap<String, Pod>) -> serde_json::Map<String, serde_json::Value> {
    let mut object = serde_json::Map::new();
    for (k, v) in map {
        object.insert(k.clone(), pod_to_json(v));
    }
    object
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
        assert_eq!(f.recovered, None, "valid YAML is not a recovery");
        // a tab inside a quoted value is the value's own
        let f = fields("---\nname: x\ndescription: \"a\\tb: c\"\n---\n");
        assert_eq!(f.description.as_deref(), Some("a b: c"));
    }

    fn lines_read(f: &Fields) -> Option<usize> {
        match f.recovered {
            Some(Recovery::Lines { line }) => line,
            other => unreachable!("read by lines, not {other:?}"),
        }
    }

    #[test]
    fn a_value_that_starts_with_a_quoted_phrase_and_goes_on_keeps_every_field() {
        // invalid YAML (a quoted scalar, then more words), read by a person and by Claude
        let f = fields("---\nname: \"Unify the rule\" directives need a full-surface audit\ndescription: The rule is split across three files\ntype: feedback\n---\nbody\n");
        assert_eq!(
            f.name.as_deref(),
            Some("\"Unify the rule\" directives need a full-surface audit"),
            "kept as written, quotes and all"
        );
        assert_eq!(
            f.description.as_deref(),
            Some("The rule is split across three files")
        );
        assert_eq!(f.memory_type, Some(MemoryType::Feedback));
        assert_eq!(lines_read(&f), Some(2), "the line YAML could not read");
        // the same in the description, with current Claude Code's metadata block under it
        let f = fields("---\nname: Rule audit\ndescription: \"Unify the rule\" directives need a full-surface audit\nmetadata:\n  node_type: memory\n  type: project\n  originSessionId: 5b0c\n---\n");
        assert_eq!(
            f.description.as_deref(),
            Some("\"Unify the rule\" directives need a full-surface audit")
        );
        assert_eq!(f.memory_type, Some(MemoryType::Project));
        assert_eq!(lines_read(&f), Some(3));
        let metadata = f.metadata.unwrap_or_default();
        assert_eq!(metadata.get("originSessionId"), Some(&"5b0c".into()));
    }

    #[test]
    fn what_yaml_reads_alone_is_read_as_yaml_and_the_rest_as_written() {
        let f = fields("---\nname: \"Q\" rest\ndescription: Fix: use the pool\ntype:\tuser\n---\n");
        assert_eq!(f.name.as_deref(), Some("\"Q\" rest"));
        assert_eq!(
            f.description.as_deref(),
            Some("Fix: use the pool"),
            "quoted as the reference retries"
        );
        assert_eq!(
            f.memory_type,
            Some(MemoryType::User),
            "a tab after the colon"
        );
        // unbalanced quotes: as written
        let f = fields("---\nname: x\ndescription: \"Starts but never ends\ntype: user\n---\n");
        assert_eq!(f.description.as_deref(), Some("\"Starts but never ends"));
        assert_eq!(f.memory_type, Some(MemoryType::User));
        assert_eq!(lines_read(&f), Some(3));
        // a `#` in a value YAML cannot read is no comment; a tab inside is folded
        let f = fields("---\nname: \"Ticket\" blocks #42\tand more\ntype: project\n---\n");
        assert_eq!(f.name.as_deref(), Some("\"Ticket\" blocks #42 and more"));
        // the quotes that wrap a whole value come off: a bad escape, apostrophes
        let f =
            fields("---\nname: \"C:\\path\\new\"\ndescription: 'it's Bob's'\ntype: user\n---\n");
        assert_eq!(f.name.as_deref(), Some("C:\\path\\new"));
        assert_eq!(f.description.as_deref(), Some("it's Bob's"));
        // wrapped by hand: the lines below join the value
        let f = fields("---\ndescription: \"Q\" wraps\n  onto the next line\nand the margin\ntype: user\n---\n");
        assert_eq!(
            f.description.as_deref(),
            Some("\"Q\" wraps onto the next line and the margin")
        );
        assert_eq!(f.memory_type, Some(MemoryType::User));
    }

    #[test]
    fn a_block_under_a_key_is_read_the_same_way() {
        // indented with tabs (not YAML), one of its values not YAML either
        let f = fields("---\nname: \"Q\" x\nmetadata:\n\tnode_type: memory\n\ttype: feedback\n\tnote: \"a\" b\n---\n");
        assert_eq!(f.memory_type, Some(MemoryType::Feedback));
        assert_eq!(lines_read(&f), Some(2));
        let metadata = f.metadata.unwrap_or_default();
        assert_eq!(metadata.get("note"), Some(&"\"a\" b".into()));
        assert_eq!(metadata.get("node_type"), Some(&"memory".into()));
        // the first line YAML could not read, inside the block
        let f = fields("---\nname: x\nmetadata:\n  type: user\n\n  note: \"a\" b\n---\n");
        assert_eq!(f.memory_type, Some(MemoryType::User));
        assert_eq!(lines_read(&f), Some(6));
    }

    #[test]
    fn crlf_and_a_bom_do_not_change_the_reading() {
        let lf = fields("---\nname: \"Q\" x\ndescription: d\ntype: user\n---\n");
        let crlf = fields("---\r\nname: \"Q\" x\r\ndescription: d\r\ntype: user\r\n---\r\n");
        assert_eq!(
            (lf.name, lf.description, lf.memory_type),
            (crlf.name, crlf.description, crlf.memory_type)
        );
    }

    #[test]
    fn what_memdir_refuses_and_what_has_no_key_stay_malformed() {
        let deep = format!("name: x\ndescription: {}", "[".repeat(5000));
        for yaml in [
            "a: &x 1\nb: *x\nname: \"q\" x",
            "{unclosed",
            "\"Title\" only",
            &deep,
        ] {
            let head = format!("---\n{yaml}\n---\n");
            assert!(
                matches!(parse_header(&head, 30), Header::Malformed { .. }),
                "{yaml:?}"
            );
        }
        // valid YAML is YAML: a comment is a comment
        let f = fields("---\nname: Issue#42 # a note\ndescription: \"Ticket\" # quoted\n---\n");
        assert_eq!(f.name.as_deref(), Some("Issue#42"));
        assert_eq!(f.description.as_deref(), Some("Ticket"));
        assert_eq!(f.recovered, None);
    }

    /// A line YAML cannot read, or a line at the margin that is no key.
    fn broken_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::strategy::Strategy;
        proptest::sample::select(vec![
            "name: \"Unify the rule\" directives need an audit",
            "description: \"unbalanced",
            "title: 'a' b",
            "k: [unclosed",
            "k: {x",
            "  indented: \"q\" x",
            "- item",
            "\"quoted\" text",
            "x: y: z",
            "metadata:\n\ttype: user",
            "@at: x",
            "k: a\tb \"q\" c",
        ])
        .prop_map(str::to_owned)
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { failure_persistence: None, cases: 2000, ..Default::default() })]

        /// Every `key: words` line followed by another key (or the end) keeps its words, whatever
        /// YAML cannot read around it; no text makes the reader fail.
        #[test]
        fn every_readable_field_is_kept(
            plain in proptest::collection::vec("[a-z][a-z0-9 ,.()/]{0,20}[a-z0-9]", 1..5),
            broken in proptest::collection::vec(broken_line(), 1..4),
            order in proptest::collection::vec(proptest::num::usize::ANY, 0..8),
        ) {
            let mut lines: Vec<(Option<(String, String)>, String)> = plain
                .iter()
                .enumerate()
                .map(|(i, v)| (Some((format!("key{i}"), v.clone())), format!("key{i}: {v}")))
                .collect();
            for (b, at) in broken.iter().zip(order.iter().chain(std::iter::repeat(&0))) {
                lines.insert(at % (lines.len() + 1), (None, b.clone()));
            }
            let yaml = lines.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join("\n");
            let head = format!("---\n{yaml}\n---\n");
            let header = parse_header(&head, 60);
            if let Some(read) = read_by_lines(&yaml, 2, 0) {
                for (i, (plain, _)) in lines.iter().enumerate() {
                    let Some((key, value)) = plain else { continue };
                    // lines below at the margin that are no key join the value, as written
                    let next = lines.get(i + 1).map(|(_, l)| l.as_str());
                    if next.is_none_or(|l| key_line(l).is_some()) {
                        let expected = crate::yaml_engine::resolve_plain(value.clone());
                        proptest::prop_assert_eq!(read.map.get(key), Some(&expected), "{}", yaml);
                    }
                }
                proptest::prop_assert!(matches!(header, Header::Parsed(_)), "{:?}", header);
            }
        }
    }
}
