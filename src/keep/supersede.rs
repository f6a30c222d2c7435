//! Supersession (rules §4.7): a memory marked `superseded_by: <newer>.md` is replaced by the
//! newer one. The newest of a chain is the one recall may choose; the ones it replaced stay in
//! the folder (viewable, in the history) but are no candidates. A chain that ends nowhere — a
//! successor that is not among the memories, or a loop — replaces nothing: no memory leaves
//! recall by a mistake, and doctor reports the chain.

use std::collections::{HashMap, HashSet};

use crate::scan::Memory;

/// The longest chain followed; past it the chain counts as a loop.
pub const MAX_CHAIN: usize = 16;

/// Where a memory's `superseded_by` chain leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chain {
    /// Not superseded.
    Current,
    /// Replaced; `by` is the newest memory of the chain.
    Superseded { by: String },
    /// A successor on the way is not among the memories (`missing`).
    Broken { missing: String },
    /// The chain comes back to a memory it passed (or runs past [`MAX_CHAIN`]).
    Cycle,
}

/// A `superseded_by` value as a folder-relative path (`./x.md` is `x.md`).
pub fn successor_path(value: &str) -> &str {
    let mut v = value.trim();
    while let Some(rest) = v.strip_prefix("./") {
        v = rest;
    }
    v
}

/// Follows `path`'s chain among `by_path`.
pub fn chain_of(path: &str, by_path: &HashMap<&str, &Memory>) -> Chain {
    let Some(mut at) = by_path.get(path).copied() else {
        return Chain::Current;
    };
    let mut seen: Vec<&str> = vec![path];
    while let Some(next) = at.superseded_by.as_deref().map(successor_path) {
        if seen.contains(&next) || seen.len() > MAX_CHAIN {
            return Chain::Cycle;
        }
        let Some(m) = by_path.get(next).copied() else {
            return Chain::Broken {
                missing: next.to_owned(),
            };
        };
        seen.push(next);
        at = m;
    }
    if seen.len() == 1 {
        Chain::Current
    } else {
        Chain::Superseded {
            by: at.path.clone(),
        }
    }
}

/// The paths of `memories` a newer memory among them replaces.
pub fn superseded(memories: &[Memory]) -> HashSet<String> {
    if memories.iter().all(|m| m.superseded_by.is_none()) {
        return HashSet::new(); // the common case: nothing to follow
    }
    let by_path: HashMap<&str, &Memory> = memories.iter().map(|m| (m.path.as_str(), m)).collect();
    memories
        .iter()
        .filter(|m| m.superseded_by.is_some())
        .filter(|m| matches!(chain_of(&m.path, &by_path), Chain::Superseded { .. }))
        .map(|m| m.path.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::bare_memory;

    fn m(path: &str, by: Option<&str>) -> Memory {
        let mut memory = bare_memory(path.to_owned(), 0.0);
        memory.superseded_by = by.map(str::to_owned);
        memory
    }

    #[test]
    fn chains_end_at_the_newest_and_a_broken_or_looping_one_replaces_nothing() {
        let all = vec![
            m("a.md", Some("b.md")),
            m("b.md", Some("./c.md")),
            m("c.md", None),
            m("d.md", Some("gone.md")),
            m("e.md", Some("f.md")),
            m("f.md", Some("e.md")),
            m("g.md", Some("g.md")),
        ];
        let by_path: HashMap<&str, &Memory> = all.iter().map(|x| (x.path.as_str(), x)).collect();
        assert_eq!(
            chain_of("a.md", &by_path),
            Chain::Superseded { by: "c.md".into() }
        );
        assert_eq!(chain_of("c.md", &by_path), Chain::Current);
        assert_eq!(
            chain_of("d.md", &by_path),
            Chain::Broken {
                missing: "gone.md".into()
            }
        );
        assert_eq!(chain_of("e.md", &by_path), Chain::Cycle);
        assert_eq!(chain_of("g.md", &by_path), Chain::Cycle);
        let mut out: Vec<String> = superseded(&all).into_iter().collect();
        out.sort();
        assert_eq!(out, ["a.md", "b.md"]);
    }
}
