//! A model from a pasted Hugging Face `config.json`, read offline into serde_json values
//! (by `crate::json`).
//!
//! Handles the keys of llama, mistral, qwen2, qwen3, qwen3_moe, gemma, gemma2, gemma3 (with or
//! without a nested `text_config`), mixtral, deepseek_v3 and kimi_k2 (MLA + MoE), glm4_moe,
//! gpt_oss, llama4 (interleaved MoE, shared expert, chunked attention), qwen3_next (Gated
//! DeltaNet + gated attention), gemma3n (per-layer embeddings, KV sharing), qwen2_5_vl, mllama
//! and mistral3 (a vision tower; mllama's cross-attention layers), plus GPT-2 style aliases
//! (`n_embd`, `n_layer`, `n_head`). `layer_types` decides which layers slide, attend linearly or
//! attend in full, whatever the family. A required key that is missing gives an error naming
//! it. Parameter counts are computed from the shape (attention, FFN or experts, embeddings,
//! vision tower). Keys of any model_type that name experts make it an MoE.

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
    parse_config_json(text).map_err(|n| EstimateError::invalid("config", n))
}

/// Parses a `config.json` text into an architecture; a rejection is a translatable note that
/// names the key.
pub fn parse_config_json(text: &str) -> Result<ModelArch, Note> {
    parse_config_json_with_notes(text).map(|(m, _)| m)
}

/// The model types whose layout this parser knows; any other is read as a Llama-style decoder
/// (MoE when it has expert keys) and says so.
const KNOWN: &[&str] = &[
    "llama", "mistral", "mistral3", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen3_next", "qwen2_5_vl",
    "gemma", "gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "deepseek_v2", "deepseek_v3", "kimi_k2",
    "glm4_moe", "gpt_oss", "llama4", "llama4_text", "mllama", "mllama_text_model", "phi3", "gpt2", "gpt_neox", "gptj",
    "falcon", "mpt", "opt", "starcoder2", "bert", "glm", "chatglm", "cohere",
];

/// How the layers attend: (sliding or chunked window, fraction of KV layers that use it,
/// linear-attention layers).
struct LayerMix {
    window: Option<u32>,
    window_fraction: f64,
    linear_layers: u32,
}

/// Reads `layer_types` (any family) or the family rules it replaces: gemma2 every other layer,
/// gemma3 `sliding_window_pattern`, llama4 `no_rope_layers` (the RoPE layers attend in
/// chunks of `attention_chunk_size`), qwen3_next `full_attention_interval`, mistral all layers.
fn layer_mix(o: &Obj, model_type: &str, layers: u32) -> LayerMix {
    let count = |name: &str| {
        o.get("layer_types").and_then(Value::as_array).map(|a| a.iter().filter(|v| v.as_str() == Some(name)).count() as u32)
    };
    let linear = count("linear_attention").unwrap_or_else(|| match get_u32(o, &["full_attention_interval"]) {
        Some(k) if model_type == "qwen3_next" => layers - layers / k.max(1),
        _ => 0,
    });
    let kv_layers = f64::from(layers.saturating_sub(linear).max(1));
    if let Some(chunk) = get_u32(o, &["attention_chunk_size"]) {
        let chunked = o.get("no_rope_layers").and_then(Value::as_array).map_or(layers * 3 / 4, |a| a.iter().filter(|v| v.as_u64() == Some(1)).count() as u32);
        return LayerMix { window: Some(chunk), window_fraction: f64::from(chunked) / kv_layers, linear_layers: linear };
    }
    // A window as long as the context (Phi-4-mini's 262144) slides over nothing.
    let context = get_u32(o, &["max_position_embeddings"]).unwrap_or(u32::MAX);
    let window = get_u32(o, &["sliding_window"]).filter(|w| *w > 0 && *w < context);
    let use_window = o.get("use_sliding_window").and_then(Value::as_bool).unwrap_or(true);
    let fraction = match (count("sliding_attention"), model_type) {
        (Some(n), _) => f64::from(n) / kv_layers,
        (None, "gemma2") => 0.5,
        (None, "gemma3" | "gemma3_text") => {
            let p = f64::from(get_u32(o, &["sliding_window_pattern"]).unwrap_or(6).max(1));
            (p - 1.0) / p
        }
        _ => 1.0,
    };
    match window {
        Some(w) if use_window && fraction > 0.0 => LayerMix { window: Some(w), window_fraction: fraction, linear_layers: linear },
        _ => LayerMix { window: None, window_fraction: 0.0, linear_layers: linear },
    }
}

