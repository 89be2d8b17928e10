#![cfg(not(target_arch = "wasm32"))]
//! The LLM engine's physics rules (memory terms by engine and workload, MLA, llama.cpp buffers,
//! vLLM defaults, ECC, activations, NF4, sharding, fabrics, measured efficiencies): one test per
//! rule, each expected value from a cited source or a hand calculation written beside it.

use gpu_advisor::catalog;
use gpu_advisor::model::fabric::{self, LinkKind};
use gpu_advisor::model::llm::memory::{activation_bytes_per_token_layer, terms};
use gpu_advisor::model::llm::parallel::{usable_gib, Layout};
use gpu_advisor::model::llm::throughput::{decode_attention_flops, decode_weight_bytes, serving_batch};
use gpu_advisor::model::llm::{estimate_llm, gpus_needed, Engine, LlmJob, LoraTargets, Workload};
use gpu_advisor::model::precision::{KvPrecision, Precision};
use gpu_advisor::model::types::GIB;

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("{id} in the catalog"))
}

fn job(preset: &str) -> LlmJob {
    LlmJob::for_preset(catalog::llm(preset).unwrap_or_else(|| panic!("{preset} preset")))
}

/// Llama 3.2 1B ties its head to the embedding (config.json `tie_word_embeddings: true`,
/// vocab 128,256 × hidden 2,048). The head is still multiplied for every token: the compute
/// parameters are all 1.24e9 (body 0.977e9 + head 0.263e9), and a decode step reads the whole
/// table as the head: 1.24e9 × 2 B in fp16.
#[test]
fn tied_head_is_read_and_multiplied() {
    let j = job("llama-3.2-1b");
    assert!(j.model.tied_embeddings);
    let embed = 128_256.0 * 2048.0;
    assert!((j.model.active_compute_params() - j.model.params_active).abs() < 1.0);
    let body = j.model.params_total - embed;
    let expected = (body + embed) * 2.0;
    let got = decode_weight_bytes(&j, 1.0);
    assert!((got / expected - 1.0).abs() < 1e-9, "{got} vs {expected}");
}

/// Training never runs under vLLM's `gpu_memory_utilization` cap, and TensorRT-LLM's
/// 0.9 is a share of the memory left after weights, not of the card. Llama 3.1 70B in FP8 on one
/// H100 80 GB: 68.45e9 body parameters × 1 B + embedding and head 2 × 1.05e9 × 2 B (kept in
/// 16 bits) = 72.7e9 B = 67.7 GiB, under the 80 GiB card: it fits and serves.
#[test]
fn memory_cap_follows_engine_and_workload() {
    let h100 = gpu("h100-sxm");
    let mut train = job("llama-3.1-8b");
    train.workload = Workload::FinetuneFull;
    train.precision = Precision::Bf16;
    assert_eq!(usable_gib(h100, Engine::Vllm, &train), 80.0);
    let infer = job("llama-3.1-8b");
    assert_eq!(usable_gib(h100, Engine::Vllm, &infer), 72.0);

    let mut j = job("llama-3.1-70b");
    j.precision = Precision::Fp8;
    j.kv_precision = KvPrecision::Fp8;
    j.engine = Some(Engine::TrtLlm);
    let est = estimate_llm(&j, h100, 1).expect("estimate");
    assert!(est.memory.weights_gib > 66.0 && est.memory.weights_gib < 69.5, "{}", est.memory.weights_gib);
    assert!(est.fits, "per GPU {}", est.per_gpu_gib);
    assert!(est.throughput.serving_tokens_per_s.is_some());
}

/// DeepSeek-V3's MLA cache (kv_lora_rank 512 + RoPE key 64 per token per layer, 61
/// layers) cannot be split by head, so tensor parallelism over 8 GPUs keeps it whole on every
/// rank: each request costs 8 × its KV bytes of the pool.
#[test]
fn serving_batch_counts_replicated_mla_cache() {
    let mut j = job("deepseek-v3");
    j.precision = Precision::Fp8;
    j.engine = Some(Engine::Vllm);
    j.prompt_tokens = 1000;
    j.output_tokens = 1000;
    // A full server: as many requests offered as vLLM's scheduler takes on this card (1,024).
    j.batch = 1024;
    let g = gpu("h200-sxm");
    let t = terms(&j, g, Engine::Vllm);
    let usable = 141.0 * 0.9 * 8.0;
    let pool = (usable - (t.weights_gib + (t.activations_gib + t.context_gib) * 8.0 + t.slack_gib)) * GIB;
    let per_seq = 61.0 * (512.0 + 64.0) * 2000.0 * 2.0;
    let expected = (pool / (per_seq * 8.0)).floor().min(1024.0);
    let got = serving_batch(&j, g, Engine::Vllm, &t, &Layout::Tensor(8), 8);
    assert_eq!(got, expected);
    assert!(got < (pool / per_seq).floor() / 7.0);
}

/// llama.cpp with FlashAttention (the default since mid-2025) allocates no f32 KQ
/// buffer. Llama 3.1 8B Q4_K_M at 131,072 tokens on a 24 GB card: weights 4.6 GiB + f16 KV
/// 32 layers × 8 heads × 128 × 2 × 2 B × 131,072 = 16 GiB + logits buffer 512 × 128,256 × 4 B
/// = 0.24 GiB ≈ 21 GiB: fits. Without FlashAttention the KQ scores add 512 × 32 heads × 131,072
/// × 4 B = 8 GiB: it does not.
#[test]
fn llama_cpp_flash_attention_has_no_kq_buffer() {
    let mut j = job("llama-3.1-8b");
    j.precision = Precision::Q4KM;
    j.engine = Some(Engine::LlamaCpp);
    j.context_tokens = 131_072;
    j.prompt_tokens = 512;
    let card = gpu("rtx-4090");
    assert!(estimate_llm(&j, card, 1).expect("fa").fits);
    j.flash_attention = false;
    assert!(!estimate_llm(&j, card, 1).expect("no fa").fits);
}

