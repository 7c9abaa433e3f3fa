//! A delivery as its flow's statistics count it: the few fields of the packet and the
//! moment they need, copied so that counting can wait ([`super::receipts`]) while the
//! packet's buffer is reused.

use crate::ids::FlowId;
use crate::packet::{Packet, CE};
use crate::time::SimTime;

/// What counting a delivery needs of its packet.
#[derive(Clone, Copy, Debug, Default)]
pub struct Receipt {
    /// When the packet was created.
    pub created: SimTime,
    /// When it was delivered.
    pub delivered: SimTime,
    /// Its flow row.
    pub flow: FlowId,
    /// Its size (layer 3), bytes.
    pub size_bytes: u32,
    /// Its ECN field said CE.
    pub ce: bool,
    /// It was created in the measured window (`Packet::counted`).
    pub counted: bool,
    /// It arrived in the measured window.
    pub in_window: bool,
}

impl Receipt {
    /// The receipt of `packet`, delivered at `now`.
    #[inline]
    pub fn of(packet: &Packet, now: SimTime, in_window: bool) -> Self {
        Receipt {
            created: packet.created,
            delivered: now,
            flow: packet.flow,
            size_bytes: packet.size_bytes,
            ce: packet.ecn == CE,
            counted: packet.counted,
            in_window,
        }
    }

    /// Its one-way delay, ns.
    #[inline]
    pub fn delay_ns(&self) -> u64 {
        self.delivered.since(self.created)
    }
}
