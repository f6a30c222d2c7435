//! The YAML engine gray_matter reads frontmatter with: one iterative pass over yaml-rust2's
//! events that vets and builds at once.
//!
//! YAML can be hostile: aliases expand exponentially ("billion laughs") and deep nesting
//! recurses in a loader. yaml-rust2's event parser walks the text iteratively, so this engine
//! refuses both while it builds the value with its own stack — no recursive loader, no alias
//! expansion, and the parser is linked once (gray_matter's own YAML engine, a second walk over
//! the same text through yaml-rust2's recursive loader, is not compiled in).

use std::collections::HashMap;

use gray_matter::engine::Engine;
use gray_matter::Pod;
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;
use yaml_rust2::Yaml;

/// Deepest YAML nesting accepted.
pub const MAX_YAML_DEPTH: usize = 32;

/// What yaml-rust2's scanner says when flow collections nest past its own limit.
const SCANNER_DEPTH_ERROR: &str = "recursion limit exceeded";

/// Why frontmatter YAML was refused, and the line it was found on, in the file's numbering (the
/// YAML starts on line 2, after the opening `---`; yaml-rust2's marks count from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub reason: String,
    pub line: Option<usize>,
    /// `true` when the text is not YAML (a syntax error); `false` when it is YAML memdir refuses
    /// to build (an alias, nesting too deep), which no fallback reads around.
    pub syntax: bool,
}

/// gray_matter's engine over [`parse_yaml`].
pub struct VettedYaml;

impl Engine for VettedYaml {
    fn parse(content: &str) -> gray_matter::Result<Pod> {
        parse_yaml(content).map_err(|e| gray_matter::Error::deserialize_error(&e.reason))
    }
}

enum Frame {
    Sequence(Vec<Pod>),
    /// A mapping, and the key waiting for its value (`None` while the next node is a key).
    Mapping(HashMap<String, Pod>, Option<Option<String>>),
}

/// The first document of `yaml` as a [`Pod`], refusing aliases and nesting deeper than
/// [`MAX_YAML_DEPTH`]; syntax errors name their line.
pub fn parse_yaml(yaml: &str) -> Result<Pod, YamlError> {
    let mut parser = Parser::new_from_str(yaml);
    let mut stack: Vec<Frame> = Vec::new();
    let mut document: Option<Pod> = None;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| YamlError {
            reason: format!("YAML syntax error: {}", e.info()),
            line: Some(e.marker().line() + 1),
            // the scanner's own guard against deep flow nesting: nesting refused, as ours is
            syntax: e.info() != SCANNER_DEPTH_ERROR,
        })?;
        let line = Some(mark.line() + 1);
        let node = match event {
            Event::StreamEnd => return Ok(document.unwrap_or(Pod::Null)),
            Event::Alias(_) => {
                return Err(YamlError {
                    reason: "YAML aliases are not supported in frontmatter".into(),
                    line,
                    syntax: false,
                })
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if stack.len() >= MAX_YAML_DEPTH {
                    return Err(YamlError {
                        reason: format!("YAML nesting is deeper than {MAX_YAML_DEPTH} levels"),
                        line,
                        syntax: false,
                    });
                }
                stack.push(match event {
                    Event::SequenceStart(..) => Frame::Sequence(Vec::new()),
                    _ => Frame::Mapping(HashMap::new(), None),
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Sequence(items)) => Pod::Array(items),
                Some(Frame::Mapping(map, _)) => Pod::Hash(map),
                None => continue,
            },
            Event::Scalar(value, style, _, tag) => scalar(value, style, tag.is_some()),
            Event::StreamStart | Event::DocumentStart | Event::DocumentEnd | Event::Nothing => {
                continue
            }
        };
        match stack.last_mut() {
            // a finished node at the top is the document: the first one counts
            None => {
                document.get_or_insert(node);
            }
            Some(Frame::Sequence(items)) => items.push(node),
            Some(Frame::Mapping(map, pending)) => match pending.take() {
                None => *pending = Some(key(node)),
                Some(Some(k)) => {
                    map.insert(k, node);
                }
                Some(None) => {} // a key that is not a scalar: the entry is dropped
            },
        }
    }
}

/// A scalar as YAML 1.2's core schema reads it, as yaml-rust2 does: quoted and tagged
/// scalars are text; plain ones may be null, a boolean or a number.
fn scalar(value: String, style: TScalarStyle, tagged: bool) -> Pod {
    if style != TScalarStyle::Plain || tagged {
        return Pod::String(value);
    }
    resolve_plain(value)
}

