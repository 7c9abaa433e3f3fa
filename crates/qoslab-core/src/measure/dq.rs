//! ΔQ accounting of one application between two observation points, interval by interval,
//! against the application's quality budget (the ad-hoc report, §6.2 and §6.3.2).
//!
//! Every packet that passes the ingress point either reaches the egress point, with a delay,
//! or is lost on the way. Time is cut into intervals of a fixed length and each packet
//! belongs to the interval in which it passed the ingress point. Once every packet of an
//! interval has an outcome, the interval is closed: its loss ratio (lost / lost + delivered)
//! and mean delay are compared with the budget. Its consumption is the larger of
//! loss / loss budget and mean delay / delay budget (and, if the budget limits jitter, of
//! delay variation / jitter budget, the variation being the largest minus the smallest delay
//! in the interval); it is in contract when every component is within its limit. An
//! interval without delivered packets consumes no delay budget (its loss decides). Intervals
//! in which no packet passed the ingress point are discarded, as the report does.
//!
//! Streaming: only intervals that some packet entered and that still wait for an outcome (or
//! for an earlier interval to close) are kept, so memory follows the packets between the two
//! points, not the run length or the interval length. Packets still
//! between the points when the run ends have no outcome: they are counted as in flight and
//! left out of their interval.

use std::collections::VecDeque;

/// What an application may suffer between two observation points.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Budget {
    /// Largest mean delay, ns.
    pub delay_ns: u64,
    /// Largest loss ratio (0–1, above 0).
    pub loss_ratio: f64,
    /// Largest delay variation, ns, if limited.
    pub jitter_ns: Option<u64>,
}

impl Budget {
    /// The (loss, delay, jitter) consumption of an interval with `loss_ratio`, mean delay
    /// `delay_mean_ns` and delay variation `delay_variation_ns` (both `None` when nothing
    /// was delivered); jitter only when limited.
    fn consumption(
        &self,
        loss_ratio: f64,
        delay_mean_ns: Option<f64>,
        delay_variation_ns: Option<u64>,
    ) -> (f64, f64, Option<f64>) {
        let loss = loss_ratio / self.loss_ratio;
        let delay = delay_mean_ns.map_or(0.0, |d| d / self.delay_ns as f64);
        let jitter = self.jitter_ns.map(|limit| delay_variation_ns.unwrap_or(0) as f64 / limit as f64);
        (loss, delay, jitter)
    }
}

/// The largest of an interval's consumption components.
fn largest((loss, delay, jitter): (f64, f64, Option<f64>)) -> f64 {
    loss.max(delay).max(jitter.unwrap_or(0.0))
}

/// One closed interval.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Interval {
    /// Index of the interval (start = index × length).
    pub index: u64,
    /// Packets that passed the ingress point in the interval and have an outcome.
    pub packets: u64,
    /// Of those, lost.
    pub lost_packets: u64,
    /// Loss ratio, 0–1.
    pub loss_ratio: f64,
    /// Mean delay of the delivered packets, ns.
    pub delay_mean_ns: Option<f64>,
    /// Largest minus smallest delay of the delivered packets, ns.
    pub delay_variation_ns: Option<u64>,
    /// loss ratio / loss budget.
    pub loss_consumption: f64,
    /// mean delay / delay budget (0 without delivered packets).
    pub delay_consumption: f64,
    /// delay variation / jitter budget, if the budget limits jitter.
    pub jitter_consumption: Option<f64>,
    /// The largest of the components.
    pub consumption: f64,
    /// Every component within its limit.
    pub in_contract: bool,
}

#[derive(Copy, Clone, Debug, Default)]
struct Bin {
    /// Packets that passed the ingress point in this interval without an outcome yet.
    pending_packets: u64,
    lost_packets: u64,
    delivered_packets: u64,
    delivered_bytes: u64,
    delay_sum_ns: u128,
    delay_min_ns: u64,
    delay_max_ns: u64,
}

