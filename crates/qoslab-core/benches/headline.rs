//! Criterion benchmark of the headline scenario: one run per iteration, throughput in
//! packet-hops (frame transmissions) per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use qoslab_core::bench::{HEADLINE_SCENARIO, HEADLINE_VARIANTS};
use qoslab_core::{load, Override};

fn overrides(texts: &[&str]) -> Vec<Override> {
    texts.iter().map(|t| Override::parse(t).expect("valid override")).collect()
}

fn headline(c: &mut Criterion) {
    let mut group = c.benchmark_group("headline");
    group.sample_size(10);
    for (name, variant) in HEADLINE_VARIANTS {
        let changes = overrides(variant);
        let hops = load(HEADLINE_SCENARIO, "headline", &changes, None)
            .map(|sim| sim.finish().expect("run").run.packet_hops)
            .expect("scenario loads");
        group.throughput(Throughput::Elements(hops));
        group.bench_function(name, |b| {
            b.iter(|| {
                let sim = load(HEADLINE_SCENARIO, "headline", &changes, None).expect("scenario loads");
                sim.finish().expect("run").run.packet_hops
            })
        });
    }
    group.finish();
}

criterion_group!(benches, headline);
criterion_main!(benches);
