//! The catalog's data schema, shared by `build.rs` (which parses `data/*.toml`, validates every
//! entry and packs the result with postcard) and the library (which unpacks it at start-up).
//!
//! This file is included by path from `build.rs`, so it uses nothing but `serde` and `std`.
//! Units are in the field names. A value that is unknown or does not apply is `None`, never zero.
//! Tensor figures are always *dense* (without 2:4 sparsity); a datasheet's sparse figure may be
//! kept in a `*_sparse_*` field only so that a check can prove the dense one is half of it.

use serde::{Deserialize, Serialize};

/// Who makes the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Vendor {
    Nvidia,
    Amd,
    Intel,
    Apple,
    /// Huawei Ascend NPUs (sold in China).
    Huawei,
}

/// Market segment, which also decides licence rules (GeForce EULA) and host assumptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Segment {
    Consumer,
    Workstation,
    Datacenter,
}

/// One on-demand rental price for one GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloudPrice {
    pub provider: String,
    pub usd_per_hour: f64,
    /// `YYYY-MM` or `YYYY-MM-DD`.
    pub date: String,
    pub source: String,
}

/// One GPU (or accelerator, or Apple SoC) as published by its vendor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    pub vendor: Vendor,
    pub architecture: String,
    pub release_year: u16,
    pub segment: Segment,
    pub memory_gib: f64,
    #[serde(default)]
    pub memory_type: Option<String>,
    pub memory_bandwidth_gb_s: f64,
    /// Streaming multiprocessors (NVIDIA), compute units (AMD), Xe-cores (Intel Arc: 128 lanes each,
    /// an SM's width) or GPU cores (Apple): the units
    /// that each keep their own memory requests in flight. NVIDIA counts are the datasheet's
    /// CUDA cores over the lanes per SM (64 on Volta, Turing, GA100 and GP100; 128 on Pascal
    /// GP102, GA10x, Ada, Hopper and Blackwell). Omitted for Gaudi and Ascend.
    #[serde(default)]
    pub sm_count: Option<u32>,
    /// Memory shared with the CPU: Apple SoCs, AMD Strix Halo, NVIDIA GB10 (DGX Spark).
    #[serde(default)]
    pub unified_memory: bool,
    /// Unified-memory platforms: the memory sizes the machine is sold with, GiB, ascending.
    /// `memory_gib` is the default one and must be in the list. Empty for discrete cards.
    #[serde(default)]
    pub memory_options_gib: Vec<f64>,
    /// The compute back-ends engines can run on the card: `cuda`, `rocm`, `vulkan`, `metal`,
    /// `sycl`, `cann`, `mlx` (as llama.cpp, vLLM, MLX and the vendors' docs list them).
    #[serde(default)]
    pub backends: Vec<String>,
    /// False where llama.cpp's Vulkan back-end leaves the card's matrix units idle. It multiplies
    /// on them through `VK_KHR_cooperative_matrix` only where it allows that extension
    /// (ggml-org/llama.cpp ggml/src/ggml-vulkan/ggml-vulkan.cpp,
    /// `ggml_vk_khr_cooperative_matrix_support`: on Intel only Xe2, because "some older hardware
    /// (ex. Arc A770) has performance regressions"; PR #14001), so elsewhere its prompt GEMMs
    /// run on the SIMD lanes. Default true.
    #[serde(default = "yes")]
    pub vulkan_matrix_units: bool,
    #[serde(default)]
    pub fp32_tflops: Option<f64>,
    #[serde(default)]
    pub fp64_tflops: Option<f64>,
    /// Dense tensor TF32.
    #[serde(default)]
    pub tf32_tflops: Option<f64>,
    /// Dense tensor FP16 with FP32 accumulate (half rate on GeForce).
    #[serde(default)]
    pub fp16_tflops: Option<f64>,
    /// Dense tensor FP16 with FP16 accumulate, where it differs (GeForce).
    #[serde(default)]
    pub fp16_acc16_tflops: Option<f64>,
    #[serde(default)]
    pub bf16_tflops: Option<f64>,
    #[serde(default)]
    pub fp8_tflops: Option<f64>,
    #[serde(default)]
    pub int8_tops: Option<f64>,
    /// Dense FP4 tensor rate (NVFP4/MXFP4 on Blackwell, MXFP4 on CDNA 4).
    #[serde(default)]
    pub fp4_tflops: Option<f64>,
    /// Dense FP6 tensor rate, where the datasheet prints one: MXFP6 on CDNA 4 (at the FP4 rate),
    /// the "FP8/FP6" row of NVIDIA's HGX tables (at the FP8 rate).
    #[serde(default)]
    pub fp6_tflops: Option<f64>,
    /// The datasheet's sparse FP4 figure ("AI TOPS" on GeForce and RTX PRO), as printed; only
    /// used to check that `fp4_tflops` is the dense one.
    #[serde(default)]
    pub fp4_sparse_tflops: Option<f64>,
    /// The datasheet's 2:4-sparse FP16 (FP32-accumulate) figure, as printed; only used to check
    /// that `fp16_tflops` is the dense one.
    #[serde(default)]
    pub fp16_sparse_tflops: Option<f64>,
    /// Non-tensor (vector) FP16 with FP16 accumulate, for cards without tensor cores whose FP16
    /// ALUs pair two half-precision operations per FP32 lane (Pascal GP100: 2x the FP32 rate).
    /// Not a tensor figure, so it is kept out of `fp16_tflops`; mixed-precision training
    /// accumulates in FP32, which such cards run at `fp32_tflops`.
    #[serde(default)]
    pub fp16_vector_tflops: Option<f64>,
    #[serde(default)]
    pub tdp_w: Option<f64>,
    /// The peak engine (boost) clock the datasheet's rates are computed at, MHz. Given where
    /// `gemm_clock_mhz` is, which is read against it. The engines' fixed GPU times (a decode
    /// step's per-layer floor) are counts of cycles at this clock
    /// (`model::numeric::cycle_time_factor`); a card without one is taken at the reference clock.
    #[serde(default)]
    pub boost_clock_mhz: Option<u16>,
    /// The engine clock the vendor measured the card holding under a long dense GEMM on
    /// representative (random) data, MHz: the median clock of AMD's max-achievable-FLOPs runs.
    /// Where set, `gemm_clock_mhz / boost_clock_mhz` is the card's sustained share of its tensor
    /// rates (`model::numeric::sustained_tensor_factor`) in place of the power rule.
    #[serde(default)]
    pub gemm_clock_mhz: Option<f64>,
    /// The dense 16-bit GEMM rate measured on the card with its best library, TFLOPS: the top of
    /// a max-achievable-FLOPs sweep over GEMM shapes (mamf-finder) in BF16, or FP16 where the card
    /// has no BF16 rate. Where set (and no `gemm_clock_mhz` is), its share of that datasheet rate
    /// is the card's sustained share of its tensor rates (`model::numeric::sustained_tensor_factor`)
    /// in place of the power rule.
    #[serde(default)]
    pub gemm_tflops: Option<f64>,
    /// The card of its vendor, architecture and memory class (HBM or not) that is given power
    /// enough to hold its boost clock under tensor load (the flagship). The power rule of
    /// `model::numeric::sustained_tensor_factor` compares every card of the class with it; a
    /// class without one gets no throttling. At most one per class.
    #[serde(default)]
    pub sustained_clock_reference: bool,
    /// Scale-out Ethernet built into the card itself (Gaudi's on-die RoCE ports), all ports
    /// together, Gb/s per direction. Absent where the node's network cards are separate parts.
    #[serde(default)]
    pub scale_out_gbit_s: Option<f64>,
    pub nvlink: bool,
    #[serde(default)]
    pub nvlink_gb_s: Option<f64>,
    /// Free text for non-NVLink scale-up links (Infinity Fabric, RoCE).
    #[serde(default)]
    pub interconnect: Option<String>,
    /// The scale-up fabric's name as a user would recognise it: `NVLink 4 (NVSwitch)`,
    /// `NVLink bridge`, `Infinity Fabric`, `RoCE (on-die, Gaudi)`. Set together with
    /// `scale_up_gb_s` and `scale_up_max_gpus`, or not at all.
    #[serde(default)]
    pub scale_up_fabric: Option<String>,
    /// Per-GPU total bandwidth over the scale-up fabric, both directions summed, GB/s (for NVLink
    /// cards, the same figure as `nvlink_gb_s`).
    #[serde(default)]
    pub scale_up_gb_s: Option<f64>,
    /// The largest group of GPUs the scale-up fabric joins all-to-all (2 for an NVLink bridge,
    /// 8 for an HGX board or an 8-OAM Infinity Fabric mesh, 72 for GB200 NVL72).
    #[serde(default)]
    pub scale_up_max_gpus: Option<u32>,
    #[serde(default)]
    pub pcie_gen: Option<u8>,
    #[serde(default)]
    pub ecc: Option<bool>,
    /// A GDDR card that ships with ECC enabled. GDDR6 has no spare ECC bits, so with ECC on the
    /// driver sets aside 1/16 of capacity for check bits (a 24 GB card shows 23,028 MiB in
    /// `nvidia-smi`); the engine applies that. HBM cards carry ECC in dedicated bits at no
    /// capacity cost, so this stays false for them.
    #[serde(default)]
    pub ecc_on_by_default: bool,
    #[serde(default)]
    pub form_factor: Option<String>,
    #[serde(default)]
    pub slots: Option<u8>,
    #[serde(default)]
    pub launch_price_usd: Option<f64>,
    #[serde(default)]
    pub street_price_usd: Option<f64>,
    #[serde(default)]
    pub street_price_date: Option<String>,
    #[serde(default)]
    pub price_source: Option<String>,
    /// Where the card is sold new: `global`, `cn`.
    #[serde(default)]
    pub regions: Vec<String>,
    #[serde(default)]
    pub notes: Vec<String>,
    pub sources: Vec<String>,
    #[serde(default)]
    pub cloud: Vec<CloudPrice>,
}