/// Totals over the closed intervals and the packets, for the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DqSummary {
    /// Intervals kept (with at least one packet with an outcome).
    pub intervals: u64,
    /// Sums of the interval consumptions (total, loss, delay, jitter), and of the total
    /// against the end-to-end budget.
    pub consumption_sum: f64,
    pub end_to_end_consumption_sum: f64,
    pub loss_consumption_sum: f64,
    pub delay_consumption_sum: f64,
    pub jitter_consumption_sum: f64,
    /// Intervals in contract: every component, loss, delay, jitter.
    pub in_contract: u64,
    pub in_loss_contract: u64,
    pub in_delay_contract: u64,
    pub in_jitter_contract: u64,
    /// Packets and bytes (layer 3) that passed the ingress point.
    pub offered_packets: u64,
    pub offered_bytes: u64,
    /// Delivered to the egress point.
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    /// Lost between the points.
    pub lost_packets: u64,
    pub lost_bytes: u64,
    /// Still between the points when the run ended.
    pub in_flight_packets: u64,
    pub in_flight_bytes: u64,
    /// Packets and bytes delivered in intervals that were in contract.
    pub in_contract_packets: u64,
    pub in_contract_bytes: u64,
}

/// The ΔQ state of one application at one pair of points, for one interval length.
#[derive(Clone, Debug)]
pub struct DqAccount {
    length_ns: u64,
    /// The limits at this point and the end-to-end ones the consumption is also expressed
    /// against (the same end to end), if the application has a budget. Without one, only
    /// the packet totals (the loads) are kept: no interval is stored or evaluated.
    budgets: Option<(Budget, Budget)>,
    /// Intervals below this index are closed.
    closed_until: u64,
    /// The interval last looked up and its start, ns: most look-ups fall in it again,
    /// and it saves a division.
    recent: (u64, u64),
    /// The open intervals that some packet entered, by index (intervals nobody entered
    /// have no entry, so memory follows the packets, not the interval length).
    bins: VecDeque<(u64, Bin)>,
    /// Totals so far.
    pub summary: DqSummary,
    /// Closed intervals, kept only when asked for (the per-interval table).
    pub kept: Option<Vec<Interval>>,
}

impl DqAccount {
    /// An account with intervals of `length_ns` (above 0) against `budgets` (the limits at
    /// this point, the end-to-end limits); `keep` keeps every closed interval for the
    /// per-interval table.
    pub fn new(length_ns: u64, budgets: Option<(Budget, Budget)>, keep: bool) -> Self {
        assert!(length_ns > 0, "interval length checked when the scenario is built");
        DqAccount {
            length_ns,
            budgets,
            closed_until: 0,
            recent: (0, 0),
            bins: VecDeque::new(),
            summary: DqSummary::default(),
            kept: keep.then(Vec::new),
        }
    }

    /// The limits at this point.
    pub fn budget(&self) -> Option<Budget> {
        self.budgets.map(|(here, _)| here)
    }

    /// The open interval of a packet that passed the ingress point at `at_ns`. An instant in
    /// an interval already closed is charged to the oldest open one: only an echo reply
    /// does that, as it keeps its request's creation time.
    fn bin(&mut self, at_ns: u64) -> &mut Bin {
        let (recent, start_ns) = self.recent;
        let index = if at_ns >= start_ns && at_ns - start_ns < self.length_ns {
            recent
        } else {
            let index = at_ns / self.length_ns;
            self.recent = (index, index * self.length_ns);
            index
        };
        let index = index.max(self.closed_until);
        let slot = match self.bins.back() {
            Some(&(last, _)) if last == index => self.bins.len() - 1,
            // An earlier interval: the packet's own, or the oldest open one after it.
            Some(&(last, _)) if last > index => self.bins.partition_point(|&(i, _)| i < index),
            _ => {
                self.bins.push_back((index, Bin::default()));
                self.bins.len() - 1
            }
        };
        &mut self.bins[slot].1
    }

    /// A packet of `size_bytes` passed the ingress point at `at_ns` (times never decrease).
    #[inline]
    pub fn on_ingress(&mut self, at_ns: u64, size_bytes: u32) {
        self.summary.offered_packets += 1;
        self.summary.offered_bytes += size_bytes as u64;
        if self.budgets.is_some() {
            self.close_until(at_ns);
            self.bin(at_ns).pending_packets += 1;
        }
    }

