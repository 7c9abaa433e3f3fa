//! The result tables of what applications experienced: ΔQ budget consumption, time in
//! contract and loads (`contracts`), the ΔQ intervals (`dq_intervals`), voice quality per
//! call and per talk spurt (`voice`, `voice_spurts`) and the per-interval series (`series`).
//! `docs/quality.md` explains the methods, `docs/results.md` the columns.

use super::convert::{bps, ms};
use super::schema::record;
use crate::ids::{FlowId, Table};
use crate::measure::dq::{Budget, DqSummary};
use crate::measure::playout::PlayoutPolicy;
use crate::measure::quality::Quality;
use crate::measure::quantile::Quantile;
use crate::measure::FlowStats;
use crate::sim::FlowInfo;

/// The total rows of the `contracts` table: every application, and those with a budget.
pub const ALL: &str = "all";
/// See [`ALL`].
pub const QUALITY: &str = "quality";

record! {
    /// One application at one observation point over one interval length: its mean budget
    /// consumption, its share of intervals in contract and its loads over the measured window.
    pub struct ContractRecord {
        /// `end_to_end` or a port.
        #[unit = "", key = 1]
        pub point: String,
        /// Application, or `all` / `quality` for the totals.
        #[unit = "", key = 2]
        pub app: String,
        /// ΔQ interval length.
        #[unit = "ms", key = 3]
        pub interval_ms: f64,
        /// Delay limit at this point (per hop at a port); empty without a budget.
        #[unit = "ms", descriptive = true]
        pub delay_budget_ms: Option<f64>,
        /// Loss limit at this point; empty without a budget.
        #[unit = "%", descriptive = true]
        pub loss_budget_pct: Option<f64>,
        /// Jitter limit at this point; empty without a budget or a jitter limit.
        #[unit = "ms", descriptive = true]
        pub jitter_budget_ms: Option<f64>,
        /// Intervals evaluated (some packet entered and has an outcome); empty without a budget.
        #[unit = "intervals"]
        pub intervals: Option<u64>,
        /// Mean over the intervals of the largest component's consumption (below 1: in budget).
        #[unit = ""]
        pub consumption_mean: Option<f64>,
        /// The same intervals' consumption of the end-to-end budget (equal to
        /// `consumption_mean` end to end).
        #[unit = ""]
        pub end_to_end_consumption_mean: Option<f64>,
        /// Mean consumption of the loss limit.
        #[unit = ""]
        pub loss_consumption_mean: Option<f64>,
        /// Mean consumption of the delay limit.
        #[unit = ""]
        pub delay_consumption_mean: Option<f64>,
        /// Mean consumption of the jitter limit, when there is one.
        #[unit = ""]
        pub jitter_consumption_mean: Option<f64>,
        /// Share of intervals with every component within its limit.
        #[unit = "%"]
        pub in_contract_pct: Option<f64>,
        /// Share of intervals within the loss limit.
        #[unit = "%"]
        pub in_loss_contract_pct: Option<f64>,
        /// Share of intervals within the delay limit.
        #[unit = "%"]
        pub in_delay_contract_pct: Option<f64>,
        /// Share of intervals within the jitter limit, when there is one.
        #[unit = "%"]
        pub in_jitter_contract_pct: Option<f64>,
        /// Packets that entered.
        #[unit = "packets"]
        pub offered_packets: u64,
        /// Of those, delivered.
        #[unit = "packets"]
        pub transported_packets: u64,
        /// Of those, lost.
        #[unit = "packets"]
        pub discarded_packets: u64,
        /// Of those, without an outcome at the end.
        #[unit = "packets"]
        pub in_flight_packets: u64,
        /// Delivered packets of intervals in contract.
        #[unit = "packets"]
        pub in_contract_packets: u64,
        /// IP bit rate offered over the window.
        #[unit = "bit/s"]
        pub offered_bps: f64,
        /// IP bit rate delivered.
        #[unit = "bit/s"]
        pub transported_bps: f64,
        /// IP bit rate delivered in intervals in contract.
        #[unit = "bit/s"]
        pub in_contract_bps: f64,
        /// IP bit rate lost.
        #[unit = "bit/s"]
        pub discarded_bps: f64,
        /// Transported but out of contract.
        #[unit = "bit/s"]
        pub out_of_contract_bps: f64,
        /// The link the loads are compared with: the port's, or end to end the slowest crossed.
        #[unit = "bit/s", descriptive = true]
        pub link_bps: u64,
        /// Offered load with layer-2 framing, as a share of `link_bps`.
        #[unit = "%"]
        pub offered_link_pct: f64,
        /// Transported load with layer-2 framing, as a share of `link_bps`.
        #[unit = "%"]
        pub transported_link_pct: f64,
        /// In-contract load with layer-2 framing, as a share of `link_bps`.
        #[unit = "%"]
        pub in_contract_link_pct: f64,
        /// Discarded load with layer-2 framing, as a share of `link_bps`.
        #[unit = "%"]
        pub discarded_link_pct: f64,
    }
}

