//! A conditioner: an ordered list of classes, each a match and its marking and policing —
//! an IOS MQC policy of `set` and `police` actions, as attached with
//! `service-policy input` at an interface.
//!
//! A packet is tried against the classes in the order written; the first whose match
//! holds takes it (IOS `class-map` evaluation, `docs/reference/ios-defaults.md`). That
//! class first re-marks it (`set`), then polices it (`police`): the policer sees the
//! re-marked DSCP, so in colour-aware mode the `set` decides the incoming colour, and a
//! policer's re-marking action has the last word. A class with neither passes its packets
//! unchanged, which exempts them from the classes below. Packets that no class matches pass
//! unchanged (there is no implicit class-default action).
//!
//! The usual policies:
//! * ingress policing of a premium class — `{match: {dscp: EF}, police: {...}}`;
//! * re-marking everything to best effort at a trust boundary (a domain edge that does not
//!   take part in a DiffServ service) — `{match: {}, set: {dscp: 0}}`.
//!
//! The per-packet cost is the match evaluation plus at most one meter update; nothing is
//! allocated.
//!
//! References: RFC 2475 §2.3.3 (traffic conditioners: meters, markers, droppers);
//! RFC 2697; RFC 2698; Cisco IOS MQC `policy-map` with `set` and `police`.

use super::marker::{Marker, SetSpec};
use super::policer::{PoliceSpec, Policer, Verdict};
use crate::classify::class_setup::{compile_match, element_path, ClassNames};
use crate::classify::{MatchSpec, Matcher};
use crate::config::error::{join_path, Issue};
use crate::packet::Packet;
use crate::time::SimTime;
use schemars::JsonSchema;
use serde::Deserialize;

/// An input policy as written in a scenario.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConditionerSpec {
    /// Classes in evaluation order; the first match wins.
    pub classes: Vec<ConditionClassSpec>,
}

/// One class of a conditioner.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConditionClassSpec {
    /// Class name (default `class<i>`, its position).
    pub name: Option<String>,
    /// Which packets belong to the class; `{}` takes every packet.
    #[serde(rename = "match")]
    pub condition: Option<MatchSpec>,
    /// Re-mark its packets (IOS `set ip dscp` / `set ip precedence`), before policing.
    pub set: Option<SetSpec>,
    /// Police its packets (IOS `police`).
    pub police: Option<PoliceSpec>,
}

#[derive(Clone, Debug)]
struct Class {
    matcher: Matcher,
    marker: Option<Marker>,
    policer: Option<Policer>,
}

/// A compiled conditioner.
#[derive(Clone, Debug)]
pub struct Conditioner {
    classes: Vec<Class>,
}

