#![cfg(not(target_arch = "wasm32"))]
//! Vision-language inputs: image tokens by each model's own rule, and what they add
//! to the KV cache and the prefill. Every expected count is a hand calculation from the
//! processor source it cites:
//! - Qwen2.5-VL: `smart_resize` in transformers `models/qwen2_vl/image_processing_qwen2_vl.py`
//!   (`round_by_factor` = Python `round`, factor 28; above `max_pixels` each side is
//!   `floor(side / beta / 28) * 28` with `beta = sqrt(h·w / max_pixels)`; below `min_pixels`,
//!   `ceil(side · beta / 28) * 28`), with qwen-vl-utils' `MIN_PIXELS = 4·28·28`,
//!   `MAX_PIXELS = 16384·28·28`.
//! - Pixtral (Mistral Small 3.x): `get_resize_output_image_size` in transformers
//!   `models/pixtral/image_processing_pixtral.py` (longest edge ≤ 1540, floor, then each side up
//!   to whole 14-px patches) and the processor's token layout (`height // 28` rows of
//!   `width // 28` `[IMG]` tokens, each row closed by `[IMG_BREAK]`, the last by `[IMG_END]`).
//! - mllama: (560 / 14)² + 1 = 1601 tokens per tile, every image padded to 4 tiles (transformers
//!   `model_doc/mllama`, "Usage Tips").
//! - Gemma 3: 256 tokens per image at 896 × 896 (ai.google.dev/gemma/docs/capabilities/vision).

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{self, config_json, vision, LlmJob};

fn job(id: &str, images: u32, w: u32, h: u32) -> LlmJob {
    let mut j = LlmJob::for_preset(catalog::llm(id).unwrap_or_else(|| panic!("preset {id}")));
    (j.images, j.image_width_px, j.image_height_px) = (images, w, h);
    j
}

#[track_caller]
fn tokens(id: &str, w: u32, h: u32) -> vision::ImageTokens {
    let v = catalog::llm(id).and_then(|s| s.vision.as_ref()).unwrap_or_else(|| panic!("{id} has no vision rule"));
    vision::tokens_per_image(v, w, h)
}

fn gpu(id: &str) -> &'static catalog::Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("gpu {id}"))
}

#[test]
fn qwen25_vl_smart_resize_counts() {
    // 1024 × 1024: round(1024 / 28) = round(36.57) = 37 → 1036 px a side; 1036² = 1,073,296 is
    // within [3136, 12,845,056]; one token per 28 × 28: 37 × 37 = 1369.
    let t = tokens("qwen2.5-vl-7b", 1024, 1024);
    assert_eq!((t.resized_width_px, t.resized_height_px, t.prompt_tokens), (1036, 1036, 1369));
    // 4000 × 3000: round(142.86) = 143 → 4004, round(107.14) = 107 → 2996; 4004 · 2996 =
    // 11,995,984 ≤ max: 143 × 107 = 15,301.
    assert_eq!(tokens("qwen2.5-vl-7b", 4000, 3000).prompt_tokens, 15_301);
    // 8000 × 6000 rounds to 8008 × 5992 = 47,983,936 > 12,845,056: beta = sqrt(48e6 / 12,845,056)
    // = 1.93309; 8000 / 1.93309 / 28 = 147.80 → 147; 6000 / 1.93309 / 28 = 110.85 → 110:
    // 147 × 110 = 16,170 tokens (4116 × 3080 px).
    let t = tokens("qwen2.5-vl-72b", 8000, 6000);
    assert_eq!((t.resized_width_px, t.resized_height_px, t.prompt_tokens), (4116, 3080, 16_170));
    // 20 × 20 rounds to 28 × 28 = 784 < 3136: beta = sqrt(3136 / 400) = 2.8; 20 · 2.8 = 56 →
    // ceil(56 / 28) = 2: 56 × 56 px, 2 × 2 = 4 tokens.
    assert_eq!(tokens("qwen2.5-vl-7b", 20, 20).prompt_tokens, 4);
    // The tower encodes the 14-px patches before the 2 × 2 merge: 4 per token.
    assert_eq!(tokens("qwen2.5-vl-7b", 1024, 1024).encoder_patches, 4.0 * 1369.0);
}

