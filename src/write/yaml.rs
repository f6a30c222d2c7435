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

/// A topic file: frontmatter with `name`, `description`, `type`, then the body.
pub fn topic_file(name: &str, description: &str, memory_type: MemoryType, body: &str) -> String {
    let text = |quote: fn(&str) -> String| {
        format!(
            "---\nname: {}\ndescription: {}\ntype: {}\n---\n\n{}\n",
            quote(name),
            quote(description),
            memory_type.as_str(),
            body.trim_end()
        )
    };
    let plain = text(scalar);
    if reads_back(&plain, name, description, memory_type) {
        return plain;
    }
    text(|s| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned()))
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
            let t = topic_file(tricky, tricky, MemoryType::User, "b");
            assert!(reads_back(&t, tricky, tricky, MemoryType::User), "{t}");
        }
    }
}