/// Absorbed MLA decode: 2 · heads · (2 · 512 + 64) FLOPs per cached token per layer.
/// DeepSeek-V3 at 4,096 tokens: 2 × 128 × 1,088 × 61 × 4,096 = 69.6 GFLOP per token, about as
/// much as its 2 × 37e9 = 74 GFLOP of weights.
#[test]
fn mla_decode_attention_flops() {
    let j = job("deepseek-v3");
    let expected = 2.0 * 128.0 * (2.0 * 512.0 + 64.0) * 61.0 * 4096.0;
    assert!((decode_attention_flops(&j.model, 4096.0) / expected - 1.0).abs() < 1e-12);
}

/// vLLM's `EngineArgs._set_default_args` (vllm/engine/arg_utils.py): cards of at least
/// 70 GiB that are not A100s get `max_num_seqs` 1024 and, for the API server,
/// `max_num_batched_tokens` 8192; the rest 256 and 2048.
#[test]
fn vllm_defaults_follow_memory_class() {
    assert_eq!(Engine::Vllm.max_batch(gpu("h100-sxm")), Some(1024));
    assert_eq!(Engine::Vllm.max_batch(gpu("mi300x")), Some(1024));
    assert_eq!(Engine::Vllm.max_batch(gpu("a100-80gb-sxm")), Some(256));
    assert_eq!(Engine::Vllm.max_batch(gpu("rtx-4090")), Some(256));
    assert_eq!(Engine::Vllm.prefill_chunk_tokens(gpu("h200-sxm")), Some(8192.0));
    assert_eq!(Engine::Vllm.prefill_chunk_tokens(gpu("l40s")), Some(2048.0));
}

/// GDDR cards with ECC on by default lose 1/16: a 24 GB L4 or A10 shows 23,028 MiB in
/// `nvidia-smi` (24 × 15/16 = 22.5 GiB); HBM cards keep their capacity.
#[test]
fn ecc_on_gddr_costs_a_sixteenth() {
    assert_eq!(gpu("l4").usable_memory_gib(), 24.0 * 15.0 / 16.0);
    assert_eq!(gpu("a10").usable_memory_gib(), 24.0 * 15.0 / 16.0);
    assert_eq!(gpu("h100-sxm").usable_memory_gib(), 80.0);
    assert_eq!(gpu("rtx-4090").usable_memory_gib(), 24.0);
}

/// An unfused SwiGLU saves four I-wide tensors per token: Llama 3.1 8B (h 4,096,
/// 32 × 128 query width, 8 × 128 KV width, I 14,336) keeps 8·4096 + 4·4096 + 4·1024 + 8·14336 =
/// 167,936 bytes per token per layer without scores.
#[test]
fn swiglu_activations_without_fused_kernels() {
    let j = job("llama-3.1-8b");
    assert_eq!(activation_bytes_per_token_layer(&j, 2048.0, false), 167_936.0);
}

/// Under `torch.compile`, AOTAutograd's min-cut partitioner saves the SwiGLU's two matmul
/// outputs (gate, up) and recomputes SiLU and the product in backward: Llama 3.1 8B keeps
/// 167,936 − 4·14,336 = 110,592 bytes per token per layer. Hand check against torchtune's
/// README (Llama 3.2 3B, batch 2 × 4096 packed, no checkpointing, A100): "+ Compile" lowers the
/// peak from 60.0 to 51.0 GiB; the model's drop is 4·8192 B × 8192 tokens × 28 layers = 7.0 GiB.
#[test]
fn compiled_swiglu_saves_two_tensors() {
    let mut j = job("llama-3.1-8b");
    j.torch_compile = true;
    assert_eq!(activation_bytes_per_token_layer(&j, 2048.0, false), 110_592.0);
    let mut small = job("llama-3.2-3b");
    small.workload = Workload::FinetuneFull;
    small.batch = 2;
    small.seq_len = 4096;
    let eager = terms(&small, gpu("a100-80gb-sxm"), Engine::Transformers).activations_gib;
    small.torch_compile = true;
    let compiled = terms(&small, gpu("a100-80gb-sxm"), Engine::Transformers).activations_gib;
    let drop = 4.0 * 8192.0 * 8192.0 * 28.0 / GIB;
    assert!((eager - compiled - drop).abs() < 1e-9, "{eager} − {compiled} vs {drop}");
}

