//! Numeric rules every engine shares: which arithmetic an "fp32" job really runs on a given card,
//! and how much of its datasheet tensor rate a card sustains under a long tensor load.
//!
//! Both rules depend only on the card and the framework's defaults, so the LLM engine and the
//! image/classic engines must agree on them: they live here, once. Sources are in `docs/MODEL.md`
//! ("Numeric modes and sustained clocks").

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use crate::catalog::{Gpu, Vendor};

/// How FP32 tensors are multiplied on a card that has TF32 tensor cores (Ampere and newer).
///
/// On older cards (Volta, Turing, Pascal, and non-NVIDIA parts) every mode is strict FP32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fp32Math {
    /// PyTorch's own defaults since 1.12: cuDNN convolutions in TF32
    /// (`torch.backends.cudnn.allow_tf32 = True`), matmuls in strict FP32
    /// (`torch.backends.cuda.matmul.allow_tf32 = False`). What a plain `pip install torch` runs.
    #[default]
    PytorchDefault,
    /// TF32 for convolutions and matmuls: NVIDIA's NGC PyTorch containers
    /// (`TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1`), or `torch.set_float32_matmul_precision("high")`.
    Tf32,
    /// Strict FP32 everywhere (both `allow_tf32` flags off, or `NVIDIA_TF32_OVERRIDE=0`).
    Strict,
}

impl Fp32Math {
    /// Every mode, in CLI order.
    pub const ALL: [Fp32Math; 3] = [Fp32Math::PytorchDefault, Fp32Math::Tf32, Fp32Math::Strict];

    /// CLI / URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            Fp32Math::PytorchDefault => "pytorch",
            Fp32Math::Tf32 => "tf32",
            Fp32Math::Strict => "strict",
        }
    }

    /// Parses a CLI / URL name (`pytorch-default` and `default` mean `pytorch`, `ngc` means `tf32`).
    pub fn parse(s: &str) -> Option<Fp32Math> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "pytorch-default" | "default" | "" => "pytorch",
            "ngc" => "tf32",
            "fp32" => "strict",
            other => other,
        };
        Fp32Math::ALL.into_iter().find(|m| m.as_str() == alias)
    }

    /// A short name for assumption lines.
    pub fn label(self) -> &'static str {
        match self {
            Fp32Math::PytorchDefault => "PyTorch default: convolutions TF32, matmuls FP32",
            Fp32Math::Tf32 => "TF32 convolutions and matmuls (NGC default)",
            Fp32Math::Strict => "strict FP32",
        }
    }
}

/// True when the card has TF32 tensor cores: a dense TF32 rate above its FP32 vector rate
/// (A100: 156 against 19.5 TFLOPS) or equal to it on GeForce, where the catalog records the
/// FP32-accumulate tensor rate (RTX 3090: 35.6 = 35.6). Volta and Turing have no TF32 entry.
pub fn has_tf32(gpu: &Gpu) -> bool {
    gpu.vendor == Vendor::Nvidia && gpu.tf32_tflops.is_some_and(|t| t.is_finite() && t > 0.0)
}

/// Peak TFLOPS of the FP32 path of a network whose FLOPs are `conv_share` convolutions and the
/// rest matmuls, under `mode`: the time-weighted (harmonic) mix
/// `1 / peak = conv_share / conv_rate + (1 - conv_share) / matmul_rate`, each rate the card's TF32
/// tensor rate where `mode` allows TF32 there and the card has it, else its FP32 vector rate.
/// `None` when the card has no FP32 rate. No convolution is credited with Winograd (see
/// [`fp32_path_tflops_winograd`]).
pub fn fp32_path_tflops(gpu: &Gpu, mode: Fp32Math, conv_share: f64) -> Option<f64> {
    fp32_path_tflops_winograd(gpu, mode, conv_share, 0.0)
}

/// Arithmetic reduction of Winograd's minimal filtering F(2×2, 3×3) for a 3×3, stride-1
/// convolution: 16 multiplies per 2×2 output tile against 36 (Lavin & Gray 2016, "Fast Algorithms
/// for Convolutional Neural Networks", arXiv:1509.09308, §4: "reducing the number of
/// multiplies ... by a factor of 2.25"). cuDNN runs it on the FP32 vector units only; its
/// tensor-core convolutions are implicit GEMMs.
pub const WINOGRAD_F2X3_GAIN: f64 = 2.25;

