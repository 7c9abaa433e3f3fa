//! The scenario's `measure` section: what each application may suffer (its quality budget),
//! the order in which applications should fail, where ΔQ is measured and over which
//! intervals, the voice-quality analysis, the reference intervals of the deviation jitter,
//! the per-interval series, the packet capture and the per-packet trace.

use crate::config::tagged::kind_enum;
use crate::traffic::codec::Codec;
use crate::units::{Duration, Percent, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// The name of the end-to-end observation point (source to sink).
pub const END_TO_END: &str = "end_to_end";

/// Analyses of what the applications experienced.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    /// Observation points of the ΔQ accounting: `end_to_end` (from the source to the sink)
    /// and egress ports named `node->peer` (from entering the port's queue to reaching the
    /// far end of its link). Default: `[end_to_end]`.
    pub at: Option<Vec<String>>,
    /// ΔQ interval lengths; each gives its own rows (default `[250ms]`; the ad-hoc report
    /// used 250 ms for budget consumption and 25 ms for time in contract).
    pub intervals: Option<Vec<Duration>>,
    /// Return every ΔQ interval as a row of the `dq_intervals` table (default false).
    #[serde(default)]
    pub interval_table: bool,
    /// Quality budgets, one per application.
    #[serde(default)]
    pub budgets: Vec<BudgetSpec>,
    /// Applications in the order they should fail as the network degrades, first to fail
    /// first: names of budgets or of traffic entries.
    #[serde(default)]
    pub order_of_failure: Vec<String>,
    /// Voice quality (E-model) of voice flows.
    pub voice: Option<VoiceSpec>,
    /// Fixed reference intervals of the inter-arrival deviation jitter (`jitter_avg_ms`,
    /// `jitter_max_ms`), by traffic entry; the entries not listed compare with their nominal
    /// sending interval.
    #[serde(default)]
    pub jitter_reference: Vec<JitterReferenceSpec>,
    /// Per-interval series of every flow, with this interval (e.g. `1s`); no series when
    /// absent.
    pub series: Option<Duration>,
    /// Packet capture: which ports and how much of each frame. The files are written only
    /// when the run is given a folder (`qoslab run --pcap DIR`); without this section every
    /// port is captured.
    pub pcap: Option<PcapSpec>,
    /// A per-packet trace (`trace.parquet`): every event of the chosen flows' packets at
    /// the chosen ports; no trace when absent.
    pub trace: Option<TraceSpec>,
}

/// Packet capture settings.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Egress ports to capture, named `node->peer` (default: every port).
    pub points: Option<Vec<String>>,
    /// Bytes of each frame written, link header included (default 128; at most 262144).
    /// The record keeps the frame's whole length.
    pub snap_length: Option<u32>,
    /// The most the capture's files may hold together (default 1 GiB); each port's file
    /// stops, with a note, when it would pass its equal share.
    pub max_bytes: Option<Size>,
}

/// What the per-packet trace records.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Ports (`node->peer`) whose arrivals, drops, dequeues and transmissions are recorded,
    /// and `end_to_end` for deliveries at the destination. Default: every port and
    /// `end_to_end`.
    pub points: Option<Vec<String>>,
    /// Flows whose packets are recorded: traffic entries (covering their copies and rows)
    /// or single flow rows. Default: every flow.
    pub flows: Option<Vec<String>>,
    /// Most rows recorded; the trace stops there with a note in the results (default
    /// 10 000 000).
    pub max_rows: Option<u64>,
}

/// The loss, delay and jitter an application may suffer.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BudgetSpec {
    /// Application name, as the results call it.
    pub app: String,
    /// The traffic entries that make up the application (default: the entry named `app`).
    /// An entry covers its copies (`NAME.1` ...) and its rows (`.reverse`, `.echo`, ...); a
    /// row may also be named alone (`photos.reverse`), and then belongs here rather than to
    /// its entry's application.
    pub flows: Option<Vec<String>>,
    /// Hops the end-to-end budget is shared over (default 1).
    pub hops: Option<u32>,
    /// Limits from source to sink.
    pub end_to_end: LimitsSpec,
    /// Limits of one hop (default: the end-to-end limits shared equally over `hops`: delay
    /// and jitter divided, loss such that `hops` hops together lose at most the end-to-end
    /// share).
    pub per_hop: Option<LimitsSpec>,
}

/// Limits of a budget.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// Largest mean one-way delay of an interval.
    pub delay: Duration,
    /// Largest loss ratio of an interval (above 0 %).
    pub loss: Percent,
    /// Largest delay variation (largest minus smallest delay) of an interval; unlimited when
    /// absent.
    pub jitter: Option<Duration>,
}

/// Voice-quality analysis.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoiceSpec {
    /// The receivers' playout buffer (default `{kind: fixed, buffer: 60ms}`).
    pub playout: Option<PlayoutSpec>,
    /// Codec delay added to the mouth-to-ear delay (default: the codec's look-ahead).
    pub codec_delay: Option<Duration>,
    /// Flows that carry voice without a `codec` pattern (e.g. a `cbr` or `onoff` pattern
    /// sized like a codec), with their codec. Flows with a `codec` pattern and
    /// push-to-talk voice are analysed without being listed.
    #[serde(default)]
    pub flows: Vec<VoiceFlowSpec>,
}

/// A flow carrying voice.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoiceFlowSpec {
    /// Traffic entry name (covers its copies).
    pub flow: String,
    /// Its codec.
    pub codec: Codec,
    /// Equipment impairment factor Ie (default: the codec's G.113 value).
    pub ie: Option<f64>,
    /// Packet-loss robustness factor Bpl (default: the codec's G.113 value).
    pub bpl: Option<f64>,
}

/// The interval a flow's inter-arrival times are compared with.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JitterReferenceSpec {
    /// Traffic entry name: covers its copies and their `.echo` rows, and a `ptt`
    /// application's voice (not its TCP rows).
    pub flow: String,
    /// The reference, above zero: the mean time between the flow's packets as measured at
    /// its source (the lmr-voip-thesis analysis script's `delta`, 0.197 s in its QoS tests).
    pub interval: Duration,
}

kind_enum! {
    /// A playout buffer.
    pub enum PlayoutSpec {
        /// A spurt is played a fixed buffer after its first packet arrived.
        "fixed" => Fixed(FixedPlayoutSpec),
        /// The buffer follows the delay and its variation (Ramjee et al. 1994).
        "adaptive" => Adaptive(AdaptivePlayoutSpec),
    }
}

/// A fixed playout buffer.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixedPlayoutSpec {
    /// The buffer (default 60 ms).
    pub buffer: Option<Duration>,
}

/// An adaptive playout buffer (no settings).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdaptivePlayoutSpec {}
