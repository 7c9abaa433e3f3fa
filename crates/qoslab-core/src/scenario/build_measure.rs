//! Building the `measure` section: observation points, applications and their budgets, the
//! voice-quality state of voice flows, the reference intervals of the deviation jitter, the
//! per-interval series and the packet capture. The
//! fifth stage of building a scenario, [`measurement`], completes the flows' statistics and
//! builds the ΔQ accounting.

use std::collections::HashSet;

use crate::config::error::Issue;
use crate::ids::{FlowId, PortId, Table};
use crate::measure::dq::Budget;
use crate::measure::emodel::{codec_impairment, CodecImpairment};
use crate::measure::hop_stats::HopStats;
use crate::measure::playout::PlayoutPolicy;
use crate::measure::quality::{Application, Point, Quality};
use crate::measure::series::Series;
use crate::measure::spec::{LimitsSpec, MeasureSpec, PlayoutSpec, END_TO_END};
use crate::measure::voice::{VoiceSetup, VoiceStats};
use crate::measure::FlowStats;
use crate::net::pcap::{CapturePlan, DEFAULT_MAX_CAPTURE_BYTES, DEFAULT_SNAP_BYTES, MAX_SNAP_BYTES};
use crate::net::port::{PortConfig, PortSetup};
use crate::packet::NO_HOP;
use crate::report::results_quality::{ALL, QUALITY};
use crate::scenario::flow_spec::FlowSpec;
use crate::sim::{FlowInfo, Sink};
use crate::traffic::codec::Codec;
use crate::units::Duration;

/// Default ΔQ interval, ns (the ad-hoc report's 0.25 s).
const DEFAULT_INTERVAL_NS: u64 = 250_000_000;
/// Default fixed playout buffer, ns.
const DEFAULT_PLAYOUT_BUFFER_NS: u64 = 60_000_000;
/// The application of flows no budget or failure order names.
const OTHER: &str = "other";

/// The observation points `measure.at` names, in order: `None` for end to end, else the
/// port; marks the ports as observed hops.
pub(crate) fn observation_points(
    measure: &MeasureSpec,
    ports: &Table<PortId, PortConfig>,
    observed: &mut Table<PortId, bool>,
) -> Result<Vec<Option<PortId>>, Issue> {
    let Some(names) = &measure.at else {
        return Ok(vec![None]);
    };
    if names.is_empty() {
        return Err(Issue::at("measure.at", "no observation point")
            .hint("write `[end_to_end]`, a port such as `[r1->r2]`, or both"));
    }
    let mut points = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let at = format!("measure.at[{k}]");
        let point = if name == END_TO_END {
            None
        } else {
            let p = ports.position(|p| p.name == *name).ok_or_else(|| {
                let known = std::iter::once(END_TO_END).chain(ports.iter().map(|p| p.name.as_str()));
                Issue::unknown_name(&at, "observation point", name, known)
            })?;
            observed[p] = true;
            Some(p)
        };
        if points.contains(&point) {
            return Err(
                Issue::at(at, format!("`{name}` is listed twice")).hint("list each observation point once")
            );
        }
        points.push(point);
    }
    Ok(points)
}

