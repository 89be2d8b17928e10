//! Vision-language inputs: how many tokens an image becomes, by the model's own rule (its
//! [`VisionSpec`] in `data/models.toml`, not a per-model branch), and what they add to a job.
//!
//! Three rules cover the presets (sources in `docs/MODEL.md`, "Image tokens"):
//! - **grid** (`token_px`): the image is resized to a grid of `token_px`-pixel squares, one
//!   token each. Qwen2.5-VL's `smart_resize` rounds each side to the nearest multiple of 28 and
//!   keeps the area within `[min_pixels, max_pixels]`; Pixtral (Mistral Small 3.x) scales the
//!   longest edge down to `max_edge_px`, pads each side up to whole 14-px patches, and adds one
//!   break token per row.
//! - **tiles** (`tile_px`): mllama cuts the image into tiles of `tokens_per_tile`, and the
//!   transformers processor pads every image to `max_tiles`.
//! - **fixed** (`tokens_per_image`): Gemma 3 resizes every image to `image_px` square.
//!
//! Self-attention models take the image tokens into the prompt: they add to the prompt, the KV
//! cache and the prefill. Cross-attention models (mllama) keep them as K and V of their
//! cross-attention layers (the fixed-size state of [`super::arch::ModelArch`]), one `<|image|>` token
//! each in the prompt. The vision tower encodes `encoder_patches_per_token` patches per token at
//! 2 FLOPs per tower parameter per patch, which [`encoder_flops`] adds to the prefill.

use super::job::LlmJob;
use crate::catalog::VisionSpec;
use crate::model::types::{EstimateError, Note};
use std::borrow::Cow;

/// What one image becomes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageTokens {
    /// The size the processor resizes the image to (tiles: the input size).
    pub resized_width_px: u32,
    pub resized_height_px: u32,
    /// Tokens the image adds to the self-attention prompt.
    pub prompt_tokens: u32,
    /// Tokens held as cross-attention K and V (0 for self-attention models).
    pub cross_tokens: u32,
    /// Patches the vision tower encodes.
    pub encoder_patches: f64,
}

/// Python's `round` (ties to even), which `smart_resize` uses.
fn round_half_even(x: f64) -> f64 {
    x.round_ties_even()
}

/// Qwen2.5-VL's `smart_resize` (transformers `qwen2_vl/image_processing_qwen2_vl.py`): each
/// side rounded to a multiple of `f`, then scaled into `[min, max]` pixels keeping the aspect.
fn smart_resize(w: f64, h: f64, f: f64, min: f64, max: f64) -> (f64, f64) {
    let by = |x: f64, op: fn(f64) -> f64| (op(x / f) * f).max(f);
    let (mut wb, mut hb) = (by(w, round_half_even), by(h, round_half_even));
    if wb * hb > max {
        let beta = (h * w / max).sqrt();
        (wb, hb) = (by(w / beta, f64::floor), by(h / beta, f64::floor));
    } else if wb * hb < min {
        let beta = (min / (h * w)).sqrt();
        (wb, hb) = (by(w * beta, f64::ceil), by(h * beta, f64::ceil));
    }
    (wb, hb)
}

/// Pixtral's resize (transformers `pixtral/image_processing_pixtral.py`): scale down so the
/// longest edge is at most `edge` (floor), then pad each side up to whole `patch`-px patches.
fn pixtral_resize(w: f64, h: f64, patch: f64, edge: f64) -> (f64, f64) {
    let ratio = (w / edge).max(h / edge);
    let (w, h) = if ratio > 1.0 { ((w / ratio).floor(), (h / ratio).floor()) } else { (w, h) };
    ((w / patch).ceil() * patch, (h / patch).ceil() * patch)
}

