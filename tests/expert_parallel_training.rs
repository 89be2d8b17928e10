#![cfg(not(target_arch = "wasm32"))]
//! Expert parallelism in training meshes: the all-to-all time of an MoE layer's dispatch and
//! combine inside a node and across two, the weights each expert-parallel rank keeps, the
//! fixed mesh's checks, the layout search's choice with and without the recommender's headroom,
//! and the band an MoE's training speed gets. Each expected value comes from a cited source or
//! a hand calculation written beside it.

use gpu_advisor::catalog;
use gpu_advisor::model::llm::job::{Checkpointing, MeshSpec};
use gpu_advisor::model::llm::memory::terms;
use gpu_advisor::model::llm::parallel::{self, Layout, Mesh};
use gpu_advisor::model::llm::throughput::mesh_expert_exchange_s;
use gpu_advisor::model::llm::{estimate_llm, layout_for, Engine, LlmJob, Workload};

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("{id} in the catalog"))
}

/// Qwen3 30B-A3B pre-training at 4,096 tokens, micro-batch 1: Megatron-Bridge's published
/// configuration (docs/performance-summary.md, 25.11: 8 GPUs, EP 8, sequence 4,096).
/// Its config.json: 48 layers, all MoE, hidden 2,048, 128 experts of which 8 per token.
fn qwen3_30b() -> LlmJob {
    let mut j = LlmJob::for_preset(catalog::llm("qwen3-30b-a3b").expect("preset"));
    j.workload = Workload::Training;
    j.seq_len = 4096;
    j.batch = 1;
    j.grad_checkpointing = Checkpointing::None;
    j
}

/// DeepSeek-V3 pre-training at 4,096 tokens, micro-batch 1 (Megatron-Bridge's DeepSeekV3 rows).
fn deepseek_v3() -> LlmJob {
    let mut j = LlmJob::for_preset(catalog::llm("deepseek-v3").expect("preset"));
    j.workload = Workload::Training;
    j.seq_len = 4096;
    j.batch = 1;
    j
}

fn mesh(tp: u32, pp: u32, dp: u32, ep: u32) -> Mesh {
    Mesh { tp, cp: 1, pp, dp, zero: 1, interleave: 1, micro_batches: 8, ep }
}

/// Inside one DGX H100 (EP 8 over NVLink 4: 900 GB/s both ways per the H100 datasheet, 450 each
/// way at NCCL's 75%: 337.5 GB/s, 8 µs a hop). Each rank sends its 4,096 tokens to their 8
/// experts in BF16: 4,096 · 8 · 2,048 · 2 = 134,217,728 B, of which 7/8 leave the GPU:
/// 8e-6 + 134,217,728 · 7/8 / 337.5e9 = 3.5597e-4 s per all-to-all. Four per MoE layer (dispatch
/// and combine, forward and backward) over 48 layers: 192 · 3.5597e-4 = 0.068346 s per micro-batch.
#[test]
fn the_all_to_all_inside_a_node_matches_the_hand_calculation() {
    let j = qwen3_30b();
    let t = mesh_expert_exchange_s(&j, gpu("h100-sxm"), &mesh(1, 1, 8, 8), 4096.0, 50.0);
    let one = 8e-6 + 134_217_728.0 * 7.0 / 8.0 / 337.5e9;
    let hand = 4.0 * 48.0 * one;
    assert!((t - hand).abs() < 1e-6 * hand, "{t} s against {hand}");
}

/// Across two DGX H100 nodes (EP 16): 7/16 of the bytes cross NVLink (1.7399e-4 s) while 8/16
/// leave through each GPU's 400 Gb/s ConnectX-7 port at 90%: 134,217,728 · 0.5 / 45e9 =
/// 1.49131e-3 s, the longer of the two, plus 20 µs for the hop: 1.51131e-3 s per all-to-all.
/// With full recomputation the forward's dispatch and combine run again: six per layer,
/// 6 · 48 · 1.51131e-3 = 0.43526 s.
#[test]
fn the_all_to_all_across_two_nodes_is_held_by_the_node_ports() {
    let mut j = qwen3_30b();
    j.grad_checkpointing = Checkpointing::Full;
    let t = mesh_expert_exchange_s(&j, gpu("h100-sxm"), &mesh(1, 1, 16, 16), 4096.0, 50.0);
    let one = 20e-6 + 134_217_728.0 * 0.5 / 45e9;
    let hand = 6.0 * 48.0 * one;
    assert!((t - hand).abs() < 1e-6 * hand, "{t} s against {hand}");
    // Without expert parallelism no token moves.
    assert_eq!(mesh_expert_exchange_s(&j, gpu("h100-sxm"), &mesh(1, 1, 16, 1), 4096.0, 50.0), 0.0);
}

/// Each of 8 expert-parallel ranks keeps 1/8 of the routed experts and all the rest. From the
/// config.json shape: the routed experts hold 48 · 128 · 3 · 2,048 · 768 = 28.99e9 of the
/// model's 30.5e9 parameters (95.0%), so a rank keeps 0.050 + 0.950 / 8 = 0.169 of the weights,
/// where tensor parallelism over the same 8 GPUs keeps 1/8 = 0.125 (and pays its all-reduces).
#[test]
fn an_expert_rank_keeps_its_share_of_the_experts() {
    let j = qwen3_30b();
    let share = parallel::mesh_weight_share(&j, mesh(1, 1, 8, 8));
    let routed = 48.0 * 128.0 * 3.0 * 2048.0 * 768.0 / 30.5e9;
    let hand = (1.0 - routed) + routed / 8.0;
    assert!((share - hand).abs() < 0.02 * hand, "{share} against {hand}");
    let tensor = parallel::mesh_weight_share(&j, mesh(8, 1, 1, 1));
    assert!((tensor - 0.125).abs() < 1e-12, "{tensor}");
}