record! {
    /// One ΔQ interval of one application at one point.
    pub struct DqIntervalRecord {
        /// As in `contracts`.
        #[unit = "", key = 1]
        pub point: String,
        /// As in `contracts`.
        #[unit = "", key = 2]
        pub app: String,
        /// As in `contracts`.
        #[unit = "ms", key = 3]
        pub interval_ms: f64,
        /// Start of the interval, since the run began.
        #[unit = "s", key = 4]
        pub start_s: f64,
        /// Packets that entered in the interval and have an outcome.
        #[unit = "packets"]
        pub packets: u64,
        /// Of those, lost.
        #[unit = "packets"]
        pub lost_packets: u64,
        /// Lost as a share of those packets.
        #[unit = "%"]
        pub loss_pct: f64,
        /// Mean delay of the delivered ones; empty if none was delivered.
        #[unit = "ms"]
        pub delay_mean_ms: Option<f64>,
        /// Largest minus smallest delay of the delivered ones.
        #[unit = "ms"]
        pub delay_variation_ms: Option<f64>,
        /// The interval's consumption: the largest of its components.
        #[unit = ""]
        pub consumption: f64,
        /// Consumption of the loss limit.
        #[unit = ""]
        pub loss_consumption: f64,
        /// Consumption of the delay limit.
        #[unit = ""]
        pub delay_consumption: f64,
        /// Consumption of the jitter limit, when there is one.
        #[unit = ""]
        pub jitter_consumption: Option<f64>,
        /// Every component within its limit.
        #[unit = ""]
        pub in_contract: bool,
    }
}

