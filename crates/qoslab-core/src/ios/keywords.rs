//! Keywords as IOS reads them: case-insensitive, and abbreviated to any prefix that no other
//! keyword of the same place shares (`int` for `interface`, `ser` for `Serial`); interface
//! names in canonical form.

use crate::config::suggest::{edit_distance, nearest};

/// What a word is among a place's keywords.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup<'a> {
    /// This keyword (whole or a unique abbreviation).
    Found(&'a str),
    /// An abbreviation of several.
    Ambiguous(Vec<&'a str>),
    /// None of them; perhaps a misspelling of this one.
    Unknown(Option<&'a str>),
}

/// Looks `word` up among `keywords`.
pub fn lookup<'a>(word: &str, keywords: &[&'a str]) -> Lookup<'a> {
    let lower = word.to_ascii_lowercase();
    if let Some(exact) = keywords.iter().find(|k| k.eq_ignore_ascii_case(&lower)) {
        return Lookup::Found(exact);
    }
    // A word that stops where a hyphenated keyword's first part ends is another command in
    // IOS (`priority` is not `priority-list`, `class` not `class-map`), not an abbreviation.
    let prefixed: Vec<&str> = keywords
        .iter()
        .copied()
        .filter(|k| k.starts_with(&lower) && !k[lower.len()..].starts_with('-'))
        .collect();
    match prefixed.len() {
        1 => Lookup::Found(prefixed[0]),
        0 => Lookup::Unknown(nearest(word, keywords.iter().copied())),
        _ => Lookup::Ambiguous(prefixed),
    }
}

/// The keyword `word` most likely stands for when it is badly damaged (text extracted from
/// a scanned page turns `priority` into `phonty`, `random-detect` into `random dotect`): a
/// hyphenated keyword whose first part it is, else the nearest keyword with the same first
/// letter, if at most two edits in three characters away.
pub fn damaged(word: &str, keywords: &[&'static str]) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    if let Some(whole) = keywords.iter().find(|k| k.starts_with(&lower) && k[lower.len()..].starts_with('-'))
    {
        return Some(whole);
    }
    let first = lower.chars().next()?;
    let limit = (2 * lower.chars().count()).div_ceil(3);
    keywords
        .iter()
        .filter(|k| k.starts_with(first))
        .map(|k| (edit_distance(&lower, k), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Interface types and their canonical spelling.
const INTERFACE_TYPES: [&str; 14] = [
    "Serial",
    "FastEthernet",
    "GigabitEthernet",
    "TenGigabitEthernet",
    "Ethernet",
    "POS",
    "ATM",
    "Multilink",
    "Tunnel",
    "Loopback",
    "Vlan",
    "Dialer",
    "Virtual-Template",
    "Port-channel",
];

/// The canonical name of an interface written `name` or abbreviated (`s0/1/1`,
/// `ser 0/1/1`, `fa0/0`, `Gi1/0`), or `None` if its type is unknown or ambiguous or its
/// number is not one: numbers separated by `/`, then optionally a subinterface `.N` and a
/// channel `:N` (`Serial0/1/0:0`, `GigabitEthernet0/0.100`).
pub fn interface_name(name: &str) -> Option<String> {
    let split = name.find(|c: char| c.is_ascii_digit()).unwrap_or(name.len());
    let (kind, number) = name.split_at(split);
    let (kind, number) = (kind.trim(), number.trim());
    if kind.is_empty() || !is_interface_number(number) {
        return None;
    }
    let lower = kind.to_ascii_lowercase();
    let exact = INTERFACE_TYPES.iter().find(|t| t.eq_ignore_ascii_case(&lower));
    let canonical = match exact {
        Some(t) => *t,
        None => {
            let matching: Vec<&str> = INTERFACE_TYPES
                .iter()
                .copied()
                .filter(|t| t.to_ascii_lowercase().starts_with(&lower))
                .collect();
            match matching.as_slice() {
                [one] => *one,
                _ => return None,
            }
        }
    };
    Some(format!("{canonical}{number}"))
}

/// Whether `number` is an interface number: digits in groups separated by `/`, `.` or `:`,
/// no group empty.
fn is_interface_number(number: &str) -> bool {
    !number.is_empty()
        && number
            .split(['/', '.', ':'])
            .all(|group| !group.is_empty() && group.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_and_misspellings() {
        let words = ["priority", "police", "bandwidth", "queue-limit"];
        assert_eq!(lookup("prio", &words), Lookup::Found("priority"));
        assert_eq!(lookup("BAND", &words), Lookup::Found("bandwidth"));
        assert_eq!(lookup("p", &words), Lookup::Ambiguous(vec!["priority", "police"]));
        assert_eq!(lookup("prioirty", &words), Lookup::Unknown(Some("priority")));
        assert_eq!(lookup("hostname", &words), Lookup::Unknown(None));
        assert_ne!(lookup("queue", &words), Lookup::Found("queue-limit"));
        assert_eq!(lookup("queue-l", &words), Lookup::Found("queue-limit"));
        assert_eq!(damaged("phonty", &words), Some("priority"));
        assert_eq!(damaged("compression", &words), None);
        assert_eq!(damaged("queue", &words), Some("queue-limit"));
    }

    #[test]
    fn interface_names() {
        assert_eq!(interface_name("s0/1/1").as_deref(), Some("Serial0/1/1"));
        assert_eq!(interface_name("Serial0/1/0").as_deref(), Some("Serial0/1/0"));
        assert_eq!(interface_name("fa0/0").as_deref(), Some("FastEthernet0/0"));
        assert_eq!(interface_name("gi1/0").as_deref(), Some("GigabitEthernet1/0"));
        assert_eq!(interface_name("e0").as_deref(), Some("Ethernet0"));
        assert_eq!(interface_name("POS3/0").as_deref(), Some("POS3/0"));
        assert_eq!(interface_name("t0").as_deref(), None); // Tunnel or TenGigabitEthernet
        assert_eq!(interface_name("serial").as_deref(), None);
        assert_eq!(interface_name("Serial0/1/0:0").as_deref(), Some("Serial0/1/0:0"));
        assert_eq!(interface_name("gi0/0.100").as_deref(), Some("GigabitEthernet0/0.100"));
        // Nothing else may follow the number: it would be written into the configuration.
        for bad in
            ["Serial0/0/0;x", "Serial0/0/0\n service-policy output x", "Serial0//0", "Serial0/", "s0 0"]
        {
            assert_eq!(interface_name(bad), None, "{bad:?}");
        }
    }
}