/// Parameters and per-sequence state of one Gated DeltaNet layer (Qwen3-Next): the q, k, v, z
/// and b, a projections, the causal conv over q, k, v and the output projection; the state is
/// value heads × key dim × value dim plus the conv's last kernel − 1 inputs.
fn linear_attention(o: &Obj, h: f64) -> Result<(f64, f64), Note> {
    let kh = f64::from(req_u32(o, &["linear_num_key_heads"])?);
    let vh = f64::from(req_u32(o, &["linear_num_value_heads"])?);
    let kd = f64::from(req_u32(o, &["linear_key_head_dim"])?);
    let vd = f64::from(req_u32(o, &["linear_value_head_dim"])?);
    let conv = f64::from(get_u32(o, &["linear_conv_kernel_dim"]).unwrap_or(4));
    let (keys, values) = (kh * kd, vh * vd);
    let params = h * (2.0 * keys + 2.0 * values) + h * 2.0 * vh + conv * (2.0 * keys + values) + values * h;
    let state = vh * kd * vd + (conv - 1.0) * (2.0 * keys + values);
    Ok((params, state))
}

/// Parameters of the vision tower and its projector into the language model (0 without a
/// `vision_config`): layers × (attention 4·h² + MLP) + the projector. Qwen2.5-VL and Pixtral
/// use gated MLPs; Qwen2.5-VL's merger and Pixtral's patch merger fold 2 × 2 patches first.
fn vision_params(top: &Obj, model_type: &str, text_hidden: f64) -> f64 {
    let Some(v) = top.get("vision_config").and_then(Value::as_object) else { return 0.0 };
    let h = f64::from(get_u32(v, &["hidden_size", "embed_dim"]).unwrap_or(0));
    let layers = f64::from(get_u32(v, &["depth", "num_hidden_layers"]).unwrap_or(0) + get_u32(v, &["num_global_layers"]).unwrap_or(0));
    let inter = f64::from(get_u32(v, &["intermediate_size"]).unwrap_or(0));
    let gated = matches!(model_type, "qwen2_5_vl" | "mistral3");
    let tower = layers * (4.0 * h * h + if gated { 3.0 } else { 2.0 } * h * inter);
    let merge = f64::from(get_u32(v, &["spatial_merge_size"]).or_else(|| get_u32(top, &["spatial_merge_size"])).unwrap_or(1));
    let folded = h * merge * merge;
    let out = f64::from(get_u32(v, &["vision_output_dim", "out_hidden_size"]).unwrap_or(0)).max(h);
    let projector = match model_type {
        "qwen2_5_vl" => folded * folded + folded * text_hidden,
        "mistral3" => folded * h + h * text_hidden + text_hidden * text_hidden,
        _ => out * text_hidden,
    };
    tower + projector
}

/// Per-layer embeddings of Gemma 3n (vocab_per_layer × layers × width, and their projections),
/// with the MobileNet-V5 vision and USM audio towers its config names but does not size:
/// 0.30B (`mobilenetv5_300m_enc`) and 0.68B (12 conformer blocks of width 1536), from the
/// model card's 8B raw parameters less the text decoder.
fn gemma3n_extra(top: &Obj, o: &Obj, h: f64, layers: f64) -> f64 {
    let per_vocab = f64::from(get_u32(o, &["vocab_size_per_layer_input"]).unwrap_or(0));
    let per_width = f64::from(get_u32(o, &["hidden_size_per_layer_input"]).unwrap_or(0));
    let laurel = f64::from(get_u32(o, &["laurel_rank"]).unwrap_or(0));
    let towers = if top.contains_key("vision_config") { 0.30e9 } else { 0.0 } + if top.contains_key("audio_config") { 0.68e9 } else { 0.0 };
    per_vocab * layers * per_width + h * layers * per_width + layers * (2.0 * h * per_width + 2.0 * h * laurel) + towers
}

/// Block size of a native FP8 checkpoint's weight scales: `quantization_config` with
/// `quant_method` "fp8" and `weight_block_size` [b, b] (DeepSeek-V3/R1, Kimi K2, the Qwen3 FP8
/// releases); 0 for per-tensor FP8 and unquantized checkpoints.
fn fp8_weight_block(top: &Obj, o: &Obj) -> u32 {
    let q = o.get("quantization_config").or_else(|| top.get("quantization_config")).and_then(Value::as_object);
    let Some(q) = q else { return 0 };
    if q.get("quant_method").and_then(Value::as_str) != Some("fp8") {
        return 0;
    }
    q.get("weight_block_size").and_then(Value::as_array).and_then(|a| a.first()).and_then(Value::as_u64).and_then(|b| u32::try_from(b).ok()).unwrap_or(0)
}