    /// The packet that passed the ingress point at `ingress_ns` reached the egress point at
    /// `now_ns`.
    #[inline]
    pub fn on_delivered(&mut self, ingress_ns: u64, now_ns: u64, size_bytes: u32) {
        self.summary.delivered_packets += 1;
        self.summary.delivered_bytes += size_bytes as u64;
        if self.budgets.is_none() {
            return;
        }
        let delay_ns = now_ns - ingress_ns;
        let bin = self.bin(ingress_ns);
        bin.pending_packets -= 1;
        if bin.delivered_packets == 0 {
            bin.delay_min_ns = delay_ns;
        }
        bin.delivered_packets += 1;
        bin.delivered_bytes += size_bytes as u64;
        bin.delay_sum_ns += delay_ns as u128;
        bin.delay_min_ns = bin.delay_min_ns.min(delay_ns);
        bin.delay_max_ns = bin.delay_max_ns.max(delay_ns);
        self.close_until(now_ns);
    }

    /// The packet that passed the ingress point at `ingress_ns` was lost, noticed at `now_ns`.
    #[inline]
    pub fn on_lost(&mut self, ingress_ns: u64, now_ns: u64, size_bytes: u32) {
        self.summary.lost_packets += 1;
        self.summary.lost_bytes += size_bytes as u64;
        if self.budgets.is_none() {
            return;
        }
        let bin = self.bin(ingress_ns);
        bin.pending_packets -= 1;
        bin.lost_packets += 1;
        self.close_until(now_ns);
    }

    /// Closes the leading intervals that ended by `now_ns` and have every outcome.
    fn close_until(&mut self, now_ns: u64) {
        while let Some(&(index, ref front)) = self.bins.front() {
            let ended = (index + 1).saturating_mul(self.length_ns) <= now_ns;
            if !ended || front.pending_packets > 0 {
                break;
            }
            let (index, bin) = self.bins.pop_front().expect("checked");
            self.close(index, &bin);
            self.closed_until = index + 1;
        }
    }

    /// The run ended at `end_ns`: closes every interval; packets without an outcome are in
    /// flight.
    pub fn finish(&mut self, end_ns: u64) {
        self.close_until(end_ns);
        while let Some((index, bin)) = self.bins.pop_front() {
            self.close(index, &bin);
            self.closed_until = index + 1;
        }
        let s = &mut self.summary;
        s.in_flight_packets = s.offered_packets - s.delivered_packets - s.lost_packets;
        s.in_flight_bytes = s.offered_bytes - s.delivered_bytes - s.lost_bytes;
    }