#[test]
fn pixtral_longest_edge_counts_with_row_breaks() {
    // 1024 × 1024 is under 1540: ceil(1024 / 14) = 74 patches → 1036 px; 1036 // 28 = 37 rows and
    // columns: 37 · 37 + 37 breaks = 1406.
    let t = tokens("mistral-small-3.2-24b", 1024, 1024);
    assert_eq!((t.resized_width_px, t.prompt_tokens), (1036, 1406));
    // 3000 × 2000: ratio = 3000 / 1540 = 1.948 → 1540 × floor(1026.67) = 1026; 1026 pads to
    // ceil(73.3) = 74 patches = 1036 px. 1540 // 28 = 55 columns, 1036 // 28 = 37 rows:
    // 55 · 37 + 37 = 2072.
    let t = tokens("mistral-small-3.2-24b", 3000, 2000);
    assert_eq!((t.resized_width_px, t.resized_height_px, t.prompt_tokens), (1540, 1036, 2072));
}

#[test]
fn gemma3_and_mllama_fixed_counts() {
    // Gemma 3: 256 whatever the input (896 × 896); SigLIP's (896 / 14)² = 4096 patches.
    for (w, h) in [(300, 200), (4000, 3000)] {
        let t = tokens("gemma-3-27b", w, h);
        assert_eq!((t.prompt_tokens, t.cross_tokens, t.encoder_patches), (256, 0, 4096.0));
    }
    // mllama: 4 tiles × 1601 = 6404 tokens of cross-attention K and V, one <|image|> in the prompt.
    let t = tokens("llama-3.2-11b-vision", 1024, 768);
    assert_eq!((t.prompt_tokens, t.cross_tokens), (1, 6404));
}

#[test]
fn images_grow_the_kv_cache_by_hand() {
    let g = gpu("h100-sxm");
    let kv = |j: &LlmJob| llm::estimate_llm(j, g, 1).expect("estimate").memory.kv_cache_gib;
    // Qwen2.5-VL 7B: 28 layers × 2 × 4 KV heads × 128 = 28,672 elements per token, 2 bytes each
    // (fp16 KV) = 57,344 B. Two 1024² images add 2 × 1369 = 2738 tokens: 2738 × 57,344 B =
    // 157,007,872 B = 0.146225 GiB.
    let grow = kv(&job("qwen2.5-vl-7b", 2, 1024, 1024)) - kv(&job("qwen2.5-vl-7b", 0, 1024, 1024));
    assert!((grow - 0.146_225).abs() < 1e-5, "{grow}");
    // mllama: with no image the preset keeps room for one (8 cross layers × 2 × 8 × 128 × 6404 =
    // 13,115,392 elements per layer); two images hold twice that, and the prompt gains two
    // <|image|> tokens on the 32 self-attention layers: (13,115,392 × 8 + 2 × 32 × 2048) × 2 B =
    // 210,108,416 B = 0.195679 GiB more.
    let grow = kv(&job("llama-3.2-11b-vision", 2, 1024, 1024)) - kv(&job("llama-3.2-11b-vision", 0, 1024, 1024));
    assert!((grow - 0.195_679).abs() < 1e-5, "{grow}");
}

#[test]
fn images_slow_the_prefill_by_the_towers_share() {
    // Two 1024² images on Qwen2.5-VL 7B: 512 + 2738 = 3250 prompt tokens. Against a text prompt
    // of the same 3250 tokens, the prefill also runs the tower: 2 × 0.67e9 × 5476 patches × 2
    // images = 1.468e13 FLOPs, beside the language model's 2 × (7.62e9 − 152,064 × 3584) ×
    // 3250 = 4.599e13 GEMM FLOPs: at most 1 + 0.319 times the time, and at least 1 + 0.319 / 2
    // (attention, 2 × 28 × 3250² × 3584 = 2.1e12 FLOPs, and the per-layer time dilute it by far
    // less than half at this length).
    let g = gpu("h100-sxm");
    let prefill = |j: &LlmJob| llm::estimate_llm(j, g, 1).expect("estimate").throughput.prefill_tokens_per_s.expect("prefill").mid;
    let with_images = job("qwen2.5-vl-7b", 2, 1024, 1024);
    let mut text = job("qwen2.5-vl-7b", 0, 1024, 1024);
    text.prompt_tokens = 3250;
    text.context_tokens = 4096 + 2738;
    let ratio = prefill(&text) / prefill(&with_images);
    assert!(ratio > 1.0 + 0.319 / 2.0 && ratio <= 1.319 + 1e-6, "time ratio {ratio}");
}

