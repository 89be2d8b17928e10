//! `gpu-advisor estimate`: sizes one job on one card and prints a table or, with `--json`, the
//! [`Estimate`](crate::model::Estimate) object (a contract: its keys are fixed; add, don't
//! rename). LLM jobs go to [`crate::model::llm`]; diffusion and classic presets go to
//! [`crate::model::media_preset::estimate_media`]. Bad input is one line and exit code 2.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use super::flags::{SizingArgs, engine_error, number, unknown, value};
use super::{job, write_str, CliError};
use crate::catalog;
use crate::model::llm::{self, Workload};
use crate::model::{Band, Estimate};
use std::ffi::OsString;
use std::io::Write;

/// [`HELP`] with each kind of model's workloads filled in from their lists.
fn help() -> String {
    use crate::model::media_job::{MediaKind, MediaWorkload};
    let media = |kind: MediaKind| super::flags::choices(kind.workloads(), MediaWorkload::as_str);
    HELP.replace("{llm_workloads}", &super::flags::choices(&Workload::ALL, Workload::as_str))
        .replace("{image_workloads}", &media(MediaKind::Image))
        .replace("{classic_workloads}", &media(MediaKind::Classic))
        .replace("{video_workloads}", &media(MediaKind::Video))
}

const HELP: &str = "\
gpu-advisor estimate: size one job on one card.