/// The training memory band: the figure shown between the 10th and 90th percentiles of measured
/// peak / model over the held-out memory rows (`bands::MEMORY`, generated by `make accuracy`;
/// docs/ACCURACY.md), around the per-GPU and the total figure alike; inference has no band (no
/// measured peaks).
#[test]
fn training_memory_has_a_band() {
    use gpu_advisor::model::bands::MEMORY;
    let (low, high) = MEMORY.fitted;
    assert!(low <= 1.0 && 1.0 <= high && low < high, "{low}–{high}");
    let mut j = job("llama-3.1-8b");
    j.workload = Workload::Lora;
    let e = estimate_llm(&j, gpu("a100-80gb-sxm"), 1).expect("estimate");
    let b = e.memory.per_gpu_band_gib.expect("training band");
    assert!((b.mid - e.per_gpu_gib).abs() < 1e-12);
    assert!((b.low - low * e.per_gpu_gib).abs() < 1e-9 && (b.high - high * e.per_gpu_gib).abs() < 1e-9, "{b:?}");
    let t = e.memory.total_band_gib.expect("total band");
    assert!((t.mid - e.memory.total_gib).abs() < 1e-12);
    assert!((t.low - low * t.mid).abs() < 1e-9 && (t.high - high * t.mid).abs() < 1e-9, "{t:?}");
    let inf = estimate_llm(&job("llama-3.1-8b"), gpu("a100-80gb-sxm"), 1).expect("estimate");
    assert!(inf.memory.per_gpu_band_gib.is_none() && inf.memory.total_band_gib.is_none());
}

/// transformers' `BitsAndBytesConfig` defaults to `bnb_4bit_use_double_quant=False`:
/// NF4 costs 4 + 32/64 = 4.5 bits per weight (QLoRA paper §2), not 4.127.
#[test]
fn nf4_defaults_to_no_double_quant() {
    let mut j = job("llama-3.1-8b");
    j.workload = Workload::Qlora;
    let body = j.model.body_params();
    let w = terms(&j, gpu("rtx-4090"), Engine::Transformers).weights_gib * GIB;
    let embed_head = 2.0 * 128_256.0 * 4096.0 * 2.0;
    let lora = w - body * 4.5 / 8.0 - embed_head;
    // What is left is the LoRA adapters in fp32: positive and small (rank 16 on all linear layers
    // of an 8B model is 42M parameters, 0.17 GB).
    assert!(lora > 0.1e9 && lora < 0.25e9, "{lora}");
}

/// torchtune's `llama3_1/70B_lora.yaml` runs Llama 3.1 70B LoRA on 8 × A100 80 GB with
/// FSDP: the sharding chooser must find it (a full bf16 replica, 141 GB, fits no single card).
#[test]
fn seventy_b_lora_on_eight_a100s_with_fsdp() {
    let mut j = job("llama-3.1-70b");
    j.workload = Workload::Lora;
    j.precision = Precision::Bf16;
    j.lora_targets = LoraTargets::AllLinear;
    j.batch = 2;
    j.seq_len = 2048;
    j.grad_checkpointing = gpu_advisor::model::llm::Checkpointing::Full;
    let a100 = gpu("a100-80gb-sxm");
    let needed = gpus_needed(&j, a100).expect("needed");
    assert!((2..=8).contains(&needed), "needs {needed}");
    let est = estimate_llm(&j, a100, 8).expect("estimate");
    assert!(est.fits, "per GPU {}", est.per_gpu_gib);
    assert!(est.assumptions.iter().any(|a| a.contains("ZeRO-3") || a.contains("ZeRO-2") || a.contains("ZeRO-1")), "{:?}", est.assumptions);
}

/// Scale-up fabrics are numbers: MI300X's Infinity Fabric joins 8 GPUs at 7 × 128 =
/// 896 GB/s (AMD datasheet): 448 per direction × 0.75 NCCL-style efficiency = 336 GB/s. A PCIe
/// A100's NVLink bridge joins pairs only: four cards talk over PCIe 4.0 (31.5 × 0.75). Past 8
/// H100 SXM GPUs see `across_nodes_bus_bandwidth_rides_every_rail`.
#[test]
fn scale_up_fabrics_as_numbers() {
    let l = fabric::group_link(gpu("mi300x"), 8);
    assert_eq!(l.kind, LinkKind::ScaleUp);
    assert!((l.gb_s - 336.0).abs() < 1e-9);
    let p = fabric::group_link(gpu("a100-80gb-pcie"), 4);
    assert_eq!(p.kind, LinkKind::Pcie);
    assert!((p.gb_s - 31.5 * 0.75).abs() < 1e-9);
    let two = fabric::group_link(gpu("a100-80gb-pcie"), 2);
    assert_eq!(two.kind, LinkKind::ScaleUp);
}

/// Bus bandwidth across rail-optimised DGX H100 nodes (eight 400 Gb/s ConnectX-7 ports, one per
/// GPU; DGX H100 datasheet). NCCL runs one ring per rail, so a group with all 8 GPUs of each node
/// crosses each node boundary 8 times in parallel: 8 × 50 GB/s × 0.9 = 360 GB/s of port
/// bandwidth, above NVLink 4's 900 / 2 × 0.75 = 337.5 GB/s, so NVLink sets it: 337.5 GB/s, on 2
/// nodes (16 GPUs) as on 64 (512 GPUs). nccl-tests on such clusters report 350-450 GB/s of
/// all-reduce bus bandwidth across nodes (NVLS/SHARP push past NVLink's ring figure). A group
/// with one GPU per node (data parallel beside tensor parallel 8) rides one rail: 45 GB/s.
/// The ring all-reduce of 1 GB over 512 GPUs then takes 2 · 511/512 · 1e9 / 337.5e9 = 5.92 ms.
#[test]
fn across_nodes_bus_bandwidth_rides_every_rail() {
    let h100 = gpu("h100-sxm");
    for gpus in [16, 512] {
        let l = fabric::group_link(h100, gpus);
        assert_eq!(l.kind, LinkKind::Node);
        assert!((l.gb_s - 337.5).abs() < 1e-9, "{gpus}: {}", l.gb_s);
    }
    let one_rail = fabric::spread_link(h100, 64, 1, fabric::node_port_gb_s(h100));
    assert!((one_rail.gb_s - 45.0).abs() < 1e-9, "{}", one_rail.gb_s);
    let t = fabric::allreduce_s(1e9, 512, &fabric::group_link(h100, 512));
    assert!((t - 2.0 * 511.0 / 512.0 * 1e9 / 337.5e9).abs() < 1e-12, "{t}");
    // A100 (DGX A100: eight 200 Gb/s HDR ports): 8 × 25 × 0.9 = 180 GB/s, below NVLink 3's
    // 600 / 2 × 0.75 = 225, so the ports set it.
    let a = fabric::group_link(gpu("a100-80gb-sxm"), 128);
    assert!((a.gb_s - 180.0).abs() < 1e-9, "{}", a.gb_s);
}