/// The ports and snapshot length `measure.pcap` asks for (every port, 128 bytes, without
/// it).
pub(crate) fn capture_plan(
    measure: &MeasureSpec,
    ports: &Table<PortId, PortConfig>,
) -> Result<CapturePlan, Issue> {
    let spec = measure.pcap.clone().unwrap_or_default();
    let snap_bytes = spec.snap_length.unwrap_or(DEFAULT_SNAP_BYTES);
    if !(1..=MAX_SNAP_BYTES).contains(&snap_bytes) {
        return Err(Issue::at(
            "measure.pcap.snap_length",
            format!("a snapshot length of {snap_bytes} bytes is out of range"),
        )
        .hint(format!("write a byte count from 1 to {MAX_SNAP_BYTES}; 128 keeps every header")));
    }
    let max_bytes = spec.max_bytes.map_or(DEFAULT_MAX_CAPTURE_BYTES, |size| size.0);
    if max_bytes == 0 {
        return Err(Issue::at("measure.pcap.max_bytes", "a capture of 0 bytes holds nothing")
            .hint("write a size such as `1GB`, or leave it out for 1 GiB"));
    }
    let plan = |ports| CapturePlan { ports, snap_bytes, max_bytes, estimated_bytes: 0 };
    let Some(names) = spec.points else {
        return Ok(plan(ports.keys().collect()));
    };
    if names.is_empty() {
        return Err(Issue::at("measure.pcap.points", "no port to capture")
            .hint("name ports such as `[r1->r2]`, or leave `points` out to capture every port"));
    }
    let mut captured = Vec::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        let at = format!("measure.pcap.points[{k}]");
        let p = ports
            .position(|p| p.name == *name)
            .ok_or_else(|| Issue::unknown_name(&at, "port", name, ports.iter().map(|p| p.name.as_str())))?;
        if captured.contains(&p) {
            return Err(Issue::at(at, format!("`{name}` is listed twice")).hint("list each port once"));
        }
        captured.push(p);
    }
    Ok(plan(captured))
}

/// The traffic entries' names, for finding the entry a flow row comes from and checking the
/// entries `measure` names, in time independent of the number of entries.
struct Entries<'a> {
    traffic: &'a [FlowSpec],
    names: HashSet<&'a str>,
}

impl<'a> Entries<'a> {
    fn new(traffic: &'a [FlowSpec]) -> Self {
        Entries { traffic, names: traffic.iter().map(|f| f.name.as_str()).collect() }
    }

    /// The traffic entry the row `row` comes from: the longest entry name that is the row's
    /// name or a prefix of it followed by `.` (copies `NAME.k`, `.reverse`, `.echo` rows).
    /// Looks up the name and each of its prefixes ending before a `.`, longest first.
    fn of(&self, row: &str) -> Option<&'a str> {
        let mut prefix = row;
        loop {
            if let Some(name) = self.names.get(prefix) {
                return Some(name);
            }
            prefix = &prefix[..prefix.rfind('.')?];
        }
    }

    /// `Ok` when `name` is a traffic entry; otherwise an error at `at` listing the entries.
    fn check(&self, name: &str, at: String) -> Result<(), Issue> {
        if self.names.contains(name) {
            return Ok(());
        }
        Err(Issue::unknown_name(at, "traffic entry", name, self.traffic.iter().map(|f| f.name.as_str())))
    }
}

fn positive(duration: Duration, at: String, what: &str) -> Result<u64, Issue> {
    if duration.0 == 0 {
        return Err(Issue::at(at, format!("{what} must be above zero")).hint("write e.g. `100ms`"));
    }
    Ok(duration.0)
}

fn limits(spec: &LimitsSpec, at: &str) -> Result<Budget, Issue> {
    let delay_ns = positive(spec.delay, format!("{at}.delay"), "a delay budget")?;
    let loss_ratio = spec.loss.0 as f64 / 1e6;
    if !(loss_ratio > 0.0 && loss_ratio <= 1.0) {
        return Err(Issue::at(format!("{at}.loss"), "a loss budget must be above 0 % and at most 100 %")
            .hint("an application that tolerates no loss at all: write a small share such as `0.01%`"));
    }
    let jitter_ns =
        spec.jitter.map(|j| positive(j, format!("{at}.jitter"), "a jitter budget")).transpose()?;
    Ok(Budget { delay_ns, loss_ratio, jitter_ns })
}

/// A hop's share of an end-to-end budget over `hops` equal hops: delay and jitter divided,
/// loss such that `hops` hops in a row deliver at least what the end-to-end budget does,
/// (1 − hop loss)^hops = 1 − end-to-end loss (the ad-hoc report's Annex I).
fn per_hop_share(end_to_end: Budget, hops: u32) -> Budget {
    Budget {
        delay_ns: end_to_end.delay_ns / hops as u64,
        loss_ratio: 1.0 - (1.0 - end_to_end.loss_ratio).powf(1.0 / hops as f64),
        jitter_ns: end_to_end.jitter_ns.map(|j| j / hops as u64),
    }
}

