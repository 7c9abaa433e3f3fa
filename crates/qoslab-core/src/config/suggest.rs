//! "Did you mean ...?" — the nearest valid name to a misspelt one.

/// Edit distance counting insertions, deletions, substitutions and swaps of two adjacent
/// characters as one edit each (the optimal-string-alignment variant of Damerau's
/// distance), so the commonest typos — a missing, extra, wrong or swapped letter — cost 1.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between the first i chars of a and the first j of b.
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The candidate closest to `wrong`, if it is close enough to be a plausible typo: at most
/// one edit per three characters (and at least one). Case is ignored.
pub fn nearest<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let wrong_lower = wrong.to_lowercase();
    let limit = (wrong.chars().count() / 3).max(1);
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
        assert_eq!(edit_distance("hihg", "high"), 1);
        assert_eq!(edit_distance("qp", "pq"), 1);
    }

    #[test]
    fn suggestions() {
        let keys = ["between", "rate", "delay", "l2", "mtu", "tx_ring"];
        assert_eq!(nearest("rat", keys), Some("rate"));
        assert_eq!(nearest("dealy", keys), Some("delay"));
        assert_eq!(nearest("TX_RING", keys), Some("tx_ring"));
        assert_eq!(nearest("bandwidth", keys), None);
        assert_eq!(nearest("r9", ["a", "b"]), None);
        assert_eq!(nearest("fifoo", ["fifo", "prio"]), Some("fifo"));
    }
}