impl Conditioner {
    /// Builds from `spec` found at key path `at`; percentage rates are of `bandwidth_bps`,
    /// policers count `header_bytes` of the link's framing with each packet, and
    /// `node_address` resolves node names in matches.
    pub fn build(
        spec: &ConditionerSpec,
        at: &str,
        bandwidth_bps: u64,
        header_bytes: u32,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue> {
        let mut names = ClassNames::with_capacity(spec.classes.len());
        let mut classes = Vec::with_capacity(spec.classes.len());
        for (i, class) in spec.classes.iter().enumerate() {
            let here = element_path(at, "classes", i);
            let name = class.name.clone().unwrap_or_else(|| format!("class{i}"));
            names.add(&name, "class", join_path(&here, "name"))?;
            let Some(condition) = &class.condition else {
                return Err(Issue::at(&here, format!("class `{name}` has no `match`"))
                    .hint("add `match: {...}` (an empty `match: {}` takes every packet)"));
            };
            let matcher = compile_match(condition, &here, node_address)?;
            let marker =
                class.set.as_ref().map(|s| Marker::build(s, &join_path(&here, "set"))).transpose()?;
            let policer = class
                .police
                .as_ref()
                .map(|p| Policer::build(p, &join_path(&here, "police"), bandwidth_bps, header_bytes))
                .transpose()?;
            classes.push(Class { matcher, marker, policer });
        }
        Ok(Conditioner { classes })
    }

    /// The class `packet` belongs to, if any.
    #[inline]
    #[cfg(test)]
    pub fn classify(&self, packet: &Packet) -> Option<usize> {
        self.classes.iter().position(|c| c.matcher.matches(packet))
    }

    /// Conditions `packet` arriving at `now`: re-marks it in place and says whether it
    /// goes on.
    #[inline]
    pub fn apply(&mut self, now: SimTime, packet: &mut Packet) -> Verdict {
        let Some(class) = self.classes.iter_mut().find(|c| c.matcher.matches(packet)) else {
            return Verdict::Pass;
        };
        if let Some(marker) = class.marker {
            marker.apply(packet);
        }
        match &mut class.policer {
            Some(policer) => policer.police(now, packet),
            None => Verdict::Pass,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::DropReason;
    use crate::packet::testing::packet;

    fn build(yaml: &str) -> Result<Conditioner, Issue> {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let spec: ConditionerSpec = serde_json::from_value(value).unwrap();
        Conditioner::build(&spec, "input", 1_000_000, 0, &|_| None)
    }

    #[test]
    fn first_match_wins_and_unmatched_pass() {
        // The JANET edge policy: EF policed, other precedence-5 DSCPs to precedence 0.
        let mut c = build(
            "{classes: [
                {name: premium, match: {dscp: EF}, police: {cir: 8kbps, bc: 200B}},
                {name: near, match: {dscp: [40, 41, 42, 43, 44, 45, 47]}, set: {precedence: 0}},
                {name: keep, match: {dscp: AF41}}]}",
        )
        .unwrap();
        let now = SimTime::ZERO;
        let mut ef = packet(0, 200, 46);
        assert_eq!(c.apply(now, &mut ef), Verdict::Pass);
        assert_eq!(c.apply(now, &mut packet(1, 200, 46)), Verdict::Drop(DropReason::PolicerExceed));
        let mut cs5 = packet(2, 200, 40);
        assert_eq!((c.apply(now, &mut cs5), cs5.dscp), (Verdict::Pass, 0));
        let mut af41 = packet(3, 200, 34);
        assert_eq!((c.apply(now, &mut af41), af41.dscp), (Verdict::Pass, 34));
        let mut be = packet(4, 200, 0);
        assert_eq!((c.apply(now, &mut be), be.dscp), (Verdict::Pass, 0));
        assert_eq!(c.classify(&be), None);
    }

    #[test]
    fn trust_boundary_remarks_everything() {
        let mut c = build("{classes: [{match: {}, set: {dscp: 0}}]}").unwrap();
        for dscp in [0, 10, 34, 46, 56] {
            let mut p = packet(0, 100, dscp);
            assert_eq!(c.apply(SimTime::ZERO, &mut p), Verdict::Pass);
            assert_eq!(p.dscp, 0);
        }
    }

    #[test]
    fn set_comes_before_police() {
        // Re-marked to AF13 first, so the colour-aware policer sees it red and drops it.
        let mut c = build(
            "{classes: [{match: {}, set: {dscp: AF13}, police: {cir: 1Mbps, be: 1500B, color_aware: true}}]}",
        )
        .unwrap();
        let mut p = packet(0, 100, 10);
        assert_eq!(c.apply(SimTime::ZERO, &mut p), Verdict::Drop(DropReason::PolicerViolate));
        assert_eq!(p.dscp, 14);
    }

    #[test]
    fn configuration_errors() {
        let cases = [
            ("{classes: [{set: {dscp: 0}}]}", "input.classes[0]", "has no `match`"),
            ("{classes: [{name: a, match: {}}, {name: a, match: {}}]}", "input.classes[1].name", "twice"),
            ("{classes: [{match: {}, set: {}}]}", "input.classes[0].set.dscp", "nothing to set"),
            (
                "{classes: [{match: {}, police: {cir: 200%, pir: 100%}}]}",
                "input.classes[0].police.pir",
                "below",
            ),
            ("{classes: [{match: {dscp: []}}]}", "input.classes[0].match.dscp", "empty"),
        ];
        for (yaml, path, fragment) in cases {
            let issue = build(yaml).err().unwrap_or_else(|| panic!("accepted: {yaml}"));
            assert_eq!(issue.key_path, path, "{yaml}");
            assert!(issue.message.contains(fragment), "{yaml}: {}", issue.message);
        }
    }
}
