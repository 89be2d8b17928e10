//! How a job is spread over N GPUs, what each GPU then holds, and the smallest N that fits.
//!
//! Inference: tensor parallelism (vLLM, TRT-LLM, MLC) splits every layer's weights and KV heads
//! N ways when the attention heads divide by N; otherwise, and for llama.cpp, exllamav2 and
//! transformers (`device_map="auto"`), whole layers go to each GPU (layer split / pipeline),
//! so the busiest GPU holds ceil(L/N)/L of the layers. Training: ZeRO-1/2/3 shard optimizer
//! states, gradients and weights over data-parallel GPUs (Rajbhandari et al. 2019, §5); with
//! ZeRO 0 and N > 1, or a mesh the job fixes, a Megatron-style mesh of tensor × context ×
//! pipeline × data parallel groups ([`Mesh`]; Narayanan et al. 2021, "Efficient Large-Scale
//! Language Model Training on GPU Clusters Using Megatron-LM", SC21) splits the weights,
//! gradients and (with sequence parallelism) activations over tensor and pipeline ranks, and the
//! optimizer states also over data-parallel ranks (Megatron's distributed optimizer, ZeRO-1).
//! With `auto_layout` (the default) training tries each of these at every count and keeps the
//! fastest that fits ([`training_candidates`]; the choice is made in `llm::layout_for`).
//!
//! A mixture-of-experts model served by vLLM, SGLang or TensorRT-LLM may instead spread whole
//! routed experts over the GPUs (expert parallelism, [`Layout::Expert`]): each GPU keeps
//! `E / n` experts, the attention and dense layers stay tensor parallel inside a group of
//! `attn_tp` GPUs, and the `n / attn_tp` groups serve their own sequences (data-parallel
//! attention: DeepSeek-V3 technical report §3.4; SGLang `--enable-dp-attention --ep-size`;
//! TensorRT-LLM `enable_attention_dp`, "DEP" in its performance tables). Tokens travel to their
//! experts and back in two all-to-alls per MoE layer ([`crate::model::fabric::all_to_all_s`]).

use super::engines::Engine;
use super::memory::Terms;
use super::job::{LlmJob, MeshSpec, MoeLayout, MAX_GPUS};
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
    /// A Megatron-style training mesh: tensor × context × pipeline × data parallel.
    Mesh(Mesh),
    /// MoE inference: routed experts spread over `gpus` (expert parallel), attention and dense
    /// layers tensor parallel over `attn_tp` of them, `gpus / attn_tp` attention groups each
    /// serving its own sequences.
    Expert { gpus: u32, attn_tp: u32 },
}

/// Whether `job` on `engine` can spread its experts: an MoE model on an engine with expert
/// parallelism (vLLM `--enable-expert-parallel`, SGLang `--ep-size`, TensorRT-LLM `moe_expert_parallel_size`).
pub fn expert_parallel_applies(job: &LlmJob, engine: Engine) -> bool {
    job.model.is_moe() && !job.workload.is_training() && matches!(engine, Engine::Vllm | Engine::Sglang | Engine::TrtLlm)
}

/// The expert-parallel layout `mode` makes of `gpus` GPUs (None for `Auto` and `Tensor`, and
/// when the routed experts do not divide evenly over the GPUs, as SGLang's and TensorRT-LLM's
/// expert-parallel sizes must): the attention groups of [`MoeLayout::Expert`] span a node (the
/// scale-up domain), or the whole build when it is smaller, with the heads dividing by them.
pub fn expert_layout(job: &LlmJob, gpu: &Gpu, mode: MoeLayout, gpus: u32) -> Option<Layout> {
    if gpus <= 1 || !job.model.experts_total.is_multiple_of(gpus) {
        return None;
    }
    let attn_tp = match mode {
        MoeLayout::Auto | MoeLayout::Tensor => return None,
        MoeLayout::DpAttention => 1,
        MoeLayout::Expert => (1..=gpus.min(crate::model::fabric::node_gpus(gpu)))
            .rev()
            .find(|t| gpus.is_multiple_of(*t) && job.model.attention_heads.is_multiple_of(*t))
            .unwrap_or(1),
    };
    Some(Layout::Expert { gpus, attn_tp })
}

