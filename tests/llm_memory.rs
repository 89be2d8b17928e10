#![cfg(not(target_arch = "wasm32"))]
//! LLM memory and GPU-count scenarios. Each expected number is either a hand calculation
//! written next to it or a figure from a cited source:
//! - seed 003 (`../shared/seeds/003_*.txt`, UCloud, "大模型推理为什么4090更合适"): a 70B fp16 model
//!   is 140 GB of weights + ~40 GB of KV cache = 180 GB, which needs 3 × H100 80GB or 8 × RTX 4090;
//! - seed 004 (`../shared/seeds/004_*.txt`): a 7B model trained in fp16 with Adam needs 14 GB of
//!   weights + 28 GB of optimizer state and more, beyond a 24 GB card without sharding or offload.

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{config_json, custom, estimate_llm, gpus_needed, memory, Engine, LlmJob, ModelArch, Optimizer, Workload};
use gpu_advisor::model::precision::{KvPrecision, Precision};
use gpu_advisor::model::GIB;

#[track_caller]
fn job(preset: &str) -> LlmJob {
    LlmJob::for_preset(catalog::llm(preset).unwrap_or_else(|| panic!("preset {preset}")))
}

#[track_caller]
fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("gpu {id}"))
}

#[track_caller]
fn close(actual: f64, expected: f64, rel: f64) {
    assert!((actual - expected).abs() <= rel * expected.abs(), "{actual} is not within {rel} of {expected}");
}

#[test]
fn kv_cache_of_llama_3_70b_at_8192_tokens_is_2_5_gib_and_mha_is_8x() {
    // 2 (K and V) · 80 layers · 8 KV heads · 128 head_dim · 8192 tokens · 2 bytes
    // = 2,684,354,560 B = 2.5 GiB exactly.
    let mut j = job("llama-3-70b");
    j.context_tokens = 8192;
    j.batch = 1;
    j.kv_precision = KvPrecision::Fp16;
    let e = estimate_llm(&j, gpu("h100-sxm"), 2).expect("estimate");
    close(e.memory.kv_cache_gib, 2.5, 1e-9);
    // The same shape with multi-head attention (64 KV heads) caches 64/8 = 8× as much: 20 GiB.
    j.model.kv_heads = 64;
    j.model.attention = catalog::Attention::Mha;
    let e = estimate_llm(&j, gpu("h100-sxm"), 2).expect("estimate");
    close(e.memory.kv_cache_gib, 20.0, 1e-9);
}

/// Seed 003's job: Llama 2 70B in fp16 with about 40 GB of KV cache. KV per token =
/// 2·80·8·128·2 B = 327,680 B; 30 sequences × 4096 tokens = 122,880 tokens → 40.27 GB
/// (37.5 GiB). Weights 68.98e9 · 2 B = 137.96 GB. Sum 178.2 GB ≈ the seed's 180 GB.
fn seed_003_job() -> LlmJob {
    let mut j = job("llama-2-70b");
    j.precision = Precision::Fp16;
    j.context_tokens = 4096;
    j.batch = 30;
    // Layer split, as the seed divides the total by the cards.
    j.engine = Some(Engine::LlamaCpp);
    j
}

#[test]
fn seed_003_70b_fp16_with_40_gb_of_kv_is_about_180_gb() {
    let e = estimate_llm(&seed_003_job(), gpu("h100-sxm"), 3).expect("estimate");
    close(e.memory.kv_cache_gib * GIB / 1e9, 40.27, 0.001);
    close(e.memory.weights_gib * GIB / 1e9, 137.96, 0.001);
    let total_gb = e.memory.total_gib * GIB / 1e9;
    assert!((175.0..=190.0).contains(&total_gb), "total {total_gb} GB, seed says ~180 GB");
}

#[test]
fn seed_003_needs_3_h100_or_8_rtx_4090() {
    let j = seed_003_job();
    assert_eq!(gpus_needed(&j, gpu("h100-sxm")).expect("h100"), 3);
    assert_eq!(gpus_needed(&j, gpu("rtx-4090")).expect("4090"), 8);
    let e = estimate_llm(&j, gpu("rtx-4090"), 8).expect("estimate");
    assert!(e.fits);
    let e = estimate_llm(&j, gpu("h100-sxm"), 2).expect("estimate");
    assert!(!e.fits, "two H100s hold the weights but not the 40 GB of KV (seed 003)");
}

