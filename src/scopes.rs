//! Scopes (rules §1.6): several memory folders recalled as one — a person's, a project's, a
//! machine's own, a team's, an agent's. Each folder keeps its own `MEMORY.md`, limits and
//! history; only selection sees them together. A memory reaches the selector as
//! `<scope>:<path>`, so the selector and the main model see where it comes from and an answer
//! names one file of one scope. Precedence is the order the scopes are given: when two
//! disagree, the scope listed first wins, and the prompt says so.

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::frontmatter::MemoryType;
use crate::keep::supersede::successor_path;
use crate::scan::Memory;

/// At most this many scopes in one memory: each is a folder scanned every turn.
pub const MAX_SCOPES: usize = 8;
/// The longest scope name.
pub const MAX_SCOPE_NAME_CHARS: usize = 32;

/// A scope's name: 1–32 of `a-z`, `0-9`, `-`, `_`, starting with a letter (it prefixes paths
/// the selector answers with, so it never holds `:` or `/`).
pub fn check_scope_name(name: &str) -> Result<(), Error> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest_ok =
        chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if first_ok && rest_ok && name.len() <= MAX_SCOPE_NAME_CHARS {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "scope name {name:?}: use 1-{MAX_SCOPE_NAME_CHARS} of a-z, 0-9, - and _, starting with a letter (e.g. \"project\")"
        )))
    }
}

/// The names in order: each well formed, none twice, at least one, at most [`MAX_SCOPES`].
pub fn check_scope_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), Error> {
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        check_scope_name(name)?;
        if seen.contains(&name) {
            return Err(Error::InvalidArgument(format!(
                "scope {name:?} is given twice"
            )));
        }
        seen.push(name);
    }
    if seen.is_empty() || seen.len() > MAX_SCOPES {
        return Err(Error::InvalidArgument(format!(
            "scopes: give 1 to {MAX_SCOPES} (got {})",
            seen.len()
        )));
    }
    Ok(())
}

/// A memory's path as the selector sees it: `<scope>:<path>`.
pub fn scoped_path(scope: &str, path: &str) -> String {
    format!("{scope}:{path}")
}

/// `<scope>:<path>` split at the first `:` (a scope name never holds one), when the prefix is
/// one of `scopes`; `None` otherwise: a file's own name may hold a colon (`notes:q3.md`), and is
/// then a path of the default write scope as given.
pub fn split_scoped<'a>(path: &'a str, scopes: &[String]) -> Option<(&'a str, &'a str)> {
    let (scope, rest) = path.split_once(':')?;
    scopes.iter().any(|s| s == scope).then_some((scope, rest))
}

/// One scope's scan.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScopeScan {
    pub scope: String,
    /// Its scan's `memories` (newest first, cut to its own limits).
    pub memories: Vec<Memory>,
}

/// The memories of every scope as one list for selection: each path (and `superseded_by`,
/// which names a file of the same folder) as `<scope>:<path>`, newest first; two of the same
/// time keep the scopes' order (precedence), then each scan's own.
pub fn merge_scoped(scans: Vec<ScopeScan>) -> Result<Vec<Memory>, Error> {
    check_scope_names(scans.iter().map(|s| s.scope.as_str()))?;
    let mut all: Vec<(usize, usize, Memory)> = Vec::new();
    for (rank, scan) in scans.into_iter().enumerate() {
        for (at, mut memory) in scan.memories.into_iter().enumerate() {
            memory.path = scoped_path(&scan.scope, &memory.path);
            if let Some(next) = memory.superseded_by.take() {
                memory.superseded_by = Some(scoped_path(&scan.scope, successor_path(&next)));
            }
            all.push((rank, at, memory));
        }
    }
    crate::sort::sort_by(&mut all, |(ra, aa, a), (rb, ab, b)| {
        b.time()
            .total_cmp(&a.time())
            .then(ra.cmp(rb))
            .then(aa.cmp(ab))
    });
    Ok(all.into_iter().map(|(_, _, m)| m).collect())
}

