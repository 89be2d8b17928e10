#![cfg(not(target_arch = "wasm32"))]
//! Serving a mixture-of-experts model with its experts spread over the GPUs: the all-to-all
//! that carries tokens to their experts and back, what each GPU holds under data-parallel
//! attention, and the serving planner's choice between tensor and expert parallelism. Each
//! expected value comes from a cited source or a hand calculation written beside it.

use gpu_advisor::catalog;
use gpu_advisor::model::fabric::all_to_all_s;
use gpu_advisor::model::llm::deploy;
use gpu_advisor::model::llm::job::MoeLayout;
use gpu_advisor::model::llm::parallel::{self, expert_shares, Layout};
use gpu_advisor::model::llm::serving::ServingTargets;
use gpu_advisor::model::llm::{Engine, LlmJob};
use gpu_advisor::model::precision::{KvPrecision, Precision};

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("{id} in the catalog"))
}

/// DeepSeek-V3 in its released FP8 weights, served by SGLang.
fn deepseek_v3(users: u32) -> LlmJob {
    let mut j = LlmJob::for_preset(catalog::llm("deepseek-v3").expect("preset"));
    j.precision = Precision::Fp8;
    j.kv_precision = KvPrecision::Fp8;
    j.engine = Some(Engine::Sglang);
    j.prompt_tokens = 2000;
    j.output_tokens = 500;
    j.context_tokens = 2500;
    j.batch = users;
    j
}

/// One MoE layer's dispatch for DeepSeek-V3 on 16 H100s (two DGX H100 nodes), 128 tokens per
/// GPU, as DeepEP's low-latency benchmark sends them (top-8 experts, 7,168 hidden, FP8 with one
/// 4-byte scale per 128 values):
/// - bytes per GPU: 128 · 8 · 7,168 · (1 + 4/128) = 7,569,408;
/// - 7 of the 16 shares go to the other GPUs of the node over NVLink 4 at 900/2 · 0.75 = 337.5
///   GB/s: 3,311,616 B → 9.81 µs;
/// - 8 of the 16 cross the node port, 400 Gb/s = 50 GB/s at 0.9 = 45 GB/s: 3,784,704 B → 84.10 µs;
/// - both at once, plus one 20 µs hop: 104.1 µs.
///
/// The combine sends the results back in BF16, 2 bytes a value: 14,680,064 B per GPU, 8/16 of it
/// at 45 GB/s = 163.1 µs, plus 20 µs: 183.1 µs. DeepEP's README ("Low-latency kernels with pure
/// RDMA", github deepseek-ai/DeepEP, as mirrored in dxdyt/blog-web content/posts/DeepEP.md
/// @0964aa65) measures 118 µs and 195 µs at EP 16 on H800s with the same 400 Gb/s ports; the
/// model must stay within a quarter of those.
#[test]
fn deepseek_v3_all_to_all_on_16_h100s_is_the_hand_calculation() {
    let h100 = gpu("h100-sxm");
    let dispatch_bytes = 128.0 * 8.0 * 7168.0 * (1.0 + 4.0 / 128.0);
    let dispatch = all_to_all_s(h100, dispatch_bytes, 16, 50.0);
    let hand = 20e-6 + (dispatch_bytes * 8.0 / 16.0 / 45e9).max(dispatch_bytes * 7.0 / 16.0 / 337.5e9);
    assert!((dispatch - hand).abs() < 1e-9, "dispatch {dispatch} s against {hand} s");
    assert!((dispatch - 104.1e-6).abs() < 0.1e-6, "dispatch {dispatch} s");
    let combine = all_to_all_s(h100, 128.0 * 8.0 * 7168.0 * 2.0, 16, 50.0);
    assert!((combine - 183.1e-6).abs() < 0.1e-6, "combine {combine} s");
    assert!((dispatch / 118e-6 - 1.0).abs() < 0.25, "DeepEP measures 118 µs, model {dispatch}");
    assert!((combine / 195e-6 - 1.0).abs() < 0.25, "DeepEP measures 195 µs, model {combine}");
}

/// Inside one node the all-to-all rides NVLink only: 8 H100s, 7 of 8 shares at 337.5 GB/s plus
/// the 8 µs NVLink hop. DeepEP's normal kernels reach 153 GB/s of NVLink "bottleneck bandwidth"
/// at EP 8 on H800s, whose NVLink runs at 400/2 GB/s: 0.75 · 200 = 150 GB/s here.
#[test]
fn an_all_to_all_inside_one_node_rides_nvlink() {
    let h100 = gpu("h100-sxm");
    let bytes = 1e8;
    let t = all_to_all_s(h100, bytes, 8, 50.0);
    let hand = 8e-6 + bytes * 7.0 / 8.0 / 337.5e9;
    assert!((t - hand).abs() < 1e-12, "{t} against {hand}");
    assert_eq!(all_to_all_s(h100, bytes, 1, 50.0), 0.0, "one GPU sends nothing");
}