/// Builds the ΔQ accounting: `None` when the scenario asks for none.
fn build_quality(
    measure: &MeasureSpec,
    points: &[Option<PortId>],
    entries: &Entries,
    flows: &Table<FlowId, FlowInfo>,
    ports: &Table<PortId, PortSetup>,
    hop_slots: usize,
) -> Result<Option<Box<Quality>>, Issue> {
    let asked = !measure.budgets.is_empty()
        || !measure.order_of_failure.is_empty()
        || measure.at.is_some()
        || measure.intervals.is_some()
        || measure.interval_table;
    if !asked {
        return Ok(None);
    }
    let (apps, flow_app) = applications(measure, entries, flows)?;
    let Some(bottleneck) = flows.iter().map(|f| &ports[f.bottleneck_port].config).min_by_key(|c| c.rate_bps)
    else {
        return Ok(None); // no traffic, nothing to account
    };
    let points = points
        .iter()
        .map(|point| match point {
            None => Point {
                name: END_TO_END.into(),
                hop_slot: NO_HOP,
                link_bps: bottleneck.rate_bps,
                l2_overhead_bytes: bottleneck.l2_overhead_bytes,
            },
            Some(p) => {
                let port = &ports[*p];
                Point {
                    name: port.config.name.clone(),
                    hop_slot: port.observe_slot,
                    link_bps: port.config.rate_bps,
                    l2_overhead_bytes: port.config.l2_overhead_bytes,
                }
            }
        })
        .collect();
    let lengths_ns = interval_lengths_ns(measure)?;
    let quality = Quality::new(apps, points, lengths_ns, flow_app, hop_slots, measure.interval_table);
    Ok(Some(Box::new(quality)))
}

/// The applications of the ΔQ accounting — one per budget, one per entry of the order of
/// failure that no budget names, and `other` for the rest — and the application of each
/// flow row.
fn applications(
    measure: &MeasureSpec,
    entries: &Entries,
    flows: &Table<FlowId, FlowInfo>,
) -> Result<(Vec<Application>, Table<FlowId, u32>), Issue> {
    let mut apps: Vec<Application> = Vec::new();
    // Traffic entry name -> application.
    let mut entry_app: Vec<(&str, u32)> = Vec::new();
    for (i, budget) in measure.budgets.iter().enumerate() {
        let at = format!("measure.budgets[{i}]");
        if apps.iter().any(|a| a.name == budget.app) {
            return Err(Issue::at(
                format!("{at}.app"),
                format!("`{}` already names an application", budget.app),
            )
            .hint("give each budget its own `app`; one budget may cover several entries with `flows`"));
        }
        if [OTHER, ALL, QUALITY].contains(&budget.app.as_str()) {
            return Err(Issue::at(
                format!("{at}.app"),
                format!("`{}` names a total row of the results", budget.app),
            )
            .hint("choose another application name"));
        }
        let hops = budget.hops.unwrap_or(1);
        if hops == 0 {
            return Err(Issue::at(format!("{at}.hops"), "a budget is shared over at least one hop")
                .hint("write `hops: 1` (the default) for a budget that one hop may use whole"));
        }
        let end_to_end = limits(&budget.end_to_end, &format!("{at}.end_to_end"))?;
        let per_hop = match &budget.per_hop {
            Some(spec) => limits(spec, &format!("{at}.per_hop"))?,
            None => per_hop_share(end_to_end, hops),
        };
        let names: Vec<&str> = match &budget.flows {
            Some(flows) => flows.iter().map(String::as_str).collect(),
            None => vec![budget.app.as_str()],
        };
        for (k, &name) in names.iter().enumerate() {
            let here = if budget.flows.is_some() { format!("{at}.flows[{k}]") } else { format!("{at}.app") };
            if !flows.iter().any(|f| f.name == name) {
                entries.check(name, here.clone())?;
            }
            if let Some((_, other)) = entry_app.iter().find(|(entry, _)| *entry == name) {
                let other = &apps[*other as usize].name;
                return Err(Issue::at(here, format!("`{name}` is already part of application `{other}`"))
                    .hint("a flow belongs to one application: remove it from one of the two budgets"));
            }
            entry_app.push((name, apps.len() as u32));
        }
        apps.push(Application { name: budget.app.clone(), budgets: Some((end_to_end, per_hop)) });
    }
    for (k, name) in measure.order_of_failure.iter().enumerate() {
        let at = format!("measure.order_of_failure[{k}]");
        if measure.order_of_failure[..k].contains(name) {
            return Err(Issue::at(at, format!("`{name}` is listed twice"))
                .hint("name each application once, first to fail first"));
        }
        if apps.iter().any(|a| a.name == *name) {
            continue;
        }
        entries.check(name, at.clone())?;
        if entry_app.iter().any(|(entry, _)| entry == name) {
            return Err(Issue::at(
                at,
                format!("`{name}` is part of a budget's application: name the application"),
            ));
        }
        entry_app.push((name, apps.len() as u32));
        apps.push(Application { name: name.clone(), budgets: None });
    }
    let mut flow_app = Table::with_capacity(flows.len());
    for info in flows {
        // A row named itself wins over the traffic entry it comes from.
        let named = |wanted: &str| entry_app.iter().find(|(name, _)| *name == wanted).map(|(_, app)| *app);
        let app = named(&info.name).or_else(|| entries.of(&info.name).and_then(named));
        let app = app.unwrap_or_else(|| {
            if apps.last().is_none_or(|a| a.name != OTHER) {
                apps.push(Application { name: OTHER.into(), budgets: None });
            }
            apps.len() as u32 - 1
        });
        flow_app.push(app);
    }
    Ok((apps, flow_app))
}

