//! One published measurement as the accuracy harness scores it: what it measured ([`Set`]), the
//! card and its fold keys (GPU family, hardware generation, source), and the row's own payload
//! (the job to estimate), with the CSV reading every loader shares.

use crate::catalog::{self, Gpu, Vendor};

/// What a row measures; each set has its own error goal and band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Set {
    /// One request's output tokens/s.
    Decode,
    /// Prompt tokens/s.
    Prefill,
    /// A server's output tokens/s at its concurrency.
    Serving,
    /// The output tokens/s one user sees at a concurrency above 1.
    PerUser,
    /// Seconds to the first token at a concurrency above 1.
    Ttft,
    /// LLM training tokens/s per GPU.
    Training,
    /// Peak GiB per GPU of an LLM job (training, fine-tuning, weights).
    Memory,
    /// LLM decode with weights in system RAM (tokens/s).
    Offload,
    /// Image generation seconds per image.
    Image,
    /// Classic vision/NLP training samples/s.
    Classic,
    /// Video generation seconds per clip.
    VideoTime,
    /// Video generation peak GiB per GPU.
    VideoMemory,
}

impl Set {
    /// Every set, in report order.
    pub const ALL: [Set; 12] = [
        Set::Decode,
        Set::Prefill,
        Set::Serving,
        Set::PerUser,
        Set::Ttft,
        Set::Training,
        Set::Memory,
        Set::Offload,
        Set::Image,
        Set::Classic,
        Set::VideoTime,
        Set::VideoMemory,
    ];

    /// Stable id (report anchors, the app's table keys).
    pub fn id(self) -> &'static str {
        match self {
            Set::Decode => "decode",
            Set::Prefill => "prefill",
            Set::Serving => "serving",
            Set::PerUser => "per-user",
            Set::Ttft => "ttft",
            Set::Training => "training",
            Set::Memory => "memory",
            Set::Offload => "offload",
            Set::Image => "image",
            Set::Classic => "classic",
            Set::VideoTime => "video-time",
            Set::VideoMemory => "video-memory",
        }
    }

    /// What the set measures, for the report.
    pub fn title(self) -> &'static str {
        match self {
            Set::Decode => "LLM decode, one request (tokens/s)",
            Set::Prefill => "LLM prompt processing (tokens/s)",
            Set::Serving => "LLM serving, all users (output tokens/s)",
            Set::PerUser => "LLM serving, one user's speed at a concurrency above 1 (tokens/s)",
            Set::Ttft => "LLM time to first token at a concurrency above 1 (s)",
            Set::Training => "LLM training and fine-tuning (tokens/s per GPU)",
            Set::Memory => "LLM memory (peak GiB per GPU)",
            Set::Offload => "LLM decode with weights in system RAM (tokens/s)",
            Set::Image => "Image generation (seconds per image)",
            Set::Classic => "Classic vision/NLP training (samples/s)",
            Set::VideoTime => "Video generation (seconds per clip)",
            Set::VideoMemory => "Video generation memory (peak GiB per GPU)",
        }
    }

    /// The goal on the median |error| of held-out rows (leave one family out and leave one source
    /// out), and on leave-one-generation-out where one is set.
    pub fn goal(self) -> (f64, Option<f64>) {
        match self {
            Set::Decode => (0.12, Some(0.15)),
            Set::Prefill | Set::Serving | Set::PerUser | Set::Training | Set::Image | Set::VideoTime | Set::VideoMemory => (0.20, None),
            Set::Classic => (0.20, None),
            Set::Ttft => (0.30, None),
            Set::Memory => (0.08, None),
            Set::Offload => (0.25, None),
        }
    }

    /// The goal on the share of held-out rows inside the band set by other sources.
    pub const IN_BAND_GOAL: f64 = 0.80;
}

/// How a row is held out: by its GPU family, its source, or its hardware generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fold {
    Family,
    Source,
    Generation,
}

impl Fold {
    pub const ALL: [Fold; 3] = [Fold::Family, Fold::Source, Fold::Generation];

    /// Short name in tables.
    pub fn short(self) -> &'static str {
        match self {
            Fold::Family => "LOFO",
            Fold::Source => "LOSO",
            Fold::Generation => "LOGO",
        }
    }
}

/// A measurement and the keys it is held out by; `P` is the loader's payload.
#[derive(Debug, Clone)]
pub struct Row<P> {
    pub set: Set,
    /// The CSV file the row came from.
    pub file: &'static str,
    /// A readable description (card, count, model, settings).
    pub label: String,
    pub gpu: &'static Gpu,
    pub gpus: u32,
    /// The measured value, in the set's unit.
    pub measured: f64,
    /// The source's key: a GitHub `owner/repo`, or a web host (and path for a few hosts).
    pub source: String,
    /// The `source` column as written.
    pub citation: String,
    /// The GPU family ([`family_of`]).
    pub family: String,
    /// The hardware generation ([`generation_of`]).
    pub generation: String,
    /// The engine or framework, for grouping.
    pub engine: String,
    pub payload: P,
}