/// What one of 16 GPUs holds under expert parallelism with data-parallel attention:
/// - routed experts: 58 MoE layers · 256 experts · 3 · 7,168 · 2,048 = 653,908,770,816
///   parameters, one byte each in FP8;
/// - every weight: the body, 671e9 less the untied embedding and head (129,280 · 7,168 =
///   926,679,040 each), in FP8, plus those two in BF16: 669,146,641,920 + 4 · 926,679,040 bytes;
/// - so the routed share is r = 653,908,770,816 / 672,853,358,080 = 0.97184, and one GPU holds
///   r/16 + (1 − r) of the weights;
/// - the latent KV cache is one per token whatever the heads (MLA), so tensor parallelism
///   repeats it on every GPU, while data-parallel attention keeps each sequence on one GPU: 1/16.
#[test]
fn data_parallel_attention_holds_a_sixteenth_of_the_cache() {
    let j = deepseek_v3(1);
    let routed = 58.0 * 256.0 * 3.0 * 7168.0 * 2048.0;
    let total = (671e9 - 2.0 * 926_679_040.0) + 4.0 * 926_679_040.0;
    let r = routed / total;
    let (weights, kv) = expert_shares(&j, 16, 1);
    assert!((weights - (r / 16.0 + (1.0 - r))).abs() < 1e-6, "weights share {weights}");
    assert!((kv - 1.0 / 16.0).abs() < 1e-12, "KV share {kv}");
    // Tensor-parallel attention over a node of 8 in each of 2 groups: the latent cache repeats
    // on the 8 GPUs of a group, which holds half the sequences.
    let (_, kv_tp8) = expert_shares(&j, 16, 8);
    assert!((kv_tp8 - 0.5).abs() < 1e-12, "KV share {kv_tp8}");
}

/// The layout each mode makes of 16 GPUs: `ep` keeps attention tensor parallel inside an 8-GPU
/// node (two groups), `dep` runs it on every GPU, `tp` is the engines' default; a count the 256
/// experts do not divide by (24) falls back to the engines' default, as SGLang and TensorRT-LLM
/// need the expert-parallel size to divide the experts (and the 128 heads do not divide by 24
/// either: a layer split).
#[test]
fn each_mode_makes_its_layout() {
    let h100 = gpu("h100-sxm");
    let mut j = deepseek_v3(1);
    j.moe_layout = MoeLayout::Expert;
    assert_eq!(parallel::layout(&j, h100, Engine::Sglang, 16), Layout::Expert { gpus: 16, attn_tp: 8 });
    j.moe_layout = MoeLayout::DpAttention;
    assert_eq!(parallel::layout(&j, h100, Engine::Sglang, 16), Layout::Expert { gpus: 16, attn_tp: 1 });
    assert_eq!(parallel::layout(&j, h100, Engine::Sglang, 24), Layout::LayerSplit(24));
    j.moe_layout = MoeLayout::Tensor;
    assert_eq!(parallel::layout(&j, h100, Engine::Sglang, 16), Layout::Tensor(16));
    // llama.cpp has no expert parallelism: the mode is ignored.
    j.moe_layout = MoeLayout::DpAttention;
    assert!(!matches!(parallel::layout(&j, h100, Engine::LlamaCpp, 16), Layout::Expert { .. }));
    assert_eq!(MoeLayout::parse("DEP"), Some(MoeLayout::DpAttention));
    assert_eq!(MoeLayout::parse("sideways"), None);
}

