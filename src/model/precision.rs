//! Weight and KV-cache number formats and their real storage cost.
//!
//! A format's *bits per weight* (bpw) is what its tensors really occupy, scales and zero points
//! included, averaged over the whole model file. That is why GGUF `Q4_K_M` is 4.84 bpw, not 4:
//! its blocks carry scales and mins, and the mix keeps `attn_v`, `ffn_down` and `output` at
//! `Q6_K`. Sources, per format, are in the doc comment of [`Precision::bits_per_weight`] and in
//! `docs/MODEL.md`.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use serde::{Deserialize, Serialize};

/// How model weights are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// IEEE float32.
    Fp32,
    /// TF32 tensor-core math on float32 storage (4 bytes per weight).
    Tf32,
    /// IEEE float16.
    Fp16,
    /// bfloat16.
    Bf16,
    /// FP8 (E4M3) weights with per-tensor scales.
    Fp8,
    /// INT8 weight-only (LLM.int8 / SmoothQuant style), per-channel scales.
    Int8,
    /// INT4 GPTQ/AWQ, group size 128 (fp16 scale + 4-bit zero point per group).
    Int4,
    /// bitsandbytes NF4 (QLoRA), block 64; transformers stores it without double quantization by
    /// default (`LlmJob::nf4_double_quant` selects it).
    Nf4,
    /// GGUF Q2_K mix.
    Q2K,
    /// GGUF Q3_K_M mix.
    Q3KM,
    /// GGUF Q4_0.
    Q40,
    /// GGUF Q4_K_M mix.
    Q4KM,
    /// GGUF Q5_K_M mix.
    Q5KM,
    /// GGUF Q6_K.
    Q6K,
    /// GGUF Q8_0.
    Q80,
    /// OCP MXFP4: E2M1 values with one 8-bit (E8M0) shared scale per 32 = 4.25 bits. gpt-oss
    /// ships its routed experts this way and keeps attention, router and embeddings in BF16.
    Mxfp4,
    /// NVIDIA NVFP4: E2M1 values with one FP8 (E4M3) scale per 16 plus an fp32 tensor scale
    /// = 4.5 bits.
    Nvfp4,
    /// GGUF IQ4_XS.
    Iq4Xs,
    /// GGUF IQ3_XXS.
    Iq3Xxs,
    /// GGUF Q3_K_S mix.
    Q3KS,
}

/// Group size GPTQ and AWQ use by default (`group_size=128`, AutoGPTQ / AutoAWQ).
pub const INT4_DEFAULT_GROUP_SIZE: u32 = 128;

/// Bits per weight of an INT4 GPTQ/AWQ tensor with `group_size` weights per group: 4 bits per
/// weight plus, per group, one fp16 scale (16 bits) and one packed 4-bit zero point.
/// (AutoGPTQ `QuantLinear` stores `scales` as fp16 and `qzeros` packed 8 per int32.)
/// A `group_size` of 0 means per-channel (no groups): 4.0 bpw.
pub fn int4_bits_per_weight(group_size: u32) -> f64 {
    if group_size == 0 {
        4.0
    } else {
        4.0 + (16.0 + 4.0) / f64::from(group_size)
    }
}

/// Bits per weight of NF4 (Dettmers et al. 2023, QLoRA §2 "Double Quantization"): 4 bits plus a
/// 32-bit absmax per block of 64 (0.5 bpw); double quantization stores the absmax in 8 bits with
/// one fp32 constant per 256 blocks: 8/64 + 32/(64·256) = 0.127 bpw.
pub fn nf4_bits_per_weight(double_quant: bool) -> f64 {
    if double_quant {
        4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)
    } else {
        4.0 + 32.0 / 64.0
    }
}