record! {
    /// What a listener hears of one voice flow over the measured window.
    pub struct VoiceRecord {
        /// The voice flow.
        #[unit = "", key = 1]
        pub flow: String,
        /// Its codec.
        #[unit = "", descriptive = true]
        pub codec: &'static str,
        /// The codec's equipment impairment factor Ie used.
        #[unit = "", descriptive = true]
        pub ie: f64,
        /// The codec's packet-loss robustness factor Bpl used.
        #[unit = "", descriptive = true]
        pub bpl: f64,
        /// `fixed` or `adaptive`.
        #[unit = "", descriptive = true]
        pub playout: &'static str,
        /// The fixed buffer; empty for an adaptive one.
        #[unit = "ms", descriptive = true]
        pub playout_buffer_ms: Option<f64>,
        /// Talk spurts sent.
        #[unit = "spurts"]
        pub spurts: u64,
        /// Packets sent.
        #[unit = "packets"]
        pub sent_packets: u64,
        /// Packets lost in the network.
        #[unit = "packets"]
        pub lost_packets: u64,
        /// Packets that arrived after their playout instant.
        #[unit = "packets"]
        pub late_packets: u64,
        /// Packets played.
        #[unit = "packets"]
        pub played_packets: u64,
        /// Lost packets as a share of those sent.
        #[unit = "%"]
        pub network_loss_pct: Option<f64>,
        /// Late packets as a share of those sent.
        #[unit = "%"]
        pub late_pct: Option<f64>,
        /// Lost and late packets as a share of those sent (the E-model's Ppl).
        #[unit = "%"]
        pub effective_loss_pct: Option<f64>,
        /// G.107 BurstR of the missing packets (1: random).
        #[unit = ""]
        pub burst_ratio: f64,
        /// Network delay + buffer wait, mean over played packets.
        #[unit = "ms"]
        pub playout_delay_mean_ms: Option<f64>,
        /// The packet interval.
        #[unit = "ms", descriptive = true]
        pub packetization_ms: f64,
        /// The codec delay added.
        #[unit = "ms", descriptive = true]
        pub codec_delay_ms: f64,
        /// Playout delay + packetization + codec delay.
        #[unit = "ms"]
        pub mouth_to_ear_ms: Option<f64>,
        /// E-model rating R (G.107); empty when nothing was played.
        #[unit = ""]
        pub r: Option<f64>,
        /// MOS from R (G.107 Annex B); empty when nothing was played.
        #[unit = ""]
        pub mos: Option<f64>,
        /// RFC 3550 interarrival jitter at the end.
        #[unit = "ms"]
        pub jitter_rfc3550_ms: Option<f64>,
        /// Pairs of consecutive received packets (RFC 3393 IPDV).
        #[unit = "pairs"]
        pub ipdv_pairs: u64,
        /// Smallest IPDV, exact.
        #[unit = "ms"]
        pub ipdv_min_ms: Option<f64>,
        /// Median IPDV (within 0.4 %).
        #[unit = "ms"]
        pub ipdv_p50_ms: Option<f64>,
        /// 95th percentile of the IPDV.
        #[unit = "ms"]
        pub ipdv_p95_ms: Option<f64>,
        /// 99th percentile of the IPDV.
        #[unit = "ms"]
        pub ipdv_p99_ms: Option<f64>,
        /// Largest IPDV, exact.
        #[unit = "ms"]
        pub ipdv_max_ms: Option<f64>,
    }
}

record! {
    /// One talk spurt of a voice flow (spurts sent in the measured window).
    pub struct VoiceSpurtRecord {
        /// The voice flow.
        #[unit = "", key = 1]
        pub flow: String,
        /// Spurt number, from 0.
        #[unit = "", key = 2]
        pub spurt: u32,
        /// Creation of its first packet, since the run began.
        #[unit = "s", descriptive = true]
        pub start_s: f64,
        /// Packets sent.
        #[unit = "packets"]
        pub sent_packets: u64,
        /// Packets lost in the network.
        #[unit = "packets"]
        pub lost_packets: u64,
        /// Packets that arrived after their playout instant.
        #[unit = "packets"]
        pub late_packets: u64,
        /// Packets played.
        #[unit = "packets"]
        pub played_packets: u64,
        /// Lost and late packets as a share of those sent.
        #[unit = "%"]
        pub effective_loss_pct: Option<f64>,
        /// Network delay + buffer wait, mean over played packets.
        #[unit = "ms"]
        pub playout_delay_mean_ms: Option<f64>,
        /// Playout delay + packetization + codec delay.
        #[unit = "ms"]
        pub mouth_to_ear_ms: Option<f64>,
        /// E-model rating R, with the call's burst ratio.
        #[unit = ""]
        pub r: Option<f64>,
        /// MOS from R.
        #[unit = ""]
        pub mos: Option<f64>,
    }
}