/// [`fp32_path_tflops`] for a network whose 3×3 stride-1 convolutions are `winograd_share` of
/// its FLOPs (inside `conv_share`). cuDNN's algorithm search (`torch.backends.cudnn.benchmark`,
/// which the published ResNet benchmarks turn on) picks the fastest kernel per layer: for those
/// layers the faster of the convolution rate and the FP32 vector rate × [`WINOGRAD_F2X3_GAIN`].
/// On an A100 TF32 (156 TFLOPS) beats Winograd FP32 (19.5 × 2.25 = 44); on a V100, which has no
/// TF32, and on GA102 cards, whose TF32 rate equals their FP32 rate, Winograd wins.
pub fn fp32_path_tflops_winograd(gpu: &Gpu, mode: Fp32Math, conv_share: f64, winograd_share: f64) -> Option<f64> {
    let fp32 = gpu.fp32_tflops.filter(|v| v.is_finite() && *v > 0.0)?;
    let tf32 = if has_tf32(gpu) { gpu.tf32_tflops.filter(|v| v.is_finite() && *v > 0.0).unwrap_or(fp32).max(fp32) } else { fp32 };
    let (conv, matmul) = match mode {
        Fp32Math::PytorchDefault => (tf32, fp32),
        Fp32Math::Tf32 => (tf32, tf32),
        Fp32Math::Strict => (fp32, fp32),
    };
    let c = conv_share.clamp(0.0, 1.0);
    let w = winograd_share.max(0.0).min(c);
    let winograd = conv.max(fp32 * WINOGRAD_F2X3_GAIN);
    Some(1.0 / ((c - w) / conv + w / winograd + (1.0 - c) / matmul))
}

/// The engine clock the engines' fixed GPU times are quoted at, MHz: the H100 SXM's boost clock
/// (NVIDIA H100 Tensor Core GPU datasheet), as the H100 and H800 the fused-MoE and block-FP8
/// kernel times were measured on run.
pub const REFERENCE_ENGINE_CLOCK_MHZ: f64 = 1980.0;

/// How much longer a fixed run of GPU cycles takes on `gpu` than at [`REFERENCE_ENGINE_CLOCK_MHZ`]:
/// `reference / boost clock` (the catalog's `boost_clock_mhz`; 1 without one). A decode step's
/// per-layer floor is such a run: each small kernel (norms, rotary, the cache write, a mat-vec's
/// ramp and final reduction, the in-GPU launch of a graph-replayed node) takes a count of
/// dependent cycles, not bytes, so it shortens with the clock. A memory-bound step runs far from
/// the power limit, at the boost clock (not the sustained tensor clock of
/// [`sustained_tensor_factor`]).
pub fn cycle_time_factor(gpu: &Gpu) -> f64 {
    gpu.boost_clock_mhz.filter(|c| *c > 0).map_or(1.0, |c| REFERENCE_ENGINE_CLOCK_MHZ / f64::from(c))
}

/// Exponent of the sustained-clock rule: clock ∝ (power budget)^(1/2). Dynamic power is
/// `C V² f`; at fixed voltage it is linear in `f` (exponent 1), along a voltage-frequency curve with
/// `V ∝ f` it is cubic (exponent 1/3); the top of a GPU's V/f curve lies between, and 1/2 reproduces
/// the T4 (rule 0.71 against the 0.62 fitted before from its diffusers rows) and the RTX 6000 Ada
/// against the RTX 4090 (rule 0.78; Lambda's BERT-large rows put the 6000 Ada at 0.85 of a 4090
/// with 11% more SMs, i.e. 0.77 of its clock).
pub const SUSTAINED_CLOCK_EXPONENT: f64 = 0.5;

