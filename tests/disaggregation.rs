#![cfg(not(target_arch = "wasm32"))]
//! Prefill/decode disaggregation (`llm::disagg`): the KV cache's transfer between the pools, the
//! split build's total, per-user speed and time to first token from its pools, and the serving
//! planner's choice. Each expected value is a hand calculation written beside it: the transfer
//! from the catalog's links and the model's shape, the split build's figures from its two pools'
//! own figures by the closed-loop formulas (DistServe, Zhong et al., OSDI 2024, §3: the pools
//! are sized by the rate each completes).

use gpu_advisor::catalog;
use gpu_advisor::model::llm::deploy;
use gpu_advisor::model::llm::deploy::split_report;
use gpu_advisor::model::llm::disagg::kv_transfer_s;
use gpu_advisor::model::llm::serving::{analyze_opts, prompt_s, ServingTargets};
use gpu_advisor::model::llm::{Engine, LlmJob};
use gpu_advisor::model::precision::{KvPrecision, Precision};

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("{id} in the catalog"))
}

/// Llama 3.1 70B in FP8 with an FP16 cache, served by vLLM: `users` users, `prompt` prompt and
/// `output` output tokens each.
fn llama_70b(users: u32, prompt: u32, output: u32) -> LlmJob {
    let mut j = LlmJob::for_preset(catalog::llm("llama-3.1-70b").expect("preset"));
    j.precision = Precision::Fp8;
    j.kv_precision = KvPrecision::Fp16;
    j.engine = Some(Engine::Vllm);
    j.prompt_tokens = prompt;
    j.output_tokens = output;
    j.context_tokens = prompt + output;
    j.batch = users;
    j
}

/// A 2,000-token prompt of Llama 3.1 70B (80 layers, 8 KV heads of 128, FP16: 2 · 80 · 8 · 128 ·
/// 2 B = 327,680 B a token) is 655,360,000 B of cache:
/// - across nodes, over one H100's 400 Gb/s port at 0.9: 45 GB/s, 14.564 ms, plus one 20 µs hop;
/// - inside a DGX H100, over NVLink 4 at 900/2 · 0.75 = 337.5 GB/s: 1.942 ms, plus 8 µs;
/// - over a 200 Gb/s port the user gives: 22.5 GB/s, 29.127 ms, plus 20 µs.
#[test]
fn a_prompts_cache_moves_over_the_link_between_the_pools() {
    let h100 = gpu("h100-sxm");
    let mut job = llama_70b(1, 2000, 100);
    let bytes = 2.0 * 80.0 * 8.0 * 128.0 * 2.0 * 2000.0;
    assert_eq!(bytes, 655_360_000.0);
    let cases = [(16, None, 20e-6 + bytes / 45e9), (8, None, 8e-6 + bytes / 337.5e9), (16, Some(200.0), 20e-6 + bytes / 22.5e9)];
    for (gpus, nic, want) in cases {
        job.nic_gbit_s = nic;
        let got = kv_transfer_s(&job, h100, gpus);
        assert!((got / want - 1.0).abs() < 1e-9, "{gpus} GPUs, port {nic:?}: {got} s, by hand {want} s");
    }
}

/// The split build's figures from its pools', by hand: `U` users on `p` prefill and `d` decode
/// replicas of 8 H100s. The decode pool serves its share `U/d` per replica at `v` tokens/s each
/// with every prompt already cached (the serving model at a prefix hit of 1); one prefill replica
/// takes `t_alone` for a lone prompt and `t_q` per prompt when they queue; the cache moves in
/// `t_kv`. A request then asks `t_first = t_alone + t_kv` and `O/v` of decoding, so the users ask
/// `U / (t_first + O/v)` requests a second and the prefill pool completes at most `p / t_q`; the
/// total is `O` times the lesser. Decode-bound (long outputs), the TTFT is `t_first` plus the
/// M/D/1 wait `ρ t_q / (2 (1 − ρ))`; prefill-bound (long prompts, short outputs), Little's law
/// gives each request `U / rate`, of which `O/v` decoding.
#[test]
fn a_split_builds_figures_follow_from_its_pools() {
    let h100 = gpu("h100-sxm");
    for (users, prompt, output, prefill) in [(64, 2000, 1000, 1), (256, 8000, 16, 1)] {
        let job = llama_70b(users, prompt, output);
        let decode = 3;
        let targets = ServingTargets::default();
        let r = split_report(&job, h100, 32, 8, prefill, &targets, false).expect("split");
        // The decode pool: each replica with its share of the users, nothing to prefill.
        let mut share = job.clone();
        share.batch = users.div_ceil(decode);
        let dec = analyze_opts(&share, h100, 8, &ServingTargets { prefix_hit: 1.0, ..targets }, false).expect("decode pool");
        let v = dec.per_user_tokens_per_s.mid;
        let decoding = (dec.users * f64::from(decode)).min(f64::from(users));
        let (t_alone, t_q) = prompt_s(&job, h100, 8, &targets);
        let t_first = t_alone + kv_transfer_s(&job, h100, 32);
        let o = f64::from(output);
        let asked = decoding / (t_first + o / v);
        let pool_rate = f64::from(prefill) / t_q;
        let done = asked.min(pool_rate);
        let total = done * o;
        assert!((r.aggregate_tokens_per_s.mid / total - 1.0).abs() < 1e-9, "{users} users: total {} against {total} by hand", r.aggregate_tokens_per_s.mid);
        assert!((r.per_user_tokens_per_s.mid / v - 1.0).abs() < 1e-9);
        let ttft = r.ttft_s.expect("bounded").mid;
        let rho = (done / pool_rate).min(0.95);
        let queued = t_first + rho * t_q / (2.0 * (1.0 - rho));
        let want = if asked > pool_rate { f64::from(users) / done - o / v } else { queued };
        assert!((ttft / want - 1.0).abs() < 1e-9, "{users} users: TTFT {ttft} against {want} by hand");
        assert_eq!((r.prefill_replicas, r.kv_transfer_s), (prefill, kv_transfer_s(&job, h100, 32)));
        // The first case is decode-bound, the second prefill-bound, so both formulas are checked.
        assert_eq!(asked > pool_rate, prompt == 8000, "{users} users: asked {asked}/s, the pool completes {pool_rate}/s");
    }
}