USAGE:
  gpu-advisor estimate (--gpu <id> [--gpus N] | --mix ID:COUNT,ID:COUNT)
    (--model <preset-id> | --params <e.g. 13b, 350m> | --config <path to config.json>)
    [--workload {llm_workloads}]
    [--precision fp32|tf32|fp16|bf16|fp8|int8|int4|nf4|q2_k|q3_k_m|q4_0|q4_k_m|q5_k_m|q6_k|q8_0|mxfp4|nvfp4|iq4_xs|iq3_xxs|q3_k_s]
    [--kv-precision fp16|fp8|q8_0|q4_0] [--engine transformers|vllm|sglang|trt-llm|llama.cpp|exllamav2|mlc]
    [--context TOKENS] [--prompt-tokens N --output-tokens N] [--batch N] [--seq-len TOKENS]
    [--optimizer adamw|adamw-8bit|paged-adamw-8bit|sgd|adafactor]
    [--grad-checkpointing none|selective|full] [--lora-rank R] [--zero auto|0|1|2|3] [--grad-accum N] [--fp32-math pytorch|tf32|strict] [--json]
  Training numerics and clusters:
    [--framework transformers|torchtune|megatron] [--master-weights on|off] [--optimizer-in-backward on|off]
    [--tp N] [--cp N] [--pp N] [--vp N] [--ep N] [--global-batch SEQUENCES] [--nic-gbit-s GBIT_S]
  Serving (inference):
    [--users N] [--target-tokens-per-s-per-user X] [--max-ttft-s Y] [--arrival-rate R]
    [--prefix-hit P] [--spec-decode off|draft|eagle|mtp] [--spec-accept A] [--arrivals random|in-step]
    [--cuda-graphs on|off] [--moe-layout auto|tp|ep|dep] [--disagg auto|on|off]
  [--backend cuda|rocm|vulkan|metal|sycl|mlx] (default: the card's first listed back-end)
  Mixed cards (--mix rtx-4090:1,rtx-3090:1): llama.cpp splits the layers in proportion to memory;
  tensor parallelism needs matching cards. per_gpu_gib is the busiest card.
  Vision-language inference (models with a vision tower, e.g. qwen2.5-vl-7b):
    [--images N] [--image-resolution WxH]
  Image generation and classic models (diffusion / vision / NLP / speech presets):
    --model <preset-id> --workload {image_workloads} (image presets)
      or --workload {classic_workloads} (vision, NLP and speech presets)
    [--resolution WxH] [--steps N] [--batch N] [--precision fp32|tf32|fp16|bf16|fp8]
    [--offload-mode none|model|sequential]
  Home lab (llama.cpp inference):
    [--ram-gib N] [--ram-gb-s BW] [--offload auto|none|layers|experts] [--gpu-share-gib N]
  Video generation (wan2.1-t2v-1.3b, wan2.1-t2v-14b, wan2.2-t2v-a14b, hunyuanvideo, ltx-video):
    --model <preset-id> [--workload {video_workloads}] [--resolution WxH, e.g. 832x480] [--frames N]
    [--steps N] [--batch N] [--offload-mode none|model|sequential]

DEFAULTS:
  --gpus 1
  --workload inference (image and video presets: image-generation, video-generation)
  --precision bf16 (nf4 for qlora)
  --kv-precision fp16
  --engine llama.cpp for GGUF precisions (q*_*, iq*_*) and Apple GPUs, otherwise vllm
  --context 8192 (capped at the model's maximum context, never below prompt + output)
  --prompt-tokens 1024, --output-tokens 256 (image tokens come on top: --images 0, --image-resolution 1024x1024)
  --batch 1 (inference: concurrent sequences; training: micro-batch per GPU); --users is its alias
  --prefix-hit 0 (share of each prompt already in the prefix cache), --spec-decode off; --spec-accept
  defaults per mode (draft 0.7, eagle 0.8, mtp 0.85); no per-user speed, TTFT or arrival-rate target;
  --arrivals random (in-step: fixed-length requests sent together, as benchmark clients at a fixed concurrency do);
  --cuda-graphs: the engine's default (vLLM and SGLang on, TensorRT-LLM's runtime off; off = vllm --enforce-eager)
  --moe-layout auto (MoE models on vllm, sglang and trt-llm: the serving plan tries tensor parallel experts
  (tp), whole experts per GPU with tensor-parallel attention in a node (ep), and with data-parallel
  attention on every GPU (dep), and keeps the best; the one-replica estimate uses tp)
  --disagg auto (prefill/decode disaggregation: builds past one node also try splitting their replicas
  into prefill-only and decode-only pools, the KV cache moved between them, and keep a split that serves
  better; on: tried on any build of two replicas or more; off: never)
  --seq-len 2048 (capped at the model's maximum context)
  --optimizer and --grad-checkpointing: the framework's (transformers: adamw, none), --lora-rank 16 (all
  linear layers), --zero auto (the fastest sharding that fits: data parallel with ZeRO-0/1/2/3, or a
  Megatron mesh TP × CP × PP × DP with the distributed optimizer, interleaved 1F1B), --grad-accum 1
  (micro-batches per optimizer step; the gradient all-reduce runs once per step), --framework
  transformers (fp32 master weights; torchtune: pure bf16, chunked loss, and on one GPU a full fine-tune
  pages 8-bit AdamW stepped in backward with checkpointing; megatron: fp32 master weights), --tp/--cp/
  --pp/--vp: a fixed mesh whose TP × CP × PP divides --gpus (default: searched), --ep: an MoE's expert
  parallel size, folded into each stage's TP × CP × DP GPUs (default: searched), --global-batch: the
  sequences of one optimizer step (default: --batch × --grad-accum per data-parallel GPU),
  --nic-gbit-s: each GPU's node port (default: the catalog's, e.g. 400 for DGX H100), --fp32-math pytorch
  (image and classic jobs in fp32 on cards with TF32: PyTorch's defaults run convolutions in TF32 and
  matmuls in FP32; tf32 = NGC containers, TF32 for both; strict = FP32 everywhere)
  Training assumes FlashAttention; --precision fp8 trains the linear layers in FP8 (Transformer Engine).
  No --ram-gib: no RAM offload. With it (> 0), llama.cpp jobs that do not fit the GPUs put whole layers
  (-ngl) or MoE experts (--n-cpu-moe) in RAM, less 4 GiB for the OS; --offload auto picks the faster
  placement that fits. --ram-gb-s defaults by card: 8-channel DDR5-4800 (307.2) for datacenter cards,
  dual-channel DDR5-5600 (89.6) for cards from 2022 on, dual-channel DDR4-3200 (51.2) before.
  --gpu-share-gib: a unified-memory machine's GPU share (default: the platform's, e.g. 3/4 on a Mac
  above 36 GB); at most its memory less 4 GiB.

OUTPUT:
  A table, or with --json one object: model, gpu, gpus, memory{weights_gib, kv_cache_gib,
  activations_gib, gradients_gib, optimizer_gib, overhead_gib, total_gib, total_band_gib,
  per_gpu_band_gib (the bands measured peaks fall in: training and fine-tuning; else null)}, per_gpu_gib,
  gpus_needed, fits, throughput{decode_tokens_per_s, prefill_tokens_per_s,
  serving_tokens_per_s, train_tokens_per_s, seconds_per_image, train_samples_per_s, seconds_per_video,
  per_user_tokens_per_s, aggregate_tokens_per_s, ttft_s} (each null or {low, mid, high}),
  memory.offloaded_gib (GiB in system RAM), offload (null or {placement, layers_on_gpu, layers_total,
  ram_gib_used}),
  serving{users, capacity, max_users (null without a target), curve[{users, per_user_tokens_per_s,
  aggregate_tokens_per_s, ttft_s}]} (inference jobs that fit; else null) and assumptions[].