/// The top of `data/gpus.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuFile {
    pub gpu: Vec<Gpu>,
}

impl Gpu {
    /// True when the card's memory is HBM (its memory class for the sustained-clock rule).
    pub fn has_hbm(&self) -> bool {
        self.memory_type.as_deref().is_some_and(|m| m.starts_with("HBM"))
    }
}

/// Serde's default for fields that hold unless the catalog says otherwise.
fn yes() -> bool {
    true
}

/// `true` for a lowercase kebab-case id (dots allowed inside, as in `qwen2.5-7b`).
pub fn is_kebab_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
}

fn in_range(errors: &mut Vec<String>, id: &str, field: &str, value: Option<f64>, lo: f64, hi: f64) {
    if let Some(v) = value {
        if !v.is_finite() || v < lo || v > hi {
            errors.push(format!("gpu `{id}`: {field} = {v} is outside the plausible range {lo}..={hi}"));
        }
    }
}

fn is_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let digits = |p: &str, n: usize| p.len() == n && p.chars().all(|c| c.is_ascii_digit());
    match parts.as_slice() {
        [y, m] => digits(y, 4) && digits(m, 2),
        [y, m, d] => digits(y, 4) && digits(m, 2) && digits(d, 2),
        _ => false,
    }
}

/// The scale-up fields come as a set: all three or none, a group of at least two, and on NVLink
/// cards the same bandwidth as `nvlink_gb_s`.
fn check_scale_up(errors: &mut Vec<String>, g: &Gpu) {
    let id = g.id.as_str();
    let set = [g.scale_up_fabric.is_some(), g.scale_up_gb_s.is_some(), g.scale_up_max_gpus.is_some()];
    if set.iter().any(|s| *s) && !set.iter().all(|s| *s) {
        errors.push(format!(
            "gpu `{id}`: scale_up_fabric, scale_up_gb_s and scale_up_max_gpus must be given together"
        ));
    }
    if g.scale_up_fabric.as_deref().is_some_and(|f| f.trim().is_empty()) {
        errors.push(format!("gpu `{id}`: scale_up_fabric must name the fabric"));
    }
    if let Some(n) = g.scale_up_max_gpus {
        if n < 2 {
            errors.push(format!("gpu `{id}`: scale_up_max_gpus = {n}, but a fabric joins at least 2 GPUs"));
        }
    }
    if g.nvlink {
        if !set.iter().all(|s| *s) {
            errors.push(format!("gpu `{id}`: nvlink = true needs scale_up_fabric, scale_up_gb_s and scale_up_max_gpus"));
        }
        if let (Some(s), Some(n)) = (g.scale_up_gb_s, g.nvlink_gb_s) {
            if (s - n).abs() > 1e-9 * n.max(1.0) {
                errors.push(format!("gpu `{id}`: scale_up_gb_s ({s}) must equal nvlink_gb_s ({n}) on an NVLink card"));
            }
        }
    }
}