/// The interval lengths of `measure.intervals` (0.25 s without it), ns.
fn interval_lengths_ns(measure: &MeasureSpec) -> Result<Vec<u64>, Issue> {
    Ok(match &measure.intervals {
        None => vec![DEFAULT_INTERVAL_NS],
        Some(lengths) if lengths.is_empty() => {
            return Err(
                Issue::at("measure.intervals", "no interval length").hint("write e.g. `[250ms, 25ms]`")
            )
        }
        Some(lengths) => {
            let mut out = Vec::new();
            for (k, length) in lengths.iter().enumerate() {
                let at = format!("measure.intervals[{k}]");
                let ns = positive(*length, at.clone(), "an interval")?;
                if out.contains(&ns) {
                    return Err(Issue::at(at, "this interval length is listed twice")
                        .hint("list each interval length once"));
                }
                out.push(ns);
            }
            out
        }
    })
}

/// Gives each voice flow its voice-quality state (flows with a codec pattern or
/// push-to-talk voice, and those `measure.voice.flows` lists); returns notes on voice flows
/// that cannot be rated.
fn attach_voice(
    measure: &MeasureSpec,
    entries: &Entries,
    flows: &Table<FlowId, FlowInfo>,
    stats: &mut Table<FlowId, FlowStats>,
    silence_ns: u64,
) -> Result<Vec<String>, Issue> {
    let voice = measure.voice.clone().unwrap_or_default();
    let playout = match &voice.playout {
        None => PlayoutPolicy::Fixed { buffer_ns: DEFAULT_PLAYOUT_BUFFER_NS },
        Some(PlayoutSpec::Fixed(p)) => {
            PlayoutPolicy::Fixed { buffer_ns: p.buffer.map_or(DEFAULT_PLAYOUT_BUFFER_NS, |b| b.0) }
        }
        Some(PlayoutSpec::Adaptive(_)) => PlayoutPolicy::Adaptive,
    };
    // (entry, codec, impairment, key path) of the listed voice flows.
    let mut listed: Vec<(&str, Codec, CodecImpairment, String)> = Vec::new();
    for (i, entry) in voice.flows.iter().enumerate() {
        let at = format!("measure.voice.flows[{i}]");
        entries.check(&entry.flow, format!("{at}.flow"))?;
        let known = codec_impairment(entry.codec);
        let impairment = match (entry.ie.or(known.map(|k| k.ie)), entry.bpl.or(known.map(|k| k.bpl))) {
            (Some(ie), Some(bpl)) if (0.0..=95.0).contains(&ie) && bpl > 0.0 => CodecImpairment { ie, bpl },
            (Some(_), Some(_)) => {
                return Err(Issue::at(&at, "Ie must be within 0–95 and Bpl above 0")
                    .hint("ITU-T G.113 Appendix I lists both for common codecs"))
            }
            _ => {
                return Err(Issue::at(&at, "no Ie and Bpl are known for this codec")
                    .hint("give `ie` and `bpl` (ITU-T G.113 Appendix I)"))
            }
        };
        listed.push((entry.flow.as_str(), entry.codec, impairment, at));
    }
    // Probe replies reflect a flow; they are not a second call.
    let mut reply = vec![false; flows.len()];
    for echo in flows.iter().filter_map(|f| f.echo()) {
        reply[echo.flow.index()] = true;
    }
    let mut notes = Vec::new();
    for ((row, info), flow_stats) in flows.iter_enumerated().zip(stats.iter_mut()) {
        if reply[row.index()] {
            continue;
        }
        let entry = entries.of(&info.name);
        let (codec, impairment) = match listed.iter().find(|(name, ..)| Some(*name) == entry) {
            Some((_, codec, impairment, at)) => {
                if flow_stats.jitter.nominal_interval_ns() == 0 {
                    return Err(Issue::at(
                        at,
                        format!("flow `{}` has no constant packet interval", info.name),
                    )
                    .hint("voice analysis needs a `codec`, `cbr` or ON-OFF `cbr` pattern"));
                }
                (*codec, *impairment)
            }
            None => match info.codec {
                Some(codec) => match codec_impairment(codec) {
                    Some(impairment) => (codec, impairment),
                    None => {
                        notes.push(format!(
                            "voice flow `{}` is not rated: no Bpl is known for its codec; list it in measure.voice.flows with `ie` and `bpl`",
                            info.name
                        ));
                        continue;
                    }
                },
                None => continue,
            },
        };
        let interval_ns = flow_stats.jitter.nominal_interval_ns();
        let codec_delay_ns = voice.codec_delay.map_or(codec.lookahead_ns(), |d| d.0);
        let setup = VoiceSetup { codec, impairment, interval_ns, codec_delay_ns, silence_ns, playout };
        flow_stats.voice = Some(Box::new(VoiceStats::new(setup)));
    }
    Ok(notes)
}

