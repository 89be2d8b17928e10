//! The shape of one transformer, reduced to what sizing needs, and the parameter counts derived
//! from it (embeddings, LM head, per-expert weights). Built from a catalog preset
//! ([`ModelArch::from_spec`]), from a parameter count (the `custom` module) or from a Hugging Face
//! `config.json` (the `config_json` module).

use crate::catalog::{Arch, Attention, LlmSpec, VisionSpec};
use serde::Serialize;

/// A transformer's shape. Counts are plain numbers (not billions).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelArch {
    /// Preset id, or `custom`.
    pub id: std::sync::Arc<str>,
    /// Decoder-only, encoder-only or encoder-decoder.
    pub arch: Arch,
    /// All parameters (every expert of an MoE).
    pub params_total: f64,
    /// Parameters used per token (MoE: shared + routed experts in use; dense: all).
    pub params_active: f64,
    /// Decoder layers (encoder-only: encoder layers).
    pub layers: u32,
    /// Encoder layers of an encoder-decoder model (0 otherwise).
    pub encoder_layers: u32,
    pub hidden_size: u32,
    /// Dense FFN width (MoE models: the dense layers' width).
    pub intermediate_size: u32,
    pub attention_heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    pub vocab_size: u32,
    pub max_context: u32,
    pub tied_embeddings: bool,
    pub attention: Attention,
    /// Sliding-window size of the local-attention layers, if any.
    pub sliding_window: Option<u32>,
    /// Fraction of layers that use the sliding window (0 when none).
    pub sliding_window_layers_fraction: f64,
    /// MLA: compressed KV width and the decoupled RoPE key width.
    pub kv_lora_rank: u32,
    pub qk_rope_head_dim: u32,
    /// MoE: routed experts, experts per token, per-expert FFN width, leading dense layers.
    pub experts_total: u32,
    pub experts_active: u32,
    pub moe_intermediate_size: u32,
    pub dense_layers: u32,
    /// SwiGLU/GeGLU FFN (three matrices) rather than two.
    pub gated_ffn: bool,
    /// Block size of the weight scales of a native block-quantized FP8 checkpoint (0: none).
    #[serde(skip)]
    pub fp8_weight_block: u32,
    /// GEMM calls of one forward pass that reduce over the hidden size, outside the fused MoE
    /// kernel ([`hidden_gemm_calls`]).
    #[serde(skip)]
    pub hidden_gemms: u32,
    /// Layers holding a fixed-size state per sequence instead of a growing KV cache (linear
    /// attention, cross-attention over image tokens), and that state's elements per layer.
    pub fixed_state_layers: u32,
    pub fixed_state_elements_per_layer: f64,
    /// The vision tower and its image-token rule (`None`: a text-only model).
    pub vision: Option<VisionSpec>,
}

/// What the linear-layer GEMM count of a forward pass depends on.
pub struct GemmShape {
    pub layers: u32,
    /// Layers whose FFN is routed experts.
    pub moe_layers: u32,
    /// Multi-head latent attention.
    pub mla: bool,
    /// MoE layers with a shared expert beside the routed ones.
    pub shared_experts: bool,
}

/// GEMM calls of one forward pass whose inner (K) dimension is the hidden size, as vLLM and
/// SGLang run the layers (one call per weight matrix, gate and up fused), outside the fused MoE
/// kernel (whose fixed time is [`super::engines::FUSED_MOE_LAYER_MS`]): per layer the attention's
/// input projections — the fused QKV for multi-head and grouped-query attention; for MLA
/// (DeepSeek-V2 §2.1) the query and KV down-projections, or the KV down-projection and the full
/// query without a low-rank query — and the FFN's gate-up (a dense layer's, or a MoE layer's shared
/// expert). DeepSeek-V3/R1: 61 layers × (2 + 1) = 183.
pub fn hidden_gemm_calls(g: &GemmShape) -> u32 {
    let attention = if g.mla { 2 } else { 1 };
    let moe = g.moe_layers.min(g.layers);
    let moe_ffn = u32::from(g.shared_experts);
    moe * (attention + moe_ffn) + (g.layers - moe) * (attention + 1)
}