/// Dense rates never fall as the format narrows (bf16 <= fp8 <= int8, fp8 <= fp6 <= fp4), and a
/// printed sparse figure is twice the dense one: 2:4 sparsity doubles the peak on every part that
/// has it (FP16 figures are both the FP32-accumulate rate, as GeForce whitepapers print them).
fn check_precision_order(errors: &mut Vec<String>, g: &Gpu) {
    let id = g.id.as_str();
    let chains: [&[(&str, Option<f64>)]; 2] = [
        &[("bf16_tflops", g.bf16_tflops), ("fp8_tflops", g.fp8_tflops), ("int8_tops", g.int8_tops)],
        &[("fp8_tflops", g.fp8_tflops), ("fp6_tflops", g.fp6_tflops), ("fp4_tflops", g.fp4_tflops)],
    ];
    for order in chains {
        let present: Vec<(&str, f64)> = order.iter().filter_map(|(n, v)| v.map(|v| (*n, v))).collect();
        for (lo, hi) in present.iter().zip(present.iter().skip(1)) {
            if lo.1 > hi.1 * 1.001 {
                errors.push(format!("gpu `{id}`: {} ({}) must not exceed {} ({})", lo.0, lo.1, hi.0, hi.1));
            }
        }
    }
    let pairs = [("fp16", g.fp16_sparse_tflops, g.fp16_tflops), ("fp4", g.fp4_sparse_tflops, g.fp4_tflops)];
    for (name, sparse, dense) in pairs {
        if let (Some(sparse), Some(dense)) = (sparse, dense) {
            let ratio = sparse / dense;
            if !(1.96..=2.04).contains(&ratio) {
                errors.push(format!(
                    "gpu `{id}`: {name}_tflops must be dense: the sparse figure {sparse} is {ratio:.2}x it, not 2x"
                ));
            }
        }
    }
}

/// The clock and scale-out fields: a measured GEMM clock needs the boost clock it is read against
/// and cannot exceed it; a measured GEMM rate needs the 16-bit rate it is read against and cannot
/// exceed it; a sustained-clock reference needs the figures the power rule compares
/// (`fp32_tflops`, `tdp_w`).
fn check_clocks(errors: &mut Vec<String>, g: &Gpu) {
    let id = g.id.as_str();
    in_range(errors, id, "gemm_tflops", g.gemm_tflops, 0.1, 100_000.0);
    match (g.gemm_tflops, g.bf16_tflops.or(g.fp16_tflops)) {
        (Some(_), None) => errors.push(format!("gpu `{id}`: gemm_tflops needs bf16_tflops or fp16_tflops")),
        (Some(gemm), Some(peak)) if gemm > peak => {
            errors.push(format!("gpu `{id}`: gemm_tflops ({gemm}) must not exceed the 16-bit dense rate ({peak})"));
        }
        _ => {}
    }
    in_range(errors, id, "boost_clock_mhz", g.boost_clock_mhz.map(f64::from), 300.0, 4_000.0);
    in_range(errors, id, "gemm_clock_mhz", g.gemm_clock_mhz, 100.0, 4_000.0);
    in_range(errors, id, "scale_out_gbit_s", g.scale_out_gbit_s, 10.0, 10_000.0);
    match (g.gemm_clock_mhz, g.boost_clock_mhz.map(f64::from)) {
        (Some(_), None) => errors.push(format!("gpu `{id}`: gemm_clock_mhz needs boost_clock_mhz")),
        (Some(gemm), Some(boost)) if gemm > boost => {
            errors.push(format!("gpu `{id}`: gemm_clock_mhz ({gemm}) must not exceed boost_clock_mhz ({boost})"));
        }
        _ => {}
    }
    if g.sustained_clock_reference && (g.fp32_tflops.is_none() || g.tdp_w.is_none()) {
        errors.push(format!("gpu `{id}`: sustained_clock_reference needs fp32_tflops and tdp_w"));
    }
}

/// At most one sustained-clock reference per (vendor, architecture, memory class).
fn check_references(errors: &mut Vec<String>, gpus: &[Gpu]) {
    let mut seen: std::collections::BTreeMap<(Vendor, &str, bool), &str> = std::collections::BTreeMap::new();
    for g in gpus.iter().filter(|g| g.sustained_clock_reference) {
        let class = (g.vendor, g.architecture.as_str(), g.has_hbm());
        match seen.get(&class) {
            Some(first) => {
                let memory = if class.2 { "HBM" } else { "non-HBM" };
                errors.push(format!(
                    "gpu `{}`: a second sustained_clock_reference for {:?} {} {memory} (`{first}` is one)",
                    g.id, g.vendor, g.architecture
                ));
            }
            None => {
                seen.insert(class, g.id.as_str());
            }
        }
    }
}

/// The back-ends a card lists are known names, each once.
pub const BACKENDS: [&str; 7] = ["cuda", "rocm", "vulkan", "metal", "sycl", "cann", "mlx"];

