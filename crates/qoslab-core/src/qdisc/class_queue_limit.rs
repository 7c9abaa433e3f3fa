//! How much a CBWFQ/LLQ class queue holds, and the test that refuses an arrival at its tail.
//!
//! Every scheduler counts packets (IOS `queue-limit N`). IOS XE also counts bytes or time
//! (`queue-limit N bytes|ms|us`, Cisco IOS XE QoS congestion management configuration
//! guide, "Queue Limits"); qoslab takes those units under `scheduler: xe` only, the
//! classic IOS routers it models counting packets.
//!
//! * A **byte** limit refuses a packet that would take the queue past it, as Linux's
//!   `bfifo` does: a queue of 4,000 bytes holding 3,000 takes a packet of 1,000 bytes and
//!   refuses one of 1,001.
//! * A **time** limit is held as the bytes its level sends in that time, `t × r / 8`, with
//!   `r` the rate of the policy the class is in: the interface's, or, in a child policy,
//!   its parent class's shape rate. The vendor's guides do not say which rate IOS XE
//!   converts an explicit time at; this is the rate its own default limit, "50 ms of
//!   1500-byte packets", is counted at ([`super::xe_policy`]), so explicit and default
//!   limits stand on one footing. `queue-limit 50 ms` on a 1.5 Mbit/s level is 9,375 bytes.
//!
//! A fair-queued class applies its limit to each flow queue, and a priority class under
//! IOS XE or HQF to its packets in the priority queue.

use super::packet_queue::{QueueLimit, QueueLimitError};
use crate::config::error::{join_path, Issue};
use crate::config::scalar::{parse_scalar, Numbers};
use crate::units::{format_rate, parse_duration_ns, UnitError};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;

/// A class queue limit that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClassQueueLimitError {
    /// A packet count of 0, or too large.
    #[error("`{text}` is not a valid packet count: use a whole number above 0")]
    PacketCount { text: String },
    /// A limit of no bytes or no time.
    #[error("a queue limit of `{text}` holds nothing")]
    Zero { text: String },
    /// Neither a count, a size nor a time.
    #[error(
        "{0}; a class's queue limit is packets (64), bytes (\"64kB\") or, under IOS XE, time (\"50ms\")"
    )]
    Unit(UnitError),
    /// No limit at all, which a class queue does not have.
    #[error(
        "a class's queue has a limit: give packets (64), bytes (\"64kB\") or, under IOS XE, time (\"50ms\")"
    )]
    Unlimited,
}

/// What a class's `queue_limit` says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClassQueueLimit {
    /// At most this many packets.
    Packets(u32),
    /// IOS XE: at most this many bytes of IP packets.
    Bytes(u64),
    /// IOS XE: what the class's level sends in this time, ns.
    Time(u64),
}

impl ClassQueueLimit {
    /// Parses packets (`64`, `"64 packets"`, `"64p"`), bytes (`"64kB"`, `"9000 bytes"`) or
    /// a time (`"50ms"`, `"500us"`).
    /// A time is read here; packets and bytes as every queue limit is ([`QueueLimit::parse`]).
    pub fn parse(text: &str) -> Result<Self, ClassQueueLimitError> {
        let zero = || ClassQueueLimitError::Zero { text: text.to_owned() };
        match parse_duration_ns(text.trim()) {
            Ok(0) => return Err(zero()),
            Ok(ns) => return Ok(ClassQueueLimit::Time(ns)),
            // Not a time: a count or a size, read below.
            Err(UnitError::UnknownUnit { .. } | UnitError::NoUnit { .. } | UnitError::NoNumber { .. }) => {}
            Err(e) => return Err(ClassQueueLimitError::Unit(e)),
        }
        match QueueLimit::parse(text) {
            Ok(QueueLimit::Packets(packets)) => Ok(ClassQueueLimit::Packets(packets)),
            Ok(QueueLimit::Bytes(bytes)) => Ok(ClassQueueLimit::Bytes(bytes)),
            Ok(QueueLimit::Unlimited) => Err(ClassQueueLimitError::Unlimited),
            Err(QueueLimitError::PacketCount { text }) => Err(ClassQueueLimitError::PacketCount { text }),
            Err(QueueLimitError::ZeroBytes) => Err(zero()),
            Err(QueueLimitError::Size(e)) => Err(ClassQueueLimitError::Unit(e)),
        }
    }