impl<P> Row<P> {
    /// The row's key under `fold`.
    pub fn key(&self, fold: Fold) -> &str {
        match fold {
            Fold::Family => &self.family,
            Fold::Source => &self.source,
            Fold::Generation => &self.generation,
        }
    }
}

/// The GPU family a row is held out with ([`catalog::accuracy::family_of`], the rule the app
/// looks an estimate's held-out error up by): NVIDIA HBM (datacenter), NVIDIA GDDR (GeForce,
/// workstation and GDDR datacenter cards), AMD Instinct (CDNA), AMD Radeon and Ryzen (RDNA),
/// Apple, Intel Arc, and other accelerators (Gaudi, Ascend).
pub fn family_of(g: &Gpu) -> &'static str {
    catalog::accuracy::family_of(g)
}

/// The hardware generation a row is held out with: the architecture, with NVIDIA's split by memory
/// class (Blackwell GeForce and workstation cards apart from B200/B300) and unified-memory
/// machines apart from discrete cards of the same architecture (DGX Spark's GB10 is not an RTX
/// 5090; Strix Halo is RDNA 3.5).
pub fn generation_of(g: &Gpu) -> String {
    let arch = g.architecture.as_str();
    let unified = !g.memory_options_gib.is_empty() || g.memory_type.as_deref().is_some_and(|m| m.contains("LPDDR"));
    match g.vendor {
        Vendor::Nvidia if unified => format!("{arch} unified memory"),
        Vendor::Nvidia if family_of(g) == "NVIDIA HBM" => format!("{arch} datacenter"),
        Vendor::Nvidia => format!("{arch} GDDR"),
        _ => arch.to_string(),
    }
}

/// The source's key: a GitHub `owner/repo`, a Hugging Face repository, or a web host.
pub fn source_key(s: &str) -> String {
    let s = s.trim().trim_matches('"');
    if let Some(rest) = s.strip_prefix("github ") {
        return rest.split_whitespace().next().unwrap_or(rest).to_string();
    }
    if let Some(rest) = s.strip_prefix("https://").or_else(|| s.strip_prefix("http://")) {
        let parts: Vec<&str> = rest.split(|c: char| c == '/' || c.is_whitespace()).collect();
        let host = parts.first().copied().unwrap_or(rest);
        if host == "github.com" && parts.len() >= 3 {
            return format!("{}/{}", parts[1], parts[2]);
        }
        if host == "huggingface.co" && parts.len() >= 3 {
            return format!("huggingface.co/{}/{}", parts[1], parts[2]);
        }
        return host.trim_start_matches("www.").to_string();
    }
    s.split_whitespace().next().unwrap_or(s).to_string()
}

/// The catalog card of an id, or the human names of the first calibration files.
pub fn gpu(name: &str) -> Result<&'static Gpu, String> {
    let id = match name {
        "RTX 4090" => "rtx-4090",
        "RTX 3090" => "rtx-3090",
        "RTX A6000" => "rtx-a6000",
        "H100 PCIe 80GB" => "h100-pcie",
        "H100 SXM 80GB" | "H100 80GB" => "h100-sxm",
        "A100 80GB" | "A100 80GB SXM4" => "a100-80gb-sxm",
        "A100 40GB" | "A100" => "a100-40gb-sxm",
        "V100" | "V100 16GB" => "v100-sxm2-16gb",
        "T4" => "t4",
        n if n.starts_with("Apple M2 Ultra") => "apple-m2-ultra",
        other => other,
    };
    catalog::gpu(id).ok_or_else(|| format!("no catalog card for `{name}`"))
}

/// A calibration CSV: the header's column names and the data rows, from `tests/data/calibration/`.
pub struct Csv {
    pub name: &'static str,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    /// Reads `name` from `dir`.
    pub fn read(dir: &std::path::Path, name: &'static str) -> Result<Csv, String> {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header = split_csv(lines.next().ok_or_else(|| format!("{name}: empty"))?);
        let rows: Vec<Vec<String>> = lines.map(split_csv).collect();
        for r in &rows {
            if r.len() < header.len() {
                return Err(format!("{name}: a row has {} of {} columns: {}", r.len(), header.len(), r.join(",")));
            }
        }
        Ok(Csv { name, header, rows })
    }

    /// The value of column `col` in `row` ("" when the column is missing).
    pub fn get<'a>(&self, row: &'a [String], col: &str) -> &'a str {
        self.header.iter().position(|h| h == col).and_then(|i| row.get(i)).map_or("", |s| s.as_str())
    }
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

/// The `q`-quantile (nearest rank) of `v` (NaN for none).
pub fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let i = ((v.len() - 1) as f64 * q.clamp(0.0, 1.0)).round() as usize;
    v[i.min(v.len() - 1)]
}
