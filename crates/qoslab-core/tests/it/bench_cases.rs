//! The benchmark cases: each loads, and the large network is the network its name promises,
//! congested where it is meant to be.

use qoslab_core::{bench_cases, load, network_scenario, Override};

use crate::common::run_yaml;

#[test]
fn every_case_loads() {
    for case in bench_cases() {
        let changes: Vec<Override> =
            case.overrides.iter().map(|t| Override::parse(t).expect("valid override")).collect();
        if let Err(error) = load(&case.scenario, case.name, &changes, None) {
            panic!("{}: {error}", case.name);
        }
    }
}

/// A small copy of the network case (30 routers, 3 of them the core; 270 flows), 2 s: the
/// routers and flows are there, every flow gets through, the edge routers' serial links
/// carry the load the flows offer, and the ring is nearly idle. (In the full case 22 flows
/// share each edge link, offering about 1.05 times its rate; here 10, about half.)
#[test]
fn the_network_case_is_the_network_described() {
    let text = network_scenario(30, 270);
    let routers = text.lines().filter(|line| line.ends_with("{kind: router}")).count();
    let flows = text.lines().filter(|line| line.starts_with("  - {name: ")).count();
    assert_eq!((routers, flows), (30, 270));
    let results = run_yaml(&text, &["run.duration=2s", "run.warmup=0s"]);
    assert_eq!(results.flows.len(), 270);
    assert!(results.flows.iter().all(|f| f.received_packets > 0), "every flow gets through");
    // Each edge link carries 10 flows: 2.5 calls (80 kbit/s of IP) and 7.5 Poisson flows
    // (100 kbit/s): about 0.95 Mbit/s of 2 Mbit/s, plus the HDLC framing.
    let uplinks: Vec<_> =
        results.ports.iter().filter(|p| p.node.starts_with('e') && p.peer.starts_with('c')).collect();
    assert_eq!(uplinks.len(), 27);
    let mean_pct = uplinks.iter().map(|p| p.utilisation_pct).sum::<f64>() / uplinks.len() as f64;
    assert!((40.0..60.0).contains(&mean_pct), "edge links {mean_pct:.1} % busy");
    let ring: Vec<_> =
        results.ports.iter().filter(|p| p.node.starts_with('c') && p.peer.starts_with('c')).collect();
    assert_eq!(ring.len(), 6);
    assert!(ring.iter().all(|p| p.utilisation_pct < 5.0), "the 100 Mbit/s ring is nearly idle");
}
