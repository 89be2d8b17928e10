#![cfg(not(target_arch = "wasm32"))]
//! The 2025 presets: parameter counts against their model cards, each pasted `config.json`
//! (tests/data/configs/, the sizing keys of the Hugging Face file named in its `_source`) against
//! its preset, and memory checks (which cards hold each model, the cache of sliding, chunked and
//! linear-attention layers, FP4 block scales).

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{config_json, estimate_llm, Engine, LlmJob, ModelArch};
use gpu_advisor::model::precision::{KvPrecision, Precision};
use gpu_advisor::model::GIB;

fn config(id: &str) -> ModelArch {
    let path = format!("{}/tests/data/configs/{id}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    config_json::parse_config_json(&text).unwrap_or_else(|n| panic!("{id}: {n}"))
}

/// How a model card counts its active parameters.
#[derive(Clone, Copy)]
enum Active {
    /// Everything a token touches, embeddings included (as `params_active` does).
    All,
    /// Without the input embedding table (gpt-oss model card, Table 1: "Active Params" counts the
    /// unembedding, not the embedding).
    WithoutInputEmbedding,
    /// Without either embedding (GLM-4.5: 32B active = 33.6B − 2 × 0.78B embedding tables).
    NonEmbedding,
    /// The card gives no comparable active count (dense models, or a rounded "A3B"-style name).
    NotStated,
}

/// (preset, card total B, card active B, how the card counts active, card).
const CARDS: &[(&str, f64, f64, Active, &str)] = &[
    ("gpt-oss-20b", 20.91, 3.61, Active::WithoutInputEmbedding, "gpt-oss model card (arXiv 2508.10925) Table 1: 20.91B total, 3.61B active"),
    ("gpt-oss-120b", 116.83, 5.13, Active::WithoutInputEmbedding, "gpt-oss model card Table 1: 116.83B total, 5.13B active"),
    ("llama-4-scout", 109.0, 17.0, Active::All, "huggingface.co/meta-llama/Llama-4-Scout-17B-16E: 17B activated, 109B total"),
    ("llama-4-maverick", 400.0, 17.0, Active::All, "huggingface.co/meta-llama/Llama-4-Maverick-17B-128E: 17B activated, 400B total"),
    ("kimi-k2", 1040.0, 32.6, Active::All, "Kimi K2 technical report (arXiv 2507.20534), architecture table: 1.04T total, 32.6B activated"),
    ("glm-4.5", 355.0, 32.0, Active::NonEmbedding, "huggingface.co/zai-org/GLM-4.5: 355B total, 32B active"),
    ("glm-4.5-air", 106.0, 12.0, Active::NonEmbedding, "huggingface.co/zai-org/GLM-4.5-Air: 106B total, 12B active"),
    // The card's "3B activated" is the rounded name (A3B): the config gives 3.9B (2.0B routed +
    // shared experts, 1.5B attention, 0.3B embedding), checked against that hand calculation below.
    ("qwen3-next-80b-a3b", 80.0, 3.0, Active::NotStated, "huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct: 80B total, 3B activated"),
    ("qwen3-coder-480b-a35b", 480.0, 35.0, Active::All, "huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct: 480B total, 35B activated"),
    ("deepseek-v3.1", 671.0, 37.0, Active::All, "huggingface.co/deepseek-ai/DeepSeek-V3.1: 671B total, 37B activated"),
    ("mistral-small-3.2-24b", 24.0, 0.0, Active::NotStated, "huggingface.co/mistralai/Mistral-Small-3.2-24B-Instruct-2506: 24B"),
    ("phi-4-mini", 3.8, 0.0, Active::NotStated, "huggingface.co/microsoft/Phi-4-mini-instruct: 3.8B parameters"),
    ("qwen2.5-vl-7b", 8.29, 0.0, Active::NotStated, "huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct: model size 8.29B params (safetensors)"),
    ("qwen2.5-vl-72b", 73.4, 0.0, Active::NotStated, "huggingface.co/Qwen/Qwen2.5-VL-72B-Instruct: model size 73.4B params (safetensors)"),
    ("llama-3.2-11b-vision", 10.6, 0.0, Active::NotStated, "huggingface.co/meta-llama/Llama-3.2-11B-Vision: 10.6B params"),
    ("gemma-3-27b", 27.4, 0.0, Active::NotStated, "huggingface.co/google/gemma-3-27b-pt: model size 27.4B params (safetensors)"),
];

#[test]
fn parameter_counts_match_the_model_cards_within_2_percent() {
    let mut failures = Vec::new();
    for (id, total_b, active_b, how, card) in CARDS {
        let m = config(id);
        let embed = m.embedding_params();
        let ours_active = match how {
            Active::All => Some(m.params_active),
            Active::WithoutInputEmbedding => Some(m.params_active - embed),
            Active::NonEmbedding => Some(m.params_active - embed - m.head_params()),
            Active::NotStated => None,
        };
        let total_err = (m.params_total / (total_b * 1e9) - 1.0).abs();
        let active_err = ours_active.map_or(0.0, |a| (a / (active_b * 1e9) - 1.0).abs());
        if total_err > 0.02 || active_err > 0.02 {
            failures.push(format!("{id}: total {:.2}B active {:?} vs {card}", m.params_total / 1e9, ours_active.map(|a| a / 1e9)));
        }
        // The preset holds the same counts as its config.json.
        let p = catalog::llm(id).unwrap_or_else(|| panic!("preset {id}"));
        assert!((p.params_total_b * 1e9 / m.params_total - 1.0).abs() < 0.01, "{id}: preset total {} vs config", p.params_total_b);
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn qwen3_next_active_parameters_by_hand() {
    // Per MoE layer: 10 routed + 1 shared expert of 3 · 2048 · 512 = 3.146M each, router
    // 2048 · 512: 35.65M; × 48 = 1.711B. Attention: 12 gated layers of (2 · 2048 · 4096 +
    // 2048 · 4096 + 2 · 2048 · 512) = 27.26M and 36 DeltaNet layers of 33.66M: 1.539B.
    // Embedding + head 2 · 151936 · 2048 = 0.622B. Total 3.87B.
    let m = config("qwen3-next-80b-a3b");
    assert!((m.params_active / 3.872e9 - 1.0).abs() < 0.01, "{}", m.params_active);
}

#[test]
fn each_pasted_config_gives_its_presets_shape() {
    for (id, ..) in CARDS.iter().chain([("gemma-3n-e4b", 0.0, 0.0, Active::NotStated, "")].iter()) {
        let c = config(id);
        let p = ModelArch::from_spec(catalog::llm(id).unwrap_or_else(|| panic!("preset {id}")));
        let ints = |m: &ModelArch| {
            (m.layers, m.hidden_size, m.attention_heads, m.kv_heads, m.vocab_size, m.max_context, m.tied_embeddings, m.attention, m.sliding_window)
        };
        assert_eq!(ints(&c), ints(&p), "{id}");
        let moe = |m: &ModelArch| (m.experts_total, m.experts_active, m.moe_intermediate_size, m.dense_layers, m.fixed_state_layers, m.kv_lora_rank);
        assert_eq!(moe(&c), moe(&p), "{id}");
        if c.attention != catalog::Attention::Mla {
            assert_eq!(c.head_dim, p.head_dim, "{id}");
        }
        assert!((c.sliding_window_layers_fraction - p.sliding_window_layers_fraction).abs() < 0.01, "{id}");
        assert!((c.fixed_state_elements_per_layer - p.fixed_state_elements_per_layer).abs() <= 1.0, "{id}");
        assert!((c.params_total / p.params_total - 1.0).abs() < 0.01, "{id}: total");
        assert!((c.params_active / p.params_active - 1.0).abs() < 0.02, "{id}: active");
    }
}

fn job(id: &str, precision: Precision, context: u32) -> LlmJob {
    let mut j = LlmJob::for_preset(catalog::llm(id).unwrap_or_else(|| panic!("preset {id}")));
    j.precision = precision;
    j.context_tokens = context;
    j.prompt_tokens = context / 2;
    j.batch = 1;
    j
}

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("gpu {id}"))
}

#[test]
fn gpt_oss_120b_fits_one_80_gb_card_with_its_published_checkpoint_size() {
    // gpt-oss model card (arXiv 2508.10925), Table 1: checkpoint 60.8 GiB; §2: "gpt-oss-120b
    // ... fit[s] on a single 80GB GPU". MXFP4 experts (4.25 bits) + BF16 attention/embeddings.
    let j = job("gpt-oss-120b", Precision::Mxfp4, 8192);
    let e = estimate_llm(&j, gpu("h100-sxm"), 1).expect("estimate");
    assert!((e.memory.weights_gib / 60.8 - 1.0).abs() < 0.10, "{}", e.memory.weights_gib);
    assert!(e.fits && e.gpus_needed == 1, "{} GiB", e.memory.total_gib);
}

#[test]
fn gpt_oss_20b_fits_in_16_gb() {
    // The gpt-oss model card: gpt-oss-20b "can run within 16GB of memory". A 16 GB card with
    // llama.cpp at 8k loads the GGUF (ggml-org/gpt-oss-20b-GGUF, `MXFP4 MoE`): the routed experts
    // in MXFP4 (4.25 bits), every other tensor in Q8_0 (34 bytes per 32 weights). llama-bench
    // prints it as "gpt-oss 20B MXFP4 MoE 11.27 GiB" (ggml-org/llama.cpp benches/dgx-spark/
    // dgx-spark.md; llama.cpp#15546). By hand: 19.11e9 expert weights × 4.25/8 = 10.15 GB, the
    // other 1.80e9 (attention, router, embedding, head) × 34/32 = 1.91 GB: 12.06 GB = 11.24 GiB.
    let mut j = job("gpt-oss-20b", Precision::Mxfp4, 8192);
    j.engine = Some(Engine::LlamaCpp);
    let experts = j.model.routed_expert_params();
    let others = j.model.params_total - experts;
    assert!((experts / 19.11e9 - 1.0).abs() < 1e-3 && (others / 1.80e9 - 1.0).abs() < 0.01, "{experts} + {others}");
    let by_hand = (19.11e9 * 4.25 / 8.0 + 1.80e9 * 34.0 / 32.0) / GIB;
    let e = estimate_llm(&j, gpu("rtx-5060-ti-16gb"), 1).expect("estimate");
    assert!((e.memory.weights_gib / by_hand - 1.0).abs() < 0.005, "{} vs {by_hand}", e.memory.weights_gib);
    assert!((e.memory.weights_gib / 11.27 - 1.0).abs() < 0.01, "{}", e.memory.weights_gib);
    assert!(e.fits, "{} GiB", e.memory.total_gib);
    // The checkpoint itself (model card Table 1: 12.8 GiB) keeps everything but the experts in
    // BF16: 10.15 GB + 1.80e9 × 2 B = 13.75 GB = 12.8 GiB, what vLLM loads.
    j.engine = Some(Engine::Vllm);
    let e = estimate_llm(&j, gpu("h100-sxm"), 1).expect("estimate");
    assert!((e.memory.weights_gib / 12.8 - 1.0).abs() < 0.02, "{}", e.memory.weights_gib);
}

#[test]
fn llama_4_scout_int4_fits_one_h100() {
    // Meta's Llama 4 model card: Scout "fits on a single H100 GPU" with int4 quantization
    // (Meta's llama-models int4_mixed runs it on 1 GPU, Fixstars' reproduction of 2025-04-10).
    // Int4 weights: 109B × 4 bits = 54.5 GB = 50.8 GiB by hand; ours keeps embeddings in 16 bits
    // and counts GPTQ/AWQ group scales (4.156 bits).
    let j = job("llama-4-scout", Precision::Int4, 8192);
    let e = estimate_llm(&j, gpu("h100-sxm"), 1).expect("estimate");
    assert!((e.memory.weights_gib / 50.8 - 1.0).abs() < 0.10, "{}", e.memory.weights_gib);
    assert!(e.fits && e.gpus_needed == 1, "{} GiB", e.memory.total_gib);
}

#[test]
fn qwen3_next_kv_at_256k_holds_only_the_full_attention_layers() {
    // Hand calculation from the config.json: 48 layers, full_attention_interval 4 → 12 layers
    // cache K and V: 2 · 2 KV heads · 256 · 262,144 tokens · 12 · 2 B = 6,442,450,944 B = 6 GiB;
    // the 36 Gated DeltaNet layers hold 548,864 elements each (32 · 128 · 128 recurrent state +
    // 3 · 8192 conv): 36 · 548,864 · 2 B = 39,518,208 B. Total 6.0368 GiB (all 48 layers
    // caching would be 24 GiB).
    let mut j = job("qwen3-next-80b-a3b", Precision::Bf16, 262_144);
    j.kv_precision = KvPrecision::Fp16;
    let e = estimate_llm(&j, gpu("h100-sxm"), 4).expect("estimate");
    let expected = (6_442_450_944.0 + 39_518_208.0) / GIB;
    assert!((e.memory.kv_cache_gib / expected - 1.0).abs() < 1e-6, "{} vs {expected}", e.memory.kv_cache_gib);
}

#[test]
fn sliding_and_chunked_layers_cap_their_cache() {
    // gpt-oss-120b at 131,072 tokens: 18 full layers cache every token, 18 sliding layers 128:
    // 2 · 8 · 64 · (18 · 131,072 + 18 · 128) elements.
    let m = config("gpt-oss-120b");
    assert_eq!(m.kv_elements(131_072.0), 2.0 * 8.0 * 64.0 * (18.0 * 131_072.0 + 18.0 * 128.0));
    // Llama 4 Scout: 36 of 48 layers attend in chunks of 8192, 12 in full.
    let m = config("llama-4-scout");
    assert_eq!(m.kv_elements(1e6), 2.0 * 8.0 * 128.0 * (12.0 * 1e6 + 36.0 * 8192.0));
}

#[test]
fn fp4_formats_cost_their_block_scales() {
    // OCP MX v1.0: 32 E2M1 values share an 8-bit scale: 4 + 8/32. NVFP4: 16 values per FP8
    // scale: 4 + 8/16 (the per-tensor fp32 scale is negligible).
    assert_eq!(Precision::Mxfp4.bits_per_weight(), 4.25);
    assert_eq!(Precision::Nvfp4.bits_per_weight(), 4.5);
    // llama.cpp tools/quantize/README.md, Llama 3.1 8B: 4.4597, 3.2548 and 3.6429 bits/weight.
    for (p, bpw) in [(Precision::Iq4Xs, 4.4597), (Precision::Iq3Xxs, 3.2548), (Precision::Q3KS, 3.6429)] {
        assert!((p.bits_per_weight() - bpw).abs() < 0.01 && p.is_gguf(), "{p}");
    }
    for name in ["mxfp4", "nvfp4", "iq4_xs", "iq3_xxs", "q3_k_s"] {
        assert_eq!(Precision::parse(name).map(|p| p.as_str()), Some(name));
    }
}

#[test]
fn mxfp4_quantizes_only_the_experts_of_an_moe() {
    // gpt-oss-20b: experts 24 · 32 · 3 · 2880² = 19.11B at 4.25 bits = 10.15 GB; the rest of
    // the body (0.64B attention, router) and 2 · 0.579B embeddings at 2 B.
    let j = job("gpt-oss-20b", Precision::Mxfp4, 4096);
    let (body, embed, head) = gpu_advisor::model::llm::memory::weight_bytes(&j);
    let experts = 24.0 * 32.0 * 3.0 * 2880.0 * 2880.0;
    let rest = j.model.body_params() - experts;
    assert!((body - (experts * 4.25 / 8.0 + rest * 2.0)).abs() < 1e6, "{body}");
    assert_eq!((embed, head), (j.model.embedding_params() * 2.0, j.model.head_params() * 2.0));
}

#[test]
fn fp4_runs_at_the_fp4_rate_only_where_the_card_has_one() {
    // Blackwell (B200: 9,000 dense FP4 TFLOPS) computes MXFP4 prefill faster than BF16; Hopper
    // has no FP4 units (vLLM dequantizes with its Marlin MXFP4 kernel), so its prefill is the
    // 16-bit one's at most.
    let prefill = |p: Precision, g: &str| {
        let mut j = job("gpt-oss-120b", p, 8192);
        j.engine = Some(Engine::Vllm);
        let e = estimate_llm(&j, gpu(g), 1).expect("estimate");
        e.throughput.prefill_tokens_per_s.expect("prefill").mid
    };
    assert!(prefill(Precision::Mxfp4, "b200") > prefill(Precision::Bf16, "b200"));
    assert!(prefill(Precision::Mxfp4, "h100-sxm") <= prefill(Precision::Bf16, "h100-sxm") * 1.0001);
}

#[test]
fn unknown_model_type_with_expert_keys_is_an_moe_and_says_so() {
    let text = r#"{"model_type":"brand_new_moe","hidden_size":2048,"num_hidden_layers":24,"num_attention_heads":16,
      "num_key_value_heads":4,"vocab_size":100000,"intermediate_size":8192,"moe_intermediate_size":1024,
      "num_experts":64,"num_experts_per_tok":4}"#;
    let (m, notes) = config_json::parse_config_json_with_notes(text).expect("parses");
    assert!(m.is_moe() && m.experts_total == 64, "{m:?}");
    // Total: 24 · (attention 2 · 2048² + 2 · 2048 · 512 = 10.49M + router 0.13M + 64 · 3 · 2048
    // · 1024 = 402.65M) + 2 · 100000 · 2048 = 10.32B.
    assert!((m.params_total / 10.321e9 - 1.0).abs() < 0.005, "{}", m.params_total);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].to_string().contains("mixture-of-experts"), "{}", notes[0]);
}