impl ModelArch {
    /// The shape of a catalog preset.
    pub fn from_spec(s: &LlmSpec) -> ModelArch {
        let total = s.params_total_b * 1e9;
        ModelArch {
            id: s.id.as_str().into(),
            arch: s.arch,
            params_total: total,
            params_active: s.params_active_b.map_or(total, |a| a * 1e9),
            layers: s.layers,
            encoder_layers: s.encoder_layers.unwrap_or(0),
            hidden_size: s.hidden_size,
            intermediate_size: s.intermediate_size.unwrap_or(s.hidden_size.saturating_mul(4)),
            attention_heads: s.attention_heads,
            kv_heads: s.kv_heads,
            head_dim: s.head_dim,
            vocab_size: s.vocab_size,
            max_context: s.max_context,
            tied_embeddings: s.tied_embeddings,
            attention: s.attention,
            sliding_window: s.sliding_window,
            sliding_window_layers_fraction: if s.sliding_window.is_some() {
                s.sliding_window_layers_fraction.unwrap_or(1.0)
            } else {
                0.0
            },
            kv_lora_rank: s.kv_lora_rank.unwrap_or(0),
            qk_rope_head_dim: s.qk_rope_head_dim.unwrap_or(0),
            experts_total: s.experts_total.unwrap_or(0),
            experts_active: s.experts_active.unwrap_or(0),
            moe_intermediate_size: s.moe_intermediate_size.unwrap_or(0),
            dense_layers: s.dense_layers.unwrap_or(0),
            gated_ffn: s.gated_ffn.unwrap_or(true),
            fixed_state_layers: s.fixed_state_layers.unwrap_or(0),
            fixed_state_elements_per_layer: s.fixed_state_elements_per_layer.unwrap_or(0.0),
            vision: s.vision.clone(),
            fp8_weight_block: s.fp8_weight_block.unwrap_or(0),
            hidden_gemms: hidden_gemm_calls(&GemmShape {
                layers: s.layers,
                moe_layers: if s.experts_total.unwrap_or(0) > 1 { s.layers.saturating_sub(s.dense_layers.unwrap_or(0)) } else { 0 },
                mla: s.attention == Attention::Mla,
                shared_experts: s.shared_experts.unwrap_or(0) > 0,
            }),
        }
    }

    /// Input embedding parameters (vocab × hidden). Only one row per token is read at decode.
    pub fn embedding_params(&self) -> f64 {
        f64::from(self.vocab_size) * f64::from(self.hidden_size)
    }

    /// LM-head parameters: vocab × hidden when untied, 0 when tied to the embedding.
    pub fn head_params(&self) -> f64 {
        if self.tied_embeddings {
            0.0
        } else {
            self.embedding_params()
        }
    }

    /// Parameters outside the embedding table and LM head, clamped at 0.
    pub fn body_params(&self) -> f64 {
        (self.params_total - self.embedding_params() - self.head_params()).max(0.0)
    }

    /// Parameters a token multiplies by: the active parameters without the embedding lookup,
    /// with the LM head. A tied head is still a vocab × hidden matrix multiply for every token
    /// (it shares its storage with the embedding, not its work), so tied models count it too.
    pub fn active_compute_params(&self) -> f64 {
        let head = if self.tied_embeddings { self.embedding_params() } else { 0.0 };
        (self.params_active - self.embedding_params() + head).max(self.params_active * 0.05)
    }

    /// True for mixture-of-experts models.
    pub fn is_moe(&self) -> bool {
        self.experts_total > 1 && self.experts_active > 0
    }

    /// Parameters of one routed expert in one layer (3 or 2 matrices of hidden × moe width).
    pub fn params_per_expert(&self) -> f64 {
        let mats = if self.gated_ffn { 3.0 } else { 2.0 };
        mats * f64::from(self.hidden_size) * f64::from(self.moe_intermediate_size.max(1))
    }

    /// All routed-expert parameters (experts × per-expert × MoE layers), at most the body.
    pub fn routed_expert_params(&self) -> f64 {
        if !self.is_moe() {
            return 0.0;
        }
        let moe_layers = f64::from(self.layers.saturating_sub(self.dense_layers));
        (self.params_per_expert() * f64::from(self.experts_total) * moe_layers).min(self.body_params())
    }

    /// Transformer layers that hold a KV cache growing with the context (decoder layers without
    /// the fixed-state ones; encoder-only models: all).
    pub fn kv_layers(&self) -> u32 {
        self.layers.saturating_sub(self.fixed_state_layers)
    }

    /// KV-cache elements per token per layer: 2·kv_heads·head_dim (MHA/GQA/MQA), or
    /// kv_lora_rank + qk_rope_head_dim for MLA (DeepSeek-V2 paper §2.1.2, the cached
    /// compressed latent plus the decoupled RoPE key).
    pub fn kv_elements_per_token_layer(&self) -> f64 {
        match self.attention {
            Attention::Mla if self.kv_lora_rank > 0 => f64::from(self.kv_lora_rank) + f64::from(self.qk_rope_head_dim),
            _ => 2.0 * f64::from(self.kv_heads) * f64::from(self.head_dim),
        }
    }

    /// KV elements cached for a sequence of `tokens`, over all layers; sliding-window layers
    /// (a fraction of the KV layers) cap their tokens at the window, fixed-state layers hold
    /// their state whatever the context.
    pub fn kv_elements(&self, tokens: f64) -> f64 {
        let per = self.kv_elements_per_token_layer();
        let layers = f64::from(self.kv_layers());
        let fixed = f64::from(self.fixed_state_layers) * self.fixed_state_elements_per_layer;
        fixed + match self.sliding_window {
            Some(w) if self.sliding_window_layers_fraction > 0.0 => {
                let f = self.sliding_window_layers_fraction.clamp(0.0, 1.0);
                per * layers * ((1.0 - f) * tokens + f * tokens.min(f64::from(w)))
            }
            _ => per * layers * tokens,
        }
    }

    /// Width of the attention output (heads × head_dim), for attention FLOPs.
    pub fn attention_width(&self) -> f64 {
        f64::from(self.attention_heads) * f64::from(self.head_dim)
    }
}

/// True for a DeepSeek-style MoE: routed experts and multi-head latent attention.
pub fn is_mla_moe(model: &ModelArch) -> bool {
    model.is_moe() && model.attention == Attention::Mla
}
