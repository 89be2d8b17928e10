//! Inference engines and GPU families: each engine's memory overheads and multi-GPU behaviour,
//! the shape of its efficiency factors ([`Efficiency`]: one set per engine, for every family; the
//! values in force are read in the `in_force` module), and the physics on catalog properties that
//! makes families differ: matrix units ([`has_matrix_units`]), synchronous MMA on Hopper
//! ([`sync_mma_share`]), dp4a on Pascal ([`dp4a_tops`]), the cards too old for some engines
//! ([`pre_volta`]); and the compute back-ends the engines run on ([`Backend`]).
//!
//! Every constant is listed, with its source or the calibration rows it was fitted on, in
//! `docs/MODEL.md` ("Engines" and "Calibration"). Pairs without measurements get the same
//! factors, marked carried over in the estimate's assumptions ([`standing`]).

use crate::catalog::{Gpu, Segment, Vendor};
use crate::model::precision::Precision;

/// An inference engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Engine {
    Transformers,
    Vllm,
    TrtLlm,
    LlamaCpp,
    Exllamav2,
    Mlc,
    Sglang,
}

impl Engine {
    /// Every engine, in CLI order.
    pub const ALL: [Engine; 7] = [
        Engine::Transformers,
        Engine::Vllm,
        Engine::TrtLlm,
        Engine::LlamaCpp,
        Engine::Exllamav2,
        Engine::Mlc,
        Engine::Sglang,
    ];

    /// True when the engine pipelines requests over a layer split (pipeline parallel serving:
    /// vLLM's virtual engines, SGLang and TensorRT-LLM `pipeline_parallel_size`); llama.cpp,
    /// ExLlamaV2, MLC and transformers run the split one card after another.
    pub fn pipelines_requests(self) -> bool {
        matches!(self, Engine::Vllm | Engine::Sglang | Engine::TrtLlm)
    }

