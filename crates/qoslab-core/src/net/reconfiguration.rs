//! Replacing an interface's output discipline during a run.
//!
//! An egress port's discipline is replaced at planned instants:
//!
//! * a scheduled configuration change (`interfaces.NODE.PEER.changes`) installs another
//!   policy or QoS bandwidth — the ad-hoc report's procedure of keeping the old router
//!   configuration for 30 s after the link slowed down, then applying the one meant for the
//!   lower speed (`adhoc-emergent` §6.2);
//! * a link rate change alters the QoS bandwidth of an interface that has no explicit
//!   `bandwidth`, and its policy's percentages and reservations are worked out again
//!   against the new value.
//!
//! **Withdrawal.** If, after a rate change, the policy no longer fits the interface (its
//! absolute reservations exceed what may be reserved of the new bandwidth), IOS takes the
//! policy off the interface and it queues first in, first out; the ad-hoc report saw this
//! (`adhoc-emergent` §6.3.3.2). qoslab then installs the default FIFO (40 packets, or the
//! interface's `hold_queue`) until a later change lets the policy fit again.
//!
//! **The packets queued at the swap** are handed to the new discipline in the order they
//! reached the port, as if they had arrived under it: it classifies them, its limits
//! apply, and those it refuses are its drops. The frame on the wire and those already in
//! the transmit ring are not touched. The old discipline's class counters are kept and
//! reported with the instant it was installed (`since_s` in the classes table).
//!
//! Every replacement is planned and built when the scenario is built, so a configuration
//! a change would install is checked before the run starts; the plan is one schedule of
//! [`PortChange`]s per port, rate changes included.

use crate::measure::QueueStats;
use crate::qdisc::AnyQdisc;
use crate::time::SimTime;

/// What changes on a port at one instant, in the order it is applied: its physical rate,
/// its explicit QoS bandwidth, its discipline. A port's changes form one schedule in time
/// order, so a rate change and the re-sizing it causes are applied together, in that order.
#[derive(Clone, Debug)]
pub struct PortChange {
    /// When.
    pub at: SimTime,
    /// The new physical rate, bit/s.
    pub rate_bps: Option<u64>,
    /// The interface's explicit QoS bandwidth from then on, bit/s.
    pub bandwidth_bps: Option<u64>,
    /// The discipline to install, built for the interface as it will be then, and why (in
    /// words, for the results).
    pub discipline: Option<(AnyQdisc, String)>,
}

/// A discipline the port used for part of the run, kept for its counters.
#[derive(Clone, Debug)]
pub struct RetiredDiscipline {
    /// Its scenario `kind`.
    pub kind: &'static str,
    /// Its class names, in class order.
    pub class_names: Vec<String>,
    /// Its class counters.
    pub class_stats: Vec<QueueStats>,
    /// When it was installed.
    pub since: SimTime,
}

/// A replacement that happened, for the results.
#[derive(Clone, Debug)]
pub struct ChangeLog {
    /// When.
    pub at: SimTime,
    /// The `kind` of the discipline installed.
    pub kind: &'static str,
    /// Why.
    pub cause: String,
    /// Packets handed over from the old discipline.
    pub handed_over_packets: u64,
    /// Of those, packets the new discipline refused.
    pub refused_packets: u64,
}