/// A fixed mesh's expert group must sit inside one pipeline stage's `tp · cp · dp` ranks, and the
/// 128 experts must divide over it (Megatron: `num_moe_experts % expert_model_parallel_size`).
/// With full recomputation, Megatron-Bridge's EP 8 mesh on 8 H100s fits: 30.5e9 · 2 B of BF16
/// weights and as much of gradients at 0.169 each (61.0 GB · 0.169 · 2 = 20.6 GB) and AdamW's
/// 12 B per parameter sharded 8 ways (45.8 GB), with one layer's activations at a time.
#[test]
fn a_fixed_expert_size_must_divide_the_stage_and_the_experts() {
    let spec = |pp: u32, ep: u32| MeshSpec { tp: 1, cp: 1, pp, interleave: 1, ep };
    assert!(parallel::spec_divides(spec(2, 8), 16), "16 GPUs, 2 stages of 8, EP 8");
    assert!(!parallel::spec_divides(spec(4, 8), 16), "stages of 4 GPUs cannot hold EP 8");
    let mut j = qwen3_30b();
    j.grad_checkpointing = Checkpointing::Full;
    j.auto_layout = false;
    j.mesh = Some(spec(1, 6));
    let err = estimate_llm(&j, gpu("h100-sxm"), 12).expect_err("128 experts do not divide by 6");
    assert_eq!(err.field(), "ep");
    j.mesh = Some(spec(1, 8));
    let e = estimate_llm(&j, gpu("h100-sxm"), 8).expect("EP 8 on 8 GPUs");
    assert!(e.fits, "EP 8 fits eight 80 GB cards: {} GiB each", e.per_gpu_gib);
}

/// DeepSeek-V3 (671B) on 168 A100 80GB SXM4 with full recomputation. The fastest layout that
/// fits leaves little of the 80 GB free; asked for the recommender's 10% headroom, the search
/// keeps a layout whose busiest GPU holds at most 72 GB when one exists, and it does: the
/// layout search without headroom at 168 GPUs finds one, and a layout of TP 8 × PP 21 holds
/// 671e9 · 16 B / 168 = 63.9 GB of weights, gradients and sharded AdamW before activations.
#[test]
fn the_layout_search_keeps_the_headroom_asked_for() {
    let a100 = gpu("a100-80gb-sxm");
    let mut j = deepseek_v3();
    j.global_batch = Some(4096);
    j.grad_checkpointing = Checkpointing::Full;
    let t = terms(&j, a100, Engine::Vllm);
    let usable = parallel::usable_gib(a100, Engine::Vllm, &j);
    let tight = layout_for(&j, a100, Engine::Vllm, &t, 168);
    assert!(parallel::fits(&j, a100, Engine::Vllm, &t, &tight));
    j.layout_headroom = 0.10;
    let roomy = layout_for(&j, a100, Engine::Vllm, &t, 168);
    let held = parallel::per_gpu_gib(&j, a100, Engine::Vllm, &t, &roomy);
    assert!(held <= 0.9 * usable, "{held} GiB of {usable} with {roomy:?}");
}

/// An MoE's training speed carries the band its own rows set (measured / model 0.33–1.00 over
/// the Megatron-Bridge and dgxc-benchmarking MoE runs, src/model/bands.rs `TRAINING_MOE`):
/// its top is the estimate, since no published MoE run trains faster than it.
#[test]
fn an_moe_training_estimate_shows_the_moe_band() {
    let mut j = qwen3_30b();
    j.grad_checkpointing = Checkpointing::Full;
    j.auto_layout = false;
    j.mesh = Some(MeshSpec { tp: 1, cp: 1, pp: 1, interleave: 1, ep: 8 });
    let e = estimate_llm(&j, gpu("h100-sxm"), 8).expect("estimate");
    let b = e.throughput.train_tokens_per_s.expect("training speed");
    assert!(b.high <= b.mid * 1.0 + 1e-9 && b.low < 0.5 * b.mid, "{b:?}");
    let t = terms(&j, gpu("h100-sxm"), Engine::Vllm);
    let l = layout_for(&j, gpu("h100-sxm"), Engine::Vllm, &t, 8);
    assert!(matches!(l, Layout::Mesh(m) if m.ep == 8), "{l:?}");
}

/// The count a card needs, with the recommender's headroom asked, is one whose chosen layout
/// leaves it: DeepSeek-V3 fits 144 A100 SXM4s only at 0.3% headroom (its 671e9 · 16 B of
/// weights, gradients and AdamW alone are 10.0e12 B, 69.8 GB a card), so with 10% asked it needs
/// more cards, and the layout at that count holds at most 90% of each.
#[test]
fn the_count_needed_leaves_the_headroom_asked_for() {
    use gpu_advisor::model::llm::parallel::gpus_needed_for;
    let a100 = gpu("a100-80gb-sxm");
    let mut j = deepseek_v3();
    j.grad_checkpointing = Checkpointing::Full;
    let t = terms(&j, a100, Engine::Vllm);
    let tight = gpus_needed_for(&j, a100, Engine::Vllm, &t);
    j.layout_headroom = 0.10;
    let roomy = gpus_needed_for(&j, a100, Engine::Vllm, &t);
    assert!(roomy > tight, "{roomy} against {tight}");
    let l = layout_for(&j, a100, Engine::Vllm, &t, roomy);
    let held = parallel::per_gpu_gib(&j, a100, Engine::Vllm, &t, &l);
    assert!(held <= 0.9 * parallel::usable_gib(a100, Engine::Vllm, &j), "{held} GiB with {l:?}");
}
