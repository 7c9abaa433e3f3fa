//! Traffic conditioning: meters (and, with them, policers and markers).
//!
//! * [`token_bucket`]: one bucket, the meter under LLQ's conditional policer.
//! * [`srtcm`] and [`trtcm`]: the RFC 2697 and RFC 2698 three-colour meters.
//! * [`policer`]: IOS `police` — a meter plus conform/exceed/violate actions.
//! * [`marker`]: IOS `set ip dscp` / `set ip precedence`.
//! * [`conditioner`]: an ordered list of classes with those actions, the interface input
//!   policy (IOS `service-policy input`).
//!
//! All meters keep tokens in bit·nanoseconds per second (bits × 10⁹), so a refill over
//! Δt ns at R bit/s adds exactly Δt · R units and arithmetic stays exact.

pub mod conditioner;
pub mod marker;
pub mod policer;
pub mod srtcm;
pub mod token_bucket;
pub mod trtcm;

pub use conditioner::{Conditioner, ConditionerSpec};
pub use policer::Verdict;
pub use srtcm::SrTcm;
pub use token_bucket::TokenBucket;
pub use trtcm::TrTcm;

use crate::time::NS_PER_S;

/// Token units per byte for the three-colour meters: 8 bits × 10⁹.
pub(crate) const UNITS_PER_BYTE: u128 = 8 * NS_PER_S as u128;

/// The result of metering a packet (RFC 2697/2698 colours; IOS calls them conform, exceed
/// and violate).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Within the committed rate and burst (IOS conform).
    Green,
    /// Beyond the committed, within the excess or peak profile (IOS exceed).
    Yellow,
    /// Beyond everything (IOS violate).
    Red,
}
