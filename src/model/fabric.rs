//! Links between GPUs: the scale-up fabric inside a node (NVLink/NVSwitch, NVLink bridges,
//! AMD Infinity Fabric, Gaudi's on-die RoCE), PCIe, and the node link beyond it. The LLM and
//! the image/classic engines both size their collectives (gradient all-reduce, FSDP gathers,
//! tensor-parallel all-reduces) with these numbers, so there is one rule for both.
//!
//! Sources (docs/MODEL.md, "Links between GPUs"):
//! - fabric bandwidth and group size: the catalog's `scale_up_gb_s` / `scale_up_max_gpus`
//!   (vendor datasheets);
//! - achieved share: NCCL bus bandwidth on NVLink is about 0.75 of the link rate (nccl-tests
//!   README "Performance": ~230 of 300 GB/s on A100), taken for every scale-up fabric and PCIe;
//! - node links per GPU: DGX H100/H200/B200 have eight 400 Gb/s ConnectX-7 ports, one per GPU
//!   (50 GB/s per direction); DGX A100 eight 200 Gb/s HDR ports (25 GB/s); DGX-1 V100 four
//!   100 Gb/s EDR ports for eight GPUs (6.25 GB/s); AMD MI300X platforms pair each GPU with a
//!   400 Gb/s NIC; a card with scale-out Ethernet of its own uses it (the catalog's
//!   `scale_out_gbit_s`: Gaudi 2 and 3 keep three of their on-die 100/200 GbE ports for it);
//!   PCIe servers are taken to share one 100 GbE port per node of eight (1.56 GB/s per GPU).
//!   Inter-node NCCL bus bandwidth reaches about 0.9 of the port rate.
//!
//! A ring collective's bus bandwidth is set by its slowest hop, so a group that spans nodes runs
//! at the lesser of the fabric and the node link.

use crate::catalog::{Gpu, Segment, Vendor};

/// NCCL bus bandwidth as a share of a scale-up or PCIe link's per-direction rate.
pub const FABRIC_EFFICIENCY: f64 = 0.75;
/// NCCL bus bandwidth as a share of a node port's rate.
pub const NODE_LINK_EFFICIENCY: f64 = 0.9;
/// GPUs in one server when the card has no larger scale-up domain.
pub const NODE_GPUS: u32 = 8;

/// What carries a collective over a group of GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    /// The card's scale-up fabric (NVLink, Infinity Fabric, on-die RoCE).
    ScaleUp,
    /// PCIe with peer-to-peer.
    Pcie,
    /// PCIe without peer-to-peer (GeForce): traffic is staged through host memory.
    PcieViaHost,
    /// The node link (InfiniBand / Ethernet), for groups larger than a node.
    Node,
}

/// The link a collective over a group runs at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    pub kind: LinkKind,
    /// Achieved bus bandwidth per GPU per direction, GB/s.
    pub gb_s: f64,
    /// Latency of one hop, s.
    pub latency_s: f64,
}

/// GPUs one server holds: the scale-up domain when it is larger than eight (GB200 NVL72).
pub fn node_gpus(gpu: &Gpu) -> u32 {
    gpu.scale_up_max_gpus.unwrap_or(0).max(NODE_GPUS)
}

/// Per-direction PCIe x16 rate, GB/s (PCI-SIG: gen3 15.75, gen4 31.5, gen5 63, gen6 126).
pub fn pcie_gb_s(gpu: &Gpu) -> f64 {
    match gpu.pcie_gen {
        Some(3) => 15.75,
        Some(5) => 63.0,
        Some(6) => 126.0,
        _ => 31.5,
    }
}

/// The node link's port rate per GPU per direction, GB/s (see the module doc): the card's own
/// scale-out ports where it has them (Gaudi 3: 600 Gb/s / 8 = 75 GB/s), else the platform's.
pub fn node_port_gb_s(gpu: &Gpu) -> f64 {
    if let Some(gbit_s) = gpu.scale_out_gbit_s.filter(|g| g.is_finite() && *g > 0.0) {
        return gbit_s / 8.0;
    }
    let arch = gpu.architecture.as_str();
    let big_dc = gpu.segment == Segment::Datacenter && gpu.scale_up_max_gpus.unwrap_or(0) >= 8;
    match gpu.vendor {
        Vendor::Amd if big_dc => 50.0,
        Vendor::Nvidia if big_dc && (arch.starts_with("Hopper") || arch.starts_with("Blackwell")) => 50.0,
        Vendor::Nvidia if big_dc && arch.starts_with("Ampere") => 25.0,
        Vendor::Nvidia if big_dc => 6.25,
        _ => 12.5 / 8.0,
    }
}

/// The link inside one node for a group of `n` GPUs (n ≤ a node).
fn intra_node(gpu: &Gpu, n: u32) -> Link {
    if let (Some(gb_s), Some(max)) = (gpu.scale_up_gb_s, gpu.scale_up_max_gpus) {
        if n <= max {
            return Link { kind: LinkKind::ScaleUp, gb_s: gb_s / 2.0 * FABRIC_EFFICIENCY, latency_s: 8e-6 };
        }
    }
    if gpu.vendor == Vendor::Nvidia && gpu.segment == Segment::Consumer {
        // No peer-to-peer on GeForce: each transfer crosses PCIe twice through host memory.
        return Link { kind: LinkKind::PcieViaHost, gb_s: pcie_gb_s(gpu) * FABRIC_EFFICIENCY * 0.5, latency_s: 40e-6 };
    }
    Link { kind: LinkKind::Pcie, gb_s: pcie_gb_s(gpu) * FABRIC_EFFICIENCY, latency_s: 25e-6 }
}

/// The link a collective over `n` GPUs of `gpu` runs at: the scale-up fabric while the group
/// fits in it, PCIe beyond it inside a node, and no faster than the node link across nodes.
pub fn group_link(gpu: &Gpu, n: u32) -> Link {
    let n = n.max(1);
    if n <= node_gpus(gpu) {
        return intra_node(gpu, n);
    }
    let inside = intra_node(gpu, node_gpus(gpu));
    let node = node_port_gb_s(gpu) * NODE_LINK_EFFICIENCY;
    if node < inside.gb_s {
        Link { kind: LinkKind::Node, gb_s: node, latency_s: 20e-6 }
    } else {
        inside
    }
}

/// Seconds of a ring all-reduce of `bytes` over `n` GPUs: `2 (n-1)/n · bytes / bw`
/// (Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms", JPDC 69(2), 2009).
/// A reduce-scatter or an all-gather moves half of it: `(n-1)/n · bytes / bw`.
pub fn allreduce_s(bytes: f64, n: u32, link: &Link) -> f64 {
    if n <= 1 || link.gb_s <= 0.0 {
        return 0.0;
    }
    let nf = f64::from(n);
    2.0 * (nf - 1.0) / nf * bytes / (link.gb_s * 1e9)
}

/// The fabric's name for assumptions: the catalog's `scale_up_fabric`, or the link kind.
pub fn link_name<'a>(gpu: &'a Gpu, link: &Link) -> &'a str {
    match link.kind {
        LinkKind::ScaleUp => gpu.scale_up_fabric.as_deref().unwrap_or("scale-up fabric"),
        LinkKind::Pcie => "PCIe",
        LinkKind::PcieViaHost => "PCIe through host memory",
        LinkKind::Node => "the node link",
    }
}
