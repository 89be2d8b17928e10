//! The LLM engine's fitted constants, in one place: every number the engine takes from the
//! published measurements in `tests/data/calibration/` rather than from a datasheet, a paper or
//! a source file. This is their shape ([`LlmFit`]); the values the app ships are the fit of every
//! constant on every row, by the procedure in `src/accuracy/llm.rs` (`make accuracy` refits them
//! into `calibrated.rs`, and `make test` fails when the file differs from that fit), and the
//! engine reads the values in force through the `in_force` module. Each fitted constant's physics
//! default, which a fit starts from and falls back to when the rows it is given cannot determine
//! it, is listed with the constant's rows in `src/accuracy/llm.rs`; the factors no row determines
//! are defaults too. The constants' sources and fits are listed in `docs/MODEL.md` ("Efficiency
//! factors") and their held-out errors in `docs/ACCURACY.md`.

use super::engines::{Efficiency, Engine, GpuFamily};

/// Every fitted constant of the LLM engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LlmFit {
    /// llama.cpp's factors (one set for every card; the family differences are physics on
    /// catalog properties).
    pub llama_cpp: Efficiency,
    /// ExLlamaV2's factors.
    pub exllamav2: Efficiency,
    /// TensorRT-LLM's factors.
    pub trt_llm: Efficiency,
    /// vLLM's factors; SGLang takes the same (same kernel libraries, CUDA graphs, paged KV).
    pub vllm: Efficiency,
    /// MLC-LLM's factors.
    pub mlc: Efficiency,
    /// transformers' (eager PyTorch `generate`) factors.
    pub transformers: Efficiency,
    /// DRAM read rate one SM sustains with llama.cpp's batch-1 mat-vec kernels, GB/s (Little's
    /// law: the bytes its warps keep in flight over the latency); caps llama.cpp's weight stream.
    pub llama_cpp_sm_read_gb_s: f64,
    /// Share of the FMA peak a prefill GEMM reaches on a card without matrix units (Apple).
    pub simt_gemm_mfu: f64,
    /// bitsandbytes LLM.int8() token-by-token speed as a share of the 16-bit speed.
    pub llm_int8_speed: f64,
    /// llama.cpp's decode weight-stream share and time per layer on each back-end but CUDA
    /// (whose are `llama_cpp.weight_bw` and `llama_cpp.layer_ms`): a decode step is the same
    /// kernels dispatched through another API and compiler.
    pub llama_cpp_rocm: BackendDecode,
    pub llama_cpp_vulkan: BackendDecode,
    pub llama_cpp_metal: BackendDecode,
    pub llama_cpp_sycl: BackendDecode,
    /// Tokens per expert at which llama.cpp's expert GEMMs reach half their dense efficiency in
    /// a prefill chunk (a GEMM of M token rows fills M / (M + this) of its tiles).
    pub llama_cpp_expert_half_tokens: f64,
    /// Milliseconds vLLM and SGLang spend on a request outside the forward passes before its first
    /// token: API server, tokenizer, scheduler, sampling.
    pub serving_request_ms: f64,
    /// The same for TensorRT-LLM (its own runtime and `trtllm-bench`/`trtllm-serve`).
    pub trt_llm_request_ms: f64,
    /// Training MFU (model FLOPs over the sustained dense peak) without recomputation, on NVIDIA
    /// HBM, NVIDIA GDDR and other cards.
    pub train_mfu_hbm: f64,
    pub train_mfu_gddr: f64,
    pub train_mfu_other: f64,
    /// MFU with full activation recomputation over the MFU without it, for a 6·N step.
    pub recompute_mfu_ratio: f64,
    /// Share of FP8's faster GEMM rate an FP8 training step realizes (Transformer Engine, MXFP8):
    /// 1 would run every linear layer at the card's FP8 rate; the casts, their scaling and the
    /// 16-bit work between the GEMMs keep it lower.
    pub train_fp8_gain: f64,
}

/// A decode weight-stream share, time per layer and KV-read share on one compute back-end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackendDecode {
    pub weight_bw: f64,
    pub layer_ms: f64,
    /// Share of the bandwidth the back-end's attention kernel reads the KV cache at (each API has
    /// its own: ggml-cuda's `fattn-vec`, ggml-metal's `kernel_flash_attn_ext`, ggml-vulkan's
    /// `flash_attn` shaders, or the matmul-and-softmax path where one is missing).
    pub attention_bw: f64,
}

impl LlmFit {
    /// The factors of `engine` (SGLang shares vLLM's).
    pub fn engine(&self, engine: Engine) -> &Efficiency {
        match engine {
            Engine::LlamaCpp => &self.llama_cpp,
            Engine::Exllamav2 => &self.exllamav2,
            Engine::TrtLlm => &self.trt_llm,
            Engine::Vllm | Engine::Sglang => &self.vllm,
            Engine::Mlc => &self.mlc,
            Engine::Transformers => &self.transformers,
        }
    }

    /// Training MFU without recomputation on `family`.
    pub fn train_mfu(&self, family: GpuFamily) -> f64 {
        match family {
            GpuFamily::NvidiaHbm => self.train_mfu_hbm,
            GpuFamily::NvidiaGddr => self.train_mfu_gddr,
            _ => self.train_mfu_other,
        }
    }
}