/// A training mesh over `tp · cp · pp · dp` GPUs. Megatron orders ranks tensor first, then
/// context, data and pipeline (megatron/core/parallel_state.py `order="tp-cp-ep-dp-pp"`), so a
/// tensor group sits inside a node and consecutive pipeline stages are `tp · cp · dp` ranks apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mesh {
    pub tp: u32,
    pub cp: u32,
    pub pp: u32,
    pub dp: u32,
    /// ZeRO stage over the data-parallel (and context-parallel) ranks: 1 = the distributed optimizer.
    pub zero: u8,
    /// Model chunks per pipeline stage (interleaved 1F1B).
    pub interleave: u32,
    /// Micro-batches each pipeline runs per optimizer step.
    pub micro_batches: u32,
    /// An MoE model's expert parallel size (1: none, the experts split as tensor parallelism
    /// splits every layer). Folded into the `tp · cp · dp` ranks of each pipeline stage (Megatron
    /// Core's MoE parallel folding, Liu et al. 2025, arXiv 2504.14960: `TP·CP·DP = ETP·EP·EDP`),
    /// each rank keeping `E / ep` whole experts (expert tensor parallel 1, as Megatron-Bridge's
    /// MoE recipes set `expert_tensor_parallel_size`); the experts' gradients reduce over the
    /// `tp · cp · dp / ep` ranks that hold the same experts.
    pub ep: u32,
}

impl Mesh {
    /// GPUs the mesh spans.
    pub fn gpus(&self) -> u32 {
        self.tp * self.cp * self.pp * self.dp
    }
}

/// Micro-batches per optimizer step for each of `replicas` data-parallel replicas: the job's
/// global batch over the replicas' micro-batches, or, without one, as many as keep the global
/// batch of a pure data-parallel run on the same `gpus` (`batch × grad_accum` per GPU).
pub fn micro_batches(job: &LlmJob, gpus: u32, replicas: u32) -> u32 {
    let b = job.batch.max(1);
    let replicas = replicas.max(1);
    match job.global_batch {
        Some(g) => g.div_ceil(b.saturating_mul(replicas)).max(1),
        None => job.grad_accum.max(1).saturating_mul((gpus / replicas).max(1)),
    }
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
            Layout::Mesh(m) => mesh_note(&m),
            Layout::Expert { gpus, attn_tp: 1 } => Note::new("expert parallel ×{n}, attention data parallel on every GPU", n(gpus)),
            Layout::Expert { gpus, attn_tp } => Note::new(
                "expert parallel ×{n}, attention tensor parallel ×{tp} in {groups} groups",
                vec![("n", gpus.to_string().into()), ("tp", attn_tp.to_string().into()), ("groups", self.attention_groups().to_string().into())],
            ),
        }
    }

    /// The attention groups that serve their own sequences: `gpus / attn_tp` under expert
    /// parallelism ([`Layout::Expert`]), else one.
    pub fn attention_groups(&self) -> u32 {
        match *self {
            Layout::Expert { gpus, attn_tp } => (gpus / attn_tp.max(1)).max(1),
            _ => 1,
        }
    }

    /// How many copies of the per-GPU activation term exist across the job.
    pub fn activation_copies(&self, gpus: u32) -> f64 {
        match self {
            Layout::Mesh(m) => mesh_activation_share(*m) * f64::from(m.gpus()),
            _ => f64::from(gpus.max(1)),
        }
    }
}

/// The layout `engine` uses for `job` on `gpus` GPUs when the job fixes its sharding
/// (`auto_layout` off, or inference).
pub fn layout(job: &LlmJob, gpu: &Gpu, engine: Engine, gpus: u32) -> Layout {
    if gpus <= 1 {
        return Layout::Single;
    }
    if job.workload.is_training() {
        if let Some(spec) = job.mesh.filter(|s| spec_divides(*s, gpus)) {
            return Layout::Mesh(mesh_of(job, spec, gpus));
        }
        return if job.zero == 0 && !job.workload.is_adapter() {
            let tp = (1..=gpus.min(tp_domain(gpu))).rev().find(|t| gpus.is_multiple_of(*t) && tp_divides(job, *t)).unwrap_or(1);
            Layout::Mesh(mesh_of(job, MeshSpec { tp, cp: 1, pp: gpus / tp, interleave: 1, ep: 1 }, gpus))
        } else {
            Layout::DataParallel { gpus, zero: job.zero }
        };
    }
    if expert_parallel_applies(job, engine) {
        if let Some(l) = expert_layout(job, gpu, job.moe_layout, gpus) {
            return l;
        }
    }
    if engine.tensor_parallel() && job.model.attention_heads.is_multiple_of(gpus) {
        Layout::Tensor(gpus)
    } else {
        Layout::LayerSplit(gpus)
    }
}