/// Memory options only on unified-memory platforms, ascending, plausible, and holding the
/// default `memory_gib`; back-ends from [`BACKENDS`], each once.
fn check_memory_and_backends(errors: &mut Vec<String>, g: &Gpu) {
    let id = g.id.as_str();
    let opts = &g.memory_options_gib;
    if !opts.is_empty() {
        if !g.unified_memory {
            errors.push(format!("gpu `{id}`: memory_options_gib is for unified-memory platforms"));
        }
        if !opts.iter().any(|o| (o - g.memory_gib).abs() < 1e-9) {
            errors.push(format!("gpu `{id}`: memory_options_gib must include memory_gib ({})", g.memory_gib));
        }
        if opts.iter().zip(opts.iter().skip(1)).any(|(a, b)| a >= b) {
            errors.push(format!("gpu `{id}`: memory_options_gib must be ascending without repeats"));
        }
        for o in opts {
            in_range(errors, id, "memory_options_gib", Some(*o), 4.0, 1024.0);
        }
    }
    if !g.vulkan_matrix_units && !g.backends.iter().any(|b| b == "vulkan") {
        errors.push(format!("gpu `{id}`: vulkan_matrix_units = false needs `vulkan` in backends"));
    }
    for (i, b) in g.backends.iter().enumerate() {
        if !BACKENDS.contains(&b.as_str()) {
            errors.push(format!("gpu `{id}`: unknown backend `{b}` (one of {})", BACKENDS.join(", ")));
        }
        if g.backends.iter().take(i).any(|x| x == b) {
            errors.push(format!("gpu `{id}`: backend `{b}` listed twice"));
        }
    }
}

/// How a range check reads its figure off a card (`None`: not given).
type Figure = fn(&Gpu) -> Option<f64>;

/// The plausible range of every figure a card may give, in the order they are checked: (field,
/// its value, lowest, highest).
const GPU_RANGES: [(&str, Figure, f64, f64); 20] = [
    ("memory_gib", |g| Some(g.memory_gib), 4.0, 1024.0),
    ("memory_bandwidth_gb_s", |g| Some(g.memory_bandwidth_gb_s), 50.0, 20_000.0),
    ("sm_count", |g| g.sm_count.map(f64::from), 8.0, 1024.0),
    ("fp32_tflops", |g| g.fp32_tflops, 1.0, 200.0),
    ("fp64_tflops", |g| g.fp64_tflops, 0.01, 200.0),
    ("tf32_tflops", |g| g.tf32_tflops, 1.0, 5_000.0),
    ("fp16_tflops", |g| g.fp16_tflops, 1.0, 10_000.0),
    ("fp16_acc16_tflops", |g| g.fp16_acc16_tflops, 1.0, 10_000.0),
    ("bf16_tflops", |g| g.bf16_tflops, 1.0, 10_000.0),
    ("fp8_tflops", |g| g.fp8_tflops, 1.0, 20_000.0),
    ("int8_tops", |g| g.int8_tops, 1.0, 20_000.0),
    ("fp4_tflops", |g| g.fp4_tflops, 1.0, 40_000.0),
    ("fp6_tflops", |g| g.fp6_tflops, 1.0, 40_000.0),
    ("fp4_sparse_tflops", |g| g.fp4_sparse_tflops, 1.0, 80_000.0),
    ("tdp_w", |g| g.tdp_w, 10.0, 2_000.0),
    ("nvlink_gb_s", |g| g.nvlink_gb_s, 10.0, 5_000.0),
    ("scale_up_gb_s", |g| g.scale_up_gb_s, 10.0, 5_000.0),
    ("fp16_vector_tflops", |g| g.fp16_vector_tflops, 1.0, 200.0),
    ("launch_price_usd", |g| g.launch_price_usd, 50.0, 100_000.0),
    ("street_price_usd", |g| g.street_price_usd, 50.0, 100_000.0),
];

/// A kebab-case id not seen before (`seen` collects them), a name and an architecture, and a
/// plausible release year.
fn check_identity(errors: &mut Vec<String>, g: &Gpu, seen: &mut std::collections::BTreeSet<String>) {
    let id = g.id.as_str();
    if !is_kebab_id(id) {
        errors.push(format!("gpu `{id}`: id must be lowercase kebab-case"));
    }
    if !seen.insert(id.to_string()) {
        errors.push(format!("gpu `{id}`: duplicate id"));
    }
    if g.name.trim().is_empty() || g.architecture.trim().is_empty() {
        errors.push(format!("gpu `{id}`: name and architecture are required"));
    }
    if !(2010..=2030).contains(&g.release_year) {
        errors.push(format!("gpu `{id}`: release_year {} is implausible", g.release_year));
    }
}

/// `nvlink` and `nvlink_gb_s` go together.
fn check_nvlink(errors: &mut Vec<String>, g: &Gpu) {
    let id = g.id.as_str();
    if g.nvlink && g.nvlink_gb_s.is_none() {
        errors.push(format!("gpu `{id}`: nvlink = true needs nvlink_gb_s"));
    }
    if !g.nvlink && g.nvlink_gb_s.is_some() {
        errors.push(format!("gpu `{id}`: nvlink_gb_s given but nvlink = false"));
    }
}

/// Prices with their date and source, source URLs, known regions, and plausible cloud prices,
/// each dated and sourced.
fn check_prices_and_sources(errors: &mut Vec<String>, g: &Gpu) {
    let id = g.id.as_str();
    if g.street_price_usd.is_some() {
        match &g.street_price_date {
            Some(d) if is_date(d) => {}
            _ => errors.push(format!("gpu `{id}`: street_price_usd needs street_price_date (YYYY-MM)")),
        }
    }
    if (g.street_price_usd.is_some() || g.launch_price_usd.is_some()) && g.price_source.is_none() {
        errors.push(format!("gpu `{id}`: prices need a price_source"));
    }
    if g.sources.is_empty() || g.sources.iter().any(|s| !s.starts_with("https://") && !s.starts_with("http://")) {
        errors.push(format!("gpu `{id}`: needs at least one source, each a URL"));
    }
    for r in &g.regions {
        if r != "global" && r != "cn" {
            errors.push(format!("gpu `{id}`: unknown region `{r}`"));
        }
    }
    for c in &g.cloud {
        if !(0.01..=100.0).contains(&c.usd_per_hour) {
            errors.push(format!("gpu `{id}`: cloud price {} $/h from {} is implausible", c.usd_per_hour, c.provider));
        }
        if !is_date(&c.date) {
            errors.push(format!("gpu `{id}`: cloud price from {} needs a date (YYYY-MM)", c.provider));
        }
        if c.source.is_empty() {
            errors.push(format!("gpu `{id}`: cloud price from {} needs a source", c.provider));
        }
    }
}

