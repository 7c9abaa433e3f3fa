//! Strict priority queuing — IOS `priority-list`/`priority-group`, Linux `prio`.
//!
//! N bands, each a tail-drop FIFO with its own limit. A first-match classifier picks the
//! band; unmatched packets go to the default band. Whenever the transmit ring has room, the
//! head of the highest-priority non-empty band is sent, so lower bands starve while higher
//! ones are backlogged (`docs/reference/ios-defaults.md`). The IOS preset has four bands high,
//! medium, normal, low with limits 20, 40, 60, 80 packets and sends unmatched traffic to
//! normal (the limits are the widely reproduced defaults; the Cisco table itself was not
//! retrieved, hence a preset rather than a constant). Cost: O(bands) per dequeue.

use super::packet_queue::{PacketQueue, QueueLimit};
use super::{Dequeue, Interface, Qdisc, QdiscKind};
use crate::classify::class_setup::{compile_match, element_path, ClassNames, Rules};
use crate::classify::{Classifier, MatchSpec};
use crate::config::error::{join_path, Issue};
use crate::measure::DropReason;
use crate::measure::QdiscCtx;
use crate::packet::Packet;
use schemars::JsonSchema;
use serde::Deserialize;

/// Band presets.
#[derive(Copy, Clone, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PrioPreset {
    /// IOS priority queuing: high/medium/normal/low, limits 20/40/60/80, default normal.
    Ios,
}

/// One band: a name and a limit.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BandSpec {
    /// Band name, used by `classify` rules and in results.
    pub name: String,
    /// Queue limit of the band (default 40 packets).
    pub limit: Option<QueueLimit>,
}

/// A classification rule: packets matching `match` go to `band`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BandRule {
    /// The condition (see the match reference).
    #[serde(rename = "match")]
    pub condition: MatchSpec,
    /// Target band name.
    pub band: String,
}

/// Parameters of strict priority queuing.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PrioParams {
    /// A band layout preset (`ios`); excludes `bands`.
    pub preset: Option<PrioPreset>,
    /// Bands, highest priority first (at least two); excludes `preset`.
    pub bands: Option<Vec<BandSpec>>,
    /// Band for packets no rule matches (`normal` with the IOS preset, else the last band).
    pub default: Option<String>,
    /// First-match rules.
    #[serde(default)]
    pub classify: Vec<BandRule>,
}

/// The IOS PQ bands and limits.
const IOS_BANDS: [(&str, u32); 4] = [("high", 20), ("medium", 40), ("normal", 60), ("low", 80)];

/// Default band limit when a band gives none.
const DEFAULT_BAND_LIMIT: QueueLimit = QueueLimit::Packets(40);