/// With 512 users on 16 H100s, tensor parallelism over two nodes repeats the latent cache on
/// all 16 GPUs and all-reduces every layer across the node link; the planner, left to choose,
/// must pick an expert-parallel layout and serve more in total than the build forced to tensor
/// parallelism (SGLang's own large-scale deployment of DeepSeek-V3 runs data-parallel attention
/// with expert parallelism across nodes: lmsys.org blog, 2025-05-05, "Deploying DeepSeek with PD
/// Disaggregation and Large-scale Expert Parallelism on 96 H100 GPUs").
#[test]
fn the_planner_spreads_the_experts_of_a_busy_build() {
    let h100 = gpu("h100-sxm");
    let targets = ServingTargets::default();
    let auto = deploy::plan(&deepseek_v3(512), h100, 16, &targets, f64::INFINITY).expect("plans").expect("fits");
    assert_ne!(auto.moe_layout, MoeLayout::Tensor, "chose {:?}", auto.moe_layout);
    let mut forced = deepseek_v3(512);
    forced.moe_layout = MoeLayout::Tensor;
    if let Some(tp) = deploy::plan(&forced, h100, 16, &targets, f64::INFINITY).expect("plans") {
        assert!(auto.report.aggregate_tokens_per_s.mid > tp.report.aggregate_tokens_per_s.mid, "expert parallel {} against tensor {}", auto.report.aggregate_tokens_per_s.mid, tp.report.aggregate_tokens_per_s.mid);
    }
}

/// With the attention tensor parallel over every GPU of the build (`ep` on one node, "TEP"),
/// every GPU holds every token after the attention's all-reduce: it runs its own experts on
/// the tokens routed to them and the MoE layer's all-reduce sums the parts, so no token is sent
/// to an expert. vLLM turns its all-to-all kernels on only with data-parallel attention
/// (`use_all2all_kernels = dp_size > 1 and use_ep`, vllm/model_executor/layers/fused_moe/config.py),
/// TensorRT-LLM only with `enable_attention_dp`. By hand, DeepSeek-V3 FP8 on 8 H100s at 1 and 64
/// sequences: the GPUs read r/8 of the routed experts the batch touches and 1/8 of the other
/// weights under either layout, hold the same share of the latent cache, and all-reduce twice a
/// layer, so the step times are equal; the 58 MoE layers' dispatch and combine that an
/// all-to-all would add (7/8 of k · 7,168 values a token at 337.5 GB/s plus 8 µs each way,
/// at least 58 · 16 µs = 0.93 ms) is not there.
#[test]
fn tensor_parallel_attention_sends_no_token_to_an_expert() {
    use gpu_advisor::model::llm::throughput::decode_step_s;
    let h100 = gpu("h100-sxm");
    let j = deepseek_v3(1);
    for batch in [1.0, 64.0] {
        let tep = decode_step_s(&j, h100, Engine::Sglang, &Layout::Expert { gpus: 8, attn_tp: 8 }, batch, 2500.0);
        let tp = decode_step_s(&j, h100, Engine::Sglang, &Layout::Tensor(8), batch, 2500.0);
        assert!((tep / tp - 1.0).abs() < 1e-12, "batch {batch}: TEP {tep} s, TP {tp} s");
    }
}

/// The scheduler's limit under data-parallel attention: vLLM runs every data-parallel rank as an
/// engine core of its own, each with its own `max_num_seqs` (vLLM docs, "Data Parallel
/// Deployment"), 1,024 on an H200 (`EngineArgs._set_default_args`: cards of 70 GiB or more);
/// TensorRT-LLM sets `max_batch_size` per rank with `enable_attention_dp` (NVIDIA's DeepSeek-R1
/// DEP8 runs: 384 per rank for 3,072 users). Qwen3-30B-A3B in FP8 with 100 + 100 tokens a request
/// (48 layers × 4 KV heads × 128 × 2 × 2 B × 200 tokens = 19.7 MB of cache) leaves room on 8 ×
/// H200 for far more than 8,192 requests, so by hand the build admits 8 × 1,024 = 8,192 under
/// data-parallel attention on vLLM, 1,024 with tensor-parallel attention, and on SGLang, which
/// divides one `max_running_requests` over its workers, 1,024 either way.
#[test]
fn data_parallel_attention_admits_the_engines_limit_in_every_group() {
    let h200 = gpu("h200-sxm");
    let mut j = LlmJob::for_preset(catalog::llm("qwen3-30b-a3b").expect("preset"));
    j.precision = Precision::Fp8;
    (j.prompt_tokens, j.output_tokens, j.context_tokens, j.batch) = (100, 100, 200, 60_000);
    let admitted = |engine: Engine, layout: MoeLayout| {
        let mut k = j.clone();
        k.engine = Some(engine);
        k.moe_layout = layout;
        gpu_advisor::model::llm::max_concurrency(&k, h200, 8).expect("fits")
    };
    assert_eq!(admitted(Engine::Vllm, MoeLayout::DpAttention), 8 * 1024);
    assert_eq!(admitted(Engine::Vllm, MoeLayout::Tensor), 1024);
    assert_eq!(admitted(Engine::Sglang, MoeLayout::DpAttention), 1024);
}
