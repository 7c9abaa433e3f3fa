//! The settings of a CBWFQ/LLQ policy as a scenario writes them (IOS MQC's `policy-map`
//! classes: Cisco IOS Quality of Service Solutions Command Reference, `priority`, `bandwidth`,
//! `queue-limit`, `fair-queue`, `random-detect`, `police`, `shape`, `service-policy`; IOS
//! XE's levels and ratios from its QoS configuration guides), the class scheduler they run
//! under, and IOS's defaults for what they leave out (`docs/reference/ios-defaults.md`).

use crate::aqm::RedSpec;
use crate::classify::MatchSpec;
use crate::condition::marker::SetSpec;
use crate::condition::policer::PoliceSpec;
use crate::qdisc::class_queue_limit::ClassQueueLimit;
use crate::qdisc::shaper_credit::ShapeSpec;
use crate::qdisc::PolicySpec;
use crate::units::{Percent, RateOrShare, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// Default class queue limit, packets (IOS "Max Threshold 64 (packets)").
pub const DEFAULT_QUEUE_LIMIT_PACKETS: u32 = 64;
/// Default share of the interface bandwidth that classes may reserve, parts per million.
pub const DEFAULT_MAX_RESERVED_PPM: u64 = 750_000;
/// Default class weight constant (not published by Cisco; fits the INE lab measurement).
pub const DEFAULT_WEIGHT_CONSTANT: u64 = 64;
/// Default LLQ burst: 200 ms of traffic at the class's rate.
pub const DEFAULT_BURST_NS: u64 = 200_000_000;
/// Smallest LLQ burst IOS accepts, bytes.
pub const MIN_BURST_BYTES: u64 = 32;
/// Largest LLQ burst IOS accepts, bytes.
pub const MAX_BURST_BYTES: u64 = 2_000_000;
/// Default dynamic queues of a fair-queued class-default.
pub const DEFAULT_DEFAULT_CLASS_QUEUES: u32 = 256;
/// The name of the class that takes unmatched traffic.
pub const CLASS_DEFAULT: &str = "class-default";

/// Which IOS class scheduler a policy runs under.
#[derive(Copy, Clone, Debug, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Scheduler {
    /// IOS 12.3/12.4 mainline and earlier: classes weighted by their bandwidth, the excess
    /// shared in proportion (two parameters).
    #[default]
    PreHqf,
    /// Classic IOS with the hierarchical queuing framework (12.4(20)T, 15.x): classes share
    /// in proportion to their bandwidth, the unreserved bandwidth equally among the classes
    /// without one; flow queues served equally.
    Hqf,
    /// IOS XE: minimum (`bandwidth`), maximum (`shape`) and excess weight (`bandwidth
    /// remaining`, equal by default), with priority levels 1 and 2.
    Xe,
}

impl Scheduler {
    /// The name a scenario gives it (`scheduler: xe`).
    pub const fn name(self) -> &'static str {
        match self {
            Scheduler::PreHqf => "pre-hqf",
            Scheduler::Hqf => "hqf",
            Scheduler::Xe => "xe",
        }
    }
}

/// `fair_queue: true` or `fair_queue: {dynamic_queues: 64}` on class-default.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FairQueueSpec {
    /// On with the default number of queues, or off.
    Switch(bool),
    /// On with this many dynamic queues (a power of two, 16–4096).
    Queues {
        /// Dynamic conversation queues.
        dynamic_queues: u32,
    },
}

/// One class of a CBWFQ policy.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassSpec {
    /// Class name; `class-default` takes unmatched traffic.
    pub name: String,
    /// Which packets belong to the class (not for class-default).
    #[serde(rename = "match")]
    pub condition: Option<MatchSpec>,
    /// LLQ: a strict-priority class with this policed rate (`64kbps` or `20%`).
    pub priority: Option<RateOrShare>,
    /// IOS XE: the priority level, 1 (served first) or 2; a class with a level and no
    /// `priority` rate is not held to a rate, except by its own `police`.
    pub priority_level: Option<u8>,
    /// LLQ policer depth (default 200 ms at the priority rate).
    pub burst: Option<Size>,
    /// Guaranteed bandwidth (`64kbps` or `20%` of the interface bandwidth).
    pub bandwidth: Option<RateOrShare>,
    /// Before IOS XE: guaranteed share of the bandwidth the priority classes leave. Under
    /// IOS XE: the class's weight in the excess, as a percentage.
    pub bandwidth_remaining: Option<Percent>,
    /// IOS XE: the class's weight in the excess, 1–1000 (IOS `bandwidth remaining ratio`).
    pub bandwidth_remaining_ratio: Option<u32>,
    /// Queue limit: packets (default 64, a priority class's too under HQF; under IOS XE 50
    /// ms of 1500-byte packets at the interface's rate, at least 64, and 512 for a priority
    /// class), or under IOS XE bytes (`"64kB"`) or time (`"50ms"`).
    pub queue_limit: Option<ClassQueueLimit>,
    /// class-default only: flow-based fair queuing inside the class.
    pub fair_queue: Option<FairQueueSpec>,
    /// Re-mark the class's packets (IOS `set ip dscp|precedence` in the class), before
    /// policing.
    pub set: Option<SetSpec>,
    /// Police the class's packets (IOS `police` in the class) before they are queued; its
    /// percentages are of the interface bandwidth.
    pub police: Option<PoliceSpec>,
    /// WRED on the class queue (IOS `random-detect` in the class): RED, WRED or RIO.
    pub random_detect: Option<RedSpec>,
    /// Shape the class (IOS `shape average|peak` in the class): `{rate, bc, be, mode}`, the
    /// rate a rate or a percentage of the interface bandwidth. Not in a priority class.
    pub shape: Option<ShapeSpec>,
    /// HQF and IOS XE: a `cbwfq` policy that queues the class's packets (IOS `service-policy`
    /// in the class), its percentages of the class's `shape` rate (of this policy's
    /// bandwidth when the class is not shaped); its priority classes keep their priority
    /// through this level.
    pub child: Option<Box<PolicySpec>>,
}

/// Parameters of a CBWFQ/LLQ policy.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CbwfqParams {
    /// The class scheduler: `pre-hqf` (default), `hqf` or `xe`.
    pub scheduler: Option<Scheduler>,
    /// Classes in evaluation order.
    pub classes: Vec<ClassSpec>,
    /// Share of the interface bandwidth that priority and bandwidth classes may reserve
    /// (default 75 %, 100 % under HQF; not under IOS XE, which lets them reserve it all).
    pub max_reserved: Option<Percent>,
    /// Class weight constant (default 64).
    pub weight_constant: Option<u64>,
}