    /// CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Transformers => "transformers",
            Engine::Vllm => "vllm",
            Engine::TrtLlm => "trt-llm",
            Engine::LlamaCpp => "llama.cpp",
            Engine::Exllamav2 => "exllamav2",
            Engine::Mlc => "mlc",
            Engine::Sglang => "sglang",
        }
    }

    /// Parses a CLI name (`ollama` counts as llama.cpp, `tensorrt-llm` as trt-llm).
    pub fn parse(s: &str) -> Option<Engine> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "ollama" | "llamacpp" | "llama-cpp" => "llama.cpp",
            "tensorrt-llm" | "trtllm" | "tensorrt" => "trt-llm",
            "hf" | "huggingface" | "pytorch" => "transformers",
            "exllama" | "exl2" => "exllamav2",
            "mlc-llm" => "mlc",
            other => other,
        };
        Engine::ALL.into_iter().find(|e| e.as_str() == alias)
    }

    /// True when the engine splits each layer across GPUs (tensor parallelism) by default;
    /// false when it assigns whole layers to GPUs (layer split / pipeline).
    pub fn tensor_parallel(self) -> bool {
        matches!(self, Engine::Vllm | Engine::TrtLlm | Engine::Mlc | Engine::Sglang)
    }

    /// True for the engines that batch many requests continuously (paged KV pool, a scheduler):
    /// vLLM, SGLang and TensorRT-LLM.
    pub fn continuous_batching(self) -> bool {
        matches!(self, Engine::Vllm | Engine::TrtLlm | Engine::Sglang)
    }

    /// Fraction of each GPU's memory the engine lets itself use for everything it holds. vLLM
    /// pre-allocates `gpu_memory_utilization = 0.9` of the card (vLLM docs, `EngineArgs`);
    /// SGLang `mem_fraction_static` (weights + KV pool; 0.9 at tp 1 on large cards, smaller on
    /// small ones: sglang `server_args.py`, taken as 0.88). TensorRT-LLM is not a cap on the card:
    /// it gives `kv_cache_free_gpu_mem_fraction = 0.9` of the memory left *after* weights and
    /// activations to its KV pool ([`Engine::kv_free_fraction`]). The others allocate on demand.
    /// Training never runs under an inference engine's cap.
    pub fn memory_utilization(self) -> f64 {
        match self {
            Engine::Vllm => 0.9,
            Engine::Sglang => 0.88,
            _ => 1.0,
        }
    }

    /// Share of the memory left after weights, buffers and context that goes to the KV pool:
    /// TensorRT-LLM's `kv_cache_free_gpu_mem_fraction` default 0.9 (TensorRT-LLM docs,
    /// `KvCacheConfig`); 1.0 for the others, whose cap is [`Engine::memory_utilization`].
    pub fn kv_free_fraction(self) -> f64 {
        match self {
            Engine::TrtLlm => 0.9,
            _ => 1.0,
        }
    }

    /// Per-GPU runtime memory outside the allocator, GiB: the CUDA context with cuBLAS/cuDNN
    /// kernels (~0.3–0.5 GiB measured with `nvidia-smi` on an idle PyTorch process), plus CUDA
    /// graphs for vLLM/TRT-LLM.
    pub fn context_gib(self, apple: bool) -> f64 {
        if apple {
            return 0.25;
        }
        match self {
            Engine::Transformers | Engine::Exllamav2 => 0.5,
            Engine::Vllm => 0.5 + 0.5,
            Engine::TrtLlm => 0.5 + 0.3,
            Engine::Sglang => 0.5 + 0.5,
            Engine::LlamaCpp | Engine::Mlc => 0.3,
        }
    }

    /// Allocator slack (fragmentation) as a fraction of the dynamic allocations (PyTorch's
    /// caching allocator; 0 for engines that plan one static arena).
    pub fn allocator_slack(self) -> f64 {
        match self {
            Engine::Transformers | Engine::Exllamav2 => 0.05,
            Engine::Vllm | Engine::TrtLlm | Engine::Mlc | Engine::Sglang => 0.02,
            Engine::LlamaCpp => 0.0,
        }
    }

    /// Largest number of sequences the engine batches by default on `gpu`. vLLM's
    /// `EngineArgs._set_default_args` (vllm/engine/arg_utils.py) sets `max_num_seqs` to 1024 on
    /// cards with at least 70 GiB that are not an A100, else 256; SGLang's
    /// `max_running_requests` is bounded by its pool (taken as vLLM's); TensorRT-LLM
    /// `max_batch_size` 2048 in `trtllm-bench`; others: the request's batch.
    pub fn max_batch(self, gpu: &Gpu) -> Option<u32> {
        match self {
            Engine::Vllm | Engine::Sglang => Some(if large_vllm_class(gpu) { 1024 } else { 256 }),
            Engine::TrtLlm => Some(2048),
            _ => None,
        }
    }

    /// True when the engine's [`Engine::max_batch`] holds for every data-parallel attention group
    /// rather than the whole build: vLLM runs each data-parallel rank as an engine core of its own
    /// ("each DP rank is deployed as a separate core engine process", vLLM docs, "Data Parallel
    /// Deployment") and TensorRT-LLM schedules `max_batch_size` on every rank with
    /// `enable_attention_dp`; SGLang divides its `max_running_requests` over its data-parallel
    /// workers, so its limit stays the build's.
    pub fn limits_each_attention_group(self) -> bool {
        matches!(self, Engine::Vllm | Engine::TrtLlm)
    }

    /// Tokens of one prefill chunk the engine sizes its compute buffers for: llama.cpp
    /// `n_ubatch` 512; vLLM's server `max_num_batched_tokens` 8192 on cards of 70 GiB or more
    /// that are not A100s, else 2048 (the same `_set_default_args`); SGLang's
    /// `chunked_prefill_size` also grows with card memory and is taken as vLLM's (an assumption,
    /// not checked against SGLang's own table); TRT-LLM `max_num_tokens` 8192; MLC and
    /// exllamav2 chunks of 2048. `None`: the whole prompt at once (transformers).
    pub fn prefill_chunk_tokens(self, gpu: &Gpu) -> Option<f64> {
        match self {
            Engine::LlamaCpp => Some(512.0),
            Engine::Vllm | Engine::Sglang => Some(if large_vllm_class(gpu) { 8192.0 } else { 2048.0 }),
            Engine::Mlc | Engine::Exllamav2 => Some(2048.0),
            Engine::TrtLlm => Some(8192.0),
            Engine::Transformers => None,
        }
    }
}