#[test]
fn a_text_only_model_names_the_images_field() {
    let e = llm::estimate_llm(&job("llama-3-8b", 1, 1024, 1024), gpu("rtx-4090"), 1).expect_err("text-only");
    assert_eq!(e.field(), "images");
    // Zero images is fine on any model, and a bad size is named.
    assert!(llm::estimate_llm(&job("llama-3-8b", 0, 1024, 1024), gpu("rtx-4090"), 1).is_ok());
    let e = llm::estimate_llm(&job("qwen2.5-vl-7b", 1, 0, 1024), gpu("rtx-4090"), 1).expect_err("zero width");
    assert_eq!(e.field(), "image_resolution");
}

#[test]
fn cli_flags_and_their_errors() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpu-advisor")).args(args).output().expect("run");
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, out, err) = run(&["estimate", "--gpu", "rtx-4090", "--model", "qwen2.5-vl-7b", "--images", "1", "--image-resolution", "1024x1024", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1369 tokens each"), "{out}");
    let (code, _, err) = run(&["estimate", "--gpu", "rtx-4090", "--model", "llama-3-8b", "--images", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("--images"), "{err}");
    let (code, _, err) = run(&["recommend", "--model", "qwen2.5-vl-7b", "--images", "1", "--image-resolution", "1024"]);
    assert_eq!(code, 2);
    assert!(err.contains("--image-resolution"), "{err}");
    let (code, _, err) = run(&["estimate", "--gpu", "rtx-4090", "--model", "qwen2.5-vl-7b", "--images", "-1"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["recommend", "--model", "qwen2.5-vl-7b", "--images", "2", "--top", "1", "--json"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_pasted_config_reads_the_same_rule_as_its_preset() {
    for id in ["qwen2.5-vl-7b", "qwen2.5-vl-72b", "llama-3.2-11b-vision", "gemma-3-27b", "mistral-small-3.2-24b"] {
        let path = format!("{}/tests/data/configs/{id}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let m = config_json::arch_from_config_json(&text).unwrap_or_else(|e| panic!("{id}: {e}"));
        let v = m.vision.as_ref().unwrap_or_else(|| panic!("{id}: no vision rule from config.json"));
        for (w, h) in [(1024, 1024), (3000, 2000)] {
            let (c, p) = (vision::tokens_per_image(v, w, h), tokens(id, w, h));
            assert_eq!((c.prompt_tokens, c.cross_tokens), (p.prompt_tokens, p.cross_tokens), "{id} {w}x{h}");
        }
    }
}

#[test]
fn an_absurd_vision_config_is_dropped_not_overflowed() {
    // Found by the config_json fuzz target (a Gemma 3 file with garbled keys): image_size
    // 2,222,222,897 px over patch_size 68 is 32,679,748 patches a side, and 32,679,748² ≈ 1.07e15
    // overflows a u32. Taken in f64 it is ≈ 4.2e12 patches for each of the default 256 image tokens
    // (`mm_tokens_per_image` 25.6 is not a whole number), far above the 64 any tower has, so the
    // rule fails its range check and the model reads as text-only. Before the fix this panicked.
    let text = r#"{
      "adex": 255999, "eoi_tokn_index": 2.02, "mm_tokens_per_image": 25.6, "model_type": "gemma3",
      "text_config": { "hidden_size": 260, "intermediate_size": 10240, "model_ty`e": "gemma3_text",
        "num_attention_heads": 8, "num_hidden_layers": 34, "vocab_size": 262208 },
      "torch_dtype": "bf50.0.dev0",
      "vision_config": { "hidden_size": 1152, "image_size": 2222222897, "intttention_heads": 16,
        "num_hidden_layers": 27, "patch_size": 68, "vision_use_head": false }
    }"#;
    // Rejecting the file is fine too; panicking is not.
    if let Ok(m) = config_json::parse_config_json(text) {
        assert!(m.vision.is_none(), "an image rule of 4.2e12 patches per token was kept: {:?}", m.vision);
    }
}
