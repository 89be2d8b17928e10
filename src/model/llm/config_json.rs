//! A model from a pasted Hugging Face `config.json`, parsed offline with serde_json.
//!
//! Handles the keys of llama, mistral, qwen2, qwen3, qwen3_moe, gemma, gemma2, gemma3 (with or
//! without a nested `text_config`), mixtral and deepseek_v3 (MLA + MoE), plus GPT-2 style
//! aliases (`n_embd`, `n_layer`, `n_head`). A required key that is missing gives an error naming
//! it. Parameter counts are computed from the shape (attention, FFN or experts, embeddings).

use super::arch::ModelArch;
use crate::catalog::{Arch, Attention};
use crate::model::types::{EstimateError, Note};
use serde_json::{Map, Value};

type Obj = Map<String, Value>;



fn get_u32(o: &Obj, keys: &[&str]) -> Option<u32> {
    keys.iter().find_map(|k| o.get(*k).and_then(Value::as_u64)).and_then(|v| u32::try_from(v).ok())
}

fn req_u32(o: &Obj, keys: &[&str]) -> Result<u32, Note> {
    let name = keys.first().copied().unwrap_or("?");
    match get_u32(o, keys) {
        Some(0) => Err(Note::new("`{key}` must be positive", vec![("key", name.into())])),
        Some(v) => Ok(v),
        None => Err(Note::new("missing required key `{key}`", vec![("key", name.into())])),
    }
}

/// Parses a `config.json` text into an architecture (errors as `config: …`).
pub fn arch_from_config_json(text: &str) -> Result<ModelArch, EstimateError> {
    parse_config_json(text).map_err(|n| EstimateError::invalid("config", n.to_string()))
}

