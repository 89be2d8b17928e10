#![cfg(not(target_arch = "wasm32"))]
//! Property tests of the LLM engine: memory never falls when context, batch or weight
//! bits rise; `gpus_needed` never rises when a card has more memory; no NaN, infinity or panic
//! for any in-range input; out-of-range input is an error naming its field.

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{estimate_llm, gpus_needed, Checkpointing, Engine, LlmJob, Optimizer, Workload};
use gpu_advisor::model::precision::{KvPrecision, Precision};
use proptest::prelude::*;

fn presets() -> Vec<&'static str> {
    catalog::catalog().llms.iter().map(|m| m.id.as_str()).collect()
}

fn any_job() -> impl Strategy<Value = LlmJob> {
    let ids = presets();
    (
        0..ids.len(),
        0..5usize,
        0..Precision::ALL.len(),
        0..4usize,
        0..7usize,
        1u32..200_000,
        1u32..512,
        (1u32..8192, 1u32..8192, 1u32..16_384),
        (0..5usize, 0..3usize, 0u8..4, 1u32..256),
    )
        .prop_map(move |(m, w, p, kv, e, ctx, batch, (prompt, out, seq), (opt, ck, zero, rank))| {
            let workload = Workload::ALL[w];
            let mut precision = Precision::ALL[p];
            if workload.is_training() && !precision.is_trainable() {
                precision = Precision::Bf16;
            }
            LlmJob {
                workload,
                precision,
                kv_precision: KvPrecision::ALL[kv],
                engine: if e == 6 { None } else { Some(Engine::ALL[e]) },
                context_tokens: ctx,
                prompt_tokens: prompt,
                output_tokens: out,
                batch,
                seq_len: seq,
                optimizer: Optimizer::ALL[opt],
                grad_checkpointing: Checkpointing::ALL[ck],
                zero,
                lora_rank: rank,
                ..LlmJob::for_preset(catalog::llm(ids[m]).expect("preset"))
            }
        })
}

fn any_gpu() -> impl Strategy<Value = &'static catalog::Gpu> {
    let n = catalog::gpus().len();
    (0..n).prop_map(|i| &catalog::gpus()[i])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_nan_inf_or_panic(job in any_job(), gpu in any_gpu(), gpus in 1u32..64) {
        let e = estimate_llm(&job, gpu, gpus).expect("in-range input is accepted");
        let m = e.memory;
        for v in [m.weights_gib, m.kv_cache_gib, m.activations_gib, m.gradients_gib, m.optimizer_gib, m.overhead_gib, m.total_gib, e.per_gpu_gib] {
            prop_assert!(v.is_finite() && v >= 0.0, "{v}");
        }
        let t = e.throughput;
        for b in [t.decode_tokens_per_s, t.prefill_tokens_per_s, t.serving_tokens_per_s, t.train_tokens_per_s].into_iter().flatten() {
            prop_assert!(b.is_sane() && b.low > 0.0);
        }
    }

    #[test]
    fn memory_never_falls_when_context_batch_or_bits_rise(job in any_job(), gpu in any_gpu(), gpus in 1u32..16, dc in 1u32..10_000, db in 1u32..64, p2 in 0..Precision::ALL.len()) {
        let mut job = job;
        job.engine = Some(job.engine_for(gpu));
        // A fixed layout: the sharding chooser may move a bigger job from data parallel (one
        // activation copy per GPU) to model parallel (one in all), which lowers the total.
        job.auto_layout = false;
        let base = estimate_llm(&job, gpu, gpus).expect("base").memory.total_gib;
        let mut more = job.clone();
        more.context_tokens += dc;
        more.seq_len += dc;
        prop_assert!(estimate_llm(&more, gpu, gpus).expect("ctx").memory.total_gib >= base - 1e-9);
        let mut more = job.clone();
        more.batch += db;
        prop_assert!(estimate_llm(&more, gpu, gpus).expect("batch").memory.total_gib >= base - 1e-9);
        let other = Precision::ALL[p2];
        // Same engine, and the same storage family (GGUF files quantize the embeddings too, so a
        // GGUF type is compared with GGUF types and the others with the others).
        // MXFP4 quantizes only an MoE's experts (the rest stays BF16, as gpt-oss ships), so its
        // nominal 4.25 bits say nothing about the whole model: it is compared with nothing.
        let mixed = |p: Precision| p == Precision::Mxfp4;
        let same_family = other.is_gguf() == job.precision.is_gguf() && !mixed(other) && !mixed(job.precision);
        if same_family && other.bits_per_weight() >= job.precision.bits_per_weight() && (!job.workload.is_training() || other.is_trainable()) && job.workload != Workload::Qlora {
            let mut more = job.clone();
            more.engine = Some(job.engine_for(gpu));
            more.precision = other;
            prop_assert!(estimate_llm(&more, gpu, gpus).expect("bits").memory.total_gib >= base - 1e-9);
        }
    }

    #[test]
    fn gpus_needed_never_rises_with_more_memory(job in any_job(), gpu in any_gpu(), extra in 1.0f64..512.0) {
        let a = gpus_needed(&job, gpu).expect("a");
        let mut bigger = gpu.clone();
        bigger.memory_gib += extra;
        let b = gpus_needed(&job, &bigger).expect("b");
        // 0 means "no count fits", i.e. infinity.
        let inf = |n: u32| if n == 0 { u32::MAX } else { n };
        prop_assert!(inf(b) <= inf(a), "{a} -> {b}");
    }

    #[test]
    fn out_of_range_is_an_error_naming_the_field(job in any_job(), gpu in any_gpu(), which in 0..5usize) {
        let mut bad = job.clone();
        let field = match which {
            0 => { bad.context_tokens = 0; "context" }
            1 => { bad.batch = 1_000_000_000; "batch" }
            2 => { bad.model.params_total = 1e30; "params" }
            3 => { bad.model.params_total = f64::NAN; "params" }
            _ => { bad.seq_len = 0; "seq_len" }
        };
        let err = estimate_llm(&bad, gpu, 1).expect_err("out of range");
        prop_assert_eq!(err.field(), field);
    }
}