    /// The limit on a level served at `level_bps`, or an error (at `at`) when a time there
    /// is less than a byte.
    pub fn resolve(self, level_bps: u64, at: &str) -> Result<Limit, Issue> {
        Ok(match self {
            ClassQueueLimit::Packets(packets) => Limit::packets(packets as usize),
            ClassQueueLimit::Bytes(bytes) => Limit { packets: usize::MAX, bytes },
            ClassQueueLimit::Time(ns) => {
                let bytes =
                    (u128::from(ns) * u128::from(level_bps) / 8_000_000_000).min(u128::from(u64::MAX)) as u64;
                if bytes == 0 {
                    return Err(Issue::at(
                        at,
                        format!(
                            "{ns} ns at {} is less than a byte: the queue would hold nothing",
                            format_rate(level_bps)
                        ),
                    )
                    .hint("give a longer time, or the limit in bytes"));
                }
                Limit { packets: usize::MAX, bytes }
            }
        })
    }

    /// Checks the limit of a class (at `at`): a class without a queue of its own (a pre-HQF
    /// priority class) has none to limit, bytes and time are IOS XE's (`xe`), and WRED's
    /// thresholds (`has_wred`) count packets.
    pub fn check(self, at: &str, own_queue: bool, xe: bool, has_wred: bool) -> Result<(), Issue> {
        let at = join_path(at, "queue_limit");
        if !own_queue {
            return Err(Issue::at(at, "a priority class has no queue of its own")
                .hint("its traffic is bounded by its policer; remove `queue_limit`"));
        }
        let unit = match self {
            ClassQueueLimit::Packets(_) => return Ok(()),
            ClassQueueLimit::Bytes(_) => "bytes",
            ClassQueueLimit::Time(_) => "time",
        };
        if !xe {
            return Err(Issue::at(
                at,
                format!("a queue limit in {unit} is IOS XE's (`queue-limit N bytes`, `ms` or `us`); this scheduler counts packets"),
            )
            .hint("give the limit in packets, or set `scheduler: xe`"));
        }
        if has_wred {
            return Err(Issue::at(
                at,
                format!("WRED's thresholds count packets here: a queue limit in {unit} beside `random_detect` is not modelled"),
            )
            .hint("give the limit in packets"));
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for ClassQueueLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        parse_scalar(d, Numbers::AsText, ClassQueueLimit::parse)
    }
}

impl JsonSchema for ClassQueueLimit {
    fn schema_name() -> Cow<'static, str> {
        "ClassQueueLimit".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "packets (64 or \"64 packets\"); under `scheduler: xe` also bytes (\"64kB\") or time (\"50ms\")",
            "oneOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string"}
            ]
        })
    }
}

/// A class queue's limit as the scheduler tests it: packets and bytes, one of them
/// unbounded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limit {
    packets: usize,
    bytes: u64,
}

impl Limit {
    /// At most `packets` packets.
    pub const fn packets(packets: usize) -> Self {
        Limit { packets, bytes: u64::MAX }
    }

    /// Whether a queue holding `held_packets` (and `held_bytes()` bytes) refuses a packet of
    /// `size_bytes`. The bytes are asked for only when the limit counts them.
    #[inline]
    pub fn refuses(self, held_packets: usize, held_bytes: impl FnOnce() -> u64, size_bytes: u32) -> bool {
        held_packets >= self.packets
            || (self.bytes != u64::MAX && held_bytes() + u64::from(size_bytes) > self.bytes)
    }

    /// The most packets the limit lets a queue hold (all a limit of packets says).
    pub fn packet_bound(self) -> usize {
        self.packets
    }

