//! Frontmatter memdir writes: YAML that parses back to exactly what was given.

use crate::frontmatter::{parse_header, Header, MemoryType};

/// `s` as a YAML scalar: plain when that is unambiguous, else double-quoted (a JSON string is
/// a valid YAML double-quoted scalar).
pub fn scalar(s: &str) -> String {
    if is_plain_safe(s) {
        s.to_owned()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
    }
}

fn is_plain_safe(s: &str) -> bool {
    const RESERVED: &[&str] = &[
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~",
    ];
    let Some(first) = s.chars().next() else {
        return false;
    };
    first.is_alphabetic()
        && !s.ends_with(' ')
        && s.chars()
            .all(|c| c.is_alphanumeric() || " -_.,()/'?+".contains(c))
        && !RESERVED.contains(&s.to_ascii_lowercase().as_str())
}

/// The `metadata:` block of a topic file, in the form current Claude Code writes.
#[derive(Debug, Clone, Default)]
pub struct TopicMeta {
    /// `originSessionId`: the conversation that wrote the memory.
    pub session_id: Option<String>,
    /// `modified`, in ms since the epoch.
    pub modified_ms: Option<f64>,
    /// Other fields of an existing block, kept as they were.
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// A topic file as current Claude Code writes it — `name`, `description`, then `type` inside
/// a `metadata:` block with `node_type: memory` (and `originSessionId`, `modified`, and any
/// other field the file had) — then the body. Every value is checked to read back.
pub fn topic_file(
    name: &str,
    description: &str,
    memory_type: MemoryType,
    meta: &TopicMeta,
    body: &str,
) -> String {
    let text = |quote: fn(&str) -> String| {
        let mut out = format!(
            "---\nname: {}\ndescription: {}\nmetadata:\n  node_type: memory\n  type: {}\n",
            quote(name),
            quote(description),
            memory_type.as_str(),
        );
        if let Some(id) = &meta.session_id {
            // a UUID is plain in YAML (its dashes make it neither a number nor a date)
            let id = if is_uuid(id) { id.clone() } else { quote(id) };
            out.push_str(&format!("  originSessionId: {id}\n"));
        }
        if let Some(ms) = meta.modified_ms {
            out.push_str(&format!("  modified: {}\n", crate::manifest::iso_time(ms)));
        }
        for (key, value) in &meta.other {
            let plain_key = !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if plain_key
                && !matches!(
                    key.as_str(),
                    "node_type" | "type" | "originSessionId" | "modified"
                )
            {
                let value = match value {
                    serde_json::Value::String(s) => quote(s),
                    other => other.to_string(), // JSON is YAML flow style
                };
                out.push_str(&format!("  {key}: {value}\n"));
            }
        }
        out.push_str(&format!("---\n\n{}\n", body.trim_end()));
        out
    };
    let plain = text(scalar);
    if reads_back(&plain, name, description, memory_type) {
        return plain;
    }
    text(|s| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned()))
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

fn reads_back(text: &str, name: &str, description: &str, memory_type: MemoryType) -> bool {
    matches!(parse_header(text, 30), Header::Parsed(f)
        if f.name.as_deref() == Some(name)
            && f.description.as_deref() == Some(description)
            && f.memory_type == Some(memory_type))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_what_yaml_would_misread() {
        assert_eq!(scalar("Testing policy"), "Testing policy");
        for tricky in [
            "yes",
            "1.5",
            "a: b",
            "#x",
            "- x",
            "it's \"q\"",
            "[x]",
            "x #y",
            "@x",
            "*a",
        ] {
            assert!(
                scalar(tricky).starts_with('"') || !tricky.contains([':', '#', '"']),
                "{tricky}"
            );
            let meta = TopicMeta {
                session_id: Some(tricky.to_owned()),
                ..TopicMeta::default()
            };
            let t = topic_file(tricky, tricky, MemoryType::User, &meta, "b");
            assert!(reads_back(&t, tricky, tricky, MemoryType::User), "{t}");
        }
    }
}