/// MoE layout: (routed experts, experts per token, shared experts, expert width, dense layers,
/// dense FFN width). Dense layers are the leading `first_k_dense_replace`, Qwen's
/// `mlp_only_layers`, or llama4's layers between `interleave_moe_layer_step`s.
struct Moe {
    experts: u32,
    active: u32,
    shared: f64,
    width: u32,
    dense_layers: u32,
}

fn moe_layout(o: &Obj, model_type: &str, layers: u32) -> Result<Option<Moe>, Note> {
    let experts = get_u32(o, &["num_local_experts", "num_experts", "n_routed_experts"]).unwrap_or(0);
    let active = get_u32(o, &["num_experts_per_tok", "experts_per_token"]).unwrap_or(if model_type.starts_with("llama4") { 1 } else { 0 });
    if experts <= 1 || active == 0 {
        return Ok(None);
    }
    // Expert width: `moe_intermediate_size`, else `intermediate_size` (mixtral, gpt_oss, llama4).
    let width = match get_u32(o, &["moe_intermediate_size"]) {
        Some(w) => w,
        None => req_u32(o, &["intermediate_size"])?,
    };
    let shared_width = get_u32(o, &["shared_expert_intermediate_size"]).map(|s| f64::from(s) / f64::from(width.max(1)));
    let shared = match get_u32(o, &["n_shared_experts", "num_shared_experts"]) {
        Some(n) => f64::from(n),
        None if model_type.starts_with("llama4") => 1.0,
        None => shared_width.unwrap_or(0.0),
    };
    let dense_layers = if let Some(list) = o.get("moe_layers").and_then(Value::as_array) {
        layers.saturating_sub(list.len() as u32)
    } else if let Some(step) = get_u32(o, &["interleave_moe_layer_step"]) {
        layers - layers / step.max(1)
    } else if let Some(list) = o.get("mlp_only_layers").and_then(Value::as_array) {
        list.len() as u32
    } else {
        get_u32(o, &["first_k_dense_replace"]).unwrap_or(0)
    };
    Ok(Some(Moe { experts, active, shared, width, dense_layers }))
}

/// Attention parameters of one layer: MLA (DeepSeek V2/V3, Kimi K2) or Q, K, V, O projections
/// (Qwen3-Next's gated attention doubles Q for its output gate).
fn attention_params(o: &Obj, model_type: &str, h: f64, heads: f64, kv: f64, hd: f64) -> Result<f64, Note> {
    if get_u32(o, &["kv_lora_rank"]).unwrap_or(0) == 0 {
        let q = if model_type == "qwen3_next" { 2.0 } else { 1.0 };
        return Ok((q + 1.0) * h * heads * hd + 2.0 * h * kv * hd);
    }
    let r = f64::from(req_u32(o, &["kv_lora_rank"])?);
    let rope = f64::from(req_u32(o, &["qk_rope_head_dim"])?);
    let nope = f64::from(req_u32(o, &["qk_nope_head_dim"])?);
    let v = f64::from(req_u32(o, &["v_head_dim"])?);
    let q_lora = f64::from(get_u32(o, &["q_lora_rank"]).unwrap_or(0));
    let q = if q_lora > 0.0 { h * q_lora + q_lora * heads * (nope + rope) } else { h * heads * (nope + rope) };
    Ok(q + h * (r + rope) + r * heads * (nope + v) + heads * v * h)
}

/// The language model's keys (`text_config` of multimodal configs) and its model_type.
fn text_object(top: &Obj) -> (&Obj, String, String) {
    let o: &Obj = match top.get("text_config").and_then(Value::as_object) {
        Some(t) if t.contains_key("hidden_size") => t,
        _ => top,
    };
    let lower = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_ascii_lowercase);
    let outer = lower(top.get("model_type")).unwrap_or_else(|| "llama".into());
    let inner = lower(o.get("model_type")).unwrap_or_else(|| outer.clone());
    (o, inner, outer)
}

/// The dimensions a config states (or that follow from them by the usual defaults).
struct Dims {
    hidden: u32,
    layers: u32,
    heads: u32,
    vocab: u32,
    kv_heads: u32,
    head_dim: u32,
    max_context: u32,
    tied: bool,
    moe: Option<Moe>,
    /// The dense FFN's width.
    intermediate: u32,
    /// Gated FFN (three matrices: SwiGLU, GeGLU) rather than two.
    gated: bool,
}