record! {
    /// One interval of one flow's series.
    pub struct SeriesRecord {
        /// The flow.
        #[unit = "", key = 1]
        pub flow: String,
        /// The flow's application, when the ΔQ accounting runs (to aggregate per application).
        #[unit = "", descriptive = true]
        pub app: Option<String>,
        /// Start of the interval, since the run began.
        #[unit = "s", key = 2]
        pub start_s: f64,
        /// Length of the interval.
        #[unit = "s", descriptive = true]
        pub interval_s: f64,
        /// Packets that arrived in the interval.
        #[unit = "packets"]
        pub delivered_packets: u64,
        /// IP bit rate of those packets over the interval.
        #[unit = "bit/s"]
        pub delivered_bps: f64,
        /// Packets dropped in the interval.
        #[unit = "packets"]
        pub lost_packets: u64,
        /// Lost / (lost + delivered).
        #[unit = "%"]
        pub loss_pct: f64,
        /// Smallest one-way delay of the arrivals.
        #[unit = "ms"]
        pub delay_min_ms: Option<f64>,
        /// Mean one-way delay of the arrivals.
        #[unit = "ms"]
        pub delay_mean_ms: Option<f64>,
        /// Largest one-way delay of the arrivals.
        #[unit = "ms"]
        pub delay_max_ms: Option<f64>,
        /// RFC 3550 jitter after the interval's last arrival.
        #[unit = "ms"]
        pub jitter_rfc3550_ms: Option<f64>,
    }
}

fn pct(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| 100.0 * part as f64 / whole as f64)
}

/// The totals of `summaries`, added up.
fn add(summaries: &[&DqSummary]) -> DqSummary {
    let mut total = DqSummary::default();
    for s in summaries {
        total.offered_packets += s.offered_packets;
        total.offered_bytes += s.offered_bytes;
        total.delivered_packets += s.delivered_packets;
        total.delivered_bytes += s.delivered_bytes;
        total.lost_packets += s.lost_packets;
        total.lost_bytes += s.lost_bytes;
        total.in_flight_packets += s.in_flight_packets;
        total.in_flight_bytes += s.in_flight_bytes;
        total.in_contract_packets += s.in_contract_packets;
        total.in_contract_bytes += s.in_contract_bytes;
    }
    total
}