/// Gives the rows of each entry `measure.jitter_reference` lists that carry datagrams (the
/// entry's own, its copies', their echoes, a push-to-talk application's voice) its reference
/// interval.
fn attach_jitter_references(
    measure: &MeasureSpec,
    entries: &Entries,
    flows: &Table<FlowId, FlowInfo>,
    stats: &mut Table<FlowId, FlowStats>,
) -> Result<(), Issue> {
    for (i, reference) in measure.jitter_reference.iter().enumerate() {
        let at = format!("measure.jitter_reference[{i}]");
        let name = reference.flow.as_str();
        entries.check(name, format!("{at}.flow"))?;
        if measure.jitter_reference[..i].iter().any(|r| r.flow == name) {
            return Err(Issue::at(format!("{at}.flow"), format!("`{name}` is listed twice"))
                .hint("give each traffic entry one reference interval"));
        }
        let reference_ns = positive(reference.interval, format!("{at}.interval"), "a reference interval")?;
        let mut covered = 0;
        for (info, flow_stats) in flows.iter().zip(stats.iter_mut()) {
            if info.sink != Sink::Tcp && entries.of(&info.name) == Some(name) {
                flow_stats.jitter.set_reference_ns(reference_ns);
                covered += 1;
            }
        }
        if covered == 0 {
            return Err(Issue::at(
                format!("{at}.flow"),
                format!("`{name}` sends no datagrams: its rows are TCP connections, which have no sending interval"),
            )
            .hint("name an open-loop entry (with a `pattern`) or a `ptt` application, whose voice it covers"));
        }
    }
    Ok(())
}

/// The length of the per-interval series `measure.series` asks for, ns.
fn series_length_ns(measure: &MeasureSpec) -> Result<Option<u64>, Issue> {
    measure.series.map(|length| positive(length, "measure.series".into(), "a series interval")).transpose()
}