/// "Each estimate says whether its (engine, GPU family) pair was fitted, cross-validated, or
/// carried over": the table in `engines::standing` must agree with the held-out CSV files. Every
/// pair with held-out rows is checked (not "carried over"), and every pair called
/// cross-validated has held-out rows.
#[test]
fn standing_table_matches_the_held_out_rows() {
    use gpu_advisor::model::llm::engines::{standing, Standing};
    use gpu_advisor::model::llm::GpuFamily;
    use std::collections::HashSet;
    let mut pairs = HashSet::new();
    for name in ["llm_inference_more.csv", "llm_serving_more.csv"] {
        let path = format!("{}/tests/data/calibration/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("csv");
        for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
            let cells: Vec<&str> = line.splitn(7, ',').collect();
            let engine = Engine::parse(cells[5]).unwrap_or_else(|| panic!("engine {}", cells[5]));
            pairs.insert((engine, GpuFamily::of(gpu(cells[0]))));
        }
    }
    for &(e, f) in &pairs {
        assert_ne!(standing(e, f), Standing::CarriedOver, "{} on {} has held-out rows", e.as_str(), f.as_str());
    }
    let families = [GpuFamily::NvidiaGddr, GpuFamily::NvidiaHbm, GpuFamily::Apple, GpuFamily::Amd, GpuFamily::Other];
    for e in Engine::ALL {
        for f in families {
            if standing(e, f) == Standing::CrossValidated {
                assert!(pairs.contains(&(e, f)), "{} on {} is called cross-validated without rows", e.as_str(), f.as_str());
            }
        }
    }
}

/// llama.cpp's batch-1 weight stream is capped by the loads its kernels keep in flight
/// (Little's law): r GB/s per SM, the fitted `LlmFit::llama_cpp_sm_read_gb_s`, so the share of
/// the datasheet bandwidth is min(e_w, SMs × r / BW). By hand: an H100 PCIe (114 SMs, 2,000
/// GB/s: 17.5 GB/s per SM) and an A30 (56 SMs, 933 GB/s: 16.7 per SM) have more bandwidth per SM
/// than the kernels draw, so the cap binds (at r = 11.4: 114 × 11.4 = 1,300 GB/s = 0.65 of the
/// H100's 2,000, below e_w = 0.91); an RTX 4090 (128 SMs, 1,008 GB/s: 7.9 per SM) streams at the
/// engine's e_w. vLLM's kernels have no such cap: its e_w on every card.
#[test]
fn llama_cpp_weight_stream_is_capped_by_loads_in_flight() {
    use gpu_advisor::model::llm::in_force::{efficiency, llama_cpp_sm_read_gb_s};
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::throughput::weight_stream_fraction;
    use gpu_advisor::model::llm::GpuFamily;
    let f = CALIBRATED;
    assert_eq!(llama_cpp_sm_read_gb_s(), f.llama_cpp_sm_read_gb_s);
    let share = |id: &str, e: Engine| {
        let g = gpu(id);
        weight_stream_fraction(g, e, &efficiency(e, GpuFamily::of(g)))
    };
    let cap = |sms: f64, bw: f64| sms * f.llama_cpp_sm_read_gb_s / bw;
    for (id, sms, bw) in [("h100-pcie", 114.0, 2000.0), ("a30", 56.0, 933.0), ("rtx-4090", 128.0, 1008.0)] {
        assert_eq!((gpu(id).sm_count, gpu(id).memory_bandwidth_gb_s), (Some(sms as u32), bw), "{id}");
        let hand = f.llama_cpp.weight_bw.min(cap(sms, bw));
        assert!((share(id, Engine::LlamaCpp) - hand).abs() < 1e-12, "{id}: {} vs {hand}", share(id, Engine::LlamaCpp));
        assert!((share(id, Engine::Vllm) - f.vllm.weight_bw).abs() < 1e-12, "{id}: vLLM");
    }
    // The cap binds on the HBM cards and not on the GDDR card.
    assert!(cap(114.0, 2000.0) < f.llama_cpp.weight_bw && cap(56.0, 933.0) < f.llama_cpp.weight_bw);
    assert!(cap(128.0, 1008.0) > f.llama_cpp.weight_bw);
}

