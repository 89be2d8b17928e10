//! Criterion benchmarks of the engine: one LLM estimate (the web UI runs one per card on every
//! keystroke, so it must take microseconds), and the same estimate over every card.

use criterion::{criterion_group, criterion_main, Criterion};
use gpu_advisor::catalog;
use gpu_advisor::model::llm::{estimate_llm, LlmJob};
use gpu_advisor::model::precision::Precision;
use std::hint::black_box;

fn one_estimate(c: &mut Criterion) {
    let Some(spec) = catalog::llm("llama-3-70b") else { return };
    let Some(gpu) = catalog::gpu("rtx-4090") else { return };
    let job = LlmJob { precision: Precision::Q4KM, ..LlmJob::for_preset(spec) };
    c.bench_function("estimate_llm llama-3-70b q4_k_m on rtx-4090", |b| {
        b.iter(|| estimate_llm(black_box(&job), black_box(gpu), black_box(2)))
    });
    c.bench_function("estimate_llm llama-3-70b q4_k_m on every card", |b| {
        b.iter(|| catalog::gpus().iter().filter_map(|g| estimate_llm(black_box(&job), g, 1).ok()).map(|e| e.gpus_needed).sum::<u32>())
    });
}

/// A full `recommend` over the whole catalog, as the web UI runs it on every keystroke: an 8B
/// model that fits almost every card at every count (the most estimates), and a 70B model.
fn recommend_catalog(c: &mut Criterion) {
    use gpu_advisor::recommend::{recommend, Job, Mode, RecommendInput};
    for (id, mode) in [("llama-3-8b", Mode::Buy), ("llama-3-8b", Mode::Rent), ("llama-3-70b", Mode::Buy)] {
        let Some(spec) = catalog::llm(id) else { return };
        let mut input = RecommendInput::new(Job::Llm(Box::new(LlmJob::for_preset(spec))));
        input.mode = mode;
        c.bench_function(&format!("recommend {id} {} whole catalog", mode.as_str()), |b| {
            b.iter(|| recommend(black_box(&input)).map(|r| r.feasible.len()))
        });
    }
}

/// A full `recommend` of a served model with several users, as the advisor's users field asks:
/// every count of every card plans its replicas (one replica over every card, or several, each
/// holding its share of the users) and analyses each plan's serving.
fn recommend_serving(c: &mut Criterion) {
    use gpu_advisor::recommend::{recommend, Job, RecommendInput};
    let Some(spec) = catalog::llm("llama-3-8b") else { return };
    let job = LlmJob { batch: 8, ..LlmJob::for_preset(spec) };
    let input = RecommendInput::new(Job::Llm(Box::new(job)));
    c.bench_function("recommend llama-3-8b 8 users buy whole catalog", |b| {
        b.iter(|| recommend(black_box(&input)).map(|r| r.feasible.len()))
    });
}

/// A full `recommend` of a training job: every count of every card now tries each sharding
/// (ZeRO-0/1/2/3 and every Megatron mesh, skipping those whose communication-free bound cannot
/// pass the best found) and keeps the fastest that fits.
fn recommend_training(c: &mut Criterion) {
    use gpu_advisor::model::llm::Workload;
    use gpu_advisor::recommend::{recommend, Job, Mode, RecommendInput};
    let Some(spec) = catalog::llm("llama-3-8b") else { return };
    let job = LlmJob { workload: Workload::FinetuneFull, ..LlmJob::for_preset(spec) };
    let mut input = RecommendInput::new(Job::Llm(Box::new(job)));
    input.mode = Mode::Rent;
    c.bench_function("recommend llama-3-8b finetune-full rent whole catalog", |b| {
        b.iter(|| recommend(black_box(&input)).map(|r| r.feasible.len()))
    });
    // An MoE: each mesh also tries every expert-parallel size up to the smallest that fits.
    let Some(spec) = catalog::llm("qwen3-30b-a3b") else { return };
    let job = LlmJob { workload: Workload::Training, seq_len: 4096, ..LlmJob::for_preset(spec) };
    let mut input = RecommendInput::new(Job::Llm(Box::new(job)));
    input.mode = Mode::Rent;
    input.constraints.max_gpus = Some(64);
    c.bench_function("recommend qwen3-30b-a3b training rent up to 64 GPUs whole catalog", |b| {
        b.iter(|| recommend(black_box(&input)).map(|r| r.feasible.len()))
    });
}

criterion_group!(benches, one_estimate, recommend_catalog, recommend_serving, recommend_training);
criterion_main!(benches);