    fn close(&mut self, index: u64, bin: &Bin) {
        let packets = bin.lost_packets + bin.delivered_packets;
        let Some((budget, end_to_end)) = self.budgets.filter(|_| packets > 0) else {
            return;
        };
        let loss_ratio = bin.lost_packets as f64 / packets as f64;
        let delivered = bin.delivered_packets > 0;
        let delay_mean_ns = delivered.then(|| bin.delay_sum_ns as f64 / bin.delivered_packets as f64);
        let delay_variation_ns = delivered.then_some(bin.delay_max_ns - bin.delay_min_ns);
        let components = budget.consumption(loss_ratio, delay_mean_ns, delay_variation_ns);
        let (loss_consumption, delay_consumption, jitter_consumption) = components;
        let consumption = largest(components);
        let end_to_end_consumption =
            largest(end_to_end.consumption(loss_ratio, delay_mean_ns, delay_variation_ns));
        let in_loss = loss_ratio <= budget.loss_ratio;
        let in_delay = delay_mean_ns.is_none_or(|d| d <= budget.delay_ns as f64);
        let in_jitter = match budget.jitter_ns {
            Some(limit) => delay_variation_ns.is_none_or(|v| v <= limit),
            None => true,
        };
        let in_contract = in_loss && in_delay && in_jitter;
        let s = &mut self.summary;
        s.intervals += 1;
        s.consumption_sum += consumption;
        s.end_to_end_consumption_sum += end_to_end_consumption;
        s.loss_consumption_sum += loss_consumption;
        s.delay_consumption_sum += delay_consumption;
        s.jitter_consumption_sum += jitter_consumption.unwrap_or(0.0);
        s.in_contract += in_contract as u64;
        s.in_loss_contract += in_loss as u64;
        s.in_delay_contract += in_delay as u64;
        s.in_jitter_contract += in_jitter as u64;
        if in_contract {
            s.in_contract_packets += bin.delivered_packets;
            s.in_contract_bytes += bin.delivered_bytes;
        }
        if let Some(kept) = &mut self.kept {
            kept.push(Interval {
                index,
                packets,
                lost_packets: bin.lost_packets,
                loss_ratio,
                delay_mean_ns,
                delay_variation_ns,
                loss_consumption,
                delay_consumption,
                jitter_consumption,
                consumption,
                in_contract,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn budget() -> Budget {
        Budget { delay_ns: 50 * MS, loss_ratio: 0.25, jitter_ns: None }
    }

    /// A trace built by hand, 100 ms intervals, 50 ms / 25 % budget:
    /// [0, 100): 4 packets at 0, 20, 40, 60 ms, delays 10, 30, 50 ms and one lost → loss
    ///   0.25 (consumption 1, in loss contract), mean delay 30 ms (0.6): consumption 1, in.
    /// [100, 200): no packet: discarded.
    /// [200, 300): 2 packets, delays 80 and 100 ms → mean 90 ms: consumption 1.8, out of
    ///   delay contract, in loss contract.
    /// [300, 400): 2 packets, both lost → loss 1 (4), no delay consumed: out of loss contract.
    #[test]
    fn hand_built_trace() {
        let mut dq = DqAccount::new(100 * MS, Some((budget(), budget())), true);
        dq.on_ingress(0, 100);
        dq.on_ingress(20 * MS, 100);
        dq.on_delivered(0, 10 * MS, 100);
        dq.on_ingress(40 * MS, 100);
        dq.on_delivered(20 * MS, 50 * MS, 100);
        dq.on_ingress(60 * MS, 100);
        dq.on_lost(60 * MS, 61 * MS, 100);
        dq.on_delivered(40 * MS, 90 * MS, 100);
        dq.on_ingress(200 * MS, 200);
        dq.on_ingress(250 * MS, 200);
        dq.on_delivered(200 * MS, 280 * MS, 200);
        dq.on_delivered(250 * MS, 350 * MS, 200);
        dq.on_ingress(300 * MS, 300);
        dq.on_ingress(310 * MS, 300);
        dq.on_lost(300 * MS, 320 * MS, 300);
        dq.on_lost(310 * MS, 330 * MS, 300);
        dq.finish(1_000 * MS);
        let kept = dq.kept.as_ref().unwrap();
        let table: Vec<_> = kept
            .iter()
            .map(|i| (i.index, i.packets, i.lost_packets, i.delay_mean_ns, i.consumption, i.in_contract))
            .collect();
        assert_eq!(
            table,
            [
                (0, 4, 1, Some(30.0 * MS as f64), 1.0, true),
                (2, 2, 0, Some(90.0 * MS as f64), 1.8, false),
                (3, 2, 2, None, 4.0, false),
            ]
        );
        let s = &dq.summary;
        assert_eq!(s.intervals, 3);
        assert!((s.consumption_sum / 3.0 - 6.8 / 3.0).abs() < 1e-12);
        assert!((s.delay_consumption_sum - (0.6 + 1.8)).abs() < 1e-12);
        assert_eq!((s.in_contract, s.in_loss_contract, s.in_delay_contract), (1, 2, 2));
        assert_eq!(s.in_contract_bytes, 300);
        assert_eq!((s.offered_packets, s.delivered_packets, s.lost_packets), (8, 5, 3));
        assert_eq!((s.offered_bytes, s.delivered_bytes, s.lost_bytes), (1400, 700, 700));
    }

    /// An interval stays open while a packet of it is still travelling, even when later
    /// intervals have their outcomes; a packet still travelling at the end is in flight.
    #[test]
    fn open_intervals_and_in_flight_packets() {
        let mut dq = DqAccount::new(10 * MS, Some((budget(), budget())), true);
        dq.on_ingress(0, 100);
        dq.on_ingress(5 * MS, 100);
        dq.on_ingress(15 * MS, 100);
        dq.on_delivered(15 * MS, 16 * MS, 100);
        dq.on_delivered(5 * MS, 30 * MS, 100);
        assert!(dq.kept.as_ref().unwrap().is_empty(), "interval 0 waits for its first packet");
        dq.on_ingress(40 * MS, 100);
        dq.finish(45 * MS);
        let s = &dq.summary;
        assert_eq!((s.in_flight_packets, s.in_flight_bytes), (2, 200));
        assert_eq!(s.offered_bytes, s.delivered_bytes + s.lost_bytes + s.in_flight_bytes);
        let kept = dq.kept.as_ref().unwrap();
        // Interval 0 keeps its delivered packet; interval 4 only had the one in flight.
        assert_eq!(kept.iter().map(|i| (i.index, i.packets)).collect::<Vec<_>>(), [(0, 1), (1, 1)]);
        assert_eq!(kept[0].delay_mean_ns, Some(25.0 * MS as f64));
    }

    /// With a jitter limit, the spread of delays inside an interval counts too.
    #[test]
    fn jitter_limit() {
        let budget = Budget { jitter_ns: Some(10 * MS), ..budget() };
        let mut dq = DqAccount::new(100 * MS, Some((budget, budget)), true);
        dq.on_ingress(0, 100);
        dq.on_ingress(10 * MS, 100);
        dq.on_delivered(0, 5 * MS, 100);
        dq.on_delivered(10 * MS, 40 * MS, 100);
        dq.finish(200 * MS);
        let interval = dq.kept.as_ref().unwrap()[0];
        assert_eq!(interval.delay_variation_ns, Some(25 * MS));
        assert_eq!(interval.jitter_consumption, Some(2.5));
        assert_eq!(interval.consumption, 2.5);
        assert!(!interval.in_contract);
        assert_eq!((dq.summary.in_delay_contract, dq.summary.in_jitter_contract), (1, 0));
    }

    /// At a hop the same intervals are also measured against the end-to-end budget: a
    /// 30 ms mean delay is 0.6 of a 50 ms hop budget and 0.2 of a 150 ms end-to-end one; a
    /// 25 % loss is 1 of the hop's 25 % and 0.5 of the end-to-end 50 %.
    #[test]
    fn hop_consumption_against_the_end_to_end_budget() {
        let end_to_end = Budget { delay_ns: 150 * MS, loss_ratio: 0.5, jitter_ns: None };
        let mut dq = DqAccount::new(100 * MS, Some((budget(), end_to_end)), false);
        for k in 0..4 {
            dq.on_ingress(k * 10 * MS, 100);
        }
        for k in 0..3 {
            dq.on_delivered(k * 10 * MS, (k * 10 + 30) * MS, 100);
        }
        dq.on_lost(30 * MS, 35 * MS, 100);
        dq.finish(1_000 * MS);
        assert_eq!(dq.summary.consumption_sum, 1.0);
        assert_eq!(dq.summary.end_to_end_consumption_sum, 0.5);
    }

    /// Nanosecond intervals behind a packet held for a second keep two entries, not a
    /// billion: only intervals that packets entered are stored.
    #[test]
    fn tiny_intervals_cost_nothing_while_empty() {
        let mut dq = DqAccount::new(1, Some((budget(), budget())), false);
        dq.on_ingress(0, 100);
        dq.on_ingress(1_000_000_000, 100);
        dq.on_delivered(1_000_000_000, 1_000_000_010, 100);
        assert_eq!(dq.bins.len(), 2, "the first packet holds its interval open");
        dq.on_delivered(0, 1_000_000_020, 100);
        assert!(dq.bins.is_empty());
        assert_eq!(dq.summary.intervals, 2);
    }
}