/// The `contracts` and `dq_intervals` rows of `quality` over a window of `window_ns`.
pub(crate) fn contract_records(
    quality: &Quality,
    window_ns: u64,
) -> (Vec<ContractRecord>, Vec<DqIntervalRecord>) {
    let mut contracts = Vec::new();
    let mut intervals = Vec::new();
    for (p, point) in quality.points.iter().enumerate() {
        let rate = |bytes: u64| bps(bytes, window_ns);
        let link_pct = |packets: u64, bytes: u64| {
            100.0 * rate(bytes + packets * point.l2_overhead_bytes as u64) / point.link_bps as f64
        };
        let loads = |app: &str, budget: Option<Budget>, s: &DqSummary, interval_ms: f64| {
            let evaluated = budget.map(|_| s.intervals);
            let mean = |sum: f64| budget.and_then(|_| (s.intervals > 0).then(|| sum / s.intervals as f64));
            let jitter_limited = budget.and_then(|b| b.jitter_ns).is_some();
            ContractRecord {
                point: point.name.clone(),
                app: app.to_owned(),
                interval_ms,
                delay_budget_ms: budget.map(|b| ms(b.delay_ns as f64)),
                loss_budget_pct: budget.map(|b| 100.0 * b.loss_ratio),
                jitter_budget_ms: budget.and_then(|b| b.jitter_ns).map(|j| ms(j as f64)),
                intervals: evaluated,
                consumption_mean: mean(s.consumption_sum),
                end_to_end_consumption_mean: mean(s.end_to_end_consumption_sum),
                loss_consumption_mean: mean(s.loss_consumption_sum),
                delay_consumption_mean: mean(s.delay_consumption_sum),
                jitter_consumption_mean: mean(s.jitter_consumption_sum).filter(|_| jitter_limited),
                in_contract_pct: budget.and_then(|_| pct(s.in_contract, s.intervals)),
                in_loss_contract_pct: budget.and_then(|_| pct(s.in_loss_contract, s.intervals)),
                in_delay_contract_pct: budget.and_then(|_| pct(s.in_delay_contract, s.intervals)),
                in_jitter_contract_pct: pct(s.in_jitter_contract, s.intervals).filter(|_| jitter_limited),
                offered_packets: s.offered_packets,
                transported_packets: s.delivered_packets,
                discarded_packets: s.lost_packets,
                in_flight_packets: s.in_flight_packets,
                in_contract_packets: s.in_contract_packets,
                offered_bps: rate(s.offered_bytes),
                transported_bps: rate(s.delivered_bytes),
                in_contract_bps: rate(s.in_contract_bytes),
                discarded_bps: rate(s.lost_bytes),
                out_of_contract_bps: rate(s.delivered_bytes - s.in_contract_bytes),
                link_bps: point.link_bps,
                offered_link_pct: link_pct(s.offered_packets, s.offered_bytes),
                transported_link_pct: link_pct(s.delivered_packets, s.delivered_bytes),
                in_contract_link_pct: link_pct(s.in_contract_packets, s.in_contract_bytes),
                discarded_link_pct: link_pct(s.lost_packets, s.lost_bytes),
            }
        };
        for (l, &length_ns) in quality.lengths_ns.iter().enumerate() {
            let interval_ms = ms(length_ns as f64);
            let mut all = Vec::new();
            let mut budgeted = Vec::new();
            for (a, app) in quality.apps.iter().enumerate() {
                let account = &quality.accounts(p, a)[l];
                contracts.push(loads(&app.name, account.budget(), &account.summary, interval_ms));
                all.push(&account.summary);
                if app.budgets.is_some() {
                    budgeted.push(&account.summary);
                }
                for i in account.kept.iter().flatten() {
                    intervals.push(DqIntervalRecord {
                        point: point.name.clone(),
                        app: app.name.clone(),
                        interval_ms,
                        start_s: (i.index * length_ns) as f64 / 1e9,
                        packets: i.packets,
                        lost_packets: i.lost_packets,
                        loss_pct: 100.0 * i.loss_ratio,
                        delay_mean_ms: i.delay_mean_ns.map(ms),
                        delay_variation_ms: i.delay_variation_ns.map(|v| ms(v as f64)),
                        consumption: i.consumption,
                        loss_consumption: i.loss_consumption,
                        delay_consumption: i.delay_consumption,
                        jitter_consumption: i.jitter_consumption,
                        in_contract: i.in_contract,
                    });
                }
            }
            contracts.push(loads(ALL, None, &add(&all), interval_ms));
            contracts.push(loads(QUALITY, None, &add(&budgeted), interval_ms));
        }
    }
    (contracts, intervals)
}