#[test]
fn seed_004_7b_fp16_full_finetune_with_adamw_does_not_fit_in_24_gb() {
    // 6.74e9 params · (2 B weights + 2 B grads + 4 B fp32 master + 8 B Adam moments)
    // = 107.8e9 B = 100.4 GiB before activations (ZeRO paper §3.1: 16Ψ bytes).
    let mut j = job("llama-2-7b");
    j.workload = Workload::FinetuneFull;
    j.precision = Precision::Fp16;
    j.optimizer = Optimizer::AdamW;
    j.seq_len = 512;
    let e = estimate_llm(&j, gpu("rtx-4090"), 1).expect("estimate");
    assert!(!e.fits);
    let states = e.memory.weights_gib + e.memory.gradients_gib + e.memory.optimizer_gib;
    close(states, 6.74e9 * 16.0 / GIB, 1e-9);
    assert!(e.gpus_needed > 1);
}

#[test]
fn moe_keeps_every_expert_resident() {
    // Mixtral 8x7B: 46.7e9 params · 2 B = 86.98 GiB of weights, not the 12.9B active.
    let e = estimate_llm(&job("mixtral-8x7b"), gpu("h100-sxm"), 2).expect("estimate");
    close(e.memory.weights_gib, 46.7e9 * 2.0 / GIB, 1e-9);
}

#[test]
fn gguf_q4_k_m_is_4_84_bits_per_weight() {
    // llama.cpp tools/quantize/README.md: Q4_K_M = 4.84 bpw (Llama 2 7B).
    assert_eq!(Precision::Q4KM.bits_per_weight(), 4.84);
    let mut j = job("llama-3-8b");
    j.precision = Precision::Q4KM;
    let e = estimate_llm(&j, gpu("rtx-4090"), 1).expect("estimate");
    // 8.03e9 · 4.84 / 8 = 4.858e9 B = 4.52 GiB.
    close(e.memory.weights_gib, 8.03e9 * 4.84 / 8.0 / GIB, 1e-9);
}

#[test]
fn int4_and_nf4_carry_their_scale_overhead() {
    // GPTQ g128: 4 + (16 + 4)/128 = 4.15625 bpw. NF4 as transformers stores it by default
    // (`bnb_4bit_use_double_quant=False`): 4 + 32/64 = 4.5; with double quant 4 + 8/64 + 32/16384
    // = 4.127.
    assert_eq!(Precision::Int4.bits_per_weight(), 4.15625);
    close(Precision::Nf4.bits_per_weight(), 4.5, 1e-12);
    close(gpu_advisor::model::precision::nf4_bits_per_weight(true), 4.126953125, 1e-12);
}

#[test]
fn mla_caches_the_latent_not_the_heads() {
    // DeepSeek V3: (kv_lora_rank 512 + rope 64) · 61 layers · 2 B = 70,272 B per token.
    let mut j = job("deepseek-v3");
    j.context_tokens = 1000;
    let e = estimate_llm(&j, gpu("h200-sxm"), 8).expect("estimate");
    close(e.memory.kv_cache_gib, 70_272.0 * 1000.0 / GIB, 1e-9);
}

#[test]
fn sliding_window_layers_cap_their_kv() {
    // Gemma 2 9B, 8192 tokens: half of 42 layers full (8192), half capped at 4096.
    // 2 · 8 · 256 · 2 B = 8192 B per token per layer → 8192 · (21·8192 + 21·4096) B = 2.0156 GiB.
    let mut j = job("gemma-2-9b");
    j.context_tokens = 8192;
    let e = estimate_llm(&j, gpu("rtx-4090"), 1).expect("estimate");
    close(e.memory.kv_cache_gib, 8192.0 * (21.0 * 8192.0 + 21.0 * 4096.0) / GIB, 1e-9);
}

#[test]
fn qlora_8b_fits_a_16_gb_card_and_full_finetune_does_not() {
    let mut j = job("llama-3.1-8b");
    j.workload = Workload::Qlora;
    j.batch = 1;
    j.seq_len = 1024;
    j.grad_checkpointing = gpu_advisor::model::llm::Checkpointing::Full;
    assert!(estimate_llm(&j, gpu("rtx-4060-ti-16gb"), 1).expect("qlora").fits);
    j.workload = Workload::FinetuneFull;
    j.precision = Precision::Bf16;
    assert!(!estimate_llm(&j, gpu("rtx-4060-ti-16gb"), 1).expect("full").fits);
}

#[test]
fn zero_3_shards_the_states_over_gpus() {
    let mut j = job("llama-3.1-8b");
    j.workload = Workload::FinetuneFull;
    j.precision = Precision::Bf16;
    j.zero = 3;
    j.auto_layout = false;
    let one = estimate_llm(&j, gpu("a100-80gb-sxm"), 1).expect("1").per_gpu_gib;
    let eight = estimate_llm(&j, gpu("a100-80gb-sxm"), 8).expect("8").per_gpu_gib;
    // 16 B/param states: 8.03e9 · 16 / GIB = 119.7 GiB on one GPU, 1/8 of that on each of eight.
    assert!(one > 119.0 && eight < one / 3.0, "{one} vs {eight}");
}