/// The mesh `spec` makes of `gpus` GPUs: its data-parallel size is what is left over (at least 1).
pub fn mesh_of(job: &LlmJob, spec: MeshSpec, gpus: u32) -> Mesh {
    let dp = u32::try_from(u64::from(gpus) / spec.replica()).unwrap_or(1).max(1);
    Mesh {
        tp: spec.tp.max(1),
        cp: spec.cp.max(1),
        pp: spec.pp.max(1),
        dp,
        zero: 1,
        interleave: spec.interleave.max(1),
        micro_batches: micro_batches(job, gpus, dp),
        ep: spec.ep.max(1),
    }
}

/// Whether a mesh of `spec` fills `gpus` GPUs with whole replicas, its expert parallel group
/// inside one pipeline stage's `tp · cp · dp` ranks.
pub fn spec_divides(spec: MeshSpec, gpus: u32) -> bool {
    let stage = u64::from(gpus) / u64::from(spec.pp.max(1));
    u64::from(gpus).is_multiple_of(spec.replica()) && stage.is_multiple_of(u64::from(spec.ep.max(1)))
}

/// The GPUs tensor parallelism may span: the card's scale-up domain, else a node of eight.
fn tp_domain(gpu: &Gpu) -> u32 {
    gpu.scale_up_max_gpus.unwrap_or(crate::model::fabric::NODE_GPUS).max(1)
}

/// Whether tensor parallelism of `t` splits the model's heads: Megatron needs the attention
/// heads and the KV groups to divide by it (`num_query_groups % tensor_model_parallel_size`).
fn tp_divides(job: &LlmJob, t: u32) -> bool {
    job.model.attention_heads.is_multiple_of(t) && (job.model.kv_heads.is_multiple_of(t) || t.is_multiple_of(job.model.kv_heads.max(1)))
}

/// The training layouts worth trying at `gpus` GPUs, simplest first: data parallel with a full
/// replica, ZeRO-1, ZeRO-2, ZeRO-3 / FSDP full shard, and (full training only) every Megatron
/// mesh of tensor parallel within the scale-up domain (powers of two dividing the heads), context
/// parallel in chunks of at least [`MIN_CP_CHUNK_TOKENS`], any pipeline depth up to one stage
/// per layer (the busiest stage holds the rounded-up share), and each interleave that divides
/// the stages' layers evenly.
/// LoRA and QLoRA run data parallel, with FSDP when the frozen base does not fit (torchtune's
/// `lora_finetune_distributed` recipes).
pub fn training_candidates(job: &LlmJob, gpu: &Gpu, gpus: u32) -> Vec<Layout> {
    let mut out = Vec::with_capacity(64);
    for_each_candidate(job, gpu, gpus, true, &mut |l| {
        out.push(l);
        false
    });
    out
}

/// Calls `visit` on each of [`training_candidates`] (with or without the interleaved variants
/// of each pipeline, which hold no less memory than plain 1F1B: `mesh_activation_share`) until
/// it returns true; true when one did. No list is built: the recommender runs this for every
/// count of every card.
pub fn for_each_candidate(job: &LlmJob, gpu: &Gpu, gpus: u32, interleaved: bool, visit: &mut dyn FnMut(Layout) -> bool) -> bool {
    if gpus <= 1 {
        return visit(Layout::Single);
    }
    if (0..=3).any(|zero| visit(Layout::DataParallel { gpus, zero })) {
        return true;
    }
    if job.workload.is_adapter() {
        return false;
    }
    if let Some(spec) = job.mesh {
        return spec_divides(spec, gpus) && visit(Layout::Mesh(mesh_of(job, spec, gpus)));
    }
    let layers = job.model.layers.max(1);
    for tp in powers(gpus.min(tp_domain(gpu))).filter(|t| gpus.is_multiple_of(*t) && tp_divides(job, *t)) {
        let cp_max = (job.seq_len / MIN_CP_CHUNK_TOKENS).max(1);
        for cp in powers(cp_max).filter(|c| (gpus / tp).is_multiple_of(*c) && job.seq_len.is_multiple_of(2 * c)) {
            let rest = gpus / (tp * cp);
            for pp in (1..=rest.min(layers)).filter(|p| rest.is_multiple_of(*p) && tp * cp * p > 1) {
                let per_stage = layers / pp;
                for v in (1..=per_stage.max(1)).filter(|v| *v == 1 || (interleaved && pp > 1 && layers.is_multiple_of(pp * v))) {
                    for ep in expert_sizes(job, gpus / pp) {
                        if visit(Layout::Mesh(mesh_of(job, MeshSpec { tp, cp, pp, interleave: v, ep }, gpus))) {
                            return true;
                        }
                    }
                }
            }
        }
    }
    false
}