/// llama.cpp has one set of factors on every family (the family differences are the cap above
/// and the matrix-unit rule below), so a family without rows gets the same numbers, unmeasured.
#[test]
fn llama_cpp_factors_do_not_depend_on_the_family() {
    use gpu_advisor::model::llm::engines::Efficiency;
    use gpu_advisor::model::llm::in_force::{carried_over, carried_over_without, efficiency};
    use gpu_advisor::model::llm::GpuFamily;
    let norm = |e: Efficiency| Efficiency { measured: false, ..e };
    let base = norm(efficiency(Engine::LlamaCpp, GpuFamily::NvidiaGddr));
    for f in [GpuFamily::NvidiaHbm, GpuFamily::Apple, GpuFamily::Amd, GpuFamily::Other] {
        assert_eq!(norm(efficiency(Engine::LlamaCpp, f)), base);
        assert_eq!(carried_over_without(Engine::LlamaCpp, Some(f)), base);
    }
    assert_eq!(carried_over(Engine::LlamaCpp), base);
    assert!(!carried_over(Engine::LlamaCpp).measured);
}

/// Without matrix units (Apple M-series) a prefill GEMM runs at a share of the FMA peak fitted on
/// llama.cpp's Apple rows (`LlmFit::simt_gemm_mfu`), and quantized weights cost nothing extra
/// (llama.cpp's q4_0 and q8_0 prefill equal its F16 prefill to 3% on M3 Max, M3 Ultra and M4
/// Max); with tensor cores the engine's MFU and its dequantization share apply (llama.cpp's
/// `prefill_mfu` and `quant_prefill`); Pascal's dp4a path is a fast-multiply path for quantized
/// weights only: 16-bit weights on a P40 run on its FMA lanes like Apple's.
#[test]
fn prefill_gemm_share_follows_matrix_units() {
    use gpu_advisor::model::llm::engines::has_matrix_units;
    use gpu_advisor::model::llm::in_force::{efficiency, prefill_gemm_shares, simt_gemm_mfu};
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::GpuFamily;
    let f = CALIBRATED;
    assert_eq!(simt_gemm_mfu(), f.simt_gemm_mfu);
    assert!(f.simt_gemm_mfu > 0.0 && f.simt_gemm_mfu <= 1.0);
    let shares = |id: &str, q: bool| {
        let g = gpu(id);
        prefill_gemm_shares(g, Engine::LlamaCpp, has_matrix_units(g), q, &efficiency(Engine::LlamaCpp, GpuFamily::of(g)))
    };
    let (mfu, quant) = (f.llama_cpp.prefill_mfu, f.llama_cpp.quant_prefill);
    assert!(!has_matrix_units(gpu("apple-m4-max")) && has_matrix_units(gpu("rtx-4090")) && !has_matrix_units(gpu("p40")));
    assert_eq!(shares("apple-m4-max", false), (f.simt_gemm_mfu, 1.0));
    assert_eq!(shares("apple-m4-max", true), (f.simt_gemm_mfu, 1.0));
    assert_eq!(shares("rtx-4090", false), (mfu, 1.0));
    assert_eq!(shares("rtx-4090", true), (mfu, quant));
    assert_eq!(shares("p40", true), (mfu, quant));
    assert_eq!(shares("p40", false), (f.simt_gemm_mfu, 1.0));
}

/// llama.cpp's Vulkan back-end multiplies on cooperative matrices only where it enables them:
/// on Intel only Xe2 (ggml-vulkan.cpp `ggml_vk_khr_cooperative_matrix_support`; PR #14001 keeps
/// them off on the Arc A770), so an A770's Vulkan prompt runs on its FP32 lanes at the SIMT GEMM
/// share, while SYCL runs on its XMX units. A prompt long enough for its GEMMs to outweigh the
/// weight stream (Gemma 2 2B in FP16, 4,096 tokens: 2 · 2.6e9 · 4,096 = 21 TFLOP against 5.2 GB
/// at 560 GB/s), without fixed times, takes (XMX FP16 137.6 TFLOPS · prefill MFU) / (FP32 17.2
/// TFLOPS · SIMT share) times longer on Vulkan: the GEMM and the attention terms both run at the
/// peak times its share. An Arc B580 (Xe2) keeps its XMX units on Vulkan.
#[test]
fn vulkan_prompts_on_older_arc_run_on_the_fp32_lanes() {
    use gpu_advisor::model::llm::backend::matrix_units_in_use;
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::engines::Backend;
    use gpu_advisor::model::llm::throughput::prefill_s;
    let mut j = job("gemma-2-2b");
    j.precision = Precision::Fp16;
    j.engine = Some(Engine::LlamaCpp);
    let (a770, b580) = (gpu("arc-a770"), gpu("arc-b580"));
    let on = |g, b| {
        let mut j = j.clone();
        j.backend = Some(b);
        (matrix_units_in_use(&j, g, Engine::LlamaCpp), prefill_s(&j, g, Engine::LlamaCpp, &Layout::Single, 4096.0, false))
    };
    let ((vk_units, vk_s), (sycl_units, sycl_s)) = (on(a770, Backend::Vulkan), on(a770, Backend::Sycl));
    assert!(!vk_units && sycl_units);
    assert!(on(b580, Backend::Vulkan).0);
    let hand = (137.6 * CALIBRATED.llama_cpp.prefill_mfu) / (17.2 * CALIBRATED.simt_gemm_mfu);
    assert!((vk_s / sycl_s / hand - 1.0).abs() < 1e-9, "{} vs {hand}", vk_s / sycl_s);
}