#[test]
fn custom_13b_follows_the_scaling_rule() {
    // d = (128 · N / 12)^(1/3) after removing embeddings: 13e9 → d ≈ 5120, L = 5120/128 = 40,
    // which is Llama 2 13B's shape (hidden 5120, 40 layers).
    let m = custom::arch_from_params(custom::parse_param_count("13b").expect("13b")).expect("arch");
    assert_eq!((m.hidden_size, m.layers), (5120, 40));
    assert_eq!(custom::parse_param_count("350m").expect("350m"), 350e6);
    assert_eq!(custom::parse_param_count("1e30").expect_err("1e30").field(), "params");
}

#[test]
fn config_json_reports_missing_keys_by_name() {
    let err = config_json::arch_from_config_json(r#"{"model_type":"llama","hidden_size":4096,"num_attention_heads":32,"vocab_size":32000,"intermediate_size":11008}"#)
        .expect_err("missing layers");
    assert!(err.to_string().contains("num_hidden_layers"), "{err}");
}

#[test]
fn config_json_mixtral_counts_every_expert() {
    // mistralai/Mixtral-8x7B-v0.1 config.json.
    let text = r#"{"model_type":"mixtral","hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,
      "num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":32000,"num_local_experts":8,
      "num_experts_per_tok":2,"max_position_embeddings":32768,"tie_word_embeddings":false}"#;
    let m = config_json::arch_from_config_json(text).expect("mixtral");
    // Per layer: attention 2·4096·4096 + 2·4096·1024 = 41.9M; experts 8 · 3·4096·14336 = 1409.3M;
    // router 32768. × 32 layers + 2 · 32000 · 4096 embeddings = 46.70e9 (Mistral: 46.7B).
    close(m.params_total, 46.70e9, 0.005);
    close(m.params_active, 12.88e9, 0.01);
}

#[test]
fn config_json_deepseek_v3_is_mla() {
    // deepseek-ai/DeepSeek-V3 config.json (keys that matter for sizing).
    let text = r#"{"model_type":"deepseek_v3","hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,
      "num_attention_heads":128,"num_key_value_heads":128,"num_hidden_layers":61,"vocab_size":129280,
      "kv_lora_rank":512,"q_lora_rank":1536,"qk_rope_head_dim":64,"qk_nope_head_dim":128,"v_head_dim":128,
      "n_routed_experts":256,"n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,
      "max_position_embeddings":163840,"tie_word_embeddings":false}"#;
    let m = config_json::arch_from_config_json(text).expect("deepseek");
    assert_eq!(m.attention, catalog::Attention::Mla);
    // DeepSeek reports 671B total (+14B MTP module not counted here) and 37B active.
    close(m.params_total, 671e9, 0.01);
    close(m.params_active, 37e9, 0.05);
}

#[test]
fn out_of_range_inputs_name_their_field() {
    let mut j = job("llama-3-8b");
    j.context_tokens = 0;
    assert_eq!(estimate_llm(&j, gpu("rtx-4090"), 1).expect_err("context").field(), "context");
    let mut j = job("llama-3-8b");
    j.batch = 1_000_000_000;
    assert_eq!(estimate_llm(&j, gpu("rtx-4090"), 1).expect_err("batch").field(), "batch");
    let mut j = job("llama-3-8b");
    j.model.params_total = 1e30;
    assert_eq!(estimate_llm(&j, gpu("rtx-4090"), 1).expect_err("params").field(), "params");
    let mut j = job("llama-3-8b");
    j.model.params_total = f64::NAN;
    assert_eq!(estimate_llm(&j, gpu("rtx-4090"), 1).expect_err("nan").field(), "params");
    assert_eq!(estimate_llm(&job("llama-3-8b"), gpu("rtx-4090"), 0).expect_err("gpus").field(), "gpus");
}

#[test]
fn default_job_is_valid_everywhere() {
    let j = LlmJob::default();
    for g in catalog::gpus() {
        let e = estimate_llm(&j, g, 1).unwrap_or_else(|e| panic!("{}: {e}", g.id));
        assert!(e.memory.total_gib.is_finite() && e.gpus_needed >= 1, "{}", g.id);
    }
    let _: ModelArch = j.model;
}

/// Llama 2 7B LoRA on q and v, rank 8, eager PyTorch, 16-bit adapters, no dropout.
fn lora_qv_7b() -> LlmJob {
    let mut j = job("llama-2-7b");
    j.workload = Workload::Lora;
    j.precision = Precision::Bf16;
    j.master_weights = false;
    j.lora_rank = 8;
    j.lora_targets = gpu_advisor::model::llm::LoraTargets::AttentionQv;
    j
}