/// Every invariant the GPU catalog must hold. Returns one message per broken rule, naming the card.
pub fn validate_gpus(gpus: &[Gpu]) -> Vec<String> {
    let mut errors = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for g in gpus {
        let id = g.id.as_str();
        check_identity(&mut errors, g, &mut seen);
        for (field, value, lo, hi) in GPU_RANGES {
            in_range(&mut errors, id, field, value(g), lo, hi);
        }
        if g.vendor != Vendor::Apple && g.tdp_w.is_none() {
            errors.push(format!("gpu `{id}`: tdp_w is required for discrete cards"));
        }
        check_precision_order(&mut errors, g);
        check_memory_and_backends(&mut errors, g);
        check_nvlink(&mut errors, g);
        check_scale_up(&mut errors, g);
        check_clocks(&mut errors, g);
        if g.ecc_on_by_default {
            let gddr = g.memory_type.as_deref().is_some_and(|t| t.starts_with("GDDR"));
            if g.ecc != Some(true) || !gddr {
                errors.push(format!("gpu `{id}`: ecc_on_by_default needs ecc = true and GDDR memory"));
            }
        }
        check_prices_and_sources(&mut errors, g);
    }
    check_references(&mut errors, gpus);
    errors
}

/// What a preset is, as listed by `gpu-advisor models --json` (`kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelKind {
    Llm,
    Diffusion,
    Vision,
    Nlp,
    Speech,
}

/// Transformer layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arch {
    Decoder,
    Encoder,
    EncoderDecoder,
}

/// Attention kind, which decides the KV-cache size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Attention {
    Mha,
    Gqa,
    Mqa,
    Mla,
}

/// One transformer language model, with the shape from its Hugging Face `config.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmSpec {
    pub id: String,
    pub name: String,
    pub kind: ModelKind,
    pub family: String,
    pub arch: Arch,
    pub params_total_b: f64,
    #[serde(default)]
    pub params_active_b: Option<f64>,
    pub layers: u32,
    #[serde(default)]
    pub encoder_layers: Option<u32>,
    pub hidden_size: u32,
    #[serde(default)]
    pub intermediate_size: Option<u32>,
    pub attention_heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    pub vocab_size: u32,
    pub max_context: u32,
    #[serde(default)]
    pub tied_embeddings: bool,
    pub attention: Attention,
    #[serde(default)]
    pub sliding_window: Option<u32>,
    #[serde(default)]
    pub sliding_window_layers_fraction: Option<f64>,
    #[serde(default)]
    pub kv_lora_rank: Option<u32>,
    #[serde(default)]
    pub q_lora_rank: Option<u32>,
    #[serde(default)]
    pub qk_rope_head_dim: Option<u32>,
    #[serde(default)]
    pub qk_nope_head_dim: Option<u32>,
    #[serde(default)]
    pub v_head_dim: Option<u32>,
    #[serde(default)]
    pub experts_total: Option<u32>,
    #[serde(default)]
    pub experts_active: Option<u32>,
    #[serde(default)]
    pub shared_experts: Option<u32>,
    #[serde(default)]
    pub moe_intermediate_size: Option<u32>,
    #[serde(default)]
    pub dense_layers: Option<u32>,
    /// Block size of the weight scales of a native FP8 checkpoint quantized in blocks
    /// (`quantization_config.weight_block_size` of its `config.json`: 128 for DeepSeek-V3/R1 and
    /// Kimi K2); absent for per-tensor FP8 or 16-bit checkpoints.
    #[serde(default)]
    pub fp8_weight_block: Option<u32>,
    /// Layers that keep a fixed-size state per sequence instead of a KV cache growing with the
    /// context: Gated DeltaNet layers (Qwen3-Next), cross-attention layers over the image
    /// tokens (mllama).
    #[serde(default)]
    pub fixed_state_layers: Option<u32>,
    /// Elements of that state per layer per sequence.
    #[serde(default)]
    pub fixed_state_elements_per_layer: Option<f64>,
    #[serde(default)]
    pub activation: Option<String>,
    #[serde(default)]
    pub gated_ffn: Option<bool>,
    #[serde(default)]
    pub released: Option<String>,
    pub source: String,
    /// The model an LLM job starts from before the user picks one (`LlmJob::default()`); exactly
    /// one preset has it.
    #[serde(default)]
    pub default_job_model: bool,
    /// How a vision-language model turns an image into tokens (absent: text only).
    #[serde(default)]
    pub vision: Option<VisionSpec>,
}

/// A vision tower and its image-token rule, as the model's own processor applies it (see
/// `docs/MODEL.md`, "Image tokens"). Exactly one rule is set: `token_px` (the image is resized
/// to a grid of `token_px`-pixel squares, one token each: Qwen2.5-VL's `smart_resize` with
/// `min_pixels`/`max_pixels`, or Pixtral's longest-edge cap `max_edge_px` with one break token
/// per row), `tile_px` (fixed tiles of `tokens_per_tile`, up to `max_tiles`: mllama) or
/// `tokens_per_image` (a fixed count at `image_px`: Gemma 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VisionSpec {
    /// Parameters of the vision tower and its projector, billions.
    pub tower_params_b: f64,
    /// Patches the tower encodes per token the language model sees (the merge: 2 × 2 = 4 for
    /// Qwen2.5-VL and Pixtral, 4 × 4 = 16 for Gemma 3's pooling, 1 for mllama).
    pub encoder_patches_per_token: f64,
    /// Image tokens go to cross-attention layers' K and V (mllama), not into the prompt.
    #[serde(default)]
    pub cross_attention: bool,
    #[serde(default)]
    pub token_px: Option<u32>,
    #[serde(default)]
    pub min_pixels: Option<u64>,
    #[serde(default)]
    pub max_pixels: Option<u64>,
    /// Pixtral: the patch the image is padded to (a multiple of it per side) before merging.
    #[serde(default)]
    pub patch_px: Option<u32>,
    #[serde(default)]
    pub max_edge_px: Option<u32>,
    /// Pixtral: one `[IMG_BREAK]` (or `[IMG_END]`) token after each row of image tokens.
    #[serde(default)]
    pub row_break_token: bool,
    #[serde(default)]
    pub tile_px: Option<u32>,
    #[serde(default)]
    pub max_tiles: Option<u32>,
    #[serde(default)]
    pub tokens_per_tile: Option<u32>,
    #[serde(default)]
    pub image_px: Option<u32>,
    #[serde(default)]
    pub tokens_per_image: Option<u32>,
}