/// What the measurement stage adds: the flows' statistics completed (observed hops, voice
/// quality, series), the ΔQ accounting, notes on voice flows that cannot be rated, and the
/// length of the per-interval series of the ports' classes.
pub(super) struct Measurement {
    pub(super) flow_stats: Table<FlowId, FlowStats>,
    pub(super) quality: Option<Box<Quality>>,
    pub(super) notes: Vec<String>,
    pub(super) class_series_ns: Option<u64>,
}

/// What measuring needs of the configured interfaces.
pub(super) struct Observed<'a> {
    /// The observation points of `measure.at`: `None` for end to end, else the port.
    pub(super) points: &'a [Option<PortId>],
    /// What each port is built from.
    pub(super) ports: &'a Table<PortId, PortSetup>,
    /// How many ports are observed hops.
    pub(super) hops: usize,
}

/// Completes the statistics `flow_stats` of the rows `flows` crossing the `observed`
/// interfaces for what `measure` asks; gaps longer than `silence_ns` end a talk spurt of a
/// voice flow.
pub(super) fn measurement(
    measure: &MeasureSpec,
    traffic: &[FlowSpec],
    observed: Observed,
    flows: &Table<FlowId, FlowInfo>,
    mut flow_stats: Table<FlowId, FlowStats>,
    silence_ns: u64,
) -> Result<Measurement, Issue> {
    let hop_slots = observed.hops;
    for stats in &mut flow_stats {
        stats.hops = vec![HopStats::default(); hop_slots];
    }
    let entries = Entries::new(traffic);
    let quality = build_quality(measure, observed.points, &entries, flows, observed.ports, hop_slots)?;
    let notes = attach_voice(measure, &entries, flows, &mut flow_stats, silence_ns)?;
    attach_jitter_references(measure, &entries, flows, &mut flow_stats)?;
    let class_series_ns = series_length_ns(measure)?;
    if let Some(length_ns) = class_series_ns {
        for stats in &mut flow_stats {
            stats.series = Some(Box::new(Series::new(length_ns)));
        }
    }
    Ok(Measurement { flow_stats, quality, notes, class_series_ns })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row belongs to the longest entry name that is its name or a prefix of it ending
    /// before a `.`: copies, echoes and reverse directions of `a.b` belong to `a.b`, not `a`.
    #[test]
    fn a_row_belongs_to_the_longest_entry_its_name_starts_with() {
        let entry = |name: &str| -> FlowSpec {
            serde_json::from_value(serde_json::json!({
                "name": name, "from": "x", "to": "y", "pattern": {"kind": "cbr", "rate_pps": 1, "size": "100B"}
            }))
            .expect("a flow")
        };
        let traffic = [entry("a"), entry("a.b"), entry("voice")];
        let entries = Entries::new(&traffic);
        for (row, expected) in [
            ("a", Some("a")),
            ("a.b", Some("a.b")),
            ("a.b.3", Some("a.b")),
            ("a.b.3.echo", Some("a.b")),
            ("a.c", Some("a")),
            ("a.bc", Some("a")),
            ("ab", None),
            ("voice.reverse", Some("voice")),
            ("b", None),
        ] {
            assert_eq!(entries.of(row), expected, "{row}");
        }
        assert!(entries.check("a.b", "k".into()).is_ok());
        assert!(entries.check("a.b.3", "k".into()).is_err());
    }

    /// The ad-hoc report's VoIP: 150 ms, 5 % over 3 hops → 50 ms and 1.7 % per hop (the
    /// report rounds to 1.5 %).
    #[test]
    fn per_hop_share_of_the_voip_budget() {
        let e2e = Budget { delay_ns: 150_000_000, loss_ratio: 0.05, jitter_ns: Some(30_000_000) };
        let hop = per_hop_share(e2e, 3);
        assert_eq!(hop.delay_ns, 50_000_000);
        assert_eq!(hop.jitter_ns, Some(10_000_000));
        assert!((hop.loss_ratio - 0.016952).abs() < 1e-6, "{}", hop.loss_ratio);
        assert!(((1.0 - hop.loss_ratio).powi(3) - 0.95).abs() < 1e-12);
    }
}