/// Host time per layer per decode step, ms, that an engine without CUDA graphs leaves exposed:
/// it launches every kernel of a step from the host, and a decode step's kernels (norms,
/// projections, attention, activations, a few microseconds each at small batch) finish faster
/// than the host launches the next. TensorRT-LLM's engine runtime launches a step without CUDA
/// graphs unless asked (`ExtendedRuntimePerfKnobConfig.cuda_graph_mode`, default `False`,
/// TensorRT-LLM API reference); vLLM (`enforce_eager` off) and SGLang capture their decode
/// steps in CUDA graphs by default, llama.cpp since 2024, and the factors of the others already
/// hold their launch time (`layer_ms`). The size: xLLM measured the same C++ engine with and
/// without CUDA graphs, 2.72 against 4.20 ms per output token for Qwen3-0.6B at one request
/// (xLLM-AI/xllm pull request #713), (4.20 − 2.72) / 28 layers = 0.053 ms per layer.
pub const EAGER_LAUNCH_LAYER_MS: f64 = (4.20 - 2.72) / 28.0;

impl Engine {
    /// [`EAGER_LAUNCH_LAYER_MS`] for the engines whose default decode step runs without CUDA
    /// graphs (TensorRT-LLM's engine runtime), 0 for the others.
    pub fn eager_launch_layer_ms(self) -> f64 {
        match self {
            Engine::TrtLlm => EAGER_LAUNCH_LAYER_MS,
            _ => 0.0,
        }
    }

    /// The exposed launch time per layer when the job says whether the decode step replays CUDA
    /// (HIP) graphs (`cuda_graphs`; `None`: the engine's default, [`Engine::eager_launch_layer_ms`]).
    /// The continuous-batching engines can run either way: vLLM `--enforce-eager` ("always use
    /// eager-mode PyTorch", vLLM engine arguments) and SGLang `--disable-cuda-graph` launch every
    /// kernel from the host, TensorRT-LLM's `cuda_graph_mode` replays graphs. The same
    /// [`EAGER_LAUNCH_LAYER_MS`] then applies: vLLM's own measurement when it added CUDA graphs
    /// agrees with xLLM's, Llama 2 7B at one request 1.20 s without and 1.05 s with graphs for 100
    /// tokens (vllm-project/vllm pull request #1440), (1.20 − 1.05) / 100 / 32 layers = 0.047 ms
    /// per layer. The other engines' fixed times already hold their launches.
    pub fn launch_layer_ms(self, cuda_graphs: Option<bool>) -> f64 {
        match (self.continuous_batching(), cuda_graphs) {
            (true, Some(false)) => EAGER_LAUNCH_LAYER_MS,
            (true, Some(true)) => 0.0,
            _ => self.eager_launch_layer_ms(),
        }
    }
}

/// Fixed time of one MoE layer's fused expert kernels per forward pass in vLLM and SGLang (their
/// Triton `fused_moe`: token alignment, the gate/up and down grouped GEMMs, activation, sum), ms,
/// beyond the expert bytes it streams. From vLLM's own kernel benchmark (`benchmark_moe.py`,
/// vllm-project/vllm pull request #24700, "Benchmarks on H100": Qwen3-30B-A3B FP8 w8a8, 128
/// experts of 3 × 2,048 × 768 = 4.72 MB, top 8): 40.44 µs at batch 1 (8 experts, 37.7 MB) and
/// 247.67 µs at batch 128 (all 128, 604 MB). A fixed time plus a stream, t = t0 + bytes / b,
/// through the two points: b = 566 MB / 207.2 µs = 2.73 TB/s (0.82 of the H100's 3.35) and
/// t0 = 40.44 − 37.7 / 2.733 = 26.6 µs; it gives the same benchmark's batch 4 (77.0 against
/// 78.1 µs) and 16 (169 against 164.6 µs). A dense FFN's few GEMMs have no such cost beyond the
/// engine's per-layer time. TensorRT-LLM's MoE kernels are not measured: nothing for them.
pub const FUSED_MOE_LAYER_MS: f64 = (40.44 - 37.7 / 2.733) / 1000.0;

