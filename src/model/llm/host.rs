//! The host around the GPUs: its system RAM and RAM bandwidth, the RAM the operating system keeps,
//! the offload the user allows, and the share of a unified-memory machine's RAM its GPU may use.
//! What a job does with the RAM (the offload plan and its timing) is in the offload module; every
//! figure and its source: docs/MODEL.md, "RAM offload and unified memory".

use crate::catalog::{Gpu, Segment, Vendor};

/// RAM kept for the operating system and the desktop, GiB: Ubuntu Desktop's and Windows 11's
/// minimum system memory (4 GB, ubuntu.com/download/desktop; Microsoft's Windows 11
/// specifications).
pub const OS_RESERVE_GIB: f64 = 4.0;

/// What the user asked for: whether and how weights that do not fit the GPUs go to system RAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OffloadMode {
    /// The faster placement that fits (`--offload auto`, the default).
    #[default]
    Auto,
    /// Never offload.
    None,
    /// Whole layers (`-ngl`).
    Layers,
    /// MoE routed experts (`--n-cpu-moe`).
    Experts,
}

impl OffloadMode {
    /// Every mode, in CLI order.
    pub const ALL: [OffloadMode; 4] = [OffloadMode::Auto, OffloadMode::None, OffloadMode::Layers, OffloadMode::Experts];

    /// CLI and URL name.
    pub fn as_str(self) -> &'static str {
        match self {
            OffloadMode::Auto => "auto",
            OffloadMode::None => "none",
            OffloadMode::Layers => "layers",
            OffloadMode::Experts => "experts",
        }
    }

    /// Parses a CLI or URL name.
    pub fn parse(s: &str) -> Option<OffloadMode> {
        let lower = s.trim().to_ascii_lowercase();
        OffloadMode::ALL.into_iter().find(|m| m.as_str() == lower)
    }
}

/// The host around the GPUs: system RAM and how the job may use it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Host {
    /// System RAM, GiB; 0 = no offload (the default).
    pub ram_gib: f64,
    /// RAM bandwidth, GB/s (theoretical: MT/s × 8 B × channels); `None` = [`default_ram_gb_s`].
    pub ram_gb_s: Option<f64>,
    pub mode: OffloadMode,
    /// Unified-memory machines: the GPU share the user set (`iogpu.wired_limit_mb` on macOS,
    /// the GTT size on Linux), GiB; `None` = the platform's default ([`unified_gpu_gib`]).
    pub unified_gpu_gib: Option<f64>,
    /// Overrides the offload engine's fitted RAM stream share (`offload::OffloadFit::apply`, for
    /// cross-validation).
    pub ram_stream_fraction: Option<f64>,
}

/// The RAM bandwidth assumed when the user gives none, GB/s (theoretical, MT/s × 8 B per
/// channel): datacenter cards sit in 8-channel DDR5-4800 servers (307.2; Intel Xeon 4th gen);
/// cards from 2022 on in dual-channel DDR5-5600 desktops (89.6); older ones in dual-channel
/// DDR4-3200 (51.2).
pub fn default_ram_gb_s(gpu: &Gpu) -> f64 {
    match gpu.segment {
        Segment::Datacenter => 8.0 * 4800.0 * 8.0 / 1000.0,
        _ if gpu.release_year >= 2022 => 2.0 * 5600.0 * 8.0 / 1000.0,
        _ => 2.0 * 3200.0 * 8.0 / 1000.0,
    }
}

/// The RAM bandwidth `host` has, GB/s (its own, else the default for `gpu`).
pub fn ram_gb_s(host: &Host, gpu: &Gpu) -> f64 {
    host.ram_gb_s.unwrap_or_else(|| default_ram_gb_s(gpu))
}

/// Share of a unified-memory machine's RAM its GPU may use by default, and why:
/// - Apple: Metal's `recommendedMaxWorkingSetSize`, 2/3 of RAM up to 36 GiB (10.67 GB of a
///   16 GB M4, exo-explore/exo PR #1672) and 3/4 above (gpustack issue #1375); raised with
///   `sysctl iogpu.wired_limit_mb` (antirez/ds4 PR #893: 112 GiB on a 128 GiB M5 Max).
/// - AMD Strix Halo: 3/4, the largest BIOS carve-out (96 GB of 128 GB, Variable Graphics
///   Memory); on Linux the GTT limit (`ttm.pages_limit`) goes to about 124 GiB of 128.
/// - NVIDIA DGX Spark (GB10): 102 GiB of 128, what CUDA reports free at boot on a headless DGX OS
///   (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks issue #47: "101.3–102.2 GiB of 121.69").
pub fn unified_default_share(gpu: &Gpu, memory_gib: f64) -> f64 {
    match gpu.vendor {
        Vendor::Apple if memory_gib <= 36.0 => 2.0 / 3.0,
        Vendor::Apple => 0.75,
        Vendor::Nvidia => 102.0 / 128.0,
        _ => 0.75,
    }
}

/// GiB a unified-memory machine's GPU may use: the user's share (at most the RAM less
/// [`OS_RESERVE_GIB`]) or the platform's default; `None` for discrete cards.
pub fn unified_gpu_gib(gpu: &Gpu, host: &Host) -> Option<f64> {
    if !gpu.is_unified_computer() {
        return None;
    }
    let mem = gpu.usable_memory_gib();
    let most = (mem - OS_RESERVE_GIB).max(0.0);
    Some(match host.unified_gpu_gib {
        Some(g) => g.max(0.0).min(most),
        None => mem * unified_default_share(gpu, mem),
    })
}