";

#[derive(Default)]
struct Args {
    s: SizingArgs,
    gpu: Option<String>,
    mix: Option<String>,
    gpus: Option<u32>,
    json: bool,
}




fn parse_args(args: Vec<OsString>, out: &mut dyn Write) -> Result<Option<Args>, CliError> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_args(args);
    let mut a = Args::default();
    while let Some(arg) = p.next()? {
        match arg {
            Long(flag) if SizingArgs::FLAGS.contains(&flag) => {
                let flag = flag.to_owned();
                a.s.take(&flag, &mut p)?;
            }
            Long("help") | Short('h') => {
                write_str(out, &help())?;
                return Ok(None);
            }
            Long("json") => a.json = true,
            Long("gpu") => a.gpu = Some(value(&mut p, "gpu")?),
            Long("mix") => a.mix = Some(value(&mut p, "mix")?),
            Long("gpus") => a.gpus = Some(number(&mut p, "gpus")?),
            other => return Err(other.unexpected().into()),
        }
    }
    Ok(Some(a))
}




/// Parses the estimate flags and prints the estimate.
pub fn cmd_estimate(args: Vec<OsString>, out: &mut dyn Write) -> Result<(), CliError> {
    let Some(a) = parse_args(args, out)? else { return Ok(()) };
    let (mix, gpu, gpus) = cards(&a)?;
    job::one_model_source(&a.s)?;
    let precision = job::precision(&a.s)?;
    // Diffusion and classic presets go to the media engine.
    if let Some(id) = job::media_preset(&a.s) {
        job::check_media_flags(&a.s, id, a.mix.is_some())?;
        let workload = job::media_workload(&a.s, id)?;
        let extras = super::flags::media_extras(&a.s);
        let Some(result) =
            crate::model::media_preset::estimate_media_with(id, workload, precision, a.s.resolution, a.s.steps, a.s.batch, super::flags::fp32_math(&a.s)?, extras, gpu, gpus)
        else {
            return Err(unknown("model", id, catalog::model_ids()));
        };
        return print(&result.map_err(engine_error)?, a.json, out);
    }
    let (_, notes) = job::model_arch(&a.s)?;
    for n in notes {
        eprintln!("config: {n}");
    }
    let gpus = mix.as_ref().and_then(|m| m.first()).map_or(gpus, |(_, n)| *n);
    let mut job = job::llm_job(&a.s, Some(gpus))?;
    if let Some(cards) = mix.as_ref().filter(|m| m.len() > 1) {
        let est = llm::mixed::estimate_mixed(&job, cards).map_err(engine_error)?;
        return print(&est, a.json, out);
    }
    let targets = super::flags::serving_targets(&a.s)?;
    let (est, report) = estimate_and_serve(&mut job, gpu, gpus, &targets)?;
    if a.json {
        return super::serving::print_json(&est, report.as_ref(), out);
    }
    print(&est, false, out)?;
    match &report {
        Some(r) => write_str(out, &super::serving::table(r)),
        None => Ok(()),
    }
}