/// The `voice` and `voice_spurts` rows.
pub(crate) fn voice_records(
    flows: &Table<FlowId, FlowInfo>,
    stats: &Table<FlowId, FlowStats>,
) -> (Vec<VoiceRecord>, Vec<VoiceSpurtRecord>) {
    let mut calls = Vec::new();
    let mut spurts = Vec::new();
    for (info, s) in flows.iter().zip(stats) {
        let Some(voice) = &s.voice else { continue };
        let setup = voice.setup();
        let call = &voice.call;
        let score = voice.call_score();
        let ipdv = &voice.ipdv;
        let range = ipdv.range_ns();
        calls.push(VoiceRecord {
            flow: info.name.clone(),
            codec: setup.codec.name(),
            ie: setup.impairment.ie,
            bpl: setup.impairment.bpl,
            playout: match setup.playout {
                PlayoutPolicy::Fixed { .. } => "fixed",
                PlayoutPolicy::Adaptive => "adaptive",
            },
            playout_buffer_ms: match setup.playout {
                PlayoutPolicy::Fixed { buffer_ns } => Some(ms(buffer_ns as f64)),
                PlayoutPolicy::Adaptive => None,
            },
            spurts: voice.spurts.len() as u64,
            sent_packets: call.sent_packets,
            lost_packets: call.lost_packets,
            late_packets: call.late_packets,
            played_packets: call.played_packets,
            network_loss_pct: pct(call.lost_packets, call.sent_packets),
            late_pct: pct(call.late_packets, call.sent_packets),
            effective_loss_pct: call.effective_loss_pct(),
            burst_ratio: voice.burst_ratio(),
            playout_delay_mean_ms: call.playout_delay_mean_ns().map(ms),
            packetization_ms: ms(setup.interval_ns as f64),
            codec_delay_ms: ms(setup.codec_delay_ns as f64),
            mouth_to_ear_ms: score.map(|s| s.mouth_to_ear_ms),
            r: score.map(|s| s.r),
            mos: score.map(|s| s.mos),
            jitter_rfc3550_ms: (s.received_packets > 1).then(|| ms(s.jitter.rfc3550_ns())),
            ipdv_pairs: ipdv.pairs(),
            ipdv_min_ms: range.map(|(min, _)| ms(min as f64)),
            ipdv_p50_ms: ipdv.quantile_ns(Quantile::percent(50)).map(ms),
            ipdv_p95_ms: ipdv.quantile_ns(Quantile::percent(95)).map(ms),
            ipdv_p99_ms: ipdv.quantile_ns(Quantile::percent(99)).map(ms),
            ipdv_max_ms: range.map(|(_, max)| ms(max as f64)),
        });
        for (k, spurt) in voice.spurts.iter().enumerate() {
            let score = voice.spurt_score(k);
            spurts.push(VoiceSpurtRecord {
                flow: info.name.clone(),
                spurt: k as u32,
                start_s: spurt.start.as_secs_f64(),
                sent_packets: spurt.sent_packets,
                lost_packets: spurt.lost_packets,
                late_packets: spurt.late_packets,
                played_packets: spurt.played_packets,
                effective_loss_pct: spurt.effective_loss_pct(),
                playout_delay_mean_ms: spurt.playout_delay_mean_ns().map(ms),
                mouth_to_ear_ms: score.map(|s| s.mouth_to_ear_ms),
                r: score.map(|s| s.r),
                mos: score.map(|s| s.mos),
            });
        }
    }
    (calls, spurts)
}

/// The `series` rows.
pub(crate) fn series_records(
    flows: &Table<FlowId, FlowInfo>,
    stats: &Table<FlowId, FlowStats>,
    quality: Option<&Quality>,
) -> Vec<SeriesRecord> {
    let mut rows = Vec::new();
    for ((f, info), s) in flows.iter_enumerated().zip(stats) {
        let Some(series) = &s.series else { continue };
        let length_ns = series.length_ns();
        for point in &series.points {
            let delivered = point.delivered_packets > 0;
            rows.push(SeriesRecord {
                flow: info.name.clone(),
                app: quality.map(|q| q.app_of(f).to_owned()),
                start_s: (point.index * length_ns) as f64 / 1e9,
                interval_s: length_ns as f64 / 1e9,
                delivered_packets: point.delivered_packets,
                delivered_bps: bps(point.delivered_bytes, length_ns),
                lost_packets: point.lost_packets,
                loss_pct: 100.0 * point.loss_ratio(),
                delay_min_ms: delivered.then(|| ms(point.delay_min_ns as f64)),
                delay_mean_ms: point.delay_mean_ns().map(ms),
                delay_max_ms: delivered.then(|| ms(point.delay_max_ns as f64)),
                jitter_rfc3550_ms: delivered.then(|| ms(point.jitter_rfc3550_ns)),
            });
        }
    }
    rows
}
