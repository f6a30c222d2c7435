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

fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Jaccard similarity of the two texts' word sets, 0…1.
pub fn description_similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (words(a), words(b));
    let union = a.union(&b).count();
    if union == 0 {
        return 0.0;
    }
    #[allow(clippy::cast_precision_loss)] // word counts are far below 2^52
    let ratio = a.intersection(&b).count() as f64 / union as f64;
    ratio
}

/// Two descriptions a reader would call the same.
pub fn similar_descriptions(a: &str, b: &str) -> bool {
    description_similarity(a, b) >= SIMILAR_DESCRIPTION
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
