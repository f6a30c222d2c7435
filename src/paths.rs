//! Paths: Claude Code's `sanitizePath`, the default memory directory, and the one check that
//! every relative path inside the memory directory must pass before it is read or written.

use serde::Deserialize;

use crate::Error;

const MAX_SANITIZED_UTF16: usize = 200;

/// Claude Code's `sanitizePath`: every UTF-16 code unit that is not ASCII alphanumeric becomes
/// `-` (an astral character becomes `--`). Past 200 units the result is cut to 200 and
/// `-` + base-36 of `abs(djb2(name))` is appended.
pub fn sanitize_path(name: &str) -> String {
    let units: Vec<u16> = name.encode_utf16().collect();
    let sanitized: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if units.len() <= MAX_SANITIZED_UTF16 {
        return sanitized;
    }
    let hash = i64::from(djb2(&units)).unsigned_abs();
    let head = sanitized.get(..MAX_SANITIZED_UTF16).unwrap_or(&sanitized);
    format!("{head}-{}", to_base36(hash))
}

/// djb2 over UTF-16 code units in 32-bit signed arithmetic, starting at 0:
/// `h = ((h << 5) - h + c) | 0`.
pub fn djb2(units: &[u16]) -> i32 {
    units.iter().fold(0i32, |h, &c| {
        h.wrapping_shl(5).wrapping_sub(h).wrapping_add(i32::from(c))
    })
}

fn to_base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        let digit = usize::try_from(n % 36).unwrap_or(0);
        out.push(DIGITS.get(digit).copied().unwrap_or(b'0'));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Where the default memory directory is, given strings the host looked up.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct MemoryDirInput {
    /// The user's home directory.
    pub home_dir: String,
    /// The project's root: the main worktree's root inside git, else the project folder.
    pub project_root: String,
    /// `CLAUDE_CONFIG_DIR` when set; replaces `<home>/.claude`.
    #[serde(default)]
    pub config_dir: Option<String>,
    /// `autoMemoryDirectory` as each trusted settings file gives it (never the project's own
    /// `.claude/settings.json`, so a repository cannot point memory elsewhere).
    #[serde(default)]
    pub auto_memory_directory: Option<AutoMemorySettings>,
}

/// `autoMemoryDirectory` from the settings Claude Code trusts, in its order: the first given
/// is used; one that is not a safe absolute path falls back to the default folder.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct AutoMemorySettings {
    /// The managed (policy) settings.
    #[serde(default)]
    pub policy: Option<String>,
    /// `<project>/.claude/settings.local.json`.
    #[serde(default)]
    pub local: Option<String>,
    /// `<config dir>/settings.json`.
    #[serde(default)]
    pub user: Option<String>,
}

/// Claude Code's `validateMemoryPath` on an `autoMemoryDirectory`: `~/` expanded; refused
/// (`None`) when relative, shorter than 3 characters once trailing separators go, a bare
/// drive, UNC, holding NUL, or the home directory or above. With one trailing separator.
pub fn auto_memory_override(value: &str, home_dir: &str) -> Option<String> {
    let home = home_dir.trim_end_matches(['/', '\\']);
    let expanded = match value
        .strip_prefix("~/")
        .or_else(|| value.strip_prefix("~\\"))
    {
        Some(rest) => {
            let rest_trimmed = rest.trim_matches(['/', '\\']);
            if home.is_empty() || matches!(rest_trimmed, "" | "." | "..") {
                return None;
            }
            format!("{home}/{rest}")
        }
        None if value.starts_with('~') => return None,
        None => value.to_owned(),
    };
    let trimmed = expanded.trim_end_matches(['/', '\\']);
    let bytes = trimmed.as_bytes();
    let drive = bytes.len() >= 2
        && bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes.get(1) == Some(&b':');
    let absolute =
        trimmed.starts_with('/') || (drive && matches!(bytes.get(2), Some(b'/' | b'\\')));
    let unc = trimmed.starts_with("//") || trimmed.starts_with("\\\\");
    // `..` segments are refused outright (Claude Code normalises them first; refusing is safer)
    let climbs = trimmed.split(['/', '\\']).any(|seg| seg == "..");
    if !absolute
        || unc
        || climbs
        || trimmed.contains('\0')
        || trimmed.chars().count() < 3
        || (drive && bytes.len() == 2)
    {
        return None;
    }
    let sep = if trimmed.contains('\\') && !trimmed.contains('/') {
        '\\'
    } else {
        '/'
    };
    Some(format!("{trimmed}{sep}"))
}

