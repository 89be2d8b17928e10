//! How a job is spread over N GPUs, what each GPU then holds, and the smallest N that fits.
//!
//! Inference: tensor parallelism (vLLM, TRT-LLM, MLC) splits every layer's weights and KV heads
//! N ways when the attention heads divide by N; otherwise, and for llama.cpp, exllamav2 and
//! transformers (`device_map="auto"`), whole layers go to each GPU (layer split / pipeline),
//! so the busiest GPU holds ceil(L/N)/L of the layers. Training: ZeRO-1/2/3 shard optimizer
//! states, gradients and weights over data-parallel GPUs (Rajbhandari et al. 2019, §5); with
//! ZeRO 0 and N > 1, Megatron-style tensor + pipeline model parallelism splits all states and,
//! with sequence parallelism, the activations N ways (Korthikanti et al. 2022, §4.2.2). With
//! `auto_layout` (the default) training tries each of these at every count and keeps the
//! fastest that fits ([`training_candidates`]; the choice is made in `llm::layout_for`).

use super::engines::Engine;
use super::memory::Terms;
use super::{LlmJob, MAX_GPUS};
use crate::catalog::Gpu;
use crate::model::types::{Arg, Note};

/// The layout of a job over GPUs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    /// One GPU.
    Single,
    /// Tensor parallelism over N GPUs.
    Tensor(u32),
    /// Whole layers per GPU over N GPUs.
    LayerSplit(u32),
    /// Data parallel training over N GPUs with a ZeRO stage.
    DataParallel { gpus: u32, zero: u8 },
    /// Tensor + pipeline model parallel training over N GPUs.
    ModelParallel(u32),
}

impl Layout {
    /// The layout in words, for the assumptions and the reasons (translatable).
    pub fn describe(&self) -> Note {
        let n = |v: u32| vec![("n", Arg::from(v.to_string()))];
        match *self {
            Layout::Single => Note::plain("single GPU"),
            Layout::Tensor(g) => Note::new("tensor parallel ×{n}", n(g)),
            Layout::LayerSplit(g) => Note::new("layer split (pipeline) over {n} GPUs", n(g)),
            Layout::DataParallel { gpus, zero: 0 } => Note::new("data parallel ×{n}, full replica per GPU", n(gpus)),
            Layout::DataParallel { gpus, zero } => Note::new(
                "data parallel ×{n} with ZeRO-{zero}",
                vec![("n", gpus.to_string().into()), ("zero", zero.to_string().into())],
            ),
            Layout::ModelParallel(g) => Note::new("tensor + pipeline model parallel over {n} GPUs", n(g)),
        }
    }

    /// How many copies of the per-GPU activation term exist across the job.
    pub fn activation_copies(&self, gpus: u32) -> f64 {
        match self {
            Layout::ModelParallel(_) => 1.0,
            _ => f64::from(gpus.max(1)),
        }
    }
}

/// The layout `engine` uses for `job` on `gpus` GPUs when the job fixes its sharding
/// (`auto_layout` off, or inference).
pub fn layout(job: &LlmJob, _gpu: &Gpu, engine: Engine, gpus: u32) -> Layout {
    if gpus <= 1 {
        return Layout::Single;
    }
    if job.workload.is_training() {
        return if job.zero == 0 && !job.workload.is_adapter() {
            Layout::ModelParallel(gpus)
        } else {
            Layout::DataParallel { gpus, zero: job.zero }
        };
    }
    if engine.tensor_parallel() && job.model.attention_heads.is_multiple_of(gpus) {
        Layout::Tensor(gpus)
    } else {
        Layout::LayerSplit(gpus)
    }
}

/// The training layouts worth trying at `gpus` GPUs, simplest first: data parallel with a full
/// replica, ZeRO-1, ZeRO-2, ZeRO-3 / FSDP full shard, and (full training only) tensor +
/// pipeline model parallel. LoRA and QLoRA run data parallel, with FSDP when the frozen base
/// does not fit (torchtune's `lora_finetune_distributed` recipes).
pub fn training_candidates(job: &LlmJob, gpus: u32) -> [Option<Layout>; 5] {
    if gpus <= 1 {
        return [Some(Layout::Single), None, None, None, None];
    }
    let dp = |zero| Some(Layout::DataParallel { gpus, zero });
    let mp = if job.workload.is_adapter() { None } else { Some(Layout::ModelParallel(gpus)) };
    [dp(0), dp(1), dp(2), dp(3), mp]
}

/// True when the busiest GPU of `layout` holds what must stay resident.
pub fn fits(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms, layout: &Layout) -> bool {
    per_gpu_parts(job, engine, t, layout).0 <= usable_gib(gpu, engine, job)
}

/// Memory one GPU may use, GiB. Inference: the engine's utilization cap (vLLM's
/// `gpu_memory_utilization` 0.9, SGLang's `mem_fraction_static`); training and fine-tuning run
/// in PyTorch without that cap. A unified-memory machine's GPU gets its platform's share of the
/// RAM, or the share the user set ([`super::offload::unified_gpu_gib`]).
pub fn usable_gib(gpu: &Gpu, engine: Engine, job: &LlmJob) -> f64 {
    let memory = super::offload::unified_gpu_gib(gpu, job).unwrap_or_else(|| gpu.usable_memory_gib());
    let cap = if job.workload.is_training() { 1.0 } else { engine.memory_utilization() };
    memory * cap
}

