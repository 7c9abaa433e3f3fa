//! IP SLA style probes with `echo`: the destination reflects each packet, and the reply's
//! delay is the round trip.

use crate::common::{flow, run_yaml};
use qoslab_core::results::ProbeRecord;
use qoslab_core::Results;

/// Host `a` — router `r` — host `b`: 10 Mbit/s with 1 ms, then 1 Mbit/s with 5 ms, PPP
/// framing (7 B), `extra` added to the second link's keys.
fn chain(flows: &str, extra: &str) -> Results {
    let yaml = format!(
        "name: probes
run: {{duration: 600s, seed: 5}}
topology:
  nodes: {{a: {{kind: host}}, r: {{kind: router}}, b: {{kind: host}}}}
  links:
    - {{between: [a, r], rate: 10Mbps, delay: 1ms, l2: ppp}}
    - {{between: [r, b], rate: 1Mbps, delay: 5ms, l2: ppp{extra}}}
traffic:
{flows}"
    );
    run_yaml(&yaml, &[])
}

fn probe<'a>(results: &'a Results, name: &str) -> &'a ProbeRecord {
    results.probes.iter().find(|p| p.probe == name).unwrap_or_else(|| panic!("no probe {name}"))
}

/// On an idle path every round trip is the same: each of the four hops serializes the
/// 60-byte probe with 7 bytes of PPP framing (53.6 µs at 10 Mbit/s, 536 µs at 1 Mbit/s)
/// and adds its propagation (1 ms, 5 ms), out and back: 2 × (0.0536 + 1 + 0.536 + 5) ms.
/// 600 s hold 10 probes of 50 packets, every one answered.
#[test]
fn the_round_trip_on_an_idle_path_is_serialization_and_propagation_both_ways() {
    let results =
        chain("  - {name: saa-ef, from: a, to: b, dscp: ef, echo: true, pattern: {kind: probe}}\n", "");
    let saa = probe(&results, "saa-ef");
    let rtt_ms = 2.0 * (0.0536 + 1.0 + 0.536 + 5.0);
    assert_eq!((saa.sent_packets, saa.returned_packets, saa.loss_pct), (500, 500, Some(0.0)));
    assert_eq!(saa.dscp, 46);
    for measured in [saa.rtt_min_ms, saa.rtt_max_ms] {
        assert!((measured.unwrap() - rtt_ms).abs() < 1e-9, "{measured:?} ms, expected {rtt_ms} ms");
    }
    // The reply row runs b -> a with swapped addresses and the probe's marking; its one-way
    // row keeps the one-way delay.
    let back = flow(&results, "saa-ef.echo");
    assert_eq!((back.from.as_str(), back.to.as_str(), back.dscp), ("b", "a", 46));
    assert_eq!(back.src_addr, flow(&results, "saa-ef").dst_addr);
    let one_way = flow(&results, "saa-ef").delay_max_ms.unwrap();
    assert!((one_way - rtt_ms / 2.0).abs() < 1e-9);
}

/// 10 % Bernoulli loss in each direction of the second link: a probe packet comes back
/// with probability 0.9², so about 19 % of 500 are lost (binomial standard deviation
/// 1.75 points; tolerance 5 points).
#[test]
fn probe_loss_counts_both_directions() {
    let results =
        chain("  - {name: saa, from: a, to: b, echo: true, pattern: {kind: probe}}\n", ", loss: 10%");
    let saa = probe(&results, "saa");
    let loss = saa.loss_pct.unwrap();
    assert!((loss - 19.0).abs() < 5.0, "round-trip loss {loss} %");
    let out = flow(&results, "saa");
    let back = flow(&results, "saa.echo");
    // Every request that arrived was answered; the replies lost are the rest.
    assert_eq!(back.sent_packets, out.received_packets);
    assert_eq!(saa.returned_packets, back.received_packets);
    assert!(out.dropped_packets > 0 && back.dropped_packets > 0);
}

/// The loss split by direction, out of the requests sent (SAA's SD and DS): with 10 %
/// Bernoulli loss in each direction of the second link, a request is lost on the way out
/// with probability 0.1 and its reply on the way back with 0.9 × 0.1 = 0.09, so about 50
/// and 45 of the 500 requests (binomial standard deviations 6.7 and 6.4 packets; tolerance
/// 4 points). The two directions and the replies account for every request.
#[test]
fn probe_loss_splits_into_source_to_destination_and_back() {
    let results =
        chain("  - {name: saa, from: a, to: b, echo: true, pattern: {kind: probe}}\n", ", loss: 10%");
    let saa = probe(&results, "saa");
    assert_eq!(saa.lost_sd_packets, flow(&results, "saa").dropped_packets);
    assert_eq!(saa.lost_ds_packets, flow(&results, "saa.echo").dropped_packets);
    assert_eq!(saa.lost_sd_packets + saa.lost_ds_packets + saa.returned_packets, saa.sent_packets);
    let (sd, ds) = (saa.loss_sd_pct.unwrap(), saa.loss_ds_pct.unwrap());
    assert!((sd - 10.0).abs() < 4.0, "SD loss {sd} %");
    assert!((ds - 9.0).abs() < 4.0, "DS loss {ds} %");
    assert!((sd + ds - saa.loss_pct.unwrap()).abs() < 1e-9);
}

/// A flood from `b` at twice the 1 Mbit/s link fills only the way back (`b -> r -> a` at
/// `r -> b`'s reverse, `b -> r`): requests all arrive (SD 0), the replies meet the full queue
/// (DS is the whole loss). The reverse of the congested direction is untouched.
#[test]
fn a_congested_way_back_loses_replies_only() {
    let results = chain(
        "  - {name: saa, from: a, to: b, echo: true, pattern: {kind: probe}}
  - {name: flood, from: b, to: a, pattern: {kind: flood, rate: 2Mbps}}\n",
        "",
    );
    let saa = probe(&results, "saa");
    assert_eq!((saa.lost_sd_packets, saa.loss_sd_pct), (0, Some(0.0)));
    assert!(saa.lost_ds_packets > 0);
    assert_eq!(saa.loss_ds_pct, saa.loss_pct);
}