/// Powers of two up to `max`.
fn powers(max: u32) -> impl Iterator<Item = u32> {
    (0..15).map(|k| 1u32 << k).take_while(move |v| *v <= max)
}

/// The expert parallel sizes a mesh of `stage` GPUs per pipeline stage may use: 1, and for an
/// MoE model each power of two up to `stage` that divides its routed experts.
fn expert_sizes(job: &LlmJob, stage: u32) -> impl Iterator<Item = u32> + '_ {
    let moe = job.model.is_moe();
    powers(stage).filter(move |e| *e == 1 || (moe && stage.is_multiple_of(*e) && job.model.experts_total.is_multiple_of(*e)))
}

/// The shortest sequence chunk context parallelism leaves each rank: NVIDIA's published Llama 3
/// configurations split 8,192-token sequences in two at most (NeMo performance summary: 70B and
/// 405B pre-training at CP 2), and ring attention's KV exchange stops hiding behind attention
/// below that.
pub const MIN_CP_CHUNK_TOKENS: u32 = 4096;

/// Micro-batches whose activations the busiest stage (the first) holds, as a share of one
/// micro-batch through the whole model on one GPU: 1F1B keeps `min(pp, m)` micro-batches of
/// its `L/pp` layers in flight, interleaving adds `1 + (pp−1)/(pp·v)` of that (Korthikanti et
/// al. 2022, "Reducing Activation Recomputation in Large Transformer Models", §4.2.3), and tensor
/// parallelism with sequence parallelism and context parallelism split it `tp · cp` ways (§4.2.2).
pub fn mesh_activation_share(m: Mesh) -> f64 {
    let pp = f64::from(m.pp.max(1));
    let in_flight = f64::from(m.micro_batches.max(1)).min(pp);
    let interleave = if m.interleave > 1 { 1.0 + (pp - 1.0) / (pp * f64::from(m.interleave)) } else { 1.0 };
    in_flight / pp * interleave / f64::from((m.tp * m.cp).max(1))
}

/// The mesh in words: "TP 8 × PP 4 × DP 16, ZeRO-1, 8 micro-batches" (and "; experts: expert
/// parallel ×32" with expert parallelism).
fn mesh_note(m: &Mesh) -> Note {
    let a = |k: &'static str, v: u32| (k, Arg::from(v.to_string()));
    let args = vec![a("tp", m.tp), a("cp", m.cp), a("pp", m.pp), a("dp", m.dp), a("zero", u32::from(m.zero)), a("m", m.micro_batches), a("v", m.interleave)];
    let mesh = match (m.cp > 1, m.interleave > 1) {
        (false, false) => Note::new("TP {tp} × PP {pp} × DP {dp}, ZeRO-{zero}, {m} micro-batches", args),
        (false, true) => Note::new("TP {tp} × PP {pp} (interleaved ×{v}) × DP {dp}, ZeRO-{zero}, {m} micro-batches", args),
        (true, false) => Note::new("TP {tp} × CP {cp} × PP {pp} × DP {dp}, ZeRO-{zero}, {m} micro-batches", args),
        (true, true) => Note::new("TP {tp} × CP {cp} × PP {pp} (interleaved ×{v}) × DP {dp}, ZeRO-{zero}, {m} micro-batches", args),
    };
    if m.ep > 1 {
        Note::new("{mesh}; experts: expert parallel ×{ep}", vec![("mesh", mesh.into()), a("ep", m.ep)])
    } else {
        mesh
    }
}

/// True when the busiest GPU of `layout` holds what must stay resident.
pub fn fits(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms, layout: &Layout) -> bool {
    per_gpu_parts(job, engine, t, layout).0 <= usable_gib(gpu, engine, job)
}

