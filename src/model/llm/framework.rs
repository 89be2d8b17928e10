//! Training frameworks and the numerics each defaults to: whether trainable 16-bit weights keep
//! an fp32 master copy, whether the optimizer steps inside backward, which optimizer, whether the
//! loss upcasts all logits at once, and whether activations are recomputed. A flag the user sets
//! wins over the framework's default; the framework only fills what was left open.
//!
//! Sources:
//! - torchtune: `recipes/configs/llama3_1/8B_full_single_device.yaml` (dtype bf16, no fp32
//!   master weights; `bitsandbytes.optim.PagedAdamW8bit`; `optimizer_in_bwd: True`;
//!   `enable_activation_checkpointing: True`; `CEWithChunkedOutputLoss`), and the distributed
//!   `8B_full.yaml` (fused `torch.optim.AdamW`, FSDP, checkpointing on, no optimizer in backward);
//!   LoRA configs (`8B_lora_single_device.yaml`): bf16, checkpointing on, chunked loss.
//! - Megatron-LM / NeMo: bf16 mixed precision with fp32 main parameters and gradients for the
//!   optimizer (`--bf16`; Megatron's `Float16OptimizerWithFloat16Params`), the distributed
//!   optimizer (`--use-distributed-optimizer`, ZeRO-1) across data-parallel ranks.
//! - Hugging Face transformers `Trainer` (and PEFT on it): `bf16=True` is autocast over fp32
//!   weights (the weights are the master copy), `logits.float()` before the loss.

use super::job::{Checkpointing, LlmJob, Optimizer, Workload};

/// A training framework whose defaults a job takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Framework {
    /// Hugging Face transformers `Trainer`, PEFT, DeepSpeed and Accelerate: mixed precision over
    /// fp32 weights, fp32 logits (the engine's defaults).
    Transformers,
    /// torchtune recipes: pure bf16, chunked loss; single-GPU full fine-tunes page 8-bit AdamW
    /// and step it in backward.
    Torchtune,
    /// Megatron-LM and NeMo: bf16 with fp32 main weights, the distributed optimizer.
    Megatron,
}

/// The settings a user fixed with a flag (`None`: the framework's default applies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Chosen {
    pub optimizer: Option<Optimizer>,
    pub checkpointing: Option<Checkpointing>,
    pub master_weights: Option<bool>,
    pub optimizer_in_backward: Option<bool>,
}

impl Framework {
    /// Every framework, in CLI order.
    pub const ALL: [Framework; 3] = [Framework::Transformers, Framework::Torchtune, Framework::Megatron];

    /// CLI and URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            Framework::Transformers => "transformers",
            Framework::Torchtune => "torchtune",
            Framework::Megatron => "megatron",
        }
    }

    /// Parses a CLI or URL name (`hf`, `deepspeed` and `nemo` are aliases).
    pub fn parse(s: &str) -> Option<Framework> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "hf" | "huggingface" | "peft" | "deepspeed" | "accelerate" => "transformers",
            "nemo" | "megatron-lm" | "megatron-core" => "megatron",
            other => other,
        };
        Framework::ALL.into_iter().find(|f| f.as_str() == alias)
    }

    /// Puts this framework's defaults on `job` for what `chosen` leaves open, for a run on
    /// `gpus` GPUs (torchtune's single-device and distributed recipes differ).
    pub fn apply(self, job: &mut LlmJob, chosen: Chosen, gpus: u32) {
        let full_single = self == Framework::Torchtune && job.workload == Workload::FinetuneFull && gpus <= 1;
        let (optimizer, checkpointing, master, in_backward) = match self {
            Framework::Transformers | Framework::Megatron => (Optimizer::AdamW, Checkpointing::None, true, false),
            Framework::Torchtune if full_single => (Optimizer::PagedAdamW8bit, Checkpointing::Full, false, true),
            Framework::Torchtune => (Optimizer::AdamW, Checkpointing::Full, false, false),
        };
        job.optimizer = chosen.optimizer.unwrap_or(optimizer);
        job.grad_checkpointing = chosen.checkpointing.unwrap_or(checkpointing);
        job.master_weights = chosen.master_weights.unwrap_or(master);
        job.optimizer_in_backward = chosen.optimizer_in_backward.unwrap_or(in_backward);
        job.fp32_logits = self != Framework::Torchtune;
    }
}