/// bitsandbytes LLM.int8() under transformers streams its 8-bit weights (half the bytes) at
/// `LlmFit::llm_int8_speed` of the 16-bit speed, fitted on bitsandbytes' benchmark rows (Llama
/// 3.1 8B on H100 19.17 against 40.99 tokens/s, Qwen2.5 32B 9.70 against 19.67, Qwen2.5 3B on T4
/// 11.08 against 25.66; `llm_inference_more.csv`): a bandwidth share of speed × 8/16. Other int8
/// engines and other formats keep the engine's factor.
#[test]
fn llm_int8_streams_at_its_measured_speed() {
    use gpu_advisor::model::llm::in_force::{efficiency, llm_int8_speed, quant_stream_factor};
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::GpuFamily;
    let speed = CALIBRATED.llm_int8_speed;
    assert_eq!(llm_int8_speed(), speed);
    let e = efficiency(Engine::Transformers, GpuFamily::NvidiaHbm);
    assert!((quant_stream_factor(Engine::Transformers, Precision::Int8, &e) - speed * 8.0 / 16.0).abs() < 1e-12);
    assert_eq!(quant_stream_factor(Engine::Transformers, Precision::Nf4, &e), e.quant_bw);
    let v = efficiency(Engine::Vllm, GpuFamily::NvidiaHbm);
    assert_eq!(quant_stream_factor(Engine::Vllm, Precision::Int8, &v), v.quant_bw);
}

/// Full recomputation runs at a measured MFU: the ratio r of the MFU with activation
/// checkpointing to the MFU without is fitted on the training rows (`LlmFit::recompute_mfu_ratio`;
/// llm-foundry's MPT-7B on 8 × H100 holds 46.4% MFU without and 40.4% with, 0.87,
/// scripts/train/benchmarking/README.md), and it is above the 6/8 = 0.75 that counting the
/// extra forward pass at the same hardware efficiency would give: the larger micro-batches
/// checkpointing allows run the GEMMs closer to peak. A recomputed FLOP costs (1/r − 1)/(2/6) of
/// one FLOP of the 6·N step; LoRA recomputes 2·N of a 4·N step, so its ratio is
/// 1 / (1 + (1/r − 1)/(2/6) · 2/4) (0.77 at r = 0.834).
#[test]
fn recomputation_runs_at_a_measured_mfu() {
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::throughput::{recompute_flop_cost, recompute_mfu_ratio, train_mfu};
    use gpu_advisor::model::llm::Checkpointing;
    let r = CALIBRATED.recompute_mfu_ratio;
    assert_eq!(recompute_mfu_ratio(), r);
    assert!(r > 6.0 / 8.0 && r < 1.0, "{r}");
    assert!((recompute_flop_cost() - (1.0 / r - 1.0) / (2.0 / 6.0)).abs() < 1e-12);
    let h100 = gpu("h100-sxm");
    let mut j = job("llama-3.1-8b");
    j.workload = Workload::Training;
    j.precision = Precision::Bf16;
    let base = train_mfu(&j, h100);
    j.grad_checkpointing = Checkpointing::Full;
    assert!((train_mfu(&j, h100) / base - r).abs() < 1e-9);
    j.workload = Workload::Lora;
    let lora = 1.0 / (1.0 + (1.0 / r - 1.0) / (2.0 / 6.0) * 0.5);
    assert!((train_mfu(&j, h100) / base - lora).abs() < 1e-9, "{lora}");
}

/// Hugging Face PEFT keeps LoRA adapters in fp32 under mixed precision and upcasts the
/// logits for the loss. Llama 3.1 8B LoRA, rank 16 on every linear layer, one sequence of 1,024
/// tokens: the logits alone cost 1,024 × 128,256 × 12 B = 1.47 GiB with the upcast and
/// 1,024 × 128,256 × 2.5 B = 0.31 GiB with torchtune's chunked loss; the adapters' weights are
/// 4 B each (fp32), not 2.
#[test]
fn peft_keeps_fp32_adapters_and_upcasts_logits() {
    use gpu_advisor::model::llm::memory::{lora_params, training_activation_bytes};
    let mut j = job("llama-3.1-8b");
    j.workload = Workload::Lora;
    j.precision = Precision::Bf16;
    j.batch = 1;
    j.seq_len = 1024;
    let hf = training_activation_bytes(&j);
    j.fp32_logits = false;
    let chunked = training_activation_bytes(&j);
    let logits = 1024.0 * 128_256.0;
    assert!(((hf - chunked) - logits * (12.0 - 2.5)).abs() < 1.0, "{}", hf - chunked);
    j.fp32_logits = true;
    let t = terms(&j, gpu("a100-80gb-sxm"), Engine::Transformers);
    let base_bytes = j.model.body_params() * 2.0 + 2.0 * 128_256.0 * 4096.0 * 2.0;
    let adapters = t.weights_gib * GIB - base_bytes;
    assert!((adapters / (lora_params(&j) * 4.0) - 1.0).abs() < 1e-6, "{adapters}");
}

/// A ZeRO-3 / FSDP rank holds its shard of the weights plus two unsharded transformer blocks: the
/// one it computes and the next, whose all-gather overlaps that compute (PyTorch FSDP notes,
/// "implicit forward prefetching (always enabled)"). By hand, Llama 3.1 70B LoRA on 8 GPUs (80
/// blocks): ZeRO-2 keeps all W on every GPU, ZeRO-3 W/8 + 2·W/80, so the per-GPU peaks differ
/// by W·(1 − 1/8 − 2/80) = 0.85·W; everything else (sharded LoRA gradients and optimizer
/// states, activations, context, slack) is the same in both.
#[test]
fn fsdp_holds_two_unsharded_blocks() {
    let mut j = job("llama-3.1-70b");
    j.workload = Workload::Lora;
    j.auto_layout = false;
    let g = gpu("a100-80gb-sxm");
    let per_gpu = |zero: u8| {
        let mut k = j.clone();
        k.zero = zero;
        estimate_llm(&k, g, 8).expect("estimate").per_gpu_gib
    };
    let w = terms(&j, g, j.engine_for(g)).weights_gib;
    assert!((per_gpu(2) - per_gpu(3) - 0.85 * w).abs() < 1e-6, "{} vs {}", per_gpu(2) - per_gpu(3), 0.85 * w);
}