/// The cards of `--mix`, or of `--gpu` and `--gpus`: the mix (if any), the first card and the
/// count of `--gpus`.
#[allow(clippy::type_complexity)]
fn cards(a: &Args) -> Result<(Option<Vec<(&'static catalog::Gpu, u32)>>, &'static catalog::Gpu, u32), CliError> {
    let mix = match (&a.mix, &a.gpu, a.gpus) {
        (Some(m), None, None) => Some(super::flags::card_counts("mix", m)?),
        (Some(_), ..) => return Err(CliError("--mix replaces --gpu and --gpus (give the cards as ID:COUNT,ID:COUNT)".into())),
        (None, ..) => None,
    };
    let first = mix.as_ref().and_then(|m| m.first()).map(|(g, _)| g.id.as_str());
    let gpu_id = first.or(a.gpu.as_deref()).ok_or_else(|| CliError("--gpu is required (see `gpu-advisor gpus`)".into()))?;
    let gpu = catalog::gpu(gpu_id).ok_or_else(|| unknown("gpu", gpu_id, catalog::gpus().iter().map(|g| g.id.as_str())))?;
    let gpus = a.gpus.unwrap_or(1);
    if gpus == 0 || gpus > llm::MAX_GPUS {
        return Err(CliError(format!("--gpus: must be between 1 and {}, got {gpus}", llm::MAX_GPUS)));
    }
    Ok((mix, gpu, gpus))
}

/// The estimate of `job` on `gpus` of `gpu` and, for inference on a build that holds it, its
/// serving figures. The build serves as the best split into replicas (as `recommend` does), else
/// as one; an MoE model whose layout is left to the planner is planned even when tensor
/// parallelism alone does not hold its users, and the estimate follows the layout it picks.
fn estimate_and_serve(job: &mut llm::LlmJob, gpu: &crate::catalog::Gpu, gpus: u32, targets: &llm::serving::ServingTargets) -> Result<(Estimate, Option<super::serving::Served>), CliError> {
    let mut est = llm::estimate_llm(job, gpu, gpus).map_err(engine_error)?;
    let holds_one = llm::max_concurrency(job, gpu, gpus).map_err(engine_error)? >= 1;
    let inference = job.workload == Workload::Inference && holds_one;
    let auto_moe = job.model.is_moe() && job.moe_layout == llm::job::MoeLayout::Auto;
    let plan = if inference && (est.fits || auto_moe) { llm::deploy::plan(job, gpu, gpus, targets, f64::INFINITY).map_err(engine_error)? } else { None };
    if let Some(d) = plan.as_ref().filter(|d| d.moe_layout != job.moe_layout) {
        job.moe_layout = d.moe_layout;
        est = llm::estimate_llm(job, gpu, gpus).map_err(engine_error)?;
    }
    let report = match plan {
        Some(d) => Some(super::serving::Served { report: d.report, replicas: d.replicas, gpus_per_replica: d.gpus_per_replica }),
        None if inference => {
            let report = llm::serving::analyze(job, gpu, gpus, targets).map_err(engine_error)?;
            Some(super::serving::Served { report, replicas: 1, gpus_per_replica: gpus })
        }
        None => None,
    };
    Ok((est, report))
}

fn fmt_band(b: Option<Band>, unit: &str) -> String {
    match b {
        Some(b) => format!("{:.1} ({:.1}–{:.1}) {unit}", b.mid, b.low, b.high),
        None => "—".into(),
    }
}

fn print(est: &Estimate, json: bool, out: &mut dyn Write) -> Result<(), CliError> {
    if json {
        let text = serde_json::to_string_pretty(est).map_err(|e| CliError(e.to_string()))?;
        return write_str(out, &format!("{text}\n"));
    }
    let m = &est.memory;
    let t = &est.throughput;
    let mut s = format!("{} on {} × {}\n", est.model, est.gpus, est.gpu);
    s.push_str(&format!(
        "memory (GiB, all GPUs): weights {:.2}, KV cache {:.2}, activations {:.2}, gradients {:.2}, optimizer {:.2}, overhead {:.2}, total {:.2}\n",
        m.weights_gib, m.kv_cache_gib, m.activations_gib, m.gradients_gib, m.optimizer_gib, m.overhead_gib, m.total_gib
    ));
    let band = match m.per_gpu_band_gib {
        Some(b) => format!(" (measured peaks {:.2}–{:.2})", b.low, b.high),
        None => String::new(),
    };
    s.push_str(&format!(
        "per GPU: {:.2} GiB{band} — {}; GPUs needed: {}\n",
        est.per_gpu_gib,
        if est.fits { "fits" } else { "does not fit" },
        est.gpus_needed
    ));
    if let Some(o) = &est.offload {
        s.push_str(&format!(
            "offload: {} — {} of {} layers on the GPU, {:.2} GiB in system RAM\n",
            o.placement.as_str(),
            o.layers_on_gpu,
            o.layers_total,
            o.ram_gib_used
        ));
    }
    let rows = [
        ("decode", t.decode_tokens_per_s, "tokens/s per sequence"),
        ("prefill", t.prefill_tokens_per_s, "tokens/s"),
        ("serving", t.serving_tokens_per_s, "output tokens/s"),
        ("training", t.train_tokens_per_s, "tokens/s"),
        ("image", t.seconds_per_image, "s/image"),
        ("video", t.seconds_per_video, "s/video"),
        ("training", t.train_samples_per_s, "samples/s"),
    ];
    for (name, band, unit) in rows {
        if band.is_some() {
            s.push_str(&format!("{name:<9} {}\n", fmt_band(band, unit)));
        }
    }
    s.push_str("assumptions:\n");
    for a in &est.assumptions {
        s.push_str(&format!("  - {a}\n"));
    }
    write_str(out, &s)
}
