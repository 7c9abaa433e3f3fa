//! The values of IOS commands, read word by word: numbers within the ranges Cisco's command
//! references give (refused at their column otherwise, as IOS refuses them), percentages,
//! queue sizes, WRED thresholds, and the small fixed phrases (`protocol ip`, `type qos`) that
//! several modes share.

use crate::ios::lines::Words;

/// A problem with a line: column, message, hint.
pub(super) type Problem = (usize, String, Option<String>);

/// A problem at `column` with no hint.
pub(super) fn problem(column: usize, message: impl std::fmt::Display) -> Problem {
    (column, message.to_string(), None)
}

/// The next word as a number of type `T`, named `what` in errors.
pub(super) fn number<T: std::str::FromStr>(words: &mut Words, what: &str) -> Result<T, Problem> {
    let column = words.column();
    let word = words.next().ok_or_else(|| problem(column, format!("{what} is missing")))?;
    word.parse().map_err(|_| problem(column, format!("`{word}` is not {what}")))
}

/// IOS's ranges for the numbers that size queues and set rates, inclusive. A value outside
/// is refused at its column, as IOS refuses it, so no configuration can ask for an absurd
/// queue or rate. Sources: Cisco IOS Quality of Service Solutions Command Reference
/// (`queue-limit`, `tx-ring-limit`, `priority-list queue-limit`, `queue-list queue limit`,
/// `fair-queue`, `random-detect`, `priority`, `bandwidth`, `police`, `shape`) and Cisco
/// IOS Interface and Hardware Component Command Reference (`bandwidth`, `hold-queue`).
pub mod range {
    /// `queue-limit` in a policy-map class, packets.
    pub const CLASS_QUEUE_LIMIT: (u64, u64) = (1, 32_768);
    /// IOS XE's `queue-limit N bytes`, `N ms` and `N us`: qoslab's bounds (the command
    /// reference's ranges for these units were not in the sources read) — a 32-bit byte
    /// count, and at most one second.
    pub const CLASS_QUEUE_LIMIT_BYTES: (u64, u64) = (1, 4_294_967_295);
    /// See [`CLASS_QUEUE_LIMIT_BYTES`].
    pub const CLASS_QUEUE_LIMIT_MS: (u64, u64) = (1, 1_000);
    /// See [`CLASS_QUEUE_LIMIT_BYTES`].
    pub const CLASS_QUEUE_LIMIT_US: (u64, u64) = (1, 1_000_000);
    /// `tx-ring-limit`, particles (qoslab: packets).
    pub const TX_RING: (u64, u64) = (1, 32_767);
    /// `priority-list N queue-limit` and `queue-list N queue Q limit`, packets (0: no
    /// limit in IOS, which qoslab does not model).
    pub const LIST_QUEUE_LIMIT: (u64, u64) = (0, 32_767);
    /// `hold-queue N out`, packets.
    pub const HOLD_QUEUE: (u64, u64) = (0, 240_000);
    /// Interface `bandwidth`, kbit/s; also the most a class may be given in kbit/s.
    pub const BANDWIDTH_KBPS: (u64, u64) = (1, 10_000_000);
    /// `bandwidth` and `priority` of a class, kbit/s.
    pub const CLASS_RATE_KBPS: (u64, u64) = (8, 10_000_000);
    /// `police` and `shape` rates, bit/s (at most the largest interface bandwidth).
    pub const RATE_BPS: (u64, u64) = (8_000, 10_000_000_000);
    /// LLQ burst (`priority KBPS BURST`), bytes.
    pub const PRIORITY_BURST_BYTES: (u64, u64) = (32, 2_000_000);
    /// `fair-queue` congestive discard threshold, packets.
    pub const CDT: (u64, u64) = (1, 4_096);
    /// `fair-queue` dynamic conversation queues: a power of two in this range.
    pub const DYNAMIC_QUEUES: (u64, u64) = (16, 4_096);
    /// WRED thresholds in a policy-map class, packets.
    pub const WRED_THRESHOLD: (u64, u64) = (1, 4_096);
    /// WRED thresholds of a Cisco 12000 `random-detect-label`, packets: the line cards take
    /// thresholds above MQC's 4096 (the studied configuration has 5461); this bound is
    /// qoslab's, since a label's maximum also sizes its queue.
    pub const LABEL_THRESHOLD: (u64, u64) = (1, 65_535);
    /// WRED mark probability denominator.
    pub const WRED_DENOMINATOR: (u64, u64) = (1, 65_536);
    /// `random-detect exponential-weighting-constant`.
    pub const WRED_EXPONENT: (u64, u64) = (1, 16);
    /// Cisco 12000 MDRR queue weight (`queue Q WEIGHT`, `alternate-priority WEIGHT`).
    pub const MDRR_WEIGHT: (u64, u64) = (1, 2_048);
    /// `ppp multilink fragment delay`, ms.
    pub const FRAGMENT_DELAY_MS: (u64, u64) = (1, 1_000);
    /// IOS XE `bandwidth remaining ratio`.
    pub const REMAINING_RATIO: (u64, u64) = (1, 1_000);
    /// IOS XE `priority level`.
    pub const PRIORITY_LEVEL: (u64, u64) = (1, 2);
}