/// Memory one GPU may use, GiB. Inference: the engine's utilization cap (vLLM's
/// `gpu_memory_utilization` 0.9, SGLang's `mem_fraction_static`); training and fine-tuning run
/// in PyTorch without that cap. A unified-memory machine's GPU gets its platform's share of the
/// RAM, or the share the user set ([`super::host::unified_gpu_gib`]).
pub fn usable_gib(gpu: &Gpu, engine: Engine, job: &LlmJob) -> f64 {
    let memory = super::host::unified_gpu_gib(gpu, &job.host).unwrap_or_else(|| gpu.usable_memory_gib());
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
        Layout::Tensor(n) | Layout::DataParallel { gpus: n, .. } | Layout::Expert { gpus: n, .. } => 1.0 / f64::from(n.max(1)),
        Layout::Mesh(m) => {
            let l = job.model.layers.max(1);
            f64::from(l.div_ceil(m.pp.max(1))) / f64::from(l) / f64::from(m.tp.max(1))
        }
        Layout::LayerSplit(n) => {
            let l = job.model.layers.max(1);
            f64::from(l.div_ceil(n.max(1))) / f64::from(l)
        }
    }
}

/// Share of the weights (and gradients) one GPU of mesh `m` holds: its pipeline stage's layers
/// split over the tensor ranks, and with expert parallelism the routed experts over the `ep`
/// expert ranks instead.
pub fn mesh_weight_share(job: &LlmJob, m: Mesh) -> f64 {
    let routed = (super::memory::routed_expert_bytes(job) / super::memory::weight_bytes_total(job).max(1.0)).clamp(0.0, 1.0);
    weight_share_of(job, m, routed)
}

/// [`mesh_weight_share`] with the routed experts' share of the bytes given (`Terms::routed_share`).
fn weight_share_of(job: &LlmJob, m: Mesh, routed: f64) -> f64 {
    let l = job.model.layers.max(1);
    let stage = f64::from(l.div_ceil(m.pp.max(1))) / f64::from(l);
    if m.ep <= 1 {
        return stage / f64::from(m.tp.max(1));
    }
    stage * ((1.0 - routed) / f64::from(m.tp.max(1)) + routed / f64::from(m.ep))
}

/// (share of the weights, share of the KV cache) one GPU of an expert-parallel layout holds: its
/// `1 / gpus` of the routed experts and `1 / attn_tp` of the other weights; the KV cache of its
/// attention group's sequences (`attn_tp / gpus` of them), split as tensor parallelism splits it.
pub fn expert_shares(job: &LlmJob, gpus: u32, attn_tp: u32) -> (f64, f64) {
    let (gpus, attn_tp) = (f64::from(gpus.max(1)), attn_tp.max(1));
    let total = super::memory::weight_bytes_total(job).max(1.0);
    let routed = (super::memory::routed_expert_bytes(job) / total).clamp(0.0, 1.0);
    let weights = routed / gpus + (1.0 - routed) / f64::from(attn_tp);
    (weights, tensor_kv_share(job, attn_tp) * f64::from(attn_tp) / gpus)
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
        Layout::Tensor(n) | Layout::LayerSplit(n) | Layout::DataParallel { gpus: n, .. } | Layout::Expert { gpus: n, .. } => f64::from(n.max(1)),
        Layout::Mesh(m) => f64::from(m.gpus().max(1)),
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
        Layout::Expert { gpus, attn_tp } => {
            let (weights, kv) = expert_shares(job, gpus, attn_tp);
            (t.weights_gib * weights + t.kv_gib * kv + t.activations_gib + fixed, 0.0)
        }
        Layout::Mesh(m) => {
            // Weights and gradients split over tensor and pipeline ranks (the routed experts over
            // the expert-parallel ranks instead); the distributed optimizer also splits the states
            // over the data and context ranks (the experts' over their `tp·cp·dp/ep` data-parallel
            // ranks: the same share of the whole).
            let o = f / f64::from((m.dp * m.cp).max(1));
            let w = weight_share_of(job, m, t.routed_share);
            ((t.weights_gib + t.gradients_gib) * w + (t.optimizer_gib - t.pageable_gib) * o + t.activations_gib * mesh_activation_share(m) + fixed, t.pageable_gib * o)
        }
        Layout::DataParallel { zero, .. } => {
            let block = t.weights_gib / f64::from(job.model.layers.max(1));
            let w = if zero >= 3 { t.weights_gib * f + FSDP_LIVE_BLOCKS * block } else { t.weights_gib };
            let g = if zero >= 2 { t.gradients_gib * f } else { t.gradients_gib };
            let o_shard = if zero >= 1 { f } else { 1.0 };
            ((w + g + (t.optimizer_gib - t.pageable_gib) * o_shard + t.activations_gib + fixed), t.pageable_gib * o_shard)
        }
    }
}

