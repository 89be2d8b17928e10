//! Criterion benchmarks of the engine (filled in by the sizing and recommender work).

use criterion::{criterion_group, criterion_main, Criterion};

fn catalog_lookup(c: &mut Criterion) {
    c.bench_function("catalog_lookup", |b| b.iter(|| gpu_advisor::catalog::gpu(std::hint::black_box("rtx-4090"))));
}

criterion_group!(benches, catalog_lookup);
criterion_main!(benches);