impl VisionSpec {
    /// The problem with this rule, if any (exactly one rule, each with its fields).
    pub fn problem(&self) -> Option<&'static str> {
        let grid = self.token_px.is_some();
        let tiles = self.tile_px.is_some() || self.max_tiles.is_some() || self.tokens_per_tile.is_some();
        let fixed = self.tokens_per_image.is_some() || self.image_px.is_some();
        if [grid, tiles, fixed].iter().filter(|x| **x).count() != 1 {
            return Some("needs exactly one image-token rule (token_px, tile_px or tokens_per_image)");
        }
        if grid && (self.min_pixels.is_some() != self.max_pixels.is_some() || self.min_pixels.is_some() == self.max_edge_px.is_some()) {
            return Some("token_px needs min_pixels and max_pixels, or max_edge_px");
        }
        if tiles && (self.tile_px.is_none() || self.max_tiles.is_none() || self.tokens_per_tile.is_none()) {
            return Some("tile_px needs max_tiles and tokens_per_tile");
        }
        if fixed && (self.tokens_per_image.is_none() || self.image_px.is_none()) {
            return Some("tokens_per_image needs image_px");
        }
        if !(0.01..=20.0).contains(&self.tower_params_b) || !(1.0..=64.0).contains(&self.encoder_patches_per_token) {
            return Some("tower_params_b or encoder_patches_per_token out of range");
        }
        None
    }
}

/// The top of `data/models.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    pub model: Vec<LlmSpec>,
}

/// One component of a diffusion pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffusionComponent {
    /// `denoiser`, `text_encoder` or `vae`.
    pub role: String,
    pub name: String,
    pub params_b: f64,
}

/// One image-generation pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffusionSpec {
    pub id: String,
    pub name: String,
    pub family: String,
    pub denoiser: String,
    pub native_resolution_px: u32,
    pub latent_channels: u32,
    pub vae_downscale: u32,
    pub default_steps: u32,
    pub cfg: bool,
    #[serde(default)]
    pub refiner: Option<String>,
    pub component: Vec<DiffusionComponent>,
    pub step_tflops_at_native: f64,
    #[serde(default)]
    pub step_flops_source: Option<String>,
    pub attn_fraction_at_native: f64,
    pub vae_decode_tflops_at_native: f64,
    pub text_encoder_gflops: f64,
    /// The 16-bit format the image engine runs the pipeline in by default, as the model card's
    /// diffusers example loads it: `fp16` or `bf16` (absent: `fp16`).
    #[serde(default)]
    pub default_precision: Option<String>,
    /// Latent positions per image token at the denoiser's first attention level: 1 for SD 1.x and
    /// 2.x (attention at the full latent), 4 for SDXL (its first attention is one level down) and
    /// for DiTs (2 × 2 patches), 2 for an editing DiT whose input image's tokens join the output's.
    /// Set on every image preset; video presets take the video engine's geometry.
    #[serde(default)]
    pub attention_token_divisor: Option<f64>,
    /// Attention heads at the first attention level.
    #[serde(default)]
    pub attention_heads: Option<u32>,
    /// Text tokens that join the image tokens in one joint attention (MMDiT); 0 where the text
    /// enters by cross-attention.
    #[serde(default)]
    pub joint_text_tokens: u32,
    /// A DiT's transformer width and block count (absent for UNets).
    #[serde(default)]
    pub dit_width: Option<u32>,
    #[serde(default)]
    pub dit_blocks: Option<u32>,
    /// Share of a denoiser step's FLOPs in convolutions (hand count; 0 for DiTs, whose only
    /// convolution is the patch embedding).
    #[serde(default)]
    pub conv_flop_share: f64,
    /// Share of a denoiser step's FLOPs in 3×3 stride-1 convolutions (Winograd-eligible), inside
    /// `conv_flop_share`.
    #[serde(default)]
    pub winograd_flop_share: f64,
    /// A UNet's FLOP-weighted width, channels (`model::diffusion::traffic_width`, hand count);
    /// DiTs derive theirs from `dit_width`.
    #[serde(default)]
    pub traffic_width: Option<f64>,
    #[serde(default)]
    pub released: Option<String>,
    pub sources: Vec<String>,
    /// Video generation: the latent geometry and DiT shape (None for image pipelines).
    #[serde(default)]
    pub video: Option<VideoSpec>,
}

/// What a video pipeline adds to a [`DiffusionSpec`]: its 3D VAE compression, patching and DiT shape,
/// as each model's own config states them (sources in `data/diffusion.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VideoSpec {
    pub native_width_px: u32,
    pub native_height_px: u32,
    pub default_frames: u32,
    pub fps: u32,
    /// Frames per latent frame after the first (causal 3D VAE: `1 + (frames - 1) / t`).
    pub temporal_downscale: u32,
    /// DiT patch size in latent frames and in latent pixels per side.
    pub patch_t: u32,
    pub patch_hw: u32,
    pub dit_layers: u32,
    pub dit_width: u32,
    /// Denoiser parameters that act on every video token (the rest act once per sample or on text).
    pub dit_token_params_b: f64,
    /// Text tokens the DiT attends to.
    pub text_tokens: u32,
    /// True when text tokens join the video tokens in one self-attention (MMDiT), false for cross-attention.
    pub joint_attention: bool,
    /// Denoiser components that take turns (Wan 2.2 A14B: 2 experts), one active per step.
    pub experts: u32,
    /// VAE decode FLOPs per output pixel and frame, in GFLOPs.
    pub vae_decode_gflops_per_px: f64,
    /// Output frames the VAE decoder holds at once (causal chunked decode; all frames when it has none).
    pub vae_decode_chunk_frames: u32,
    /// True when the pipeline runs classifier-free guidance's conditional and unconditional passes
    /// one after the other (Wan's `wan/text2video.py` calls the model twice per step), false when it
    /// batches them into one pass (diffusers pipelines).
    #[serde(default)]
    pub cfg_in_sequence: bool,
}

