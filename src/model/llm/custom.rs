//! A model from a parameter count alone (`--params 13b`, `350m`): the architecture is inferred by
//! a documented scaling rule, so the KV cache and activations have a shape to work with.
//!
//! Rule (docs/MODEL.md, "Custom models"): a Llama-style dense decoder with SwiGLU, GQA with 8 KV
//! heads, head_dim 128, vocabulary 32 000, context 4096. The non-embedding parameters
//! follow Kaplan et al. 2020 (eq. 2.1) N ≈ 12·L·d²; the aspect ratio is d/L = 128, which is
//! what Llama 2 7B (4096/32) and 13B (5120/40) use. Solving 12·L·d² = N with L = d/128 gives
//! d = (128·N/12)^(1/3), rounded to a multiple of 128.

use super::arch::ModelArch;
use crate::catalog::{Arch, Attention};
use crate::model::types::{check_range, EstimateError, Note};

/// Vocabulary the rule assumes (Llama 2's).
pub const CUSTOM_VOCAB: u32 = 32_000;
/// Context the rule assumes.
pub const CUSTOM_CONTEXT: u32 = 4096;
/// Hidden size per layer in the d/L aspect ratio.
pub const ASPECT_RATIO: f64 = 128.0;

/// Parses `13b`, `350m`, `1.5B`, `7e9`, `125000000` into a parameter count.
pub fn parse_param_count(s: &str) -> Result<f64, EstimateError> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix('t') {
        (n, 1e12)
    } else if let Some(n) = t.strip_suffix('b') {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix('k') {
        (n, 1e3)
    } else {
        (t.as_str(), 1.0)
    };
    let v: f64 = crate::fmath::parse_f64(num.trim())
        .ok_or_else(|| EstimateError::invalid("params", Note::new("`{value}` is not a parameter count (try 13b, 350m)", vec![("value", s.into())])))?;
    check_range("params", v * mult, 1e6, 1e13)
}

/// The inferred architecture for `params` parameters (1e6 ..= 1e13).
pub fn arch_from_params(params: f64) -> Result<ModelArch, EstimateError> {
    let n = check_range("params", params, 1e6, 1e13)?;
    let head_dim = 128.0;
    // Solve once with the total, then once more with the embedding and head removed.
    let mut d = crate::fmath::cbrt(ASPECT_RATIO * n / 12.0);
    for _ in 0..2 {
        let body = (n - 2.0 * f64::from(CUSTOM_VOCAB) * d).max(n * 0.1);
        d = crate::fmath::cbrt(ASPECT_RATIO * body / 12.0);
    }
    let d = ((d / head_dim).round().max(2.0)) * head_dim;
    let layers = (d / ASPECT_RATIO).round().max(2.0);
    let heads = d / head_dim;
    let kv_heads = heads.min(8.0);
    // SwiGLU width 8/3·d, rounded up to a multiple of 256 (Llama's `multiple_of`).
    let inter = ((8.0 / 3.0 * d) / 256.0).ceil() * 256.0;
    Ok(ModelArch {
        id: "custom".into(),
        arch: Arch::Decoder,
        params_total: n,
        params_active: n,
        layers: layers as u32,
        encoder_layers: 0,
        hidden_size: d as u32,
        intermediate_size: inter as u32,
        attention_heads: heads as u32,
        kv_heads: kv_heads as u32,
        head_dim: head_dim as u32,
        vocab_size: CUSTOM_VOCAB,
        max_context: CUSTOM_CONTEXT,
        tied_embeddings: false,
        attention: if kv_heads < heads { Attention::Gqa } else { Attention::Mha },
        sliding_window: None,
        sliding_window_layers_fraction: 0.0,
        kv_lora_rank: 0,
        qk_rope_head_dim: 0,
        experts_total: 0,
        experts_active: 0,
        moe_intermediate_size: 0,
        dense_layers: 0,
        gated_ffn: true,
        fixed_state_layers: 0,
        fixed_state_elements_per_layer: 0.0,
        vision: None,
        fp8_weight_block: 0,
        hidden_gemms: super::arch::hidden_gemm_calls(&super::arch::GemmShape {
            layers: layers as u32,
            moe_layers: 0,
            mla: false,
            shared_experts: false,
        }),
    })
}