/// Block-scaled FP8 GEMMs cost a fixed time per call at decode sizes beyond the bytes they
/// stream: DeepGEMM's table of 2025-04-18 (deepseek-ai/DeepGEMM README.md @fea9309, H800, M = 64)
/// times N = 2,112, K = 7,168 at 206 TFLOPS (2·64·2,112·7,168 / 206e12 = 9.407 µs) and 1,688 GB/s
/// (15.88 MB), and N = 7,168, K = 16,384 at 336 TFLOPS (44.74 µs) and 2,668 GB/s (119.4 MB);
/// t = t0 + bytes / b through the two: b = 103.5 MB / 35.33 µs = 2.93 TB/s, t0 = 9.407 − 15.88 /
/// 2.93 = 3.99 µs, taken as 4.0. DeepSeek-R1 (61 layers, 58 of them MoE with a shared expert, MLA
/// with a low-rank query) makes per forward pass 61 × 2 attention down-projections (query and KV),
/// 58 shared-expert gate-ups and 3 dense gate-ups: 183 calls that reduce over its hidden size of
/// 7,168, outside the fused MoE kernel: 183 × 4.0 µs = 0.732 ms, on an H200 at the reference
/// clock (1,980 MHz, as the H800's). Its native checkpoint carries 128 × 128 weight scales
/// (`quantization_config.weight_block_size`, huggingface.co/deepseek-ai/DeepSeek-R1 config.json).
#[test]
fn block_fp8_gemms_have_a_fixed_time_per_call() {
    use gpu_advisor::model::llm::throughput::{block_fp8_fixed_s, decode_step_s};
    let t0: f64 = 9.407e-6 - 15.88e6 / ((119.4e6 - 15.88e6) / (44.74e-6 - 9.407e-6));
    assert!((t0 - 4.0e-6).abs() < 0.02e-6, "{t0}");
    let mut j = job("deepseek-r1");
    j.precision = Precision::Fp8;
    j.engine = Some(Engine::Vllm);
    assert_eq!(j.model.fp8_weight_block, 128);
    assert_eq!(j.model.hidden_gemms, 183);
    assert!((block_fp8_fixed_s(&j, Engine::Vllm) - 183.0 * 4.0e-6).abs() < 1e-12);
    // Not for 16-bit weights, per-tensor FP8 checkpoints or llama.cpp; Llama 3.1 8B makes 32 × 2.
    let mut bf16 = j.clone();
    bf16.precision = Precision::Bf16;
    assert_eq!(block_fp8_fixed_s(&bf16, Engine::Vllm), 0.0);
    assert_eq!(block_fp8_fixed_s(&j, Engine::LlamaCpp), 0.0);
    let llama = job("llama-3.1-8b");
    assert_eq!((llama.model.fp8_weight_block, llama.model.hidden_gemms), (0, 64));
    // On 8 × H200 the calls add their fixed time to the step, the same at 1 and at 256 sequences
    // (the routed experts stream on their own).
    let g = gpu("h200-sxm");
    let mut plain = j.clone();
    plain.model.fp8_weight_block = 0;
    let l = Layout::Tensor(8);
    let d1 = decode_step_s(&j, g, Engine::Vllm, &l, 1.0, 1024.0) - decode_step_s(&plain, g, Engine::Vllm, &l, 1.0, 1024.0);
    let d256 = decode_step_s(&j, g, Engine::Vllm, &l, 256.0, 1024.0) - decode_step_s(&plain, g, Engine::Vllm, &l, 256.0, 1024.0);
    assert!((d1 - 183.0 * 4.0e-6).abs() < 1e-9, "{d1}");
    assert!((d1 - d256).abs() < 1e-9, "{d1} vs {d256}");
}

