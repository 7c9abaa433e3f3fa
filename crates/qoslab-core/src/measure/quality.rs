//! ΔQ accounting of every application at every observation point (see [`super::dq`]).
//!
//! Each flow belongs to one application: the one whose budget names it, else the traffic
//! entry it comes from when `order_of_failure` names that entry, else `other`. Each
//! (observation point, application, interval length) has its own account. The end-to-end
//! point takes a packet when its source creates it and gives its outcome at the sink (or
//! where it is dropped); a hop point takes it when it is offered to the port's discipline
//! and gives its outcome when it reaches the far end of the link (or is dropped there).
//! Budgets apply per point: the end-to-end limits at `end_to_end`, the per-hop limits at a
//! port, where the consumption is also expressed against the end-to-end limits (the ad-hoc
//! report plots one hop's consumption as a share of the end-to-end budget). Only packets
//! created in the measured window count.

use super::dq::{Budget, DqAccount};
use super::invariant::InvariantError;
use crate::ids::{FlowId, Table};
use crate::measure::FlowStats;
use crate::packet::Packet;
use crate::packet::NO_HOP;
use crate::time::SimTime;

/// An application as the ΔQ accounting sees it.
#[derive(Clone, Debug)]
pub struct Application {
    /// Its name in the results.
    pub name: String,
    /// End-to-end and per-hop limits, if it has a budget.
    pub budgets: Option<(Budget, Budget)>,
}

/// An observation point.
#[derive(Clone, Debug)]
pub struct Point {
    /// `end_to_end` or the port's name.
    pub name: String,
    /// The hop slot of the port (`NO_HOP` for end to end).
    pub hop_slot: u32,
    /// Rate of the link the loads are compared with, bit/s.
    pub link_bps: u64,
    /// Layer-2 overhead per packet on that link, bytes.
    pub l2_overhead_bytes: u32,
}

/// The ΔQ state of a run.
#[derive(Clone, Debug)]
pub struct Quality {
    /// Applications, in results order.
    pub apps: Vec<Application>,
    /// Observation points.
    pub points: Vec<Point>,
    /// Interval lengths, ns.
    pub lengths_ns: Vec<u64>,
    /// Per flow row: its application.
    flow_app: Table<FlowId, u32>,
    /// The end-to-end point, if observed.
    end_to_end: Option<usize>,
    /// Per hop slot: its point (`NO_HOP` if the slot is observed for other reasons).
    hop_point: Vec<u32>,
    /// Indexed by [`Quality::slot`].
    accounts: Vec<DqAccount>,
}

impl Quality {
    /// The accounts of `apps` at `points`, one per interval length; `flow_app` maps each
    /// flow row to its application, `hop_slots` is the number of observed hop slots.
    pub fn new(
        apps: Vec<Application>,
        points: Vec<Point>,
        lengths_ns: Vec<u64>,
        flow_app: Table<FlowId, u32>,
        hop_slots: usize,
        keep_intervals: bool,
    ) -> Self {
        let mut hop_point = vec![NO_HOP; hop_slots];
        let mut end_to_end = None;
        let mut accounts = Vec::new();
        for (p, point) in points.iter().enumerate() {
            if point.hop_slot == NO_HOP {
                end_to_end = Some(p);
            } else {
                hop_point[point.hop_slot as usize] = p as u32;
            }
            for app in &apps {
                for &length_ns in &lengths_ns {
                    // A hop is held to the per-hop limits, end to end to the end-to-end ones.
                    let budgets =
                        app.budgets.map(|(e2e, hop)| (if point.hop_slot == NO_HOP { e2e } else { hop }, e2e));
                    accounts.push(DqAccount::new(length_ns, budgets, keep_intervals));
                }
            }
        }
        Quality { apps, points, lengths_ns, flow_app, end_to_end, hop_point, accounts }
    }

    fn slot(&self, point: usize, app: usize) -> usize {
        (point * self.apps.len() + app) * self.lengths_ns.len()
    }

    /// The accounts of `app` at `point`, one per interval length.
    pub fn accounts(&self, point: usize, app: usize) -> &[DqAccount] {
        let first = self.slot(point, app);
        &self.accounts[first..first + self.lengths_ns.len()]
    }

    fn accounts_mut(&mut self, point: usize, flow: FlowId) -> &mut [DqAccount] {
        let first = self.slot(point, self.flow_app[flow] as usize);
        &mut self.accounts[first..first + self.lengths_ns.len()]
    }

    /// The application of flow row `flow`.
    pub fn app_of(&self, flow: FlowId) -> &str {
        &self.apps[self.flow_app[flow] as usize].name
    }

    /// A counted packet was created.
    #[inline]
    pub fn on_sent(&mut self, packet: &Packet) {
        if let Some(p) = self.end_to_end {
            for account in self.accounts_mut(p, packet.flow) {
                account.on_ingress(packet.created.0, packet.size_bytes);
            }
        }
    }

