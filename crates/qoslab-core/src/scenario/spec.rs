//! The scenario document: what a YAML scenario may contain.
//!
//! Every struct rejects unknown keys, so a typo is an error with a suggestion rather than a
//! silently ignored setting. Quantities are unit strings (see [`crate::units`]). The JSON
//! Schema printed by `qoslab schema` is generated from these types.

use super::overlay::VariantSpec;
use super::sweep::SweepSpec;
use crate::condition::ConditionerSpec;
use crate::config::tagged::{nested, NestedError};
use crate::measure::spec::MeasureSpec;
use crate::net::l2::L2Overhead;
use crate::net::lfi::LfiSpec;
use crate::net::link_loss::LossSpec;
use crate::net::tunnel::TunnelSpec;
pub use crate::net::NodeKind;
use crate::qdisc::PolicySpec;
use crate::scenario::flow_spec::FlowSpec;
use crate::traffic::Phase;
use crate::units::{Duration, Rate, Size};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

/// A whole scenario.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Short name, used in result files.
    pub name: String,
    /// One line on what the scenario shows.
    pub description: Option<String>,
    /// Run length, warm-up and randomness.
    pub run: RunSpec,
    /// Nodes and links.
    pub topology: TopologySpec,
    /// Named interface policies that `interfaces` refer to.
    #[serde(default)]
    pub policies: BTreeMap<String, PolicySpec>,
    /// Per-interface settings by node, then by neighbour: `interfaces: {r1: {r2: {...}}}`
    /// sets the egress of `r1` towards `r2` (the port named `r1->r2` in results).
    #[serde(default)]
    pub interfaces: BTreeMap<String, BTreeMap<String, InterfaceSpec>>,
    /// The flows.
    pub traffic: Vec<FlowSpec>,
    /// Budgets, order of failure, observation points, voice quality and series.
    #[serde(default)]
    pub measure: MeasureSpec,
    /// Named variants of the scenario: each removes, replaces and adds parts of it. The
    /// name `base` is reserved for the scenario as written.
    #[serde(default)]
    pub variants: BTreeMap<String, VariantSpec>,
    /// The runs of a study of the scenario: values to vary, variants, replications.
    /// Ignored by a single run.
    pub sweep: Option<SweepSpec>,
}

/// Run control.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Measured time, after the warm-up.
    pub duration: Duration,
    /// Time simulated before measuring starts (default 0 s).
    pub warmup: Option<Duration>,
    /// Master seed of all random streams (default 1).
    pub seed: Option<u64>,
    /// Replication number, varies the random streams under one seed (default 0).
    pub replication: Option<u64>,
    /// The start phase of every flow with a periodic pattern that does not give its own
    /// `phase`: `random` (a uniform random offset within one period after the flow's `start`,
    /// so replications of periodic traffic differ) or `none` (default: start at `start`).
    /// Flows whose pattern has no period are left as they are.
    pub phase: Option<Phase>,
    /// Inter-arrival deviations above this are silences, not jitter (default 1 s, as the
    /// LMR VoIP thesis' analysis script).
    pub jitter_gap_threshold: Option<Duration>,
}

/// A node.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// `host` or `router`.
    pub kind: NodeKind,
    /// IPv4 address used by classification (default 10.0.x.y from the node's position).
    pub address: Option<String>,
    /// The router's Cisco IOS configuration (a file, or the text itself): the interfaces
    /// that links name in their `interfaces` take their settings from it.
    pub ios: Option<String>,
}

/// Nodes, links and static routes.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Nodes by name.
    pub nodes: BTreeMap<String, NodeSpec>,
    /// Full-duplex point-to-point links.
    pub links: Vec<LinkSpec>,
    /// Static routes that replace the computed shortest paths.
    #[serde(default)]
    pub routes: Vec<RouteSpec>,
    /// Tunnels (GRE, PPTP, IPsec) carrying the flows that pass both their ends.
    #[serde(default)]
    pub tunnels: Vec<TunnelSpec>,
}

/// A full-duplex point-to-point link; both directions share its settings.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The two nodes it joins.
    pub between: [String; 2],
    /// Physical bit rate of each direction.
    pub rate: Rate,
    /// Propagation delay of each direction (default 0 s).
    pub delay: Option<Duration>,
    /// Layer-2 framing per frame: `hdlc`, `ppp`, `ethernet` (with preamble and gap; also
    /// `ethernet-wire`), `ethernet-frame` (header and FCS only), `none` or bytes (default
    /// `ethernet`).
    pub l2: Option<L2Overhead>,
    /// Largest IP packet (default 1500 B).
    pub mtu: Option<Size>,
    /// Transmit ring size in packets, counting the frame on the wire (default 2).
    pub tx_ring: Option<u32>,
    /// QoS bandwidth of both directions (IOS `bandwidth`): the base of percentages and
    /// reservations in queuing policies. Default: the physical `rate`.
    pub bandwidth: Option<Rate>,
    /// Random frame loss in each direction: `"1%"` or `{gilbert_elliott: {p, r, good_loss,
    /// bad_loss}}` (default none).
    pub loss: Option<LossSpec>,
    /// Changes of the physical rate of both directions during the run, in time order.
    #[serde(default)]
    pub rate_changes: Vec<RateChangeSpec>,
    /// The same from a CSV file of `time_s,rate_bps` rows (relative to the scenario's
    /// folder), instead of `rate_changes`.
    pub rate_trace: Option<String>,
    /// The interface names of the link at each end (`[Serial0, Serial1]`), in the nodes'
    /// IOS configurations (`topology.nodes.NAME.ios`).
    pub interfaces: Option<[String; 2]>,
}