/// The top of `data/diffusion.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffusionFile {
    pub diffusion: Vec<DiffusionSpec>,
}

/// The kind of network a classic preset is: `transformer` (the transformer kernel mix and AdamW)
/// or `convnet` (the convolutional mix, SGD with momentum, channels_last).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    Transformer,
    Convnet,
}

/// One classic vision, NLP or speech network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassicSpec {
    pub id: String,
    pub name: String,
    pub kind: ModelKind,
    pub task: String,
    pub params_m: f64,
    pub input: String,
    #[serde(default)]
    pub input_px: Option<u32>,
    #[serde(default)]
    pub seq_len: Option<u32>,
    pub forward_gflops: f64,
    #[serde(default)]
    pub flops_source: Option<String>,
    #[serde(default)]
    pub activation_mib_per_sample: Option<f64>,
    /// Share of the forward FLOPs in 3×3 stride-1 convolutions, which cuDNN can run with
    /// Winograd's algorithm on the FP32 units (0 where not counted).
    #[serde(default)]
    pub winograd_flop_share: f64,
    /// Transformer or ConvNet, which decides the kernel mix and the optimizer.
    pub network: Network,
    /// `pixels` or `tokens`.
    pub scales_with: String,
    #[serde(default)]
    pub released: Option<String>,
    pub sources: Vec<String>,
}

/// The top of `data/classic.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassicFile {
    pub classic: Vec<ClassicSpec>,
}

/// The denoiser geometry of an image preset: set on every one (video presets take the video
/// engine's), a UNet without DiT fields and with its traffic width, a DiT with its width and blocks
/// and no convolution share, shares from 0 to 1 with the Winograd one inside the convolution one.
fn check_image_geometry(errors: &mut Vec<String>, d: &DiffusionSpec) {
    let id = &d.id;
    if let Some(p) = d.default_precision.as_deref() {
        if p != "fp16" && p != "bf16" {
            errors.push(format!("diffusion `{id}`: default_precision must be fp16 or bf16"));
        }
    }
    if !(0.0..=1.0).contains(&d.conv_flop_share) || !(0.0..=d.conv_flop_share).contains(&d.winograd_flop_share) {
        errors.push(format!("diffusion `{id}`: conv_flop_share must be a share from 0 to 1, winograd_flop_share within it"));
    }
    if d.attention_token_divisor.is_some_and(|t| !(0.5..=64.0).contains(&t)) || d.attention_heads == Some(0) {
        errors.push(format!("diffusion `{id}`: attention_token_divisor or attention_heads out of range"));
    }
    if d.video.is_some() {
        return;
    }
    if d.attention_token_divisor.is_none() || d.attention_heads.is_none() || d.default_precision.is_none() {
        errors.push(format!("diffusion `{id}`: image presets need attention_token_divisor, attention_heads and default_precision"));
    }
    let unet = d.denoiser == "unet";
    let dit = d.dit_width.is_some() && d.dit_blocks.is_some();
    if unet && (d.dit_width.is_some() || d.dit_blocks.is_some() || d.traffic_width.is_none() || d.conv_flop_share <= 0.0) {
        errors.push(format!("diffusion `{id}`: a UNet needs traffic_width and conv_flop_share, and no dit_width or dit_blocks"));
    }
    if !unet && (!dit || d.traffic_width.is_some() || d.conv_flop_share > 0.0) {
        errors.push(format!("diffusion `{id}`: a DiT needs dit_width and dit_blocks, and no traffic_width or conv_flop_share"));
    }
    if d.traffic_width.is_some_and(|w| !(100.0..=20_000.0).contains(&w)) || d.dit_width.is_some_and(|w| !(256..=20_000).contains(&w)) {
        errors.push(format!("diffusion `{id}`: traffic_width or dit_width out of range"));
    }
}

/// Preset ids are kebab-case and unique across the three files.
fn check_model_ids(errors: &mut Vec<String>, llms: &[LlmSpec], diffusion: &[DiffusionSpec], classic: &[ClassicSpec]) {
    let mut seen = std::collections::BTreeSet::new();
    let ids = llms
        .iter()
        .map(|m| &m.id)
        .chain(diffusion.iter().map(|m| &m.id))
        .chain(classic.iter().map(|m| &m.id));
    for id in ids {
        if !is_kebab_id(id) {
            errors.push(format!("model `{id}`: id must be lowercase kebab-case"));
        }
        if !seen.insert(id.clone()) {
            errors.push(format!("model `{id}`: duplicate id"));
        }
    }
}