/// Share of the whole KV cache each GPU holds under tensor parallelism over `g` GPUs: KV heads
/// split `g` ways, but with fewer KV heads than GPUs each GPU keeps (a replica of) one head, and
/// MLA's latent cannot be split by head at all, so every rank holds all of it (vLLM and SGLang
/// replicate the MLA cache on each TP rank unless data-parallel attention is on).
pub fn tensor_kv_share(job: &LlmJob, g: u32) -> f64 {
    if matches!(job.model.attention, crate::catalog::Attention::Mla) {
        1.0
    } else {
        (1.0 / f64::from(g.max(1))).max(1.0 / f64::from(job.model.kv_heads.max(1)))
    }
}

/// The busiest GPU's share of the layer-sharded terms.
fn shard_fraction(job: &LlmJob, layout: &Layout) -> f64 {
    match *layout {
        Layout::Single => 1.0,
        Layout::Tensor(n) | Layout::ModelParallel(n) | Layout::DataParallel { gpus: n, .. } => 1.0 / f64::from(n.max(1)),
        Layout::LayerSplit(n) => {
            let l = job.model.layers.max(1);
            f64::from(l.div_ceil(n.max(1))) / f64::from(l)
        }
    }
}

/// Transformer blocks whose full (unsharded) weights a ZeRO-3 / FSDP rank holds at its peak: the
/// block being computed and the next one, whose all-gather is already issued so that it overlaps
/// with the compute ("implicit forward prefetching (always enabled)": layer 1's all-gather
/// overlaps layer 0's forward, PyTorch FSDP notes, docs.pytorch.org/docs/stable/notes/fsdp.html;
/// backward prefetches the previous block the same way, `BackwardPrefetch.BACKWARD_PRE` by
/// default, and FSDP's rate limiter allows two all-gathers in flight). DeepSpeed ZeRO-3's defaults
/// are of the same size for a 70B model (`stage3_max_live_parameters` 1e9 parameters,
/// `stage3_prefetch_bucket_size` 5e8, against 0.86e9 per Llama 70B block).
pub const FSDP_LIVE_BLOCKS: f64 = 2.0;

/// Memory the busiest GPU needs, GiB, split into (must stay resident, may page out).
fn per_gpu_parts(job: &LlmJob, engine: Engine, t: &Terms, layout: &Layout) -> (f64, f64) {
    let f = shard_fraction(job, layout);
    let n = match *layout {
        Layout::Single => 1.0,
        Layout::Tensor(n) | Layout::LayerSplit(n) | Layout::ModelParallel(n) | Layout::DataParallel { gpus: n, .. } => f64::from(n.max(1)),
    };
    let fixed = t.context_gib + t.slack_gib / n;
    match *layout {
        Layout::Single => (t.weights_gib + t.kv_gib + t.activations_gib + t.gradients_gib + t.optimizer_gib - t.pageable_gib + fixed, t.pageable_gib),
        Layout::Tensor(g) => {
            let kv_f = tensor_kv_share(job, g);
            let _ = engine;
            (t.weights_gib * f + t.kv_gib * kv_f + t.activations_gib + fixed, 0.0)
        }
        Layout::LayerSplit(_) => (t.weights_gib * f + t.kv_gib * f + t.activations_gib + fixed, 0.0),
        Layout::ModelParallel(_) => (
            (t.weights_gib + t.gradients_gib + t.optimizer_gib - t.pageable_gib + t.activations_gib) * f + fixed,
            t.pageable_gib * f,
        ),
        Layout::DataParallel { zero, .. } => {
            let block = t.weights_gib / f64::from(job.model.layers.max(1));
            let w = if zero >= 3 { t.weights_gib * f + FSDP_LIVE_BLOCKS * block } else { t.weights_gib };
            let g = if zero >= 2 { t.gradients_gib * f } else { t.gradients_gib };
            let o_shard = if zero >= 1 { f } else { 1.0 };
            ((w + g + (t.optimizer_gib - t.pageable_gib) * o_shard + t.activations_gib + fixed), t.pageable_gib * o_shard)
        }
    }
}

/// Memory the busiest GPU holds, GiB (pageable optimizer state counted while it fits).
pub fn per_gpu_gib(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms, layout: &Layout) -> f64 {
    let (resident, pageable) = per_gpu_parts(job, engine, t, layout);
    let room = (usable_gib(gpu, engine, job) - resident).max(0.0);
    resident + pageable.min(room)
}

/// Smallest GPU count at which some layout the job may use fits (0 when none up to
/// [`MAX_GPUS`] does).
pub fn gpus_needed_for(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms) -> u32 {
    (1..=MAX_GPUS)
        .find(|&n| {
            if job.workload.is_training() && job.auto_layout {
                training_candidates(job, n).iter().flatten().any(|l| fits(job, gpu, engine, t, l))
            } else {
                fits(job, gpu, engine, t, &layout(job, gpu, engine, n))
            }
        })
        .unwrap_or(0)
}