/// Fixed time of one GEMM call on block-scaled FP8 weights (128 × 128 weight scales, DeepSeek's
/// format) at decode batch sizes, beyond the bytes it streams, in s. DeepGEMM runs these GEMMs in
/// SGLang by default from April 2025 (sgl-project/sglang pull request #5628) and in vLLM for its
/// linear layers at TP = 8 from November 2025 (vllm-project/vllm pull request #29346); its K loop
/// promotes the partial sums every 128 elements (DeepSeek-V3 report §3.3.2). DeepGEMM's own table
/// of 2025-04-18 (deepseek-ai/DeepGEMM README.md @fea9309, "Normal GEMMs for dense models", H800)
/// times M = 64 at N = 2,112, K = 7,168 at 206 TFLOPS and 1,688 GB/s (9.41 µs, 15.88 MB) and at
/// N = 7,168, K = 16,384 at 336 TFLOPS and 2,668 GB/s (44.74 µs, 119.4 MB). A fixed time plus a
/// stream through the two points, t = t0 + bytes / b: b = 103.5 MB / 35.33 µs = 2.93 TB/s and
/// t0 = 9.41 − 15.88 / 2.93 = 4.0 µs; the same line gives the table's N = 4,096, K = 7,168 within
/// 10% (14.4 against 13.1 µs). (Its first version, in February 2025, took 31.6 µs a call at
/// N = 576, K = 7,168 whatever M up to 64 on an H200: sgl-project/sglang pull request #3893.)
pub const BLOCK_FP8_HIDDEN_GEMM_S: f64 = 4.0e-6;

/// [`FUSED_MOE_LAYER_MS`] where `engine` runs `job`'s MoE layers through Triton's `fused_moe`
/// (vLLM; SGLang but for [`sglang_runs_trtllm_moe`]), else 0 (TensorRT-LLM's own MoE kernels).
pub fn fused_moe_layer_ms(job: &super::LlmJob, gpu: &Gpu, engine: Engine) -> f64 {
    match engine {
        Engine::Vllm => FUSED_MOE_LAYER_MS,
        Engine::Sglang if !sglang_runs_trtllm_moe(job, gpu) => FUSED_MOE_LAYER_MS,
        _ => 0.0,
    }
}

/// NVIDIA's datacenter Blackwell parts (B200, B300, GB200, GB300: compute capability 10.x,
/// "SM100"), whose tensor cores take asynchronous MMA (`tcgen05`); the GeForce and workstation
/// Blackwell chips are compute capability 12.x.
pub fn is_sm100(gpu: &Gpu) -> bool {
    gpu.vendor == Vendor::Nvidia && gpu.architecture.starts_with("Blackwell") && gpu.segment == Segment::Datacenter
}

/// True when SGLang serves `job` with TensorRT-LLM's fused MoE rather than Triton's: its server
/// arguments (sgl-project/sglang `python/sglang/srt/server_args.py`, the model-specific
/// adjustments for `DeepseekV3ForCausalLM`) set `moe_runner_backend = "flashinfer_trtllm"`
/// (TensorRT-LLM's trtllm-gen MoE kernels, through FlashInfer) on an SM100 card when the
/// quantization is `fp8`, `modelopt_fp8` or `modelopt_fp4` (NVFP4) and no all-to-all back end
/// (DeepEP) is asked for, and the attention back end `trtllm_mla`. A DeepSeek-style MoE here is
/// one with latent attention and routed experts (DeepSeek-V3/R1, Kimi K2).
pub fn sglang_runs_trtllm_moe(job: &super::LlmJob, gpu: &Gpu) -> bool {
    let p = job.effective_precision();
    super::arch::is_mla_moe(&job.model) && is_sm100(gpu) && matches!(p, Precision::Fp8 | Precision::Nvfp4)
}