/// The tokens one `width_px` × `height_px` image becomes under rule `v`.
pub fn tokens_per_image(v: &VisionSpec, width_px: u32, height_px: u32) -> ImageTokens {
    let (w, h) = (f64::from(width_px.max(1)), f64::from(height_px.max(1)));
    let patches = v.encoder_patches_per_token;
    if let Some(px) = v.token_px {
        let f = f64::from(px.max(1));
        let (wr, hr) = match (v.min_pixels, v.max_pixels, v.max_edge_px) {
            (Some(min), Some(max), _) => smart_resize(w, h, f, min as f64, max as f64),
            (_, _, Some(edge)) => pixtral_resize(w, h, f64::from(v.patch_px.unwrap_or(px).max(1)), f64::from(edge)),
            _ => (w, h),
        };
        let (cols, rows) = ((wr / f).floor(), (hr / f).floor());
        let grid = cols * rows;
        let breaks = if v.row_break_token { rows } else { 0.0 };
        return ImageTokens {
            resized_width_px: wr as u32,
            resized_height_px: hr as u32,
            prompt_tokens: (grid + breaks) as u32,
            cross_tokens: 0,
            encoder_patches: grid * patches,
        };
    }
    if let (Some(tiles), Some(per_tile)) = (v.max_tiles, v.tokens_per_tile) {
        let cross = tiles.saturating_mul(per_tile);
        let (prompt, cross) = if v.cross_attention { (1, cross) } else { (cross, 0) };
        return ImageTokens {
            resized_width_px: width_px,
            resized_height_px: height_px,
            prompt_tokens: prompt,
            cross_tokens: cross,
            encoder_patches: f64::from(tiles.saturating_mul(per_tile)) * patches,
        };
    }
    let side = v.image_px.unwrap_or(0);
    let n = v.tokens_per_image.unwrap_or(0);
    ImageTokens {
        resized_width_px: side,
        resized_height_px: side,
        prompt_tokens: n,
        cross_tokens: 0,
        encoder_patches: f64::from(n) * patches,
    }
}

/// The tokens each image of `job` becomes (`None` without images or a vision tower).
pub fn job_image_tokens(job: &LlmJob) -> Option<ImageTokens> {
    let v = job.model.vision.as_ref()?;
    (job.images > 0).then(|| tokens_per_image(v, job.image_width_px, job.image_height_px))
}

/// Checks the image inputs, naming the field: images on a text-only model, on a training job, or
/// an image side out of 1..=16384 px.
pub fn validate(job: &LlmJob) -> Result<(), EstimateError> {
    if job.images == 0 {
        return Ok(());
    }
    crate::model::types::check_range("images", f64::from(job.images), 0.0, 1024.0)?;
    if job.model.vision.is_none() {
        return Err(EstimateError::invalid(
            "images",
            Note::new("{model} has no vision tower; images need a vision-language model", vec![("model", (&*job.model.id).into())]),
        ));
    }
    if job.workload.is_training() {
        return Err(EstimateError::invalid("images", "images apply to inference only"));
    }
    let side_ok = |s: u32| (1..=16_384).contains(&s);
    if !side_ok(job.image_width_px) || !side_ok(job.image_height_px) {
        return Err(EstimateError::invalid(
            "image_resolution",
            Note::new(
                "{width}x{height} is out of range (1..=16384 px per side)",
                vec![("width", job.image_width_px.to_string().into()), ("height", job.image_height_px.to_string().into())],
            ),
        ));
    }
    Ok(())
}

/// `job` with its images turned into tokens: the prompt and the context grow by the prompt
/// tokens of every image; a cross-attention model's cross-attention state holds every image's
/// K and V instead of the preset's default (one image at its largest).
pub fn with_images(job: &LlmJob) -> Result<Cow<'_, LlmJob>, EstimateError> {
    validate(job)?;
    let Some(t) = job_image_tokens(job).filter(|_| !job.images_in_prompt) else { return Ok(Cow::Borrowed(job)) };
    let mut j = job.clone();
    j.images_in_prompt = true;
    let added = job.images.saturating_mul(t.prompt_tokens);
    j.prompt_tokens = j.prompt_tokens.saturating_add(added);
    j.context_tokens = j.context_tokens.saturating_add(added);
    if t.cross_tokens > 0 && j.model.fixed_state_layers > 0 {
        let per_token = j.model.kv_elements_per_token_layer();
        j.model.fixed_state_elements_per_layer = f64::from(job.images) * f64::from(t.cross_tokens) * per_token;
    }
    Ok(Cow::Owned(j))
}

