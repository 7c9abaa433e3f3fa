//! "Did you mean ...?" — the nearest valid name to a misspelt one.

/// Levenshtein edit distance (insert, delete, substitute; each costs 1).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// The candidate closest to `wrong`, if it is close enough to be a plausible typo
/// (at most a third of the word's length, and at least 2 edits allowed). Case is ignored.
pub fn nearest<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wrong_lower = wrong.to_lowercase();
    let limit = (wrong.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (edit_distance(&wrong_lower, &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("rate", "rate"), 0);
        assert_eq!(edit_distance("rat", "rate"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn suggestions() {
        let keys = ["between", "rate", "delay", "l2", "mtu", "tx_ring"];
        assert_eq!(nearest("rat", keys), Some("rate"));
        assert_eq!(nearest("dealy", keys), Some("delay"));
        assert_eq!(nearest("TX_RING", keys), Some("tx_ring"));
        assert_eq!(nearest("bandwidth", keys), None);
    }
}
