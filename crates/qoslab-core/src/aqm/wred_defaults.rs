//! Default WRED and RIO profiles, as tables users override row by row.
//!
//! * Precedence-based WRED (IOS `random-detect`): maximum threshold 40 packets and mark
//!   probability denominator 10 for every precedence; the minimum threshold is half the
//!   maximum for precedence 0 and evenly spaced towards the maximum for the others,
//!   ⌊20 + k·20/9⌋ for precedence k — 20, 22, 24, 26, 28, 31, 33, 35 (Cisco's rule; the
//!   widely reproduced table, unverified against Cisco's own;
//!   `docs/reference/red-and-wred.md`).
//! * DSCP-based WRED (IOS `random-detect dscp-based`): maximum 40, denominator 10; minimum
//!   32, 28, 24 for AFx1, AFx2, AFx3; 22 to 34 in steps of 2 for CS1 to CS7; 36 for EF;
//!   20 for DSCP 0 and for every code point the table does not name (the commonly
//!   reproduced IOS table, unverified; `docs/reference/red-and-wred.md`).
//! * RIO with three drop precedences (ALTQ, after Clark & Fang 1998): (min, max,
//!   denominator) = (35, 45, 10) for low, (20, 30, 10) for medium and (5, 15, 10) for high
//!   drop precedence (OpenBSD `sys/altq/altq_rio.c`).

use super::red_profile::RedProfile;

/// The IOS precedence-based defaults, indexed by precedence.
pub fn precedence_profiles() -> [RedProfile; 8] {
    std::array::from_fn(|k| RedProfile::new(20 + (k as u32 * 20) / 9, 40, 10))
}

/// The IOS DSCP-based defaults, indexed by DSCP.
pub fn dscp_profiles() -> [RedProfile; 64] {
    std::array::from_fn(|dscp| {
        let dscp = dscp as u32;
        let class = dscp >> 3;
        let min = match dscp {
            46 => 36,
            // AFxy = 8x + 2y: the minimum falls as the drop precedence y rises.
            _ if (1..=4).contains(&class) && matches!(dscp & 7, 2 | 4 | 6) => 32 - 4 * ((dscp & 7) / 2 - 1),
            // Class selectors CS1-CS7.
            _ if dscp & 7 == 0 && class > 0 => 20 + 2 * class,
            _ => 20,
        };
        RedProfile::new(min, 40, 10)
    })
}

/// The ALTQ RIO defaults, indexed by drop precedence (low, medium, high).
pub const RIO_PROFILES: [RedProfile; 3] =
    [RedProfile::new(35, 45, 10), RedProfile::new(20, 30, 10), RedProfile::new(5, 15, 10)];

/// The drop precedence of a DSCP, 0 (low) to 2 (high): the AF drop precedence bits (RFC
/// 2597 §6: AFx1 low, AFx2 medium, AFx3 high); code points with those bits zero count as
/// low. ALTQ RIO reads the same two bits, so EF (101110) counts as high there and here.
#[inline]
pub fn drop_precedence(dscp: u8) -> usize {
    ((dscp >> 1) & 3).saturating_sub(1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::dscp::parse_dscp;

    #[test]
    fn precedence_table() {
        let mins: Vec<u32> = precedence_profiles().iter().map(|p| p.min_packets).collect();
        assert_eq!(mins, [20, 22, 24, 26, 28, 31, 33, 35]);
        assert!(precedence_profiles().iter().all(|p| p.max_packets == 40 && p.denominator == 10));
    }

    #[test]
    fn dscp_table() {
        let table = dscp_profiles();
        let min = |name: &str| table[parse_dscp(name).unwrap() as usize].min_packets;
        for x in 1..=4 {
            assert_eq!(
                [min(&format!("AF{x}1")), min(&format!("AF{x}2")), min(&format!("AF{x}3"))],
                [32, 28, 24]
            );
        }
        let cs: Vec<u32> = (1..=7).map(|k| min(&format!("CS{k}"))).collect();
        assert_eq!(cs, [22, 24, 26, 28, 30, 32, 34]);
        assert_eq!((min("EF"), min("0"), min("1"), min("63")), (36, 20, 20, 20));
    }

    /// `docs/random-early-detection.md` gives these tables; they are the model's.
    #[test]
    fn the_pages_tables_are_the_defaults() {
        let page = include_str!("../../../../docs/random-early-detection.md");
        let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
        let told = |text: String| assert!(page.contains(&text), "random-early-detection.md lacks `{text}`");
        let row = |values: Vec<u32>| values.iter().map(u32::to_string).collect::<Vec<_>>().join(" | ");
        told(format!(
            "| min (packets) | {} |",
            row(precedence_profiles().iter().map(|p| p.min_packets).collect())
        ));
        let table = dscp_profiles();
        let min = |name: &str| table[parse_dscp(name).unwrap() as usize].min_packets;
        for (drop, label) in [(1, " (low drop precedence)"), (2, ""), (3, " (high drop precedence)")] {
            let names: Vec<String> = (1..=4).map(|x| format!("AF{x}{drop}")).collect();
            let mins: Vec<u32> = names.iter().map(|name| min(name)).collect();
            assert!(mins.iter().all(|&m| m == mins[0]), "{names:?}");
            told(format!("| {}{label} | {} |", names.join(", "), mins[0]));
        }
        let cs: Vec<String> = (1..=7).map(|k| min(&format!("CS{k}")).to_string()).collect();
        told(format!("| CS1 … CS7 | {} |", cs.join(", ")));
        told(format!("| EF | {} |", min("EF")));
        told(format!("| 0 and every code point not named | {} |", min("0")));
        let rio: Vec<String> = RIO_PROFILES
            .iter()
            .map(|p| format!("{}, {}, {}", p.min_packets, p.max_packets, p.denominator))
            .collect();
        told(format!("low (AFx1, and code points whose drop-precedence bits are 0) {}; medium (AFx2) {}; high (AFx3) {}.", rio[0], rio[1], rio[2]));
        let first = precedence_profiles()[0];
        told(format!("maximum {} packets, denominator {}, minimum", first.max_packets, first.denominator));
    }

    #[test]
    fn drop_precedences() {
        let dp = |name: &str| drop_precedence(parse_dscp(name).unwrap());
        assert_eq!([dp("AF11"), dp("AF12"), dp("AF13")], [0, 1, 2]);
        assert_eq!([dp("AF41"), dp("AF42"), dp("AF43")], [0, 1, 2]);
        assert_eq!((dp("0"), dp("CS5"), dp("EF")), (0, 0, 2));
    }
}
