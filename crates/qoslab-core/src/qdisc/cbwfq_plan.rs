//! A CBWFQ/LLQ policy's promises class by class, and what each class gets of the policy's
//! rate when every class has more to send than it gets: the table `qoslab ios explain`
//! prints for each level of a hierarchy.
//!
//! At full load the priority classes take their policed rates first (level 1, then level
//! 2); what is left goes to the class queues as their scheduler shares it. Each queue first
//! gets its minimum (IOS XE's `bandwidth`; none before IOS XE), then the rest is divided in
//! proportion to the queues' weights — IOS XE's excess weights, HQF's rates, pre-HQF's
//! inverse sequence-number weights — and a queue held to a maximum (`shape`, or its own
//! `police`) keeps no more than that, its surplus going to the others in the same proportions
//! (progressive filling, as in max-min fairness with weights: Bertsekas and Gallager, *Data
//! Networks*, 6.5.2). These are the long-run rates the schedulers converge to; a priority
//! class held to no rate, or pre-HQF flow-based fair queuing (whose share depends on how
//! many flows there are), has no such figure.

/// What one class is promised.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassPlan {
    /// The class's name.
    pub name: String,
    /// Its priority level (1 or 2) if it is a priority class.
    pub priority_level: Option<u8>,
    /// A priority class's conditional policer rate, bit/s.
    pub priority_bps: Option<u64>,
    /// The class's own `police` committed rate, bit/s.
    pub police_bps: Option<u64>,
    /// Its minimum, bit/s (IOS XE's `bandwidth`).
    pub min_bps: Option<u64>,
    /// Its maximum, bit/s (`shape`).
    pub max_bps: Option<u64>,
    /// Its weight in sharing what the minimums leave (relative to the other queues), if it
    /// can be stated.
    pub weight: Option<f64>,
    /// Its flow queues (1: one FIFO).
    pub flows: usize,
}

impl ClassPlan {
    /// The most the class can get: its maximum and its own policer's rate.
    fn cap_bps(&self) -> f64 {
        [self.max_bps, self.police_bps].into_iter().flatten().map(|b| b as f64).fold(f64::INFINITY, f64::min)
    }
}

/// Each class's rate at full load on `rate_bps`, bit/s (`None`: not stated, see the module's
/// text).
pub fn full_load_bps(plans: &[ClassPlan], rate_bps: u64) -> Vec<Option<f64>> {
    let mut shares: Vec<Option<f64>> = vec![None; plans.len()];
    let mut left = rate_bps as f64;
    for level in [1, 2] {
        for (i, plan) in plans.iter().enumerate().filter(|(_, p)| p.priority_level == Some(level)) {
            let policed = [plan.priority_bps, plan.police_bps].into_iter().flatten().min();
            if let Some(bps) = policed {
                let taken = (bps as f64).min(left);
                shares[i] = Some(taken);
                left -= taken;
            }
        }
    }
    let queues: Vec<usize> = (0..plans.len())
        .filter(|&i| plans[i].priority_level.is_none() && plans[i].weight.is_some())
        .collect();
    for &i in &queues {
        let min = plans[i].min_bps.map_or(0.0, |b| b as f64).min(plans[i].cap_bps()).min(left);
        shares[i] = Some(min);
        left -= min;
    }
    // Progressive filling: the unsaturated queues share what is left by weight; a queue that
    // reaches its cap keeps the cap and leaves the round.
    let mut open: Vec<usize> =
        queues.iter().copied().filter(|&i| shares[i] < Some(plans[i].cap_bps())).collect();
    while left > 1e-9 && !open.is_empty() {
        let total: f64 = open.iter().map(|&i| plans[i].weight.unwrap_or(0.0)).sum();
        if total <= 0.0 {
            break;
        }
        let mut given = 0.0;
        let mut still_open = Vec::with_capacity(open.len());
        for &i in &open {
            let offer = left * plans[i].weight.unwrap_or(0.0) / total;
            let now = shares[i].unwrap_or(0.0);
            let room = plans[i].cap_bps() - now;
            if offer >= room {
                shares[i] = Some(now + room);
                given += room;
            } else {
                shares[i] = Some(now + offer);
                given += offer;
                still_open.push(i);
            }
        }
        left -= given;
        if still_open.len() == open.len() {
            break;
        }
        open = still_open;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(name: &str, min_bps: Option<u64>, max_bps: Option<u64>, weight: f64) -> ClassPlan {
        ClassPlan {
            name: name.into(),
            priority_level: None,
            priority_bps: None,
            police_bps: None,
            min_bps,
            max_bps,
            weight: Some(weight),
            flows: 1,
        }
    }

    #[test]
    fn minimums_then_weights_then_caps() {
        // 20 Mbit/s: a level-1 priority class policed at 2 Mbit/s, an unpoliced level-2 one
        // (no figure, nothing taken); queues weighted 4 : 1 : 2 of the 18 left, the first
        // capped at 8 Mbit/s: it keeps 8, the others share 10 in 1 : 2.
        let mut voice = queue("voice", None, None, 0.0);
        (voice.priority_level, voice.police_bps, voice.weight) = (Some(1), Some(2_000_000), None);
        let mut video = voice.clone();
        (video.priority_level, video.police_bps) = (Some(2), None);
        let plans = [
            voice,
            video,
            queue("a", None, Some(8_000_000), 4.0),
            queue("b", None, None, 1.0),
            queue("c", None, None, 2.0),
        ];
        let shares = full_load_bps(&plans, 20_000_000);
        let expected = [Some(2e6), None, Some(8e6), Some(10e6 / 3.0), Some(20e6 / 3.0)];
        for (got, want) in shares.iter().zip(expected) {
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-3, "{shares:?}"),
                (g, w) => assert_eq!(*g, w, "{shares:?}"),
            }
        }
    }

    #[test]
    fn the_asr1000_example() {
        // IOS XE: minimums 10 and 20 % of 1 Mbit/s, weights 1 : 1 (class-default idle is
        // not at full load; here all three are busy: class-default weight 1 too).
        let plans = [
            queue("class1", Some(100_000), None, 1.0),
            queue("class2", Some(200_000), None, 1.0),
            queue("class-default", None, None, 1.0),
        ];
        let shares: Vec<f64> = full_load_bps(&plans, 1_000_000).into_iter().flatten().collect();
        let expected = [100_000.0 + 700_000.0 / 3.0, 200_000.0 + 700_000.0 / 3.0, 700_000.0 / 3.0];
        for (g, w) in shares.iter().zip(expected) {
            assert!((g - w).abs() < 1e-6, "{shares:?}");
        }
    }
}