/// The dimensions of the language model `o` (of the config `top`), naming the first key missing.
fn dims(top: &Obj, o: &Obj, model_type: &str) -> Result<Dims, Note> {
    let hidden = req_u32(o, &["hidden_size", "n_embd", "d_model"])?;
    let layers = req_u32(o, &["num_hidden_layers", "n_layer", "num_layers"])?;
    let heads = req_u32(o, &["num_attention_heads", "n_head", "num_heads"])?;
    let vocab = req_u32(o, &["vocab_size"])?;
    let kv_heads = get_u32(o, &["num_key_value_heads", "multi_query_group_num"]).unwrap_or(heads).max(1);
    let head_dim = get_u32(o, &["head_dim"]).unwrap_or(hidden / heads).max(1);
    let max_context = get_u32(o, &["max_position_embeddings", "n_positions", "seq_length"]).unwrap_or(4096);
    let tied = o
        .get("tie_word_embeddings")
        .or_else(|| top.get("tie_word_embeddings"))
        .and_then(Value::as_bool)
        .unwrap_or(model_type.starts_with("gemma"));
    let moe = moe_layout(o, model_type, layers)?;
    // Gemma 3n lists one FFN width per layer.
    let list_width = o.get("intermediate_size").and_then(Value::as_array).and_then(|a| a.first()).and_then(Value::as_u64);
    let intermediate = match (&moe, list_width) {
        (_, Some(w)) => u32::try_from(w).unwrap_or(u32::MAX),
        (Some(m), _) if m.dense_layers == 0 => get_u32(o, &["intermediate_size"]).unwrap_or(m.width),
        _ if model_type.starts_with("llama4") => req_u32(o, &["intermediate_size_mlp"])?,
        _ => req_u32(o, &["intermediate_size", "n_inner", "ffn_dim"])?,
    };
    let gated = !matches!(model_type, "gpt2" | "gpt_neox" | "gptj" | "bert" | "falcon" | "mpt" | "opt" | "starcoder2");
    Ok(Dims { hidden, layers, heads, vocab, kv_heads, head_dim, max_context, tied, moe, intermediate, gated })
}

/// Parses a `config.json` text into an architecture, with a note when the model_type is not
/// one this parser knows (what it assumed instead).
pub fn parse_config_json_with_notes(text: &str) -> Result<(ModelArch, Vec<Note>), Note> {
    let v = parse_json(text)?;
    let top = v.as_object().ok_or_else(|| Note::plain("the top level must be a JSON object"))?;
    let (o, model_type, outer) = text_object(top);
    let Dims { hidden, layers, heads, vocab, kv_heads, head_dim, max_context, tied, moe, intermediate, gated } = dims(top, o, &model_type)?;
    let mix = layer_mix(o, &model_type, layers);
    let (h, nh, nkv, hd) = (f64::from(hidden), f64::from(heads), f64::from(kv_heads), f64::from(head_dim));
    let attn = attention_params(o, &model_type, h, nh, nkv, hd)?;
    let (linear_attn, linear_state) = if mix.linear_layers > 0 { linear_attention(o, h)? } else { (0.0, 0.0) };
    let mats = if gated { 3.0 } else { 2.0 };
    let dense_ffn = mats * h * f64::from(intermediate);
    let attn_all = f64::from(layers - mix.linear_layers) * attn + f64::from(mix.linear_layers) * linear_attn;
    let (ffn_total, ffn_active) = ffn_params(moe.as_ref(), layers, h, mats, dense_ffn);
    let embed = f64::from(vocab) * h * if tied { 1.0 } else { 2.0 };
    let family = if outer == "llama4" || outer == "mllama" || outer == "mistral3" || outer == "gemma3" || outer == "gemma3n" { outer.as_str() } else { model_type.as_str() };
    let tower = vision_params(top, family, h);
    let mut extra = tower;
    if model_type.starts_with("gemma3n") {
        extra += gemma3n_extra(top, o, h, f64::from(layers));
    }
    let (state_layers, state) = fixed_state(top, o, &mix, linear_state, kv_heads, head_dim)?;
    let kv_lora_rank = get_u32(o, &["kv_lora_rank"]).unwrap_or(0);
    let attention = match kv_heads {
        _ if kv_lora_rank > 0 => Attention::Mla,
        1 => Attention::Mqa,
        k if k < heads => Attention::Gqa,
        _ => Attention::Mha,
    };
    let notes = layout_note(&model_type, &outer, moe.is_some()).into_iter().collect();
    let m = ModelArch {
        id: "custom".into(),
        arch: Arch::Decoder,
        params_total: attn_all + ffn_total + embed + extra,
        // A text token does not pass through the vision tower (or Gemma 3n's audio tower).
        params_active: attn_all + ffn_active + embed,
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
        sliding_window: mix.window,
        sliding_window_layers_fraction: mix.window_fraction,
        kv_lora_rank,
        qk_rope_head_dim: if kv_lora_rank > 0 { req_u32(o, &["qk_rope_head_dim"])? } else { 0 },
        experts_total: moe.as_ref().map_or(0, |m| m.experts),
        experts_active: moe.as_ref().map_or(0, |m| m.active),
        moe_intermediate_size: moe.as_ref().map_or(0, |m| m.width),
        dense_layers: moe.as_ref().map_or(0, |m| m.dense_layers),
        gated_ffn: gated,
        fixed_state_layers: state_layers,
        fixed_state_elements_per_layer: state,
        vision: super::vision::from_config(top, family, tower),
        fp8_weight_block: fp8_weight_block(top, o),
        hidden_gemms: super::arch::hidden_gemm_calls(&super::arch::GemmShape {
            layers,
            moe_layers: moe.as_ref().map_or(0, |m| layers.saturating_sub(m.dense_layers)),
            mla: kv_lora_rank > 0,
            shared_experts: moe.as_ref().is_some_and(|m| m.shared > 0.0),
        }),
    };
    Ok((m, notes))
}

