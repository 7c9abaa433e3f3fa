//! Classification: a first-match list of rules mapping packets to a class (or band) index.
//!
//! Rules are tried in the order written; the first whose condition holds decides. A packet
//! no rule matches goes to the default target. This is how IOS `priority-list` and
//! `class-map` evaluation work (`docs/reference/ios-defaults.md`).

pub mod class_setup;
pub mod dscp;
pub mod flow_hash;
pub mod matcher;

pub use matcher::{MatchSpec, Matcher};

use crate::packet::Packet;

/// First-match rules to target indices, with a default.
#[derive(Clone, Debug)]
pub struct Classifier {
    rules: Vec<(Matcher, u32)>,
    default_target: u32,
}

impl Classifier {
    /// Rules in evaluation order and the target of unmatched packets.
    pub fn new(rules: Vec<(Matcher, u32)>, default_target: u32) -> Self {
        Classifier { rules, default_target }
    }

    /// The target of the first rule that `packet` matches, else the default.
    #[inline]
    pub fn classify(&self, packet: &Packet) -> u32 {
        self.rules.iter().find(|(m, _)| m.matches(packet)).map_or(self.default_target, |(_, target)| *target)
    }
}
