//! Helpers shared by the calibration tests (`calibration.rs`, `llm_crossval.rs`,
//! `media_calibration.rs`): reading the CSV files of `tests/data/calibration/`, the shapes their
//! rows name, and the median. Each test binary uses a part of it.
#![allow(dead_code)]

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{config_json, Checkpointing, LlmJob, LoraTargets, ModelArch, Optimizer, Workload};
use gpu_advisor::model::precision::Precision;

/// The data rows of a calibration CSV (header skipped), from `tests/data/calibration/` or, failing
/// that, `../shared/calibration/`.
pub fn read_csv(name: &str) -> Vec<Vec<String>> {
    let local = format!("{}/tests/data/calibration/{name}", env!("CARGO_MANIFEST_DIR"));
    let shared = format!("{}/../shared/calibration/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&local)
        .or_else(|_| std::fs::read_to_string(&shared))
        .unwrap_or_else(|e| panic!("cannot read {name} from {local} or {shared}: {e}"));
    text.lines().skip(1).filter(|l| !l.trim().is_empty()).map(split_csv).collect()
}

/// Splits one CSV line, honouring double quotes.
pub fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// LLaMA-1 30B ("Llama-33B" in the exllamav2 table), from huggyllama/llama-30b config.json.
pub const LLAMA_30B_CONFIG: &str = r#"{"model_type":"llama","hidden_size":6656,"intermediate_size":17920,
 "num_attention_heads":52,"num_hidden_layers":60,"vocab_size":32000,"max_position_embeddings":2048,
 "tie_word_embeddings":false}"#;

/// The median (NaN for no values).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The shape a calibration row names: the human names of `llm_inference.csv` and `memory.csv`,
/// or a catalog preset id.
pub fn model(name: &str) -> ModelArch {
    let id = match name {
        "Llama-3-8B" => "llama-3-8b",
        "Llama-3-70B" => "llama-3-70b",
        "Llama-3.1-8B" => "llama-3.1-8b",
        "Llama-3.1-70B" => "llama-3.1-70b",
        "Llama-3.1-405B" => "llama-3.1-405b",
        "Mixtral-8x7B" => "mixtral-8x7b",
        // Llama 2 7B and CodeLlama 7B share the shape (CodeLlama adds 16 tokens).
        "Llama-2-7B" | "Llama-7B (CodeLlama-7B)" => "llama-2-7b",
        // LLaMA-1 13B has Llama 2 13B's shape.
        "Llama-13B" => "llama-2-13b",
        "Llama-2-70B" => "llama-2-70b",
        "CodeLlama-34B" => "codellama-34b",
        "bigscience/T0_3B" => "t0-3b",
        "Llama-33B" => {
            let mut m = config_json::arch_from_config_json(LLAMA_30B_CONFIG).expect("valid config");
            m.params_total = 32.5e9;
            m.params_active = 32.5e9;
            return m;
        }
        other => other,
    };
    ModelArch::from_spec(catalog::llm(id).unwrap_or_else(|| panic!("no preset for calibration model {name}")))
}

/// The job of a `memory.csv` fine-tuning row on `gpus` GPUs, with its source's recipe.
///
/// torchtune (`torchtune`: recipes/configs/llama3_1/*_single_device.yaml and the 70B/405B
/// distributed configs; the README's table runs them with torch.compile): pure bf16, batch 2, 2048 packed tokens, activation checkpointing, FSDP on
/// 8 GPUs; its `CEWithChunkedOutputLoss` upcasts one chunk of logits at a time, and torchao's NF4
/// tensors quantize their block scales (double quantization). Full fine-tunes use paged 8-bit
/// AdamW fused into backward; LoRA/QLoRA rank 8 (16 on several GPUs) on all linear layers.
/// Otherwise the HF PEFT README's T0_3B on ought/raft twitter_complaints
/// (examples/conditional_generation/peft_lora_seq2seq_accelerate_ds_zero3_offload.py): fp32,
/// batch 8, LoRA r=8 on q and v (PEFT's default targets for T5). The inputs are tweets, tokenized
/// without a max length and padded to the longest of the batch: at most 280 characters, about
/// 4 characters per T5 SentencePiece token, so 64 tokens (a hand estimate; the label the decoder
/// reads is 1–3 tokens, which the one sequence length overstates).
pub fn memory_csv_job(name: &str, task: &str, gpus: u32, torchtune: bool) -> LlmJob {
    let mut job = LlmJob { model: model(name), ..LlmJob::default() };
    if !torchtune {
        job.precision = Precision::Fp32;
        job.batch = 8;
        job.seq_len = 64;
        if task == "finetune_full" {
            job.workload = Workload::FinetuneFull;
        } else {
            job.workload = Workload::Lora;
            job.lora_rank = 8;
            job.lora_targets = LoraTargets::AttentionQv;
        }
        return job;
    }
    job.precision = Precision::Bf16;
    job.master_weights = false;
    job.batch = 2;
    job.seq_len = 2048;
    job.grad_checkpointing = Checkpointing::Full;
    job.zero = if gpus > 1 { 3 } else { 0 };
    job.auto_layout = false;
    job.fp32_logits = false;
    job.nf4_double_quant = true;
    // The README's table: "torch compile enabled".
    job.torch_compile = true;
    match task {
        "finetune_full" => {
            job.workload = Workload::FinetuneFull;
            job.optimizer = Optimizer::PagedAdamW8bit;
            job.optimizer_in_backward = true;
        }
        "finetune_lora" | "finetune_qlora" => {
            job.workload = if task == "finetune_lora" { Workload::Lora } else { Workload::Qlora };
            job.lora_rank = if gpus > 1 { 16 } else { 8 };
            job.lora_targets = LoraTargets::AllLinear;
        }
        t => panic!("task {t}"),
    }
    job
}