/// Parses a `config.json` text into an architecture; a rejection is a translatable note that
/// names the key.
pub fn parse_config_json(text: &str) -> Result<ModelArch, Note> {
    // Where the text stops being JSON, not serde_json's own message: its Display pulls the
    // standard float formatting into the app (see `crate::decimal`).
    let v: Value = serde_json::from_str(text).map_err(|e| {
        let what = if e.is_eof() { "ends early" } else { "is not valid" };
        Note::new(
            "not valid JSON: {error}",
            vec![("error", format!("{what} at line {}, column {}", e.line(), e.column()).into())],
        )
    })?;
    let top = v.as_object().ok_or_else(|| Note::plain("the top level must be a JSON object"))?;
    // Multimodal Gemma 3 and others nest the language model under `text_config`.
    let o: &Obj = match top.get("text_config").and_then(Value::as_object) {
        Some(t) if t.contains_key("hidden_size") => t,
        _ => top,
    };
    let model_type = o
        .get("model_type")
        .or_else(|| top.get("model_type"))
        .and_then(Value::as_str)
        .unwrap_or("llama")
        .to_ascii_lowercase();

    let hidden = req_u32(o, &["hidden_size", "n_embd", "d_model"])?;
    let layers = req_u32(o, &["num_hidden_layers", "n_layer", "num_layers"])?;
    let heads = req_u32(o, &["num_attention_heads", "n_head", "num_heads"])?;
    let vocab = req_u32(o, &["vocab_size"])?;
    let kv_heads = get_u32(o, &["num_key_value_heads", "multi_query_group_num"]).unwrap_or(heads).max(1);
    let head_dim = get_u32(o, &["head_dim"]).unwrap_or(hidden / heads).max(1);
    let max_context = get_u32(o, &["max_position_embeddings", "n_positions", "seq_length"]).unwrap_or(4096);
    let tied = o.get("tie_word_embeddings").and_then(Value::as_bool).unwrap_or(model_type.starts_with("gemma"));

    // MoE keys across families.
    let experts_total = get_u32(o, &["num_local_experts", "num_experts", "n_routed_experts"]).unwrap_or(0);
    let experts_active = get_u32(o, &["num_experts_per_tok"]).unwrap_or(0);
    let is_moe = experts_total > 1 && experts_active > 0;
    let shared = get_u32(o, &["n_shared_experts"]).unwrap_or(0);
    let dense_layers = get_u32(o, &["first_k_dense_replace"]).unwrap_or(0);

    let intermediate = if is_moe && dense_layers == 0 && model_type != "deepseek_v3" {
        get_u32(o, &["intermediate_size", "moe_intermediate_size"]).unwrap_or(hidden.saturating_mul(4))
    } else {
        req_u32(o, &["intermediate_size", "n_inner", "ffn_dim"])?
    };
    let moe_inter = if is_moe {
        match model_type.as_str() {
            "mixtral" => get_u32(o, &["intermediate_size"]).unwrap_or(intermediate),
            _ => req_u32(o, &["moe_intermediate_size"])?,
        }
    } else {
        0
    };
    let gated = !matches!(model_type.as_str(), "gpt2" | "gpt_neox" | "gptj" | "bert" | "falcon" | "mpt" | "opt" | "starcoder2");

    // MLA (DeepSeek V2/V3).
    let kv_lora_rank = get_u32(o, &["kv_lora_rank"]).unwrap_or(0);
    let is_mla = kv_lora_rank > 0;
    let rope_dim = if is_mla { req_u32(o, &["qk_rope_head_dim"])? } else { 0 };
    let nope_dim = if is_mla { req_u32(o, &["qk_nope_head_dim"])? } else { 0 };
    let v_dim = if is_mla { req_u32(o, &["v_head_dim"])? } else { 0 };
    let q_lora = get_u32(o, &["q_lora_rank"]).unwrap_or(0);

    // Sliding windows: mistral (all layers), gemma2 (every other layer), gemma3 (5 of 6).
    let window = get_u32(o, &["sliding_window"]);
    let use_window = o.get("use_sliding_window").and_then(Value::as_bool).unwrap_or(true);
    let (window, window_fraction) = match (window, use_window) {
        (Some(w), true) if w > 0 => {
            let f = match model_type.as_str() {
                "gemma2" => 0.5,
                "gemma3" | "gemma3_text" => {
                    let p = f64::from(get_u32(o, &["sliding_window_pattern"]).unwrap_or(6).max(1));
                    (p - 1.0) / p
                }
                _ => 1.0,
            };
            (Some(w), f)
        }
        _ => (None, 0.0),
    };

    let (h, l, v) = (f64::from(hidden), f64::from(layers), f64::from(vocab));
    let (nh, nkv, hd) = (f64::from(heads), f64::from(kv_heads), f64::from(head_dim));
    let attn = if is_mla {
        let qk = f64::from(nope_dim + rope_dim);
        let q = if q_lora > 0 { h * f64::from(q_lora) + f64::from(q_lora) * nh * qk } else { h * nh * qk };
        let kv = h * f64::from(kv_lora_rank + rope_dim) + f64::from(kv_lora_rank) * nh * f64::from(nope_dim + v_dim);
        q + kv + nh * f64::from(v_dim) * h
    } else {
        2.0 * h * nh * hd + 2.0 * h * nkv * hd
    };
    let mats = if gated { 3.0 } else { 2.0 };
    let dense_ffn = mats * h * f64::from(intermediate);
    let expert = mats * h * f64::from(moe_inter);
    let (total_layers, active_layers) = if is_moe {
        let moe_layers = f64::from(layers.saturating_sub(dense_layers));
        let dl = f64::from(dense_layers.min(layers));
        let router = h * f64::from(experts_total);
        let shared_p = f64::from(shared) * expert;
        (
            dl * (attn + dense_ffn) + moe_layers * (attn + router + shared_p + f64::from(experts_total) * expert),
            dl * (attn + dense_ffn) + moe_layers * (attn + router + shared_p + f64::from(experts_active) * expert),
        )
    } else {
        (l * (attn + dense_ffn), l * (attn + dense_ffn))
    };
    let embed = v * h * if tied { 1.0 } else { 2.0 };
    let attention = if is_mla {
        Attention::Mla
    } else if kv_heads == 1 {
        Attention::Mqa
    } else if kv_heads < heads {
        Attention::Gqa
    } else {
        Attention::Mha
    };
    Ok(ModelArch {
        id: "custom".into(),
        arch: Arch::Decoder,
        params_total: total_layers + embed,
        params_active: active_layers + embed,
        layers,
        encoder_layers: 0,
        hidden_size: hidden,
        intermediate_size: intermediate,
        attention_heads: heads,
        kv_heads,
        head_dim,
        vocab_size: vocab,
        max_context,
        tied_embeddings: tied,
        attention,
        sliding_window: window,
        sliding_window_layers_fraction: window_fraction,
        kv_lora_rank,
        qk_rope_head_dim: rope_dim,
        experts_total: if is_moe { experts_total } else { 0 },
        experts_active: if is_moe { experts_active } else { 0 },
        moe_intermediate_size: moe_inter,
        dense_layers,
        gated_ffn: gated,
    })
}