/// [`per_gpu_gib`] when `layout` [`fits`], else `None`: one look at the memory for both.
pub fn fitting_gib(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms, layout: &Layout) -> Option<f64> {
    let (resident, pageable) = per_gpu_parts(job, engine, t, layout);
    let usable = usable_gib(gpu, engine, job);
    (resident <= usable).then(|| resident + pageable.min((usable - resident).max(0.0)))
}

/// Memory the busiest GPU holds, GiB (pageable optimizer state counted while it fits).
pub fn per_gpu_gib(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms, layout: &Layout) -> f64 {
    let (resident, pageable) = per_gpu_parts(job, engine, t, layout);
    let room = (usable_gib(gpu, engine, job) - resident).max(0.0);
    resident + pageable.min(room)
}

/// Smallest GPU count at which some layout the job may use fits, for training with the job's
/// `layout_headroom` free when the layout search picks (0 when none up to
/// [`MAX_GPUS`] does). Every count up to two nodes is tried; beyond that, the first whole node
/// count that holds it, found by doubling and then halving the gap (memory per GPU falls as
/// nodes are added), and then the smallest count inside that last node.
pub fn gpus_needed_for(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms) -> u32 {
    // With a layout headroom (the recommender's), a training layout must also leave it free,
    // unless no count's does.
    let usable = usable_gib(gpu, engine, job);
    let with_room = needed_with(job, gpu, engine, t, usable * (1.0 - job.layout_headroom.clamp(0.0, 0.9)));
    if with_room == 0 && job.layout_headroom > 0.0 {
        return needed_with(job, gpu, engine, t, usable);
    }
    with_room
}

/// Fewer GPUs than this cannot hold a training job under any layout the search tries (1 when no
/// floor is known): each of the search's layouts (one GPU, ZeRO data parallelism, a Megatron mesh
/// whose expert ranks lie within a pipeline stage) leaves every GPU at least `1/n` of the
/// weights, gradients and resident optimizer state, beside its runtime context.
fn count_floor(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms) -> u32 {
    if !(job.workload.is_training() && job.auto_layout && job.mesh.is_none()) {
        return 1;
    }
    let sharded = t.weights_gib + t.gradients_gib + (t.optimizer_gib - t.pageable_gib).max(0.0);
    let room = usable_gib(gpu, engine, job) - t.context_gib;
    if room <= 0.0 {
        return if sharded > 0.0 { MAX_GPUS + 1 } else { 1 };
    }
    // A hair under the quotient, so that rounding never skips a count that fits exactly.
    let n = (sharded / room * (1.0 - 1e-9)).ceil();
    if n > f64::from(MAX_GPUS) {
        MAX_GPUS + 1
    } else {
        (n as u32).max(1)
    }
}

/// [`gpus_needed_for`] with each GPU holding at most `room` GiB under the layout search.
fn needed_with(job: &LlmJob, gpu: &Gpu, engine: Engine, t: &Terms, room: f64) -> u32 {
    let roomy = |l: &Layout| fitting_gib(job, gpu, engine, t, l).is_some_and(|g| g <= room);
    // Counts under the floor are known not to hold: they are not laid out.
    let floor = count_floor(job, gpu, engine, t);
    let holds = |n: u32| {
        if n < floor {
            false
        } else if job.workload.is_training() && job.auto_layout {
            for_each_candidate(job, gpu, n, false, &mut |l| roomy(&l))
        } else {
            fits(job, gpu, engine, t, &layout(job, gpu, engine, n))
        }
    };
    let node = crate::model::fabric::node_gpus(gpu).max(1);
    if let Some(n) = (floor..=(2 * node).min(MAX_GPUS)).find(|&n| holds(n)) {
        return n;
    }
    let (mut lo, mut hi) = (2u32, 4u32);
    while hi * node <= MAX_GPUS && !holds(hi * node) {
        lo = hi;
        hi *= 2;
    }
    if hi * node > MAX_GPUS {
        hi = MAX_GPUS / node;
        if !holds(hi * node) {
            return 0;
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if holds(mid * node) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    ((hi - 1) * node + 1..=hi * node).find(|&n| holds(n)).unwrap_or(hi * node)
}
