//! CoDel, controlled delay (RFC 8289): the state and control law of one queue whose packets
//! carry their enqueue time, run at dequeue.
//!
//! The sojourn time of the packet at the head is now minus its enqueue time. The queue is
//! *above target* when that sojourn is at least `target` and the backlog the caller counts
//! against the MTU still exceeds one MTU after the packet is taken (RFC 8289 §5.3; FQ-CoDel
//! counts the backlog of the whole discipline there, as Linux does, see
//! [`crate::qdisc::fq_codel`]). When the queue first goes above target, CoDel notes
//! `first_above = now + interval`; if it stays above target until then, the packet may be
//! dropped. On that first drop CoDel enters its dropping state and schedules the next drop
//! at `now + interval / √count`. While dropping, each time now reaches the scheduled instant
//! the head packet is dropped, `count` grows by one and the next drop comes
//! `interval / √count` after the previous scheduled one, so the drop rate rises with the
//! square root of the drops until the sojourn time falls below target, which ends the
//! dropping state (RFC 8289 §5.5). If the state is re-entered less than 16 intervals after
//! the last scheduled drop, `count` restarts from the number of drops of the previous
//! episode instead of 1 (the Linux variant the RFC gives). Drops have reason `codel`.
//! `interval / √count` is computed exactly in integers: ⌊√⌊interval² / count⌋⌋ ns.
//!
//! **ECN.** With `ecn`, a packet CoDel would drop is instead marked Congestion Experienced
//! (ECN field 3) and sent, if it is ECN-capable (ECN field 1 or 2; RFC 3168); a packet that
//! is not ECN-capable is dropped as before. Marks are not drops: they are counted in the
//! class's `ecn_marked_packets`.
//!
//! The work per dequeue is O(1) plus one packet per drop; nothing is allocated.

use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::{Packet, CE};
use crate::time::SimTime;

/// CoDel's settings for one queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time, ns.
    pub target_ns: u64,
    /// Time the sojourn must stay above target before the first drop, ns; also the base of
    /// the drop spacing.
    pub interval_ns: u64,
    /// While the counted backlog is at most this many bytes, the queue is never above target.
    pub mtu_bytes: u64,
    /// Mark ECN-capable packets CE instead of dropping them.
    pub ecn: bool,
}

/// What CoDel needs of the queue it manages.
pub trait CodelQueue {
    /// Removes the head packet, with the instant it was enqueued.
    fn pop(&mut self) -> Option<(Packet, SimTime)>;
    /// The backlog compared with the MTU, bytes, after the last pop.
    fn backlog_bytes(&self) -> u64;
}

/// CoDel's state for one queue (RFC 8289 §5).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Codel {
    /// When the sojourn time may first be judged persistent; 0 while below target.
    pub(crate) first_above_ns: u64,
    /// When the next drop is due in the dropping state.
    pub(crate) drop_next_ns: u64,
    /// Drops (or marks) since entering the dropping state, seeded as the RFC describes.
    pub(crate) count: u32,
    /// `count` when the dropping state was last entered.
    pub(crate) last_count: u32,
    /// Whether in the dropping state.
    pub(crate) dropping: bool,
}

/// ⌊√n⌋ for a `u128`.
fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    // Newton's iteration from above converges to ⌊√n⌋.
    let mut x = 1u128 << (128 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// `interval / √count`, ns, rounded down (the CoDel control law's spacing).
pub fn drop_spacing_ns(interval_ns: u64, count: u32) -> u64 {
    let squared = interval_ns as u128 * interval_ns as u128;
    isqrt(squared / count.max(1) as u128) as u64
}

/// Marks `packet` CE, counted in class `class`, if ECN is on and the packet is ECN-capable.
fn try_mark(config: &CodelConfig, packet: &mut Packet, class: usize, ctx: &mut QdiscCtx) -> bool {
    if config.ecn && packet.ecn_capable() {
        packet.ecn = CE;
        ctx.ecn_marked(class);
        true
    } else {
        false
    }
}

impl Codel {
    /// CoDel's `dodequeue`: the head packet of `queue` and whether it may be dropped.
    fn take(
        &mut self,
        queue: &mut impl CodelQueue,
        config: &CodelConfig,
        now: SimTime,
    ) -> Option<(Packet, bool)> {
        let Some((packet, enqueued)) = queue.pop() else {
            self.first_above_ns = 0;
            return None;
        };
        let now_ns = now.as_ns();
        let sojourn_ns = now.since(enqueued);
        let mut ok_to_drop = false;
        if sojourn_ns < config.target_ns || queue.backlog_bytes() <= config.mtu_bytes {
            self.first_above_ns = 0;
        } else if self.first_above_ns == 0 {
            self.first_above_ns = now_ns + config.interval_ns;
        } else if now_ns >= self.first_above_ns {
            ok_to_drop = true;
        }
        Some((packet, ok_to_drop))
    }

    /// CoDel's dequeue (RFC 8289 §5.5) on `queue`, whose packets belong to class `class`:
    /// the packet to send, if any. Drops and marks are counted through `ctx`.
    pub fn dequeue(
        &mut self,
        queue: &mut impl CodelQueue,
        config: &CodelConfig,
        class: usize,
        ctx: &mut QdiscCtx,
    ) -> Option<Packet> {
        let now = ctx.now;
        let now_ns = now.as_ns();
        let (mut packet, ok_to_drop) = self.take(queue, config, now)?;
        let interval_ns = config.interval_ns;
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now_ns >= self.drop_next_ns {
                self.count = self.count.saturating_add(1);
                if try_mark(config, &mut packet, class, ctx) {
                    self.drop_next_ns += drop_spacing_ns(interval_ns, self.count);
                    return Some(packet);
                }
                ctx.drop_queued(class, packet, DropReason::Codel);
                let (next, ok_to_drop) = match self.take(queue, config, now) {
                    None => {
                        self.dropping = false;
                        return None;
                    }
                    Some(taken) => taken,
                };
                packet = next;
                if ok_to_drop {
                    self.drop_next_ns += drop_spacing_ns(interval_ns, self.count);
                } else {
                    self.dropping = false;
                }
            }
            Some(packet)
        } else if ok_to_drop {
            let delta = self.count.wrapping_sub(self.last_count);
            self.count = if delta > 1 && now_ns.wrapping_sub(self.drop_next_ns) < 16 * interval_ns {
                delta
            } else {
                1
            };
            self.last_count = self.count;
            self.drop_next_ns = now_ns + drop_spacing_ns(interval_ns, self.count);
            self.dropping = true;
            if try_mark(config, &mut packet, class, ctx) {
                return Some(packet);
            }
            ctx.drop_queued(class, packet, DropReason::Codel);
            self.take(queue, config, now).map(|(p, _)| p)
        } else {
            Some(packet)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_law_spacing_is_exact() {
        // 100 ms / √1, √2, √3, √4 = 100, 70.710678…, 57.735026…, 50 ms.
        assert_eq!(drop_spacing_ns(100_000_000, 1), 100_000_000);
        assert_eq!(drop_spacing_ns(100_000_000, 2), 70_710_678);
        assert_eq!(drop_spacing_ns(100_000_000, 3), 57_735_026);
        assert_eq!(drop_spacing_ns(100_000_000, 4), 50_000_000);
        assert_eq!(isqrt(u128::MAX), u64::MAX as u128);
    }
}