/// Where the text stops being JSON, in our own words (the reader is `crate::json`'s: serde_json
/// natively, the browser's `JSON.parse` in the app).
fn parse_json(text: &str) -> Result<Value, Note> {
    crate::json::read(text).map_err(|e| {
        let what = if e.eof { "ends early" } else { "is not valid" };
        let error = match e.at {
            Some((line, column)) if !e.eof => format!("{what} at line {line}, column {column}"),
            _ => what.to_string(),
        };
        Note::new("not valid JSON: {error}", vec![("error", error.into())])
    })
}

/// FFN parameters over all layers, (total, active): dense layers at the dense width, MoE layers
/// with their router, shared experts and every (or the active) routed expert.
fn ffn_params(moe: Option<&Moe>, layers: u32, h: f64, mats: f64, dense_ffn: f64) -> (f64, f64) {
    let Some(m) = moe else { return (f64::from(layers) * dense_ffn, f64::from(layers) * dense_ffn) };
    let expert = mats * h * f64::from(m.width);
    let moe_layers = f64::from(layers.saturating_sub(m.dense_layers));
    let dense = f64::from(m.dense_layers.min(layers)) * dense_ffn;
    let per = h * f64::from(m.experts) + m.shared * expert;
    (dense + moe_layers * (per + f64::from(m.experts) * expert), dense + moe_layers * (per + f64::from(m.active) * expert))
}

/// What an unknown model_type was read as.
fn layout_note(model_type: &str, outer: &str, moe: bool) -> Option<Note> {
    if KNOWN.contains(&model_type) || KNOWN.contains(&outer) {
        return None;
    }
    let template = if moe {
        "unknown model_type `{type}`: read as a Llama-style mixture-of-experts decoder from its keys"
    } else {
        "unknown model_type `{type}`: read as a Llama-style dense decoder from its keys"
    };
    Some(Note::new(template, vec![("type", model_type.to_string().into())]))
}

/// Layers without a KV cache growing with the context, and their state per sequence:
/// Gated DeltaNet layers (their recurrent state), mllama's cross-attention layers (K and V of
/// the image tokens: (image_size / patch)² + 1 per tile × max_num_tiles), Gemma 3n's last
/// `num_kv_shared_layers` (they reuse earlier layers' KV: no state of their own).
fn fixed_state(top: &Obj, o: &Obj, mix: &LayerMix, linear_state: f64, kv_heads: u32, head_dim: u32) -> Result<(u32, f64), Note> {
    if mix.linear_layers > 0 {
        return Ok((mix.linear_layers, linear_state));
    }
    if let Some(cross) = o.get("cross_attention_layers").and_then(Value::as_array) {
        let v = top.get("vision_config").and_then(Value::as_object).ok_or_else(|| Note::new("missing required key `{key}`", vec![("key", "vision_config".into())]))?;
        let side = f64::from(req_u32(v, &["image_size"])? / req_u32(v, &["patch_size"])?);
        let tiles = f64::from(get_u32(v, &["max_num_tiles"]).unwrap_or(4));
        let tokens = (side * side + 1.0) * tiles;
        return Ok((cross.len() as u32, 2.0 * f64::from(kv_heads) * f64::from(head_dim) * tokens));
    }
    Ok((get_u32(o, &["num_kv_shared_layers"]).unwrap_or(0), 0.0))
}
