//! Markers: IOS MQC `set ip dscp` and `set ip precedence`.
//!
//! A marker rewrites the DS field of every packet it is applied to. `set ip dscp X` writes
//! the six-bit codepoint X (RFC 2474 §3). `set ip precedence N` writes the three
//! precedence bits only — the top three bits of the field, which RFC 2474 keeps as the
//! class-selector bits for compatibility with RFC 791's precedence — and leaves the lower
//! three bits as they were; so DSCP 46 (EF) set to precedence 0 becomes 6, which is
//! precedence 0. To write a class selector with the lower bits cleared, set the DSCP
//! (`CSn`) instead. The ECN bits (RFC 3168) are never touched. Which of the two readings
//! of `set ip precedence` a given IOS release implements on a DSCP-marked packet is not
//! documented in the sources used here; qoslab's is the field-level one described above.
//!
//! A marker has no state, so it costs one write per packet.
//!
//! References: RFC 2474 §3 (the DS field) and §4.2.2 (class selector code points, precedence
//! p as DSCP 8p); RFC 791 §3.1 (precedence).

use crate::classify::dscp::{Dscp, Precedence};
use crate::config::error::{join_path, Issue};
use crate::packet::Packet;
use schemars::JsonSchema;
use serde::Deserialize;

/// `set: {dscp: EF}` or `set: {precedence: 0}`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetSpec {
    /// Write this DSCP (IOS `set ip dscp`).
    pub dscp: Option<Dscp>,
    /// Write these precedence bits, keeping the lower three DSCP bits (IOS
    /// `set ip precedence`).
    pub precedence: Option<Precedence>,
}

/// A compiled marker.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// Write the whole codepoint.
    Dscp(u8),
    /// Write the top three bits.
    Precedence(u8),
}

impl Marker {
    /// Builds from `spec` found at key path `at`.
    pub fn build(spec: &SetSpec, at: &str) -> Result<Self, Issue> {
        match (spec.dscp, spec.precedence) {
            (Some(d), None) => Ok(Marker::Dscp(d.0)),
            (None, Some(p)) => Ok(Marker::Precedence(p.0)),
            (Some(_), Some(_)) => Err(Issue::at(at, "`set` takes one of `dscp` and `precedence`")
                .hint("setting the DSCP also sets the precedence (its top three bits)")),
            (None, None) => Err(Issue::at(join_path(at, "dscp"), "`set` names nothing to set")
                .hint("write `set: {dscp: 0}` or `set: {precedence: 0}`")),
        }
    }

    /// The DSCP `dscp` becomes.
    #[inline]
    pub fn remark(self, dscp: u8) -> u8 {
        match self {
            Marker::Dscp(d) => d,
            Marker::Precedence(p) => (p << 3) | (dscp & 0b111),
        }
    }

    /// Marks `packet`.
    #[inline]
    pub fn apply(self, packet: &mut Packet) {
        packet.dscp = self.remark(packet.dscp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(yaml: &str) -> Result<Marker, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let spec: SetSpec = serde_json::from_value(value).unwrap();
        Marker::build(&spec, "s")
    }

    #[test]
    fn dscp_and_precedence() {
        assert_eq!(build("{dscp: 0}").unwrap().remark(46), 0);
        assert_eq!(build("{dscp: AF41}").unwrap().remark(0), 34);
        // Precedence keeps the lower three bits: EF (101 110) → 000 110; AF11 (001 010) at
        // precedence 5 → 101 010.
        let to_routine = build("{precedence: routine}").unwrap();
        assert_eq!(to_routine.remark(46), 6);
        assert_eq!(to_routine.remark(46) >> 3, 0);
        assert_eq!(build("{precedence: 5}").unwrap().remark(10), 42);
        assert_eq!(build("{precedence: 7}").unwrap().remark(0), 56);
        let mut p = crate::packet::testing::packet(1, 100, 46);
        p.ecn = 3;
        build("{dscp: CS1}").unwrap().apply(&mut p);
        assert_eq!((p.dscp, p.ecn), (8, 3));
    }

    #[test]
    fn errors() {
        let both = build("{dscp: 0, precedence: 0}").unwrap_err();
        assert_eq!(both.key_path, "s");
        assert!(both.message.contains("one of"));
        let none = build("{}").unwrap_err();
        assert_eq!(none.key_path, "s.dscp");
    }
}
