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
//! Across nodes, NCCL runs one ring (channel) per NIC rail: a group with `k` GPUs in each node
//! crosses every node boundary `k` times in parallel, so its bus bandwidth is the lesser of the
//! fabric inside the node and `k` node ports (nccl-tests on rail-optimised DGX H100 nodes with
//! eight 400 Gb/s ports reach 350-450 GB/s of all-reduce bus bandwidth across nodes, against one
//! port's 50 GB/s). A group with one GPU per node (a data-parallel group beside tensor parallelism
//! of 8) runs at one port.

use crate::catalog::{Gpu, Segment, Vendor};

/// NCCL bus bandwidth as a share of a scale-up or PCIe link's per-direction rate.
pub const FABRIC_EFFICIENCY: f64 = 0.75;
/// NCCL bus bandwidth as a share of a node port's rate.
pub const NODE_LINK_EFFICIENCY: f64 = 0.9;
/// Latency of one hop over the node link, s.
const NODE_LATENCY_S: f64 = 20e-6;
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
/// fits in it, PCIe beyond it inside a node, and across nodes with every GPU of each node in the
/// group ([`spread_link`] with a full node and the catalog's node port).
pub fn group_link(gpu: &Gpu, n: u32) -> Link {
    let n = n.max(1);
    spread_link(gpu, n, n.min(node_gpus(gpu)), node_port_gb_s(gpu))
}

/// The link a collective over `n` GPUs runs at when `per_node` of them sit in each node, each
/// node port carrying `port_gb_s` per direction: inside one node the fabric; across nodes the
/// lesser of the fabric among the `per_node` GPUs and `per_node` ports, one ring per rail.
pub fn spread_link(gpu: &Gpu, n: u32, per_node: u32, port_gb_s: f64) -> Link {
    let n = n.max(1);
    let per_node = per_node.clamp(1, n.min(node_gpus(gpu)));
    if n <= per_node {
        return intra_node(gpu, n);
    }
    let rails = f64::from(per_node) * port_gb_s.max(0.0) * NODE_LINK_EFFICIENCY;
    let inside = if per_node > 1 { intra_node(gpu, per_node).gb_s } else { f64::INFINITY };
    Link { kind: LinkKind::Node, gb_s: rails.min(inside), latency_s: NODE_LATENCY_S }
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

/// Seconds of one all-to-all in which each of `n` GPUs sends `bytes` spread evenly over all
/// of them (its own share stays put), as expert parallelism dispatches tokens to their experts
/// and combines the results: the share for GPUs of the same node crosses the scale-up fabric,
/// the rest the GPU's own node port (one NIC per GPU, `port_gb_s` per direction), both at once.
/// DeepEP's published kernels (github deepseek-ai/DeepEP README, H800 with 400 Gb/s
/// ConnectX-7) reach 153–158 GB/s over NVLink inside a node and 43–58 GB/s of RDMA across
/// nodes, the fabric's and the port's achieved rates here.
pub fn all_to_all_s(gpu: &Gpu, bytes: f64, n: u32, port_gb_s: f64) -> f64 {
    if n <= 1 || bytes <= 0.0 {
        return 0.0;
    }
    let per_node = n.min(node_gpus(gpu));
    let nf = f64::from(n);
    let inside = intra_node(gpu, per_node);
    let t_inside = if per_node > 1 { bytes * f64::from(per_node - 1) / nf / (inside.gb_s * 1e9) } else { 0.0 };
    if per_node == n {
        return inside.latency_s + t_inside;
    }
    let t_out = bytes * f64::from(n - per_node) / nf / (port_gb_s.max(1e-9) * NODE_LINK_EFFICIENCY * 1e9);
    NODE_LATENCY_S + t_inside.max(t_out)
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