    /// A counted packet reached its destination.
    #[inline]
    pub fn on_received(&mut self, packet: &Packet, now: SimTime) {
        if let Some(p) = self.end_to_end {
            for account in self.accounts_mut(p, packet.flow) {
                account.on_delivered(packet.created.0, now.0, packet.size_bytes);
            }
        }
    }

    /// A counted packet was dropped (inside an observed hop if its slot says so).
    #[inline]
    pub fn on_dropped(&mut self, packet: &Packet, now: SimTime) {
        if let Some(p) = self.end_to_end {
            // End to end a packet is what its source sent, even if a tunnel wrapped it.
            for account in self.accounts_mut(p, packet.flow) {
                account.on_lost(packet.created.0, now.0, packet.inner_size_bytes());
            }
        }
        if let Some(p) = self.hop(packet) {
            for account in self.accounts_mut(p, packet.flow) {
                account.on_lost(packet.hop_in.0, now.0, packet.size_bytes);
            }
        }
    }

    fn hop(&self, packet: &Packet) -> Option<usize> {
        let slot = *self.hop_point.get(packet.hop_slot as usize)?;
        (slot != NO_HOP).then_some(slot as usize)
    }

    /// A counted packet entered an observed hop (its `hop_in` is now).
    #[inline]
    pub fn on_hop_arrival(&mut self, packet: &Packet) {
        if let Some(p) = self.hop(packet) {
            for account in self.accounts_mut(p, packet.flow) {
                account.on_ingress(packet.hop_in.0, packet.size_bytes);
            }
        }
    }

    /// A counted packet left an observed hop (reached the far end of its link).
    #[inline]
    pub fn on_hop_departure(&mut self, packet: &Packet, now: SimTime) {
        if let Some(p) = self.hop(packet) {
            for account in self.accounts_mut(p, packet.flow) {
                account.on_delivered(packet.hop_in.0, now.0, packet.size_bytes);
            }
        }
    }

    /// The accounts agree with the flows' own counters: at each point, an application's
    /// packets in, delivered and lost are its flows' (end to end: sent, received, dropped;
    /// at a hop: arrived, departed, dropped there).
    pub fn check(&self, flows: &Table<FlowId, FlowStats>) -> Result<(), InvariantError> {
        for (p, point) in self.points.iter().enumerate() {
            for (a, app) in self.apps.iter().enumerate() {
                let mut expected = (0, 0, 0);
                for (stats, _) in flows.iter().zip(&self.flow_app).filter(|(_, &of)| of as usize == a) {
                    let counts = if point.hop_slot == NO_HOP {
                        (stats.sent_packets, stats.received_packets, stats.drops.total_packets())
                    } else {
                        let hop = &stats.hops[point.hop_slot as usize];
                        (hop.arrived_packets, hop.departed_packets, hop.dropped_packets)
                    };
                    expected = (expected.0 + counts.0, expected.1 + counts.1, expected.2 + counts.2);
                }
                for account in self.accounts(p, a) {
                    let s = &account.summary;
                    let got = (s.offered_packets, s.delivered_packets, s.lost_packets);
                    if got != expected {
                        return Err(InvariantError::QualityAccounts {
                            app: app.name.clone(),
                            point: point.name.clone(),
                            got,
                            expected,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The run ended at `end`.
    pub fn finish(&mut self, end: SimTime) {
        self.accounts.iter_mut().for_each(|a| a.finish(end.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::receipt::Receipt;

    fn packet(flow: u32, created: u64) -> Packet {
        let mut packet = crate::packet::testing::packet(0, 100, 0);
        packet.flow = FlowId(flow);
        packet.created = SimTime(created);
        packet
    }

    /// Two flows of one application end to end: the account adds them up, and the check
    /// catches a packet the flow counted but the account did not.
    #[test]
    fn accounts_follow_the_flows() {
        let app = Application { name: "voice".into(), budgets: None };
        let point = Point { name: "end_to_end".into(), hop_slot: NO_HOP, link_bps: 1, l2_overhead_bytes: 0 };
        let mut quality = Quality::new(vec![app], vec![point], vec![1_000], vec![0, 0].into(), 0, false);
        let mut flows: Table<FlowId, FlowStats> =
            vec![FlowStats::new(0, u64::MAX), FlowStats::new(0, u64::MAX)].into();
        for (flow, created) in [(0, 10), (1, 20)] {
            let p = packet(flow, created);
            flows[p.flow].on_sent(&p);
            quality.on_sent(&p);
            flows[p.flow].on_receipt(&Receipt::of(&p, SimTime(created + 5), true));
            quality.on_received(&p, SimTime(created + 5));
        }
        quality.finish(SimTime(10_000));
        assert_eq!(quality.check(&flows), Ok(()));
        let summary = &quality.accounts(0, 0)[0].summary;
        assert_eq!((summary.offered_packets, summary.delivered_packets), (2, 2));
        flows[FlowId(1)].on_sent(&packet(1, 30));
        assert!(quality.check(&flows).unwrap_err().to_string().contains("ΔQ of `voice` at end_to_end"));
    }
}