/// The bands of a policy, highest priority first, each with its limit, and the default band
/// its preset names.
pub(crate) type Bands = (Vec<(String, QueueLimit)>, Option<&'static str>);

/// The bands of `params` (found at `at`), highest priority first, each with its limit, and
/// the default band the preset names (None: the last band, unless `default` says).
pub(crate) fn bands_of(params: &PrioParams, at: &str) -> Result<Bands, Issue> {
    Ok(match (&params.preset, &params.bands) {
        (Some(_), Some(_)) => {
            return Err(Issue::at(join_path(at, "bands"), "`bands` and `preset` cannot be used together")
                .hint("remove `preset` to define your own bands, or remove `bands` to use the preset"))
        }
        (Some(PrioPreset::Ios), None) => (
            IOS_BANDS.iter().map(|(n, l)| (n.to_string(), QueueLimit::Packets(*l))).collect(),
            Some("normal"),
        ),
        (None, Some(specs)) => {
            (specs.iter().map(|b| (b.name.clone(), b.limit.unwrap_or(DEFAULT_BAND_LIMIT))).collect(), None)
        }
        (None, None) => {
            return Err(Issue::at(at, "priority queuing needs bands")
                .hint("add `preset: ios` (high/medium/normal/low) or a `bands:` list"))
        }
    })
}

/// A strict-priority discipline.
#[derive(Clone, Debug)]
pub struct Prio {
    names: Vec<String>,
    bands: Vec<PacketQueue>,
    classifier: Classifier,
}

impl QdiscKind for Prio {
    const KIND: &'static str = "prio";
    const DEPENDS_ON_BANDWIDTH: bool = false;
    type Params = PrioParams;

    /// Builds from `params` found at key path `at`; node names in matches resolve through
    /// `node_address`.
    fn build(
        params: &Self::Params,
        at: &str,
        _interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let (bands, default_band) = bands_of(params, at)?;
        if bands.len() < 2 {
            return Err(Issue::at(join_path(at, "bands"), "priority queuing needs at least two bands"));
        }
        let mut names = ClassNames::with_capacity(bands.len());
        for (i, (name, _)) in bands.iter().enumerate() {
            names.add(name, "band", element_path(at, "bands", i))?;
        }
        let default_target = match (params.default.as_deref(), default_band) {
            (Some(name), _) | (None, Some(name)) => names.resolve(name, "band", join_path(at, "default"))?,
            (None, None) => names.len() as u32 - 1,
        };
        let mut rules = Rules::new();
        for (i, rule) in params.classify.iter().enumerate() {
            let path = element_path(at, "classify", i);
            let matcher = compile_match(&rule.condition, &path, node_address)?;
            rules.push(matcher, names.resolve(&rule.band, "band", join_path(&path, "band"))?);
        }
        Ok(Prio {
            names: names.into_vec(),
            bands: bands.into_iter().map(|(_, limit)| PacketQueue::new(limit)).collect(),
            classifier: rules.classifier(default_target),
        })
    }
}

impl Qdisc for Prio {
    fn class_names(&self) -> Vec<String> {
        self.names.clone()
    }

    #[inline]
    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
        let band = self.classifier.classify(&packet) as usize;
        let queue = &mut self.bands[band];
        if queue.is_full_for(packet.size_bytes) {
            ctx.drop_arrival(band, packet, DropReason::TailDrop);
        } else {
            ctx.enqueued(band, &packet);
            queue.push(packet);
        }
    }

    #[inline]
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
        // Strict priority: the first non-empty band in priority order.
        for (band, queue) in self.bands.iter_mut().enumerate() {
            if !queue.is_empty() {
                let packet = queue.take();
                ctx.dequeued(band, &packet);
                return Dequeue::Packet(packet);
            }
        }
        Dequeue::Empty
    }

    fn len_packets(&self) -> usize {
        self.bands.iter().map(PacketQueue::len).sum()
    }

    fn take_packets(&mut self) -> Vec<Packet> {
        self.bands.iter_mut().flat_map(PacketQueue::take_all).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{harness, packet, INTERFACE};

    fn ios(rules: &str) -> Prio {
        let yaml = format!("{{preset: ios, classify: {rules}}}");
        let (value, _) = crate::config::yaml::parse(&yaml).unwrap();
        let params: PrioParams = serde_json::from_value(value).unwrap();
        Prio::build(&params, "p", INTERFACE, &|_| None).unwrap()
    }

    #[test]
    fn ios_preset_bands_limits_and_default() {
        let prio = ios("[]");
        assert_eq!(prio.class_names(), ["high", "medium", "normal", "low"]);
        let limits: Vec<_> = prio.bands.iter().map(PacketQueue::limit).collect();
        assert_eq!(limits, [20, 40, 60, 80].map(QueueLimit::Packets));
        // Unmatched traffic goes to normal.
        assert_eq!(prio.classifier.classify(&packet(0, 100, 0)), 2);
    }

    #[test]
    fn strict_order_and_per_band_tail_drop() {
        let mut prio = ios("[{match: {dscp: EF}, band: high}, {match: {dscp: CS1}, band: low}]");
        let mut h = harness(4);
        // 25 EF packets: the high band holds 20, drops 5.
        for id in 0..25 {
            prio.enqueue(packet(id, 100, 46), &mut h.ctx());
        }
        prio.enqueue(packet(100, 100, 8), &mut h.ctx()); // low
        prio.enqueue(packet(101, 100, 0), &mut h.ctx()); // normal
        assert_eq!(h.classes[0].dropped_for(DropReason::TailDrop), 5);
        let order: Vec<u64> = std::iter::from_fn(|| match prio.dequeue(&mut h.ctx()) {
            Dequeue::Packet(p) => Some(p.id),
            _ => None,
        })
        .collect();
        let mut expected: Vec<u64> = (0..20).collect();
        expected.extend([101, 100]);
        assert_eq!(order, expected);
    }

    #[test]
    fn configuration_errors() {
        let build = |yaml: &str| {
            let (value, _) = crate::config::yaml::parse(yaml).unwrap();
            let params: PrioParams = serde_json::from_value(value).unwrap();
            Prio::build(&params, "p", INTERFACE, &|_| None).unwrap_err()
        };
        assert_eq!(build("{}").key_path, "p");
        assert_eq!(build("{preset: ios, bands: [{name: a}, {name: b}]}").key_path, "p.bands");
        assert_eq!(build("{bands: [{name: a}]}").key_path, "p.bands");
        assert_eq!(build("{bands: [{name: a}, {name: a}]}").key_path, "p.bands[1]");
        let e = build("{preset: ios, classify: [{match: {}, band: hihg}]}");
        assert_eq!(e.key_path, "p.classify[0].band");
        assert!(e.hint.unwrap().contains("did you mean `high`"));
    }
}