/// Under an arrival rate at or past what the prefill pool completes, the queue grows without
/// bound: no TTFT. Below it, the total is the rate's output (λ · O).
#[test]
fn arrivals_past_the_prefill_pool_have_no_bounded_ttft() {
    let h100 = gpu("h100-sxm");
    let job = llama_70b(64, 2000, 200);
    let (_, t_q) = prompt_s(&job, h100, 8, &ServingTargets::default());
    let pool_rate = 1.0 / t_q;
    let past = ServingTargets { arrival_rate_rps: Some(pool_rate * 1.01), ..ServingTargets::default() };
    assert!(split_report(&job, h100, 16, 8, 1, &past, false).expect("split").ttft_s.is_none());
    let rate = pool_rate * 0.5;
    let below = ServingTargets { arrival_rate_rps: Some(rate), ..ServingTargets::default() };
    let r = split_report(&job, h100, 16, 8, 1, &below, false).expect("split");
    assert!((r.aggregate_tokens_per_s.mid / (rate * 200.0) - 1.0).abs() < 1e-9, "{} against {}", r.aggregate_tokens_per_s.mid, rate * 200.0);
    assert!(r.ttft_s.is_some());
}

/// DeepSeek-V3 (FP8, SGLang) for 2,048 users of 2,000-token prompts and 1,000-token answers on
/// 64 H100s (eight nodes): the planner tries prefill/decode splits past one node and keeps one
/// only when it serves more in total than every colocated layout (`--disagg off`: never). On
/// one node it tries none unless asked (`--disagg on`).
#[test]
fn the_planner_splits_the_phases_past_one_node_when_that_serves_more() {
    let h100 = gpu("h100-sxm");
    let mut job = LlmJob::for_preset(catalog::llm("deepseek-v3").expect("preset"));
    job.precision = Precision::Fp8;
    job.kv_precision = KvPrecision::Fp8;
    job.engine = Some(Engine::Sglang);
    (job.prompt_tokens, job.output_tokens, job.context_tokens, job.batch) = (2000, 1000, 3000, 2048);
    let plan = |j: &LlmJob, gpus, disaggregate| {
        let t = ServingTargets { disaggregate, ..ServingTargets::default() };
        deploy::plan(j, h100, gpus, &t, f64::INFINITY).expect("plans").expect("fits")
    };
    let off = plan(&job, 64, Some(false));
    let auto = plan(&job, 64, None);
    assert_eq!(off.report.prefill_replicas, 0);
    // Colocated, every replica prefills 2,048 prompts of 2,000 tokens between its decode steps;
    // split, the decode replicas only decode.
    assert!(auto.report.prefill_replicas > 0, "no split chosen");
    assert!(auto.report.aggregate_tokens_per_s.mid > off.report.aggregate_tokens_per_s.mid);
    assert!(auto.report.per_user_tokens_per_s.mid > off.report.per_user_tokens_per_s.mid);
    // Wide expert parallelism: a replica of DeepSeek-V3 may span several nodes.
    assert!(off.gpus_per_replica >= 16, "replicas of {} GPUs", off.gpus_per_replica);
    let mut one_node = llama_70b(64, 2000, 500);
    one_node.batch = 64;
    assert_eq!(plan(&one_node, 8, None).report.prefill_replicas, 0);
}