#[test]
fn a_lora_layer_keeps_what_its_frozen_linears_do_not_need() {
    // Llama 2 7B: h = hq = kv_dim = 4096, I = 11008. Autograd keeps no input of a frozen linear
    // (gen_variable_type.py guards each save with should_compute_output), so per token per layer:
    //   two RMSNorm inputs in fp32:            2 · 4 · 4096 =  32,768
    //   Q, K, V and the attention output:      4·4096 + 4·4096 =  32,768
    //   SwiGLU gate, SiLU(gate), up:           6 · 11008    =  66,048
    //   q and v share their input (no dropout): 2 · 4096    =   8,192
    //   x·A of the two adapters:               2 · 8 · 2    =      32
    //   total                                                = 139,808 B
    let j = lora_qv_7b();
    close(memory::adapter_activation_bytes_per_token_layer(&j, 2048.0, false), 139_808.0, 1e-12);
    // With dropout each adapted matrix keeps its own dropped-out copy (2 B) and mask (1 B):
    // 2 · 3 · 4096 = 24,576 in place of 8,192 → 156,192 B.
    let mut d = j.clone();
    d.lora_dropout = true;
    close(memory::adapter_activation_bytes_per_token_layer(&d, 2048.0, false), 156_192.0, 1e-12);
    // The full fine-tune keeps every linear's input: 8h + 4hq + 4kv + 8I = 32768 + 16384 +
    // 16384 + 88064 = 153,600 B, more than the adapter job without dropout.
    let mut f = j.clone();
    f.workload = Workload::FinetuneFull;
    close(memory::activation_bytes_per_token_layer(&f, 2048.0, false), 153_600.0, 1e-12);
}

#[test]
fn bitsandbytes_before_0_43_2_keeps_every_4bit_linear_input() {
    // bitsandbytes' MatMul4Bit saved its input A until PR #1270 (0.43.2). With no dropout the
    // q/v adapters already share the attention input, so it adds the o_proj input 2·4096, the
    // FFN input 2·4096 and down's input 2·11008: 8192 + 8192 + 22016 = 38,400 B on top of the
    // 139,808 B of `a_lora_layer_keeps_what_its_frozen_linears_do_not_need`: 178,208 B.
    let mut j = lora_qv_7b();
    j.workload = Workload::Qlora;
    j.nf4_keeps_inputs = true;
    close(memory::adapter_activation_bytes_per_token_layer(&j, 2048.0, false), 178_208.0, 1e-12);
    // With dropout the adapters keep copies, so bitsandbytes' attention input counts too:
    // 156,192 + 8192 + 38,400 = 202,784 B. (LitGPT's resource table, Llama 2 7B at 1304 tokens,
    // A100, bitsandbytes 0.41.1: QLoRA keeps about 13·h per token per layer more than the
    // bf16-base LoRA once the weights are set aside; this term is 46,592 B = 11.4·h.)
    j.lora_dropout = true;
    close(memory::adapter_activation_bytes_per_token_layer(&j, 2048.0, false), 202_784.0, 1e-12);
    // Later bitsandbytes (and torchao's NF4) keep nothing of the frozen base: the LoRA figure.
    j.nf4_keeps_inputs = false;
    close(memory::adapter_activation_bytes_per_token_layer(&j, 2048.0, false), 156_192.0, 1e-12);
}

#[test]
fn compiled_lora_recomputes_the_adapter_inputs() {
    // torch.compile's min-cut partitioner keeps the norms' 16-bit inputs (2 · 2 · 4096 =
    // 16,384), Q, K, V and the output (32,768), gate and up (4 · 11008 = 44,032) and recomputes
    // the adapters' inputs from them; x·A stays (32): 93,216 B.
    let mut j = lora_qv_7b();
    j.torch_compile = true;
    j.lora_dropout = true;
    close(memory::adapter_activation_bytes_per_token_layer(&j, 2048.0, false), 93_216.0, 1e-12);
}

#[test]
fn qlora_holds_one_dequantized_weight_matrix() {
    // The largest Llama 2 7B matrix is an FFN projection, 4096 × 11008, dequantized to bf16:
    // 4096 · 11008 · 2 = 90,177,536 B. A 16-bit LoRA base dequantizes nothing.
    let mut j = lora_qv_7b();
    close(memory::nf4_dequant_buffer_bytes(&j), 0.0, 0.0);
    j.workload = Workload::Qlora;
    close(memory::nf4_dequant_buffer_bytes(&j), 90_177_536.0, 1e-12);
}
