//! Criterion benchmark of the benchmark scenarios (the headline's queuing variants and 100
//! TCP connections): one run per iteration, throughput in packet-hops (frame transmissions)
//! per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qoslab_core::{bench_cases, load, Override};

fn overrides(texts: &[&str]) -> Vec<Override> {
    texts.iter().map(|t| Override::parse(t).expect("valid override")).collect()
}

fn headline(c: &mut Criterion) {
    let mut group = c.benchmark_group("headline");
    group.sample_size(10);
    for case in bench_cases() {
        let (name, scenario) = (case.name, &case.scenario);
        let changes = overrides(case.overrides);
        let hops = load(scenario, name, &changes, None)
            .map(|sim| sim.finish().expect("run").run.packet_hops)
            .expect("scenario loads");
        group.throughput(Throughput::Elements(hops));
        group.bench_function(name, |b| {
            b.iter(|| {
                let sim = load(scenario, name, &changes, None).expect("scenario loads");
                sim.finish().expect("run").run.packet_hops
            })
        });
    }
    group.finish();
}

criterion_group!(benches, headline);
criterion_main!(benches);
