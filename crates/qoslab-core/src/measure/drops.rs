//! Why a packet left the network without being delivered.
//!
//! Every drop is recorded with a reason and a place (the port, and the class within its
//! discipline). The list grows with the models; each reason has a stable name used in
//! result column names (`dropped_<name>_packets`).

/// The reason a packet was dropped.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The queue (or band/class) was at its limit when the packet arrived.
    TailDrop,
    /// WFQ's congestive discard: the conversation held its threshold of packets.
    CongestiveDiscard,
    /// A policer found the packet out of contract (LLQ's priority-class policer).
    Policed,
    /// RED/WRED/RIO early drop: the average queue was between the thresholds.
    RedEarly,
    /// RED/WRED/RIO forced drop: the average queue was above the maximum threshold.
    RedForced,
    /// A policer's exceed action dropped the packet.
    PolicerExceed,
    /// A policer's violate action dropped the packet.
    PolicerViolate,
    /// CoDel dropped the packet at dequeue (sojourn time above target for too long).
    Codel,
    /// A discipline's overall limit was reached (FQ-CoDel's packet limit, a shaper's queue).
    Overlimit,
    /// The link lost the frame (its random loss model).
    LinkLoss,
}

impl DropReason {
    /// Every reason, in the order result columns list them.
    pub const ALL: [DropReason; 10] = [
        DropReason::TailDrop,
        DropReason::CongestiveDiscard,
        DropReason::Policed,
        DropReason::RedEarly,
        DropReason::RedForced,
        DropReason::PolicerExceed,
        DropReason::PolicerViolate,
        DropReason::Codel,
        DropReason::Overlimit,
        DropReason::LinkLoss,
    ];

    /// Stable snake-case name used in result columns.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::TailDrop => "tail",
            DropReason::CongestiveDiscard => "cdt",
            DropReason::Policed => "policed",
            DropReason::RedEarly => "red_early",
            DropReason::RedForced => "red_forced",
            DropReason::PolicerExceed => "policer_exceed",
            DropReason::PolicerViolate => "policer_violate",
            DropReason::Codel => "codel",
            DropReason::Overlimit => "overlimit",
            DropReason::LinkLoss => "link_loss",
        }
    }

    /// Position in [`DropReason::ALL`], for counter arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Packets and bytes dropped for one reason, side by side so that a drop touches one cache
/// line.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct DropCount {
    packets: u64,
    bytes: u64,
}

/// Packets and bytes dropped, per reason.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropCounters {
    by_reason: [DropCount; DropReason::ALL.len()],
}

impl DropCounters {
    /// Counts one dropped packet of `size_bytes`.
    #[inline]
    pub fn record(&mut self, reason: DropReason, size_bytes: u32) {
        let count = &mut self.by_reason[reason.index()];
        count.packets += 1;
        count.bytes += size_bytes as u64;
    }

    /// Packets dropped for `reason`.
    pub fn packets(&self, reason: DropReason) -> u64 {
        self.by_reason[reason.index()].packets
    }

    /// Packets dropped for any reason.
    pub fn total_packets(&self) -> u64 {
        self.by_reason.iter().map(|c| c.packets).sum()
    }

    /// Bytes dropped for any reason.
    pub fn total_bytes(&self) -> u64 {
        self.by_reason.iter().map(|c| c.bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_packets_and_bytes_per_reason_and_in_total() {
        let mut drops = DropCounters::default();
        drops.record(DropReason::TailDrop, 1500);
        drops.record(DropReason::TailDrop, 40);
        drops.record(DropReason::Policed, 200);
        assert_eq!(drops.packets(DropReason::TailDrop), 2);
        assert_eq!(drops.packets(DropReason::Policed), 1);
        assert_eq!(drops.packets(DropReason::CongestiveDiscard), 0);
        assert_eq!(drops.total_packets(), 3);
        assert_eq!(drops.total_bytes(), 1740);
    }
}