/// A pasted `config.json` carries the block size in its `quantization_config` (DeepSeek-V3's:
/// `{"quant_method": "fp8", "weight_block_size": [128, 128], ...}`); without one there is none.
#[test]
fn config_json_reads_the_fp8_weight_block() {
    use gpu_advisor::model::llm::config_json::parse_config_json;
    let path = format!("{}/tests/data/configs/deepseek-v3.1.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("config");
    let plain = parse_config_json(&text).expect("parses");
    assert_eq!((plain.fp8_weight_block, plain.hidden_gemms), (0, 183));
    let quant = r#"{"quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}, "#;
    let with = parse_config_json(&text.replacen('{', quant, 1)).expect("parses");
    assert_eq!(with.fp8_weight_block, 128);
}

/// vLLM's (and SGLang's) decode step at one request is the weight stream at a share e_w of the
/// bandwidth plus a floor of τ per layer (its CUDA-graph-replayed kernels), both fitted
/// (`calibrated::CALIBRATED.vllm`: `weight_bw`, `layer_ms`), plus the KV cache and the FLOPs, which
/// are small at one request. Llama 3 8B BF16 reads 7.505e9 weights × 2 B = 15.01 GB a step (the
/// body and the LM head); at AccelMark's lengths (ISL/OSL 280/310, 435 tokens of context on
/// average) the KV cache is 435 × 131,072 B = 57 MB and the FLOPs 15.2 GFLOP. So by hand:
/// - step(L4) − step(H100 SXM) = 15.01e9 / e_w × (1/300e9 − 1/3,350e9) s, the weight stream
///   alone, plus under 1 ms of KV and FLOPs (at e_w = 0.88: 51.8 ms + 0.7 ms);
/// - step(H100) − 15.01e9 / (e_w × 3,350e9) = 32 τ plus under 0.1 ms (at τ = 0.122 ms: 3.9 ms of
///   a 9.1 ms step).
///
/// The floor is a third or more of the H100's step and a few per cent of the L4's (6% at
/// today's fit): why one bandwidth share without it ran HBM cards fast and GDDR cards slow.
/// FreedomIntelligence/AccelMark's vLLM 0.7.3 rows (Llama 3 8B BF16, one request, time per
/// output token p50: L4 61.2 ms, H100 SXM 7.74 ms; `llm_serving_more.csv`) fall inside the
/// decode band the app shows for these fitted pairs (`bands::DECODE.fitted`).
#[test]
fn vllm_decode_step_has_a_per_layer_floor() {
    use gpu_advisor::model::bands::DECODE;
    use gpu_advisor::model::llm::calibrated::CALIBRATED;
    use gpu_advisor::model::llm::in_force::efficiency;
    use gpu_advisor::model::llm::throughput::decode_step_s;
    use gpu_advisor::model::llm::GpuFamily;
    let v = CALIBRATED.vllm;
    let j = job("llama-3-8b");
    assert_eq!(j.model.layers, 32);
    assert!((decode_weight_bytes(&j, 1.0) / 15.01e9 - 1.0).abs() < 1e-3);
    let step_ms = |id: &str| decode_step_s(&j, gpu(id), Engine::Vllm, &Layout::Single, 1.0, 435.0) * 1e3;
    let stream_ms = |bw_gb_s: f64| 15.01e9 / (v.weight_bw * bw_gb_s * 1e9) * 1e3;
    let floor_ms = 32.0 * v.layer_ms;
    let (l4, h100) = (step_ms("l4"), step_ms("h100-sxm"));
    // The difference of the two cards isolates the weight stream.
    let extra = (l4 - h100) - (stream_ms(300.0) - stream_ms(3350.0));
    assert!(extra > 0.0 && extra < 1.0, "L4 − H100: {} ms, weight streams {} ms", l4 - h100, stream_ms(300.0) - stream_ms(3350.0));
    // What is left of each step after its weight stream is the floor (and the small terms).
    for (card, step, bw, small) in [("L4", l4, 300.0, 1.0), ("H100", h100, 3350.0, 0.1)] {
        let rest = step - stream_ms(bw) - floor_ms;
        assert!(rest > 0.0 && rest < small, "{card}: {step} ms = {} + {floor_ms} + {rest}", stream_ms(bw));
    }
    assert!(floor_ms / h100 >= 1.0 / 3.0 && floor_ms / l4 < 0.1, "floor {floor_ms} ms of {h100} and {l4}");
    // AccelMark's two measured steps, inside the fitted decode band of the mid.
    for (id, family, measured_ms) in [("l4", GpuFamily::NvidiaGddr, 61.2), ("h100-sxm", GpuFamily::NvidiaHbm, 7.74)] {
        assert!(efficiency(Engine::Vllm, family).measured, "{id}");
        let ratio = step_ms(id) / measured_ms;
        assert!(ratio >= DECODE.fitted.0 && ratio <= DECODE.fitted.1, "{id}: measured / model {ratio}");
    }
    // SGLang runs the same kernels and takes the same step.
    assert_eq!(decode_step_s(&j, gpu("l4"), Engine::Sglang, &Layout::Single, 1.0, 435.0), l4 / 1e3);
}

/// A decode step's per-layer floor is a count of GPU cycles: the fitted time per layer is quoted
/// at the H100 SXM's 1,980 MHz boost clock and runs in 1,980 / boost of it on another card.
/// Raising llama.cpp's CUDA time per layer by 0.01 ms lengthens a Llama 3 8B step (32 layers) by
/// 32 × 0.01 ms × 1,980 / 2,617 = 0.2421 ms on an RTX 5080 (2,617 MHz boost, NVIDIA's RTX 50
/// series specifications), by 32 × 0.01 × 1,980 / 1,695 = 0.3738 ms on an RTX 3090 (1,695 MHz)
/// and by 0.32 ms on an H100 SXM itself.
#[test]
fn the_per_layer_floor_shortens_with_the_engine_clock() {
    use gpu_advisor::model::llm::{calibrated::CALIBRATED, in_force, throughput::decode_step_s};
    let mut j = job("llama-3-8b");
    j.precision = Precision::Q4KM;
    j.engine = Some(Engine::LlamaCpp);
    let mut slower = CALIBRATED;
    slower.llama_cpp.layer_ms += 0.01;
    for (id, hand_ms) in [("rtx-5080", 32.0 * 0.01 * 1980.0 / 2617.0), ("rtx-3090", 32.0 * 0.01 * 1980.0 / 1695.0), ("h100-sxm", 0.32)] {
        let g = gpu(id);
        let step = |fit| in_force::scoped(fit, || decode_step_s(&j, g, Engine::LlamaCpp, &Layout::Single, 1.0, 512.0));
        let added_ms = (step(&slower) - step(&CALIBRATED)) * 1e3;
        assert!((added_ms - hand_ms).abs() < 1e-9, "{id}: {added_ms} ms vs {hand_ms}");
    }
}