/// Where a subagent's own memory is (Claude Code's agent memory), for one of its scopes.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct AgentMemoryInput {
    /// `user`, `project` or `local`.
    pub scope: String,
    /// The agent's type (its name); `:` becomes `-`.
    pub agent_type: String,
    /// The user's home directory.
    pub home_dir: String,
    /// The folder the agent works in (Claude Code's cwd) for `project` and `local`.
    pub project_root: String,
    /// `CLAUDE_CONFIG_DIR` when set.
    #[serde(default)]
    pub config_dir: Option<String>,
}

/// `user`: `<configDir or ~/.claude>/agent-memory/<type>/`; `project`:
/// `<project>/.claude/agent-memory/<type>/`; `local`: `<project>/.claude/agent-memory-local/<type>/`.
/// An agent type that is empty or would leave its folder (`..`, a separator, NUL) is refused.
pub fn agent_memory_dir(input: &AgentMemoryInput) -> Result<String, Error> {
    let agent = input.agent_type.replace(':', "-");
    if agent.is_empty() || agent == "." || agent == ".." || agent.contains(['/', '\\', '\0']) {
        return Err(Error::invalid(
            "agentType: a name without /, \\, NUL, and not . or ..",
        ));
    }
    let (base, rest) = match input.scope.as_str() {
        "user" => {
            let base = match input.config_dir.as_deref().filter(|d| !d.is_empty()) {
                Some(dir) => dir.trim_end_matches(['/', '\\']).to_owned(),
                None if input.home_dir.is_empty() => {
                    return Err(Error::invalid(
                        "homeDir is empty and no configDir was given",
                    ))
                }
                None => format!("{}/.claude", input.home_dir.trim_end_matches(['/', '\\'])),
            };
            (base, "agent-memory")
        }
        "project" | "local" if input.project_root.is_empty() => {
            return Err(Error::invalid("projectRoot is empty"))
        }
        "project" => (
            format!(
                "{}/.claude",
                input.project_root.trim_end_matches(['/', '\\'])
            ),
            "agent-memory",
        ),
        "local" => (
            format!(
                "{}/.claude",
                input.project_root.trim_end_matches(['/', '\\'])
            ),
            "agent-memory-local",
        ),
        other => {
            return Err(Error::invalid(format!(
                "agent memory scope {other:?}: user, project or local"
            )))
        }
    };
    let sep = if base.contains('\\') && !base.contains('/') {
        '\\'
    } else {
        '/'
    };
    let base = if sep == '\\' {
        base.replace('/', "\\")
    } else {
        base
    };
    Ok(format!("{base}{sep}{rest}{sep}{agent}{sep}"))
}

