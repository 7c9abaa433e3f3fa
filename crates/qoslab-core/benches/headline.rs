//! Criterion benchmark of the benchmark scenarios (the headline's queuing variants and 100
//! TCP connections): one run per iteration, throughput in packet-hops (frame transmissions)
//! per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qoslab_core::BENCH_CASES;
use qoslab_core::{load, Override};

fn overrides(texts: &[&str]) -> Vec<Override> {
    texts.iter().map(|t| Override::parse(t).expect("valid override")).collect()
}

fn headline(c: &mut Criterion) {
    let mut group = c.benchmark_group("headline");
    group.sample_size(10);
    for (name, scenario, variant) in BENCH_CASES {
        let changes = overrides(variant);
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