/// vLLM's large-card class: at least 70 GiB and not an A100. vLLM's `EngineArgs`
/// (`vllm/engine/arg_utils.py`, `_set_default_args` / `get_batch_defaults`) tests
/// `device_memory >= 70 * GiB_bytes and "a100" not in device_name` ("Setting large
/// `max_num_batched_tokens` for A100 reduces throughput, see PR #17885"). Read here as the
/// catalog's NVIDIA Ampere cards with HBM (GA100: the A100s, the A800 and the 24 GB A30), the
/// chip that regression was measured on. vLLM's name test itself does not match "A800", so
/// vLLM gives an 80 GB A800 the large defaults; this rule keeps it with the A100.
fn large_vllm_class(gpu: &Gpu) -> bool {
    let ga100 = gpu.vendor == crate::catalog::Vendor::Nvidia && gpu.architecture == "Ampere" && gpu.has_hbm();
    gpu.memory_gib >= 70.0 && !ga100
}

/// GPU families that share efficiency factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GpuFamily {
    /// NVIDIA GeForce and workstation cards with GDDR memory (Turing … Blackwell).
    NvidiaGddr,
    /// NVIDIA datacenter cards with HBM (V100, A100, H100, H200, B200).
    NvidiaHbm,
    /// Apple M-series (unified memory, Metal).
    Apple,
    /// AMD Instinct and Radeon (ROCm).
    Amd,
    /// Anything else (Intel Gaudi and Arc, Huawei Ascend …).
    Other,
}

impl GpuFamily {
    /// The family of a card (of a catalog card from a table made once: the ranking asks for every
    /// card at every count).
    pub fn of(gpu: &Gpu) -> GpuFamily {
        static CATALOG: std::sync::LazyLock<Vec<GpuFamily>> =
            std::sync::LazyLock::new(|| crate::catalog::gpus().iter().map(GpuFamily::of_card).collect());
        match crate::catalog::index_of(gpu).and_then(|i| CATALOG.get(i)) {
            Some(f) => *f,
            None => GpuFamily::of_card(gpu),
        }
    }

    /// [`GpuFamily::of`] from the card's figures.
    fn of_card(gpu: &Gpu) -> GpuFamily {
        match gpu.vendor {
            Vendor::Apple => GpuFamily::Apple,
            Vendor::Amd => GpuFamily::Amd,
            Vendor::Intel | Vendor::Huawei => GpuFamily::Other,
            Vendor::Nvidia => {
                // Case-insensitive, without allocating: this runs for every card the ranking times.
                let hbm = gpu.memory_type.as_deref().is_some_and(|t| t.as_bytes().windows(3).any(|w| w.eq_ignore_ascii_case(b"HBM")));
                if hbm || (gpu.memory_type.is_none() && gpu.segment == Segment::Datacenter) {
                    GpuFamily::NvidiaHbm
                } else {
                    GpuFamily::NvidiaGddr
                }
            }
        }
    }

    /// Short name for assumptions.
    pub fn as_str(self) -> &'static str {
        match self {
            GpuFamily::NvidiaGddr => "NVIDIA GDDR",
            GpuFamily::NvidiaHbm => "NVIDIA HBM",
            GpuFamily::Apple => "Apple",
            GpuFamily::Amd => "AMD",
            GpuFamily::Other => "other",
        }
    }
}

/// Efficiency factors of one engine on one GPU family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Efficiency {
    /// Achieved / datasheet memory bandwidth when streaming 16-bit weights at batch 1.
    pub weight_bw: f64,
    /// Multiplier on `weight_bw` for quantized weights (dequantization cost).
    pub quant_bw: f64,
    /// Effective bandwidth fraction of the attention kernel reading the KV cache at batch 1
    /// (unfused attention is far below streaming bandwidth).
    pub attention_bw: f64,
    /// Fixed time per layer per decode step, ms (kernel launches, norms, sync).
    pub layer_ms: f64,
    /// Prefill: achieved / peak dense tensor FLOPS for the GEMMs.
    pub prefill_mfu: f64,
    /// Multiplier on `prefill_mfu` for quantized weights.
    pub quant_prefill: f64,
    /// Attention FLOPs run this much slower than the GEMMs during prefill.
    pub attention_flops: f64,
    /// Fixed time per layer per prefill chunk, ms.
    pub prefill_layer_ms: f64,
    /// Decode at large batch (compute-bound): achieved / peak FLOPS. Used by the engines that run
    /// decode on their own kernels (llama.cpp's mat-vec kernels, ExLlamaV2, MLC, transformers);
    /// the continuous-batching engines (vLLM, SGLang, TensorRT-LLM) multiply a decode batch with
    /// the prefill's GEMMs, so their decode FLOPs run at the prefill's share
    /// (`in_force::prefill_gemm_shares`; see `throughput::Ctx::decode_step`).
    pub decode_mfu: f64,
    /// Latency of handing activations to the next GPU in a layer split, ms.
    pub hop_ms: f64,
    /// True when these factors were fitted on measurements (false: carried over).
    pub measured: bool,
}