impl Precision {
    /// Every format, in the order the CLI lists them.
    pub const ALL: [Precision; 20] = [
        Precision::Fp32,
        Precision::Tf32,
        Precision::Fp16,
        Precision::Bf16,
        Precision::Fp8,
        Precision::Int8,
        Precision::Int4,
        Precision::Nf4,
        Precision::Q2K,
        Precision::Q3KM,
        Precision::Q40,
        Precision::Q4KM,
        Precision::Q5KM,
        Precision::Q6K,
        Precision::Q80,
        Precision::Mxfp4,
        Precision::Nvfp4,
        Precision::Iq4Xs,
        Precision::Iq3Xxs,
        Precision::Q3KS,
    ];

    /// The CLI name (`fp16`, `q4_k_m`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Tf32 => "tf32",
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            Precision::Int8 => "int8",
            Precision::Int4 => "int4",
            Precision::Nf4 => "nf4",
            Precision::Q2K => "q2_k",
            Precision::Q3KM => "q3_k_m",
            Precision::Q40 => "q4_0",
            Precision::Q4KM => "q4_k_m",
            Precision::Q5KM => "q5_k_m",
            Precision::Q6K => "q6_k",
            Precision::Q80 => "q8_0",
            Precision::Mxfp4 => "mxfp4",
            Precision::Nvfp4 => "nvfp4",
            Precision::Iq4Xs => "iq4_xs",
            Precision::Iq3Xxs => "iq3_xxs",
            Precision::Q3KS => "q3_k_s",
        }
    }

    /// Parses a CLI name, case-insensitively (`F16` and `float16` are accepted for `fp16`).
    pub fn parse(s: &str) -> Option<Precision> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "f32" | "float32" => "fp32",
            "f16" | "float16" | "half" => "fp16",
            "bfloat16" => "bf16",
            "fp8_e4m3" | "e4m3" => "fp8",
            "gptq" | "awq" => "int4",
            other => other,
        };
        Precision::ALL.into_iter().find(|p| p.as_str() == alias)
    }

    /// Whole-file bits per weight.
    ///
    /// - fp32/tf32 32, fp16/bf16 16, fp8 8, int8 8 (scales are per channel: negligible);
    /// - int4: [`int4_bits_per_weight`] at group size 128 = 4.156;
    /// - nf4: [`nf4_bits_per_weight`] without double quantization = 4.5 (4.127 with it);
    /// - GGUF mixes: llama.cpp `tools/quantize/README.md`, table "Llama 2 7B" (Q2_K 3.35,
    ///   Q3_K_M 3.91, Q4_K_M 4.84, Q5_K_M 5.68, Q6_K 6.56); Q8_0 is 34 bytes per 32 weights
    ///   = 8.5 bpw and Q4_0 is 18 bytes per 32 = 4.5 bpw, plus `output.weight` kept at Q6_K
    ///   (about +0.05 bpw on a 7B model): 4.55.
    ///
    /// - mxfp4: 4 + 8/32 = 4.25 (OCP Microscaling Formats (MX) v1.0 spec, §5: block of 32,
    ///   E8M0 scale); nvfp4: 4 + 8/16 + 32/(tensor) ≈ 4.5 (NVIDIA, "Introducing NVFP4", 2025:
    ///   an FP8 E4M3 scale per 16 values and a per-tensor FP32 scale);
    /// - IQ4_XS 4.46, IQ3_XXS 3.25, Q3_K_S 3.64: whole-file bits per weight of Llama 3.1 8B in
    ///   llama.cpp `tools/quantize/README.md` @311c2c9f (size in GiB × 8 / parameters, output
    ///   and embedding tensors included, as for the other GGUF mixes).
    ///
    /// Formats that are not GGUF keep embeddings and the LM head in 16 bits; that is applied per
    /// tensor by the memory model (see [`Precision::quantizes_embeddings`]).
    pub fn bits_per_weight(self) -> f64 {
        match self {
            Precision::Fp32 | Precision::Tf32 => 32.0,
            Precision::Fp16 | Precision::Bf16 => 16.0,
            Precision::Fp8 | Precision::Int8 => 8.0,
            Precision::Int4 => int4_bits_per_weight(INT4_DEFAULT_GROUP_SIZE),
            Precision::Nf4 => nf4_bits_per_weight(false),
            Precision::Q2K => 3.35,
            Precision::Q3KM => 3.91,
            Precision::Q40 => 4.55,
            Precision::Q4KM => 4.84,
            Precision::Q5KM => 5.68,
            Precision::Q6K => 6.56,
            Precision::Q80 => 8.5,
            Precision::Mxfp4 => 4.0 + 8.0 / 32.0,
            Precision::Nvfp4 => 4.0 + 8.0 / 16.0,
            Precision::Iq4Xs => 4.46,
            Precision::Iq3Xxs => 3.25,
            Precision::Q3KS => 3.64,
        }
    }

    /// Bytes per weight (`bits_per_weight / 8`).
    pub fn bytes_per_weight(self) -> f64 {
        self.bits_per_weight() / 8.0
    }

    /// True for the GGUF (llama.cpp) types.
    pub fn is_gguf(self) -> bool {
        matches!(
            self,
            Precision::Q2K
                | Precision::Q3KM
                | Precision::Q3KS
                | Precision::Q40
                | Precision::Q4KM
                | Precision::Q5KM
                | Precision::Q6K
                | Precision::Q80
                | Precision::Iq4Xs
                | Precision::Iq3Xxs
        )
    }

    /// True for the 4-bit floating-point microscaling formats (MXFP4, NVFP4), which Blackwell
    /// and MI350 multiply natively; older parts dequantize them to 16 bits first.
    pub fn is_fp4(self) -> bool {
        matches!(self, Precision::Mxfp4 | Precision::Nvfp4)
    }

    /// True for formats below 16 bits that need dequantization (GGUF, int8, int4, nf4, fp8).
    pub fn is_quantized(self) -> bool {
        self.bits_per_weight() < 16.0
    }

    /// True when the format's bpw already covers embeddings and the LM head (GGUF mixes);
    /// false when those stay in 16 bits (GPTQ, AWQ, bitsandbytes, FP8 checkpoints).
    pub fn quantizes_embeddings(self) -> bool {
        self.is_gguf() || self.bits_per_weight() >= 16.0
    }

    /// True when training can keep weights in this format (fp32, tf32, fp16, bf16).
    pub fn is_trainable(self) -> bool {
        matches!(self, Precision::Fp32 | Precision::Tf32 | Precision::Fp16 | Precision::Bf16)
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the KV cache is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum KvPrecision {
    /// fp16/bf16: 2 bytes per element.
    #[default]
    Fp16,
    /// FP8 E4M3/E5M2: 1 byte (vLLM `kv_cache_dtype=fp8`, TensorRT-LLM FP8 KV).
    Fp8,
    /// GGUF Q8_0 (llama.cpp `--cache-type-k q8_0`): 34 bytes per 32 = 8.5 bits.
    Q80,
    /// GGUF Q4_0: 18 bytes per 32 = 4.5 bits.
    Q40,
}

impl KvPrecision {
    /// Every KV format, in CLI order.
    pub const ALL: [KvPrecision; 4] = [KvPrecision::Fp16, KvPrecision::Fp8, KvPrecision::Q80, KvPrecision::Q40];

    /// The CLI name.
    pub fn as_str(self) -> &'static str {
        match self {
            KvPrecision::Fp16 => "fp16",
            KvPrecision::Fp8 => "fp8",
            KvPrecision::Q80 => "q8_0",
            KvPrecision::Q40 => "q4_0",
        }
    }

    /// Parses a CLI name (`bf16` and `f16` count as `fp16`).
    pub fn parse(s: &str) -> Option<KvPrecision> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "f16" | "bf16" | "float16" => "fp16",
            other => other,
        };
        KvPrecision::ALL.into_iter().find(|p| p.as_str() == alias)
    }

    /// Bytes per cached element (block scales included).
    pub fn bytes_per_element(self) -> f64 {
        match self {
            KvPrecision::Fp16 => 2.0,
            KvPrecision::Fp8 => 1.0,
            KvPrecision::Q80 => 34.0 / 32.0,
            KvPrecision::Q40 => 18.0 / 32.0,
        }
    }
}

impl std::fmt::Display for KvPrecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