/// The catalog card of `gpu`'s vendor, architecture and memory class (HBM or not) that is given
/// power enough to hold its boost clock under tensor load: the one with `sustained_clock_reference`
/// (build.rs allows at most one per class). `None` for a class without one: no throttling.
fn reference_card(gpu: &Gpu) -> Option<&'static Gpu> {
    crate::catalog::gpus().iter().find(|r| {
        r.sustained_clock_reference && r.vendor == gpu.vendor && r.architecture == gpu.architecture && r.has_hbm() == gpu.has_hbm()
    })
}

/// FP32 vector TFLOPS per board watt: SMs × boost clock per watt (every part of an architecture
/// has the same FP32 lanes and tensor work per SM and clock, so this counts the switching the
/// board must feed, without the market segmentation of the tensor rates).
fn sm_clock_per_watt(gpu: &Gpu) -> Option<f64> {
    let fp32 = gpu.fp32_tflops.filter(|v| v.is_finite() && *v > 0.0)?;
    let w = gpu.tdp_w.filter(|v| v.is_finite() && *v > 0.0)?;
    Some(fp32 / w)
}

/// Share of its datasheet tensor rate a card sustains under a long tensor load (0 < f <= 1).
///
/// Rule: a card whose board power per SM-clock (`fp32_tflops / tdp_w`) is below that of its
/// architecture's flagship of the same memory class (the catalog's `sustained_clock_reference`:
/// RTX 4090 for Ada, RTX 5090 / B200 for Blackwell, H100 SXM for Hopper, RTX 3090 / A100 SXM for
/// Ampere GDDR / HBM, Titan RTX for Turing, V100 SXM2 for Volta) cannot hold the boost clock its
/// datasheet rates assume; its clock falls to `(ratio)^(1/2)` of boost, `ratio = (flagship W per
/// SM-clock) / (card W per SM-clock)` ([`SUSTAINED_CLOCK_EXPONENT`]). RTX 6000 Ada (300 W, 91.1 FP32 TFLOPS against the 4090's 450 W,
/// 82.6): (0.1836 / 0.3037)^0.5 = 0.78; L40S 0.84; L4 0.66; T4 0.71; A10 0.70; H100 PCIe 0.81;
/// the flagships and better-fed cards 1. A card whose vendor has published the clock it holds
/// under a long GEMM takes that clock over its boost clock instead (the catalog's `gemm_clock_mhz /
/// boost_clock_mhz`: MI300X 1,172.5 / 2,100 = 0.56, MI325X 1,409 / 2,100 = 0.67). A card whose
/// best-library GEMM rate has been measured takes that over its 16-bit datasheet rate (the
/// catalog's `gemm_tflops`: Ryzen AI Max+ 395, 36.9 / 59.4 = 0.62). Other AMD, Intel and Apple
/// parts: 1 (no rule).
pub fn sustained_tensor_factor(gpu: &Gpu) -> f64 {
    // Catalog cards: computed once (the engine asks for every card on every keystroke).
    static CATALOG: std::sync::LazyLock<Vec<f64>> =
        std::sync::LazyLock::new(|| crate::catalog::gpus().iter().map(sustained_factor_of).collect());
    match crate::catalog::index_of(gpu).and_then(|i| CATALOG.get(i)) {
        Some(f) => *f,
        None => sustained_factor_of(gpu),
    }
}

/// [`sustained_tensor_factor`] computed from the card's figures.
fn sustained_factor_of(gpu: &Gpu) -> f64 {
    if let (Some(held), Some(boost)) = (gpu.gemm_clock_mhz, gpu.boost_clock_mhz.filter(|b| *b > 0).map(f64::from)) {
        return (held / boost).clamp(0.05, 1.0);
    }
    if let (Some(measured), Some(peak)) = (gpu.gemm_tflops, gpu.bf16_tflops.or(gpu.fp16_tflops).filter(|p| *p > 0.0)) {
        return (measured / peak).clamp(0.05, 1.0);
    }
    let (Some(reference), Some(card)) = (reference_card(gpu), sm_clock_per_watt(gpu)) else {
        return 1.0;
    };
    match sm_clock_per_watt(reference) {
        Some(r) if card > r => crate::fmath::pow(r / card, SUSTAINED_CLOCK_EXPONENT).clamp(0.05, 1.0),
        _ => 1.0,
    }
}