/// A plain scalar's value under YAML 1.2's core schema, as yaml-rust2 resolves it: null, a
/// boolean, a number, else the text.
pub fn resolve_plain(value: String) -> Pod {
    // only text that starts with a digit, a sign, a dot or `~`, or is one of the schema's
    // words, can be anything but text (most values are words: no number parse is tried)
    let only_text = value
        .as_bytes()
        .first()
        .is_some_and(|b| !(b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'~')))
        && !matches!(
            value.as_str(),
            "null" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"
        );
    if only_text {
        return Pod::String(value);
    }
    resolve_by_schema(value)
}

/// [`resolve_plain`] the long way: every resolution yaml-rust2 tries.
fn resolve_by_schema(value: String) -> Pod {
    match Yaml::from_str(&value) {
        Yaml::Null => Pod::Null,
        Yaml::Boolean(b) => Pod::Boolean(b),
        Yaml::Integer(i) => Pod::Integer(i),
        Yaml::Real(r) => Pod::Float(r.parse().unwrap_or(0.0)),
        _ => Pod::String(value),
    }
}

/// A mapping key as text (as gray_matter's own engine keeps them), or `None` for a
/// collection used as a key.
fn key(node: Pod) -> Option<String> {
    match node {
        Pod::String(s) => Some(s),
        Pod::Integer(i) => Some(i.to_string()),
        Pod::Float(f) => Some(f.to_string()),
        Pod::Boolean(b) => Some(b.to_string()),
        Pod::Null => Some("null".to_owned()),
        Pod::Array(_) | Pod::Hash(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_what_a_loader_builds() {
        let pod = parse_yaml(
            "name: x\nn: 3\nf: 1.5\nb: true\nz: ~\nq: \"3\"\nlist: [a, 1]\nmap:\n  k: v\n",
        )
        .unwrap_or(Pod::Null);
        let Pod::Hash(map) = pod else {
            unreachable!("a mapping")
        };
        assert_eq!(map.get("name"), Some(&Pod::String("x".into())));
        assert_eq!(map.get("n"), Some(&Pod::Integer(3)));
        assert_eq!(map.get("f"), Some(&Pod::Float(1.5)));
        assert_eq!(map.get("b"), Some(&Pod::Boolean(true)));
        assert_eq!(map.get("z"), Some(&Pod::Null));
        assert_eq!(map.get("q"), Some(&Pod::String("3".into())));
        assert_eq!(
            map.get("list"),
            Some(&Pod::Array(vec![Pod::String("a".into()), Pod::Integer(1)]))
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { failure_persistence: None, ..Default::default() })]

        /// The shortcut resolves every text as the full resolution does.
        #[test]
        fn the_shortcut_resolves_as_the_schema_does(value in "[+.~-]?[0-9]{0,3}[.eE]?[+-]?[0-9]{0,2}|[a-zA-Z0-9+.~_ eEx-]{0,8}|(null|true|True|TRUE|false|False|FALSE|Null|NULL|inf|nan|NaN|infinity|\\.inf|\\.nan|0x1F|0o7|\\+1|-1|1e3|e3|E3)[a-z0-9]{0,2}") {
            proptest::prop_assert_eq!(resolve_plain(value.clone()), resolve_by_schema(value));
        }
    }

    #[test]
    fn refuses_aliases_and_depth_with_their_lines() {
        let alias = parse_yaml("a: &x 1\nb: *x\n");
        assert_eq!(
            alias.err().and_then(|e| e.line),
            Some(3),
            "line 2 of the YAML, 3 of the file"
        );
        let deep = format!("a: {}1{}", "[".repeat(40), "]".repeat(40));
        assert!(parse_yaml(&deep).is_err());
        let deep = format!("a:\n{}x", "- ".repeat(40));
        assert!(parse_yaml(&deep).is_err());
        // past the scanner's own limit: refused as nesting, not a syntax error to read around
        for deep in [
            format!("a: {}", "[".repeat(5000)),
            format!("a: {}", "[".repeat(40)),
        ] {
            assert_eq!(parse_yaml(&deep).err().map(|e| e.syntax), Some(false));
        }
        assert_eq!(
            parse_yaml("a: [1\nb: 2").err().map(|e| e.syntax),
            Some(true)
        );
        assert!(parse_yaml("a: [1\nb: 2")
            .err()
            .and_then(|e| e.line)
            .is_some());
    }
}