/// How a scope takes writes.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScopeRule {
    pub name: String,
    /// The memory types a write without a named scope puts here; `None`: any.
    #[serde(default)]
    pub types: Option<Vec<String>>,
    /// Recalled, never written.
    #[serde(default)]
    pub read_only: bool,
}

/// Where a write goes: the scope the caller names (it must exist and take writes); else the
/// first scope whose `types` holds the memory's type; else the first that takes any type.
pub fn write_scope(
    rules: &[ScopeRule],
    requested: Option<&str>,
    memory_type: Option<&str>,
) -> Result<String, Error> {
    check_scope_names(rules.iter().map(|r| r.name.as_str()))?;
    for rule in rules {
        for t in rule.types.iter().flatten() {
            if MemoryType::parse(t).is_none() {
                return Err(Error::InvalidArgument(format!(
                    "scope {:?}: unknown memory type {t:?} in types (user, feedback, project, reference)",
                    rule.name
                )));
            }
        }
    }
    if let Some(name) = requested {
        let Some(rule) = rules.iter().find(|r| r.name == name) else {
            let names: Vec<&str> = rules.iter().map(|r| r.name.as_str()).collect();
            return Err(Error::InvalidArgument(format!(
                "no scope {name:?} (scopes: {})",
                names.join(", ")
            )));
        };
        if rule.read_only {
            return Err(Error::InvalidArgument(format!(
                "scope {name:?} is read-only: it is recalled, never written"
            )));
        }
        return Ok(rule.name.clone());
    }
    let writable = || rules.iter().filter(|r| !r.read_only);
    let by_type = memory_type.and_then(|t| {
        writable().find(|r| r.types.as_ref().is_some_and(|ts| ts.iter().any(|x| x == t)))
    });
    by_type
        .or_else(|| writable().find(|r| r.types.is_none()))
        .map(|r| r.name.clone())
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "no scope takes this write{}: name one with `scope`",
                memory_type.map_or(String::new(), |t| format!(" (type {t})"))
            ))
        })
}

/// A scope as the prompt names it.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScopeRoot {
    pub name: String,
    /// Where its folder is (`host.root`).
    pub root: String,
    #[serde(default)]
    pub read_only: bool,
}