/// True when the card multiplies matrices on dedicated units (tensor cores, AMD WMMA/MFMA,
/// Gaudi MMEs): the catalog lists a tensor FP16 or BF16 rate.
pub fn has_matrix_units(gpu: &Gpu) -> bool {
    gpu.fp16_tflops.or(gpu.bf16_tflops).is_some()
}

/// Where an (engine, GPU family) pair's factors stand against published measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Standing {
    /// The factors were fitted on this pair's rows (`tests/data/calibration/llm_inference.csv`;
    /// llama.cpp and MLC, whose one set of factors is fitted on all their rows: also
    /// `llm_inference_more.csv`; vLLM on NVIDIA cards: its weight-stream share and per-layer
    /// floor come from AccelMark's L4 and H100 rows in `llm_serving_more.csv`).
    Fitted,
    /// The factors come from other pairs, and this pair's published rows, never used for
    /// fitting, check them (`llm_inference_more.csv`, `llm_serving_more.csv`; the figures are in
    /// docs/ACCURACY.md).
    CrossValidated,
    /// No published rows for this pair: the factors are carried over unchecked.
    CarriedOver,
}

impl Standing {
    /// English name for assumptions and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::Fitted => "fitted",
            Standing::CrossValidated => "cross-validated",
            Standing::CarriedOver => "carried over",
        }
    }
}

/// The standing of `engine` on `family` (a test checks this table against the CSV files).
pub fn standing(engine: Engine, family: GpuFamily) -> Standing {
    use Engine as E;
    use GpuFamily as F;
    match (engine, family) {
        (E::LlamaCpp, F::NvidiaGddr | F::NvidiaHbm | F::Apple | F::Amd)
        | (E::Mlc, F::Amd | F::NvidiaGddr | F::NvidiaHbm)
        | (E::Exllamav2, F::NvidiaGddr)
        | (E::TrtLlm, F::NvidiaHbm)
        | (E::Vllm, F::NvidiaGddr | F::NvidiaHbm) => Standing::Fitted,
        (E::Exllamav2, F::NvidiaHbm)
        | (E::Sglang, F::Amd | F::NvidiaGddr | F::NvidiaHbm)
        | (E::Transformers, F::NvidiaGddr | F::NvidiaHbm)
        | (E::TrtLlm, F::NvidiaGddr)
        | (E::Vllm, F::Amd | F::Other) => Standing::CrossValidated,
        _ => Standing::CarriedOver,
    }
}

/// Share of the tensor peak an engine's kernels can reach on the card. Hopper and datacenter
/// Blackwell reach their datasheet rate only with asynchronous warpgroup MMA (`wgmma`,
/// `tcgen05`); kernels written with Ampere's synchronous `mma.sync`, as llama.cpp's CUDA back end
/// is, reach about half of it: FlashAttention-2 runs at 35% of an H100's peak against 70% of an
/// A100's (Shah et al. 2024, "FlashAttention-3", §1). 1 elsewhere.
pub fn sync_mma_share(gpu: &Gpu, engine: Engine) -> f64 {
    let async_mma = (gpu.vendor == Vendor::Nvidia && gpu.architecture.starts_with("Hopper")) || is_sm100(gpu);
    if async_mma && engine == Engine::LlamaCpp {
        0.5
    } else {
        1.0
    }
}