/// FLOPs of the vision tower for one request: 2 per tower parameter per encoded patch
/// (attention inside the tower is left out: Qwen2.5-VL's is mostly windowed).
pub fn encoder_flops(job: &LlmJob) -> f64 {
    match (job.model.vision.as_ref(), job_image_tokens(job)) {
        (Some(v), Some(t)) => 2.0 * v.tower_params_b * 1e9 * t.encoder_patches * f64::from(job.images),
        _ => 0.0,
    }
}

/// The assumption note for a job with images (none without).
pub fn describe(job: &LlmJob, out: &mut Vec<Note>) {
    let Some(t) = job_image_tokens(job) else { return };
    let (template, tokens) = if t.cross_tokens > 0 {
        ("images: {n} at {w}x{h} px, {tokens} tokens each in the cross-attention layers' KV cache (tiles padded to the maximum)", t.cross_tokens)
    } else {
        ("images: {n} at {w}x{h} px, resized to {rw}x{rh}: {tokens} tokens each, added to the prompt, KV cache and prefill", t.prompt_tokens)
    };
    out.push(Note::new(
        template,
        vec![
            ("n", job.images.to_string().into()),
            ("w", job.image_width_px.to_string().into()),
            ("h", job.image_height_px.to_string().into()),
            ("rw", t.resized_width_px.to_string().into()),
            ("rh", t.resized_height_px.to_string().into()),
            ("tokens", tokens.to_string().into()),
        ],
    ));
}

/// The image-token rule read from a pasted `config.json` (`None` for a text-only model or a
/// vision tower without a rule here). Qwen2-VL/2.5-VL: `patch_size` × `spatial_merge_size`,
/// with qwen-vl-utils' pixel bounds; Pixtral (`mistral3`): longest edge `image_size`; mllama:
/// `image_size` tiles of (image_size / patch_size)² + 1 tokens; Gemma 3: `mm_tokens_per_image`.
/// Products of the file's numbers saturate (or are taken in f64): a pasted file may hold any
/// `u32`, and an absurd rule then fails `VisionSpec::problem` instead of overflowing.
pub fn from_config(top: &serde_json::Map<String, serde_json::Value>, family: &str, tower_params: f64) -> Option<VisionSpec> {
    let v = top.get("vision_config")?.as_object()?;
    let num = |o: &serde_json::Map<String, serde_json::Value>, k: &str| o.get(k).and_then(serde_json::Value::as_u64).and_then(|x| u32::try_from(x).ok());
    let patch = num(v, "patch_size")?;
    let merge = num(v, "spatial_merge_size").or_else(|| num(top, "spatial_merge_size")).unwrap_or(2);
    let mut s = VisionSpec {
        tower_params_b: tower_params / 1e9,
        encoder_patches_per_token: f64::from(merge) * f64::from(merge),
        cross_attention: false,
        token_px: None,
        min_pixels: None,
        max_pixels: None,
        patch_px: None,
        max_edge_px: None,
        row_break_token: false,
        tile_px: None,
        max_tiles: None,
        tokens_per_tile: None,
        image_px: None,
        tokens_per_image: None,
    };
    match family {
        "qwen2_5_vl" | "qwen2_vl" => {
            (s.token_px, s.min_pixels, s.max_pixels) = (Some(patch.saturating_mul(merge)), Some(4 * 28 * 28), Some(16_384 * 28 * 28));
        }
        "mistral3" => {
            (s.token_px, s.patch_px, s.max_edge_px, s.row_break_token) = (Some(patch.saturating_mul(merge)), Some(patch), num(v, "image_size"), true);
        }
        "mllama" => {
            let side = num(v, "image_size")?;
            let per_side = side / patch.max(1);
            (s.tile_px, s.max_tiles, s.tokens_per_tile) = (Some(side), Some(num(v, "max_num_tiles").unwrap_or(4)), Some(per_side.saturating_mul(per_side).saturating_add(1)));
            (s.cross_attention, s.encoder_patches_per_token) = (true, 1.0);
        }
        "gemma3" => {
            let side = num(v, "image_size")?;
            let n = num(top, "mm_tokens_per_image").unwrap_or(256);
            let per_side = f64::from(side / patch.max(1));
            let patches = per_side * per_side;
            (s.image_px, s.tokens_per_image, s.encoder_patches_per_token) = (Some(side), Some(n), patches / f64::from(n.max(1)));
        }
        _ => return None,
    }
    (s.problem().is_none()).then_some(s)
}