/// The section the main model reads: which scopes there are, where, and which wins.
pub fn scopes_prompt(scopes: &[ScopeRoot]) -> Result<String, Error> {
    check_scope_names(scopes.iter().map(|s| s.name.as_str()))?;
    // one folder under two names would offer every memory twice, and split its writes
    let root = |s: &ScopeRoot| s.root.trim_end_matches(['/', '\\']).to_owned();
    // and a folder inside another's is scanned by both (the scan is recursive)
    let inside = |outer: &str, inner: &str| {
        inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.starts_with(['/', '\\']))
    };
    for (i, a) in scopes.iter().enumerate() {
        for b in scopes.iter().skip(i + 1) {
            if a.root.is_empty() || b.root.is_empty() {
                continue;
            }
            let (ra, rb) = (root(a), root(b));
            if ra == rb {
                return Err(Error::InvalidArgument(format!(
                    "scopes {:?} and {:?} are the same folder ({})",
                    a.name, b.name, a.root
                )));
            }
            let nested = if inside(&ra, &rb) {
                Some((a, b))
            } else if inside(&rb, &ra) {
                Some((b, a))
            } else {
                None
            };
            if let Some((outer, inner)) = nested {
                return Err(Error::InvalidArgument(format!(
                    "scope {:?}'s folder is inside scope {:?}'s ({}): its memories would be offered twice",
                    inner.name, outer.name, outer.root
                )));
            }
        }
    }
    let mut out = String::from("## Memory scopes\n\nYour memory comes from ");
    out.push_str(&if scopes.len() == 1 {
        "one scope".to_owned()
    } else {
        format!("{} scopes", scopes.len())
    });
    out.push_str(", each a folder with its own MEMORY.md, in order of precedence:\n");
    for (i, s) in scopes.iter().enumerate() {
        out.push_str(&format!(
            "{}. `{}`: {}{}\n",
            i + 1,
            s.name,
            s.root,
            if s.read_only { " (read-only)" } else { "" }
        ));
    }
    out.push_str(
        "\nWhen memories of two scopes disagree, trust the one whose scope comes first in this list. \
         A recalled memory names its file, so you can tell its scope by its folder. \
         Save a memory in the scope it belongs to: what concerns only this person or this machine \
         in the more personal scope, what the whole project or team should know in the shared one; \
         never put credentials in a shared scope.",
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory(path: &str, time: f64) -> Memory {
        Memory {
            path: path.to_owned(),
            mtime_ms: time,
            modified_ms: None,
            time_ms: Some(time),
            name: None,
            description: None,
            memory_type: None,
            metadata: None,
            superseded_by: None,
        }
    }

    #[test]
    fn names() {
        for ok in ["user", "project", "agent-reviewer", "a1_b"] {
            assert!(check_scope_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "User", "1a", "a:b", "a/b", "é", &"a".repeat(33)] {
            assert!(check_scope_name(bad).is_err(), "{bad}");
        }
        assert!(check_scope_names(["a", "b", "a"]).is_err());
        assert!(check_scope_names(Vec::<&str>::new()).is_err());
        assert!(check_scope_names((0..9).map(|_| "x")).is_err());
    }

    #[test]
    fn split() {
        let scopes = ["user".to_owned(), "project".to_owned()];
        assert_eq!(split_scoped("user:a.md", &scopes), Some(("user", "a.md")));
        assert_eq!(
            split_scoped("user:a:b.md", &scopes),
            Some(("user", "a:b.md"))
        );
        assert_eq!(split_scoped("a.md", &scopes), None);
        assert_eq!(split_scoped("notes:a.md", &scopes), None);
        assert_eq!(split_scoped("Bad:a.md", &scopes), None);
    }

    #[test]
    fn merge_orders_by_time_then_precedence_and_scopes_successors() {
        let mut old = memory("old.md", 1.0);
        old.superseded_by = Some("./new.md".to_owned());
        let merged = merge_scoped(vec![
            ScopeScan {
                scope: "local".into(),
                memories: vec![memory("b.md", 5.0), old],
            },
            ScopeScan {
                scope: "user".into(),
                memories: vec![memory("a.md", 9.0), memory("b.md", 5.0)],
            },
        ])
        .unwrap_or_default();
        let paths: Vec<&str> = merged.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(
            paths,
            ["user:a.md", "local:b.md", "user:b.md", "local:old.md"]
        );
        assert_eq!(
            merged.last().and_then(|m| m.superseded_by.as_deref()),
            Some("local:new.md")
        );
    }

    #[test]
    fn write_scope_by_name_type_then_any() {
        let rules = vec![
            ScopeRule {
                name: "local".into(),
                types: Some(vec!["user".into()]),
                read_only: false,
            },
            ScopeRule {
                name: "team".into(),
                types: None,
                read_only: true,
            },
            ScopeRule {
                name: "project".into(),
                types: None,
                read_only: false,
            },
        ];
        assert_eq!(
            write_scope(&rules, None, Some("user")).ok().as_deref(),
            Some("local")
        );
        assert_eq!(
            write_scope(&rules, None, Some("project")).ok().as_deref(),
            Some("project")
        );
        assert_eq!(
            write_scope(&rules, None, None).ok().as_deref(),
            Some("project")
        );
        assert_eq!(
            write_scope(&rules, Some("local"), Some("project"))
                .ok()
                .as_deref(),
            Some("local")
        );
        assert!(write_scope(&rules, Some("team"), None).is_err());
        assert!(write_scope(&rules, Some("nope"), None).is_err());
        let only_typed = rules.get(..1).unwrap_or_default();
        assert!(write_scope(only_typed, None, Some("project")).is_err());
    }
}