/// A scheduled change of a link's physical rate.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateChangeSpec {
    /// When, since the run began.
    pub at: Duration,
    /// The new rate.
    pub rate: Rate,
}

/// A static route: at node `at`, traffic for `to` leaves towards neighbour `via`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    /// The node whose forwarding decision this sets.
    pub at: String,
    /// The destination node.
    pub to: String,
    /// The neighbour to send it to.
    pub via: String,
}

/// Settings of one interface: its egress towards the neighbour, and its input from it.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, try_from = "serde_json::Value")]
pub struct InterfaceSpec {
    /// Output queuing: the name of an entry in `policies`, or a policy written inline.
    pub output: Option<PolicyRef>,
    /// Transmit ring size for this direction only (IOS `tx-ring-limit`; overrides the link's).
    pub tx_ring: Option<u32>,
    /// QoS bandwidth of this direction (IOS `bandwidth`; overrides the link's).
    pub bandwidth: Option<Rate>,
    /// Output hold queue in packets (IOS `hold-queue N out`): the FIFO's limit, or the
    /// packets a WFQ system may hold.
    pub hold_queue: Option<u32>,
    /// Input policy (IOS `service-policy input`): classes that police and re-mark the
    /// packets this interface receives from the neighbour.
    pub input: Option<ConditionerSpec>,
    /// Measure every flow's packets crossing this hop (the `hops` table).
    pub observe: bool,
    /// Configuration changes during the run, in time order.
    pub changes: Vec<InterfaceChangeSpec>,
    /// Link fragmentation and interleaving (multilink PPP) on this direction.
    pub lfi: Option<LfiSpec>,
    /// Take this interface's settings from a Cisco IOS configuration.
    pub ios: Option<IosSpec>,
}

/// An interface configured by a Cisco IOS configuration.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IosSpec {
    /// The configuration: a file (relative to the scenario's folder), or the text itself
    /// when it has line breaks.
    pub config: String,
    /// The interface's name in the configuration (`Serial0/1/1`, or as abbreviated there).
    pub interface: String,
    /// The class scheduler the router runs: `pre-hqf`, `hqf` or `xe` (default: read from
    /// the configuration's `version` line and syntax).
    pub scheduler: Option<crate::qdisc::cbwfq::Scheduler>,
    /// Configuration commands entered after the configuration's own, from global
    /// configuration mode, as typed at the console (`"interface Multilink1\n ppp multilink
    /// fragment delay 20"`): a later command replaces an earlier one, so one line of a
    /// configuration read from a file can be varied (default: none).
    pub then: Option<String>,
}

/// A scheduled change of an interface's configuration.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InterfaceChangeSpec {
    /// When, since the run began.
    pub at: Duration,
    /// The output policy from then on: a name in `policies`, or a policy written in place.
    pub output: Option<PolicyRef>,
    /// The QoS bandwidth from then on (IOS `bandwidth`).
    pub bandwidth: Option<Rate>,
}

/// The same fields, read without the shape check below.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InterfaceFields {
    output: Option<PolicyRef>,
    tx_ring: Option<u32>,
    bandwidth: Option<Rate>,
    hold_queue: Option<u32>,
    input: Option<ConditionerSpec>,
    #[serde(default)]
    observe: bool,
    #[serde(default)]
    changes: Vec<InterfaceChangeSpec>,
    lfi: Option<LfiSpec>,
    ios: Option<IosSpec>,
}

/// Interface settings that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InterfaceSpecError {
    /// Not a mapping: usually the two-level `interfaces:` layout written with one level.
    #[error(
        "expected the settings of one interface, e.g. `{{output: fifo}}`, found {found}; \
         interfaces are written `interfaces: {{NODE: {{NEIGHBOUR: {{output: POLICY}}}}}}`"
    )]
    NotSettings { found: serde_json::Value },
    /// A problem inside the settings.
    #[error(transparent)]
    Settings(#[from] NestedError),
}

impl TryFrom<serde_json::Value> for InterfaceSpec {
    type Error = InterfaceSpecError;

    /// Settings must be a mapping; anything else usually means the two-level
    /// `interfaces: {NODE: {NEIGHBOUR: {...}}}` layout was written with one level.
    fn try_from(value: serde_json::Value) -> Result<Self, InterfaceSpecError> {
        if !value.is_object() {
            return Err(InterfaceSpecError::NotSettings { found: value });
        }
        let f = nested::<InterfaceFields>(value)?;
        Ok(InterfaceSpec {
            output: f.output,
            tx_ring: f.tx_ring,
            bandwidth: f.bandwidth,
            hold_queue: f.hold_queue,
            input: f.input,
            observe: f.observe,
            changes: f.changes,
            lfi: f.lfi,
            ios: f.ios,
        })
    }
}

/// A policy by name or inline.
#[derive(Clone, Debug, JsonSchema)]
#[serde(untagged)]
pub enum PolicyRef {
    /// The name of an entry in `policies`.
    Named(String),
    /// A policy written in place.
    Inline(PolicySpec),
}

impl<'de> Deserialize<'de> for PolicyRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(name) => Ok(PolicyRef::Named(name)),
            other => nested(other).map(PolicyRef::Inline).map_err(serde::de::Error::custom),
        }
    }
}