/// One LLM preset: a plausible size, positive shape counts, an attention kind its heads match,
/// the MoE, encoder-decoder, fixed-state and vision fields it needs, and its config.json link.
fn check_llm(errors: &mut Vec<String>, m: &LlmSpec) {
    let id = &m.id;
    if !(0.01..=3000.0).contains(&m.params_total_b) {
        errors.push(format!("model `{id}`: params_total_b {} is implausible", m.params_total_b));
    }
    if m.layers == 0 || m.hidden_size == 0 || m.attention_heads == 0 || m.kv_heads == 0 || m.head_dim == 0 {
        errors.push(format!("model `{id}`: layers, hidden_size, heads, kv_heads and head_dim must be positive"));
    }
    if m.kv_heads > m.attention_heads {
        errors.push(format!("model `{id}`: kv_heads exceeds attention_heads"));
    }
    let expected_kind = match m.attention {
        Attention::Mha => m.kv_heads == m.attention_heads,
        Attention::Mqa => m.kv_heads == 1,
        Attention::Gqa => m.kv_heads > 1 && m.kv_heads < m.attention_heads,
        Attention::Mla => m.kv_lora_rank.is_some() && m.qk_rope_head_dim.is_some(),
    };
    if !expected_kind {
        errors.push(format!("model `{id}`: attention {:?} does not match kv_heads {} / heads {}", m.attention, m.kv_heads, m.attention_heads));
    }
    let moe = m.experts_total.is_some();
    if moe && (m.experts_active.is_none() || m.params_active_b.is_none() || m.moe_intermediate_size.is_none()) {
        errors.push(format!("model `{id}`: MoE presets need experts_active, params_active_b and moe_intermediate_size"));
    }
    if let Some(a) = m.params_active_b {
        if a > m.params_total_b {
            errors.push(format!("model `{id}`: params_active_b exceeds params_total_b"));
        }
    }
    if m.arch == Arch::EncoderDecoder && m.encoder_layers.is_none() {
        errors.push(format!("model `{id}`: encoder-decoder presets need encoder_layers"));
    }
    if m.fixed_state_layers.is_some() != m.fixed_state_elements_per_layer.is_some() || m.fixed_state_layers.is_some_and(|l| l >= m.layers) {
        errors.push(format!("model `{id}`: fixed_state_layers and fixed_state_elements_per_layer go together, below layers"));
    }
    if let Some(p) = m.vision.as_ref().and_then(VisionSpec::problem) {
        errors.push(format!("model `{id}`: vision: {p}"));
    }
    if !m.source.starts_with("https://") {
        errors.push(format!("model `{id}`: source must be the config.json link"));
    }
}

/// One diffusion preset: a denoiser and a VAE among components of known roles and sizes,
/// plausible step figures, a refiner among `diffusion`, a source, and its image and video
/// geometry.
fn check_diffusion(errors: &mut Vec<String>, d: &DiffusionSpec, diffusion: &[DiffusionSpec]) {
    let id = &d.id;
    if !d.component.iter().any(|c| c.role == "denoiser") || !d.component.iter().any(|c| c.role == "vae") {
        errors.push(format!("diffusion `{id}`: needs a denoiser and a vae component"));
    }
    for c in &d.component {
        if !["denoiser", "text_encoder", "vae"].contains(&c.role.as_str()) || !(0.001..=50.0).contains(&c.params_b) {
            errors.push(format!("diffusion `{id}`: component `{}` has a bad role or size", c.name));
        }
    }
    let max_step_tflops = if d.video.is_some() { 100_000.0 } else { 1000.0 };
    if !(0.01..=max_step_tflops).contains(&d.step_tflops_at_native) || !(0.0..=0.9).contains(&d.attn_fraction_at_native) {
        errors.push(format!("diffusion `{id}`: step FLOPs or attention fraction out of range"));
    }
    if let Some(r) = &d.refiner {
        if !diffusion.iter().any(|x| &x.id == r) {
            errors.push(format!("diffusion `{id}`: refiner `{r}` is not a preset"));
        }
    }
    if d.sources.is_empty() {
        errors.push(format!("diffusion `{id}`: needs a source"));
    }
    check_image_geometry(errors, d);
    if let Some(v) = &d.video {
        let counts = [v.native_width_px, v.native_height_px, v.default_frames, v.fps, v.temporal_downscale, v.patch_t, v.patch_hw, v.dit_layers, v.dit_width, v.experts, v.vae_decode_chunk_frames];
        if counts.contains(&0) || !(0.01..=50.0).contains(&v.dit_token_params_b) || !(0.0..=100.0).contains(&v.vae_decode_gflops_per_px) {
            errors.push(format!("diffusion `{id}`: video geometry has a zero count or an implausible size"));
        }
        let denoisers = d.component.iter().filter(|c| c.role == "denoiser").count();
        if denoisers != v.experts as usize {
            errors.push(format!("diffusion `{id}`: {denoisers} denoiser components but experts = {}", v.experts));
        }
    }
}

/// One classic preset: plausible size and FLOPs, what its cost scales with and the input size
/// that goes with it, a Winograd share, and a source.
fn check_classic(errors: &mut Vec<String>, c: &ClassicSpec) {
    let id = &c.id;
    if !(0.1..=10_000.0).contains(&c.params_m) || !(0.01..=100_000.0).contains(&c.forward_gflops) {
        errors.push(format!("classic `{id}`: params_m or forward_gflops out of range"));
    }
    if c.scales_with != "pixels" && c.scales_with != "tokens" {
        errors.push(format!("classic `{id}`: scales_with must be pixels or tokens"));
    }
    if !(0.0..=1.0).contains(&c.winograd_flop_share) {
        errors.push(format!("classic `{id}`: winograd_flop_share must be a share from 0 to 1"));
    }
    if c.scales_with == "pixels" && c.input_px.is_none() || c.scales_with == "tokens" && c.seq_len.is_none() {
        errors.push(format!("classic `{id}`: needs input_px (pixels) or seq_len (tokens)"));
    }
    if c.sources.is_empty() {
        errors.push(format!("classic `{id}`: needs a source"));
    }
}

/// Every invariant of the model presets, across all three files (ids are unique across them).
pub fn validate_models(llms: &[LlmSpec], diffusion: &[DiffusionSpec], classic: &[ClassicSpec]) -> Vec<String> {
    let mut errors = Vec::new();
    check_model_ids(&mut errors, llms, diffusion, classic);
    for m in llms {
        check_llm(&mut errors, m);
    }
    let defaults: Vec<&str> = llms.iter().filter(|m| m.default_job_model).map(|m| m.id.as_str()).collect();
    if defaults.len() != 1 {
        errors.push(format!("models: exactly one preset needs default_job_model = true, found [{}]", defaults.join(", ")));
    }
    for d in diffusion {
        check_diffusion(&mut errors, d, diffusion);
    }
    for c in classic {
        check_classic(&mut errors, c);
    }
    errors
}