/// `<configDir or home/.claude>/projects/<sanitizePath(projectRoot)>/memory/`, with a trailing
/// separator as in the reference. The separator follows the home directory's style.
pub fn project_memory_dir(input: &MemoryDirInput) -> Result<String, Error> {
    if input.home_dir.is_empty() && input.config_dir.as_deref().is_none_or(str::is_empty) {
        return Err(Error::invalid(
            "homeDir is empty and no configDir was given",
        ));
    }
    if input.project_root.is_empty() {
        return Err(Error::invalid("projectRoot is empty"));
    }
    if let Some(settings) = &input.auto_memory_directory {
        let first = [&settings.policy, &settings.local, &settings.user]
            .into_iter()
            .find_map(|v| v.as_deref());
        if let Some(dir) = first.and_then(|v| auto_memory_override(v, &input.home_dir)) {
            return Ok(dir);
        }
    }
    let base_source = input.config_dir.as_deref().filter(|d| !d.is_empty());
    let style = base_source.unwrap_or(&input.home_dir);
    let sep = if style.contains('\\') && !style.contains('/') {
        '\\'
    } else {
        '/'
    };
    let base = match base_source {
        Some(dir) => dir.trim_end_matches(['/', '\\']).to_owned(),
        None => format!(
            "{}{sep}.claude",
            input.home_dir.trim_end_matches(['/', '\\'])
        ),
    };
    let key = sanitize_path(&input.project_root);
    Ok(format!("{base}{sep}projects{sep}{key}{sep}memory{sep}"))
}

/// Characters that normalise (NFKC) or render as `.`, `/` or `\`: a path holding one could
/// be read as traversal by some other layer, so none is allowed. Every character whose NFKC
/// form holds a `/` or `\`, or is only dots, is here (`tests/properties.rs` checks all of
/// Unicode): U+FE30 and U+FE19 normalise to `..` and `...`, U+2100 to `a/c`.
const LOOKALIKES: &[char] = &[
    '\u{FF0E}', '\u{FF0F}', '\u{FF3C}', '\u{2024}', '\u{2025}', '\u{2026}', '\u{FE52}', '\u{2215}',
    '\u{2044}', '\u{29F8}', '\u{29F9}', '\u{FE68}', '\u{2216}', '\u{3002}', '\u{FF61}', '\u{0338}',
    '\u{FE30}', '\u{FE19}', '\u{2100}', '\u{2101}', '\u{2105}', '\u{2106}',
];

/// `<` and `>` and the characters that normalise (NFKC) to them: a path is shown inside
/// `<system-reminder>` blocks, so it must not be able to open or close a tag.
const ANGLE_BRACKETS: &[char] = &['<', '>', '\u{FF1C}', '\u{FF1E}', '\u{FE64}', '\u{FE65}'];

/// Checks a path relative to the memory directory (`/`-separated) and says why it is unsafe.
///
/// Refused: empty paths, absolute paths, drive letters and UNC forms, backslashes, NUL and
/// other control characters, `.` and `..` segments, empty segments, percent-encoded bytes,
/// Unicode look-alikes of `.`, `/` and `\`, and `<` / `>` (and their look-alikes), which
/// could forge a tag where the path is shown. Symlink escapes need the host's help: it
/// resolves the real path and the core checks it again.
pub fn check_relative_path(path: &str) -> Result<(), Error> {
    if plainly_safe(path) {
        return Ok(());
    }
    check_by_the_rules(path)
}

/// [`check_relative_path`], rule by rule.
fn check_by_the_rules(path: &str) -> Result<(), Error> {
    let refuse = |reason: &str| {
        Err(Error::UnsafePath {
            path: path.to_owned(),
            reason: reason.to_owned(),
        })
    };
    if path.is_empty() {
        return refuse("the path is empty");
    }
    // one pass over the bytes for what is ASCII; the look-alike tables only for the rest
    let ascii = path.is_ascii();
    let control = if ascii {
        path.bytes().any(|b| b.is_ascii_control())
    } else {
        path.chars().any(char::is_control)
    };
    if control {
        return refuse("the path holds a NUL or another control character");
    }
    if path.contains('\\') {
        return refuse("the path holds a backslash");
    }
    if path.starts_with('/') {
        return refuse("the path is absolute");
    }
    let bytes = path.as_bytes();
    if matches!(bytes, [drive, b':', ..] if drive.is_ascii_alphabetic()) {
        return refuse("the path starts with a drive letter");
    }
    let angle = if ascii {
        path.contains(['<', '>'])
    } else {
        path.chars().any(|c| ANGLE_BRACKETS.contains(&c))
    };
    if angle {
        return refuse("the path holds '<' or '>' (or a character that reads as one), which could forge a tag where it is shown");
    }
    if !ascii && path.chars().any(|c| LOOKALIKES.contains(&c)) {
        return refuse("the path holds a look-alike of '.', '/' or '\\'");
    }
    if path.contains('%')
        && bytes
            .windows(3)
            .any(|w| matches!(w, [b'%', a, b] if a.is_ascii_hexdigit() && b.is_ascii_hexdigit()))
    {
        return refuse("the path holds a percent-encoded byte");
    }
    for segment in path.split('/') {
        match segment {
            "" => return refuse("the path has an empty segment"),
            "." | ".." => return refuse("the path has a '.' or '..' segment"),
            _ => {}
        }
    }
    Ok(())
}