    /// The bytes the limit holds, if it counts bytes.
    pub fn bytes(self) -> Option<u64> {
        (self.bytes != u64::MAX).then_some(self.bytes)
    }

    /// The limit as a [`QueueLimit`].
    pub fn as_queue_limit(self) -> QueueLimit {
        match self.bytes() {
            Some(bytes) => QueueLimit::Bytes(bytes),
            None => QueueLimit::Packets(self.packets.min(u32::MAX as usize) as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_packets_bytes_and_time() {
        let cases = [
            ("64", ClassQueueLimit::Packets(64)),
            ("64 packets", ClassQueueLimit::Packets(64)),
            ("64p", ClassQueueLimit::Packets(64)),
            ("64kB", ClassQueueLimit::Bytes(64_000)),
            ("9000 bytes", ClassQueueLimit::Bytes(9_000)),
            ("50ms", ClassQueueLimit::Time(50_000_000)),
            ("500us", ClassQueueLimit::Time(500_000)),
        ];
        for (text, limit) in cases {
            assert_eq!(ClassQueueLimit::parse(text), Ok(limit), "{text}");
        }
        for (text, message) in [
            ("0", "`0` is not a valid packet count"),
            ("0ms", "a queue limit of `0ms` holds nothing"),
            ("0B", "a queue limit of `0B` holds nothing"),
            ("5 parsecs", "unknown size unit `parsecs`"),
            ("-5ms", "is negative"),
            ("unlimited", "a class's queue has a limit"),
        ] {
            let error = ClassQueueLimit::parse(text).unwrap_err().to_string();
            assert!(error.contains(message), "{text}: {error}");
        }
    }

    /// 50 ms at 1.5 Mbit/s: 1,500,000 × 0.05 / 8 = 9,375 bytes.
    #[test]
    fn a_time_is_the_bytes_the_level_sends_in_it() {
        let limit = ClassQueueLimit::Time(50_000_000).resolve(1_500_000, "q").unwrap();
        assert_eq!(limit.as_queue_limit(), QueueLimit::Bytes(9_375));
        let error = ClassQueueLimit::Time(1_000).resolve(1_000, "p.classes[0].queue_limit").unwrap_err();
        assert_eq!(error.key_path, "p.classes[0].queue_limit");
        assert!(error.message.contains("less than a byte"), "{}", error.message);
    }

    /// A byte limit takes a packet that fills it exactly and refuses one byte more; a packet
    /// limit never asks for the bytes.
    #[test]
    fn a_byte_limit_refuses_what_would_pass_it() {
        let bytes = ClassQueueLimit::Bytes(4_000).resolve(1, "q").unwrap();
        assert!(!bytes.refuses(3, || 3_000, 1_000));
        assert!(bytes.refuses(3, || 3_000, 1_001));
        let packets = Limit::packets(2);
        assert!(!packets.refuses(1, || unreachable!("a packet limit counts no bytes"), 1_500));
        assert!(packets.refuses(2, || unreachable!("a packet limit counts no bytes"), 64));
    }

    #[test]
    fn bytes_and_time_belong_to_ios_xe() {
        let bytes = ClassQueueLimit::Bytes(9_000);
        let error = bytes.check("p.classes[1]", true, false, false).unwrap_err();
        assert_eq!(error.key_path, "p.classes[1].queue_limit");
        assert!(error.message.contains("IOS XE's"), "{}", error.message);
        assert!(bytes.check("p.classes[1]", true, true, false).is_ok());
        let error = ClassQueueLimit::Time(1).check("c", true, true, true).unwrap_err();
        assert!(error.message.contains("beside `random_detect`"), "{}", error.message);
        let error = ClassQueueLimit::Packets(5).check("c", false, false, false).unwrap_err();
        assert_eq!(error.message, "a priority class has no queue of its own");
        assert!(ClassQueueLimit::Packets(5).check("c", true, false, true).is_ok());
    }
}
