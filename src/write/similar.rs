//! Near-duplicate memories: the same name, or almost the same description.

use std::collections::BTreeSet;

/// Word overlap (Jaccard) at or above which two descriptions are "almost the same".
pub const SIMILAR_DESCRIPTION: f64 = 0.8;

/// Lower-case, whitespace-folded: names equal under this are the same name.
pub fn name_key(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The distinct lower-cased words of a text, computed once so that comparing many pairs
/// (doctor compares up to a thousand descriptions pairwise) costs no allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordSet(BTreeSet<String>);

impl WordSet {
    /// Words of spaced scripts, and character pairs of CJK text (so two Chinese descriptions
    /// are compared by their content, not as one "word" each).
    pub fn of(text: &str) -> Self {
        Self(crate::words::whole_words(text).into_iter().collect())
    }

    /// Jaccard similarity of the two word sets, 0…1.
    pub fn similarity(&self, other: &WordSet) -> f64 {
        let (small, large) = if self.0.len() <= other.0.len() {
            (&self.0, &other.0)
        } else {
            (&other.0, &self.0)
        };
        let shared = small.iter().filter(|w| large.contains(*w)).count();
        let union = small.len() + large.len() - shared;
        if union == 0 {
            return 0.0;
        }
        #[allow(clippy::cast_precision_loss)] // word counts are far below 2^52
        let ratio = shared as f64 / union as f64;
        ratio
    }

    /// Almost the same words. Jaccard ≥ 0.8 needs the smaller set to be ≥ 0.8 of the larger,
    /// so most pairs are settled by their sizes alone.
    pub fn similar(&self, other: &WordSet) -> bool {
        let (a, b) = (self.0.len(), other.0.len());
        #[allow(clippy::cast_precision_loss)]
        let sizes_allow = (a.min(b) as f64) >= SIMILAR_DESCRIPTION * a.max(b) as f64;
        sizes_allow && self.similarity(other) >= SIMILAR_DESCRIPTION
    }
}

/// Jaccard similarity of the two texts' word sets, 0…1.
pub fn description_similarity(a: &str, b: &str) -> f64 {
    WordSet::of(a).similarity(&WordSet::of(b))
}

/// Two descriptions a reader would call the same.
pub fn similar_descriptions(a: &str, b: &str) -> bool {
    WordSet::of(a).similar(&WordSet::of(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn similarity() {
        assert!(similar_descriptions(
            "Integration tests must hit a real database, not mocks",
            "integration tests must hit a real database — not mocks!"
        ));
        assert!(!similar_descriptions(
            "Integration tests hit a real database",
            "Deploys go out on Tuesdays"
        ));
        assert_eq!(name_key("  Testing   Policy "), "testing policy");
    }
}