#[test]
fn new_layouts_name_a_missing_key() {
    let cases = [
        (r#"{"model_type":"qwen3_next","hidden_size":2048,"num_hidden_layers":48,"num_attention_heads":16,"vocab_size":151936,"intermediate_size":5120,"full_attention_interval":4}"#, "linear_num_key_heads"),
        (r#"{"model_type":"mllama","text_config":{"hidden_size":4096,"num_hidden_layers":40,"num_attention_heads":32,"vocab_size":128256,"intermediate_size":14336,"cross_attention_layers":[3]}}"#, "vision_config"),
        (r#"{"model_type":"llama4","text_config":{"hidden_size":5120,"num_hidden_layers":48,"num_attention_heads":40,"vocab_size":202048,"intermediate_size":8192,"num_local_experts":128,"interleave_moe_layer_step":2}}"#, "intermediate_size_mlp"),
    ];
    for (text, key) in cases {
        let err = config_json::parse_config_json(text).expect_err(key);
        assert!(err.to_string().contains(key), "{err}");
    }
}

#[test]
fn llama_cpp_multiplies_mxfp4_below_the_16_bit_rate() {
    // llama.cpp multiplies an MXFP4 GGUF through its quantized matrix-multiply kernels, not the FP4
    // tensor rate. DGX Spark (GB10): 16-bit tensor rate 2 × 31 FP32 TFLOPS = 62 TFLOPS (the RTX 50
    // rule, data/gpus.toml). gpt-oss-20b computes 2 FLOPs per active weight per token, 3.61B active
    // (model card Table 1), so prompt processing cannot pass 62e12 / (2 · 3.61e9) = 8,587 tokens/s.
    // At the 500 TFLOPS FP4 rate the bound would be 69,252. ggml-org/llama.cpp
    // benches/dgx-spark/dgx-spark.md measures 4,506 tokens/s at pp2048 (-ub 2048) on this box.
    let mut j = job("gpt-oss-20b", Precision::Mxfp4, 4096);
    j.engine = Some(Engine::LlamaCpp);
    let e = estimate_llm(&j, gpu("dgx-spark"), 1).expect("estimate");
    let pp = e.throughput.prefill_tokens_per_s.expect("prefill").mid;
    assert!(pp <= 62e12 / (2.0 * 3.61e9), "{pp}");
}