/// The int8 dot-product rate llama.cpp's quantized matrix multiply (MMQ) runs at on NVIDIA cards
/// without tensor cores (Pascal): dp4a, 4× the FP32 rate (P40: 47 TOPS against 12 TFLOPS).
pub fn dp4a_tops(gpu: &Gpu, engine: Engine) -> Option<f64> {
    let no_tensor = gpu.fp16_tflops.or(gpu.bf16_tflops).is_none();
    (engine == Engine::LlamaCpp && no_tensor && gpu.vendor == crate::catalog::Vendor::Nvidia)
        .then_some(gpu.int8_tops)
        .flatten()
        .filter(|v| v.is_finite() && *v > 0.0)
}

/// Dense tensor peak (TFLOPS) an inference engine computes at with `precision` weights.
/// llama.cpp runs its F16 GEMMs with FP16 accumulation (`CUBLAS_COMPUTE_16F`), which on
/// GeForce is twice the FP32-accumulate rate; FP8 weights use the FP8 rate where the card has
/// one; Apple GPUs run FP16 at their FP32 rate. Falls back to FP32, then to 1 TFLOPS.
pub fn inference_peak_tflops(gpu: &Gpu, engine: Engine, fp8: bool) -> f64 {
    let fp16 = gpu.fp16_tflops.or(gpu.bf16_tflops);

    let base = if fp8 {
        gpu.fp8_tflops.or(fp16)
    } else if engine == Engine::LlamaCpp {
        gpu.fp16_acc16_tflops.or(fp16)
    } else {
        fp16
    };
    base.or(gpu.fp32_tflops).filter(|v| v.is_finite() && *v > 0.0).unwrap_or(1.0)
}

/// True for NVIDIA cards older than Volta (compute capability below 7.0), which vLLM,
/// TensorRT-LLM and ExLlamaV2 do not support.
pub fn pre_volta(gpu: &Gpu) -> bool {
    gpu.vendor == Vendor::Nvidia && ["Pascal", "Maxwell", "Kepler"].iter().any(|a| gpu.architecture.starts_with(a))
}

/// A compute back-end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    Cuda,
    Rocm,
    Vulkan,
    Metal,
    Sycl,
    Mlx,
}

impl Backend {
    /// Every back-end the `--backend` flag takes, in CLI order.
    pub const ALL: [Backend; 6] = [Backend::Cuda, Backend::Rocm, Backend::Vulkan, Backend::Metal, Backend::Sycl, Backend::Mlx];

    /// CLI and catalog name.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Cuda => "cuda",
            Backend::Rocm => "rocm",
            Backend::Vulkan => "vulkan",
            Backend::Metal => "metal",
            Backend::Sycl => "sycl",
            Backend::Mlx => "mlx",
        }
    }

    /// Parses a name (`hip` is ROCm).
    pub fn parse(s: &str) -> Option<Backend> {
        let lower = s.trim().to_ascii_lowercase();
        let name = if lower == "hip" { "rocm" } else { lower.as_str() };
        Backend::ALL.into_iter().find(|b| b.as_str() == name)
    }

    /// True when `engine` runs on this back-end: llama.cpp on CUDA, ROCm, Vulkan, Metal and SYCL
    /// (its ggml back-ends); MLC also on Vulkan and Metal; vLLM, SGLang, ExLlamaV2 and
    /// transformers on CUDA and ROCm (transformers also on Metal via PyTorch MPS); TensorRT-LLM on
    /// CUDA. MLX is Apple's own framework, so no engine here runs on it but its figures are read
    /// as llama.cpp's on Metal.
    pub fn runs(self, engine: Engine) -> bool {
        use Backend::*;
        match engine {
            Engine::LlamaCpp => matches!(self, Cuda | Rocm | Vulkan | Metal | Sycl | Mlx),
            Engine::Mlc => matches!(self, Cuda | Rocm | Vulkan | Metal),
            Engine::Transformers => matches!(self, Cuda | Rocm | Metal),
            Engine::Vllm | Engine::Sglang | Engine::Exllamav2 => matches!(self, Cuda | Rocm),
            Engine::TrtLlm => self == Cuda,
        }
    }
}