/// One pass over the bytes of an ASCII path that has none of the characters any rule looks
/// for (control characters, `\\`, `<`, `>`, `%`, a `:` that could follow a drive letter), does
/// not start with `/`, and has no empty, `.` or `..` segment: safe by every rule of
/// [`check_relative_path`], which calls this first (a listing checks thousands of paths). `false`
/// says only that the rules must look.
fn plainly_safe(path: &str) -> bool {
    let bytes = path.as_bytes();
    // the length of the segment so far, and whether it is all dots
    let mut segment = 0usize;
    let mut dots = true;
    for &b in bytes {
        match b {
            b'/' => {
                if segment == 0 || (dots && segment <= 2) {
                    return false;
                }
                segment = 0;
                dots = true;
                continue;
            }
            0..=0x1f | 0x7f.. | b'\\' | b'<' | b'>' | b'%' | b':' => return false,
            _ => {}
        }
        segment += 1;
        dots &= b == b'.';
    }
    segment > 0 && !(dots && segment <= 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths made of segments the rules care about: empty, `.`, `..`, `...`, plain names, and
    /// names holding what a rule looks for (a control character, `\\`, `<`, `%` and hex digits,
    /// a drive letter's `:`, a look-alike of `.`), sometimes with a leading `/`.
    fn odd_paths() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let segment = prop_oneof![
            Just(String::new()),
            Just(".".to_owned()),
            Just("..".to_owned()),
            Just("...".to_owned()),
            "[a-z_.-]{1,4}",
            "[a-z]{0,2}%[0-9a-fG]{2}",
            "[A-Za-z]:[a-z]{0,2}",
            "[a-z]{0,2}[\u{0}\u{1}\t\u{1f}\u{7f}][a-z]{0,2}",
            "[a-cA-C0-9.%:<>\\\\\u{0}\u{1f}\u{7f}\u{ff0e}\u{e9}]{1,4}",
        ];
        (any::<bool>(), proptest::collection::vec(segment, 1..5)).prop_map(
            |(absolute, segments)| {
                format!("{}{}", if absolute { "/" } else { "" }, segments.join("/"))
            },
        )
    }

    proptest::proptest! {
        /// The one-pass check never calls safe what a rule refuses, and the whole check says
        /// what the rules say.
        #[test]
        fn the_fast_check_agrees_with_the_rules(path in odd_paths()) {
            let by_rules = check_by_the_rules(&path);
            if plainly_safe(&path) {
                proptest::prop_assert!(by_rules.is_ok(), "{path:?}: {by_rules:?}");
            }
            proptest::prop_assert_eq!(check_relative_path(&path).is_ok(), by_rules.is_ok());
        }
    }

    #[test]
    fn base36() {
        assert_eq!(to_base36(0), "0");
        assert_eq!(to_base36(35), "z");
        assert_eq!(to_base36(36), "10");
        assert_eq!(to_base36(2_147_483_648), "zik0zk");
    }

    #[test]
    fn djb2_wraps_like_javascript() {
        let units: Vec<u16> = "hello".encode_utf16().collect();
        assert_eq!(djb2(&units), 99_162_322);
    }
}