/// The next word as a number within IOS's `(low, high)` range for `what`.
pub(super) fn ranged(words: &mut Words, what: &str, bounds: (u64, u64)) -> Result<u64, Problem> {
    within(words, what, bounds, "IOS's")
}

/// A number in `(low, high)`, the range of `whose` (`IOS's`, or `qoslab's` where IOS's own
/// is not known), refused at its column otherwise.
pub(super) fn within(
    words: &mut Words,
    what: &str,
    (low, high): (u64, u64),
    whose: &str,
) -> Result<u64, Problem> {
    let column = words.column();
    let word = words.next().ok_or_else(|| problem(column, format!("{what} is missing")))?;
    let unsigned = word.strip_prefix('-').unwrap_or(word);
    let digits = !unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit());
    match word.parse::<u64>() {
        Ok(value) if (low..=high).contains(&value) => Ok(value),
        Ok(_) | Err(_) if digits => Err((
            column,
            format!("{word} is outside {whose} range for {what}, {low} to {high}"),
            Some(format!("give {what} from {low} to {high}")),
        )),
        _ => Err(problem(column, format!("`{word}` is not {what}"))),
    }
}

/// A number of dynamic conversation queues: a power of two in IOS's range.
pub(super) fn dynamic_queues(words: &mut Words) -> Result<u32, Problem> {
    let column = words.column();
    let queues = ranged(words, "a number of dynamic queues", range::DYNAMIC_QUEUES)?;
    if !queues.is_power_of_two() {
        return Err((
            column,
            format!("{queues} dynamic queues: IOS takes a power of two"),
            Some("give 16, 32, 64, 128, 256, 512, 1024, 2048 or 4096".into()),
        ));
    }
    Ok(queues as u32)
}

/// WRED `MIN MAX [DENOMINATOR]`, the thresholds within `thresholds` and the minimum not
/// above the maximum.
pub(super) fn wred_thresholds(
    words: &mut Words,
    thresholds: (u64, u64),
    denominator_required: bool,
) -> Result<(u32, u32, Option<u32>), Problem> {
    let min = ranged(words, "a minimum threshold", thresholds)?;
    let max_column = words.column();
    let max = ranged(words, "a maximum threshold", thresholds)?;
    if min > max {
        return Err((
            max_column,
            format!("the maximum threshold {max} is below the minimum {min}"),
            Some("give the minimum threshold first, then a maximum at least as large".into()),
        ));
    }
    let denominator = if denominator_required || words.peek().is_some() {
        Some(ranged(words, "a mark probability denominator", range::WRED_DENOMINATOR)? as u32)
    } else {
        None
    };
    Ok((min as u32, max as u32, denominator))
}

/// A packet count within `range` that must not be 0 (IOS's "no limit", not modelled).
pub(super) fn limit_packets(words: &mut Words, what: &str, range: (u64, u64)) -> Result<u32, Problem> {
    let column = words.column();
    // IOS's range starts at 0, qoslab's at 1.
    let modelled =
        |(column, message, _): Problem| (column, message, Some(format!("give {what} from 1 to {}", range.1)));
    match ranged(words, what, range).map_err(modelled)? {
        0 => Err((
            column,
            format!("{what} 0 (no limit at all) is not modelled"),
            Some(format!("give a limit from 1 to {}", range.1)),
        )),
        packets => Ok(u32::try_from(packets).expect("IOS's ranges fit in 32 bits")),
    }
}

/// A whole percentage, 1 to 100.
pub(super) fn percent(words: &mut Words) -> Result<u64, Problem> {
    let column = words.column();
    let value: u64 = number(words, "a percentage")?;
    if value == 0 || value > 100 {
        return Err((
            column,
            format!("{value} % is outside 1 to 100, which IOS refuses"),
            Some("give a percentage from 1 to 100".into()),
        ));
    }
    Ok(value)
}

/// Reads the `ip` of `protocol ip` in priority- and queue-list rules.
pub(super) fn expect_ip(words: &mut Words) -> Result<(), Problem> {
    let column = words.column();
    match words.next() {
        Some(word) if word.eq_ignore_ascii_case("ip") => Ok(()),
        _ => Err(problem(column, "only `protocol ip` rules are modelled")),
    }
}

/// Skips `type qos` after `class-map`/`policy-map`; false for other types (`inspect`,
/// `control-plane`, ...), which are not QoS queuing.
pub(super) fn qos_type(words: &mut Words) -> bool {
    if !words.peek().is_some_and(|w| w.eq_ignore_ascii_case("type")) {
        return true;
    }
    words.next();
    let qos = words.peek().is_some_and(|w| w.eq_ignore_ascii_case("qos"));
    words.next();
    qos
}
