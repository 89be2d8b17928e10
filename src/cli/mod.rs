//! The command line's parsing and commands, kept in the library so tests can call [`run`] with
//! any arguments and read what it prints. Every error is one line on stderr with exit code 2.
//!
//! Commands: `gpus`, `models`, `estimate` (see [`estimate`]), and `help`.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

pub mod estimate;
mod flags;
mod job;
pub mod keys;
pub mod recommend;
mod serving;

use crate::catalog::{self, Gpu, ModelKind};
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;

/// A command-line error: printed as one line, exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CliError(pub String);

impl From<lexopt::Error> for CliError {
    fn from(e: lexopt::Error) -> Self {
        CliError(e.to_string())
    }
}

const USAGE: &str = "\
gpu-advisor: which GPU, how many, does it fit, how fast, what it costs.

USAGE:
  gpu-advisor gpus [--json]        the GPU catalog (tensor figures dense, without sparsity)
  gpu-advisor models [--json]      the model presets
  gpu-advisor estimate --help      size one job on one card
  gpu-advisor recommend --help     which cards and how many, under a budget
  gpu-advisor help                 this text
";

/// Runs the command line with `args` (without the program name). Returns the exit code.
pub fn run(args: Vec<OsString>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match dispatch(args, out) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "gpu-advisor: {}", e.0.lines().next().unwrap_or("error"));
            2
        }
    }
}

fn dispatch(args: Vec<OsString>, out: &mut dyn Write) -> Result<(), CliError> {
    let mut iter = args.into_iter();
    let Some(cmd) = iter.next() else {
        return write_str(out, USAGE);
    };
    let rest: Vec<OsString> = iter.collect();
    match cmd.to_str() {
        Some("gpus") => cmd_gpus(rest, out),
        Some("models") => cmd_models(rest, out),
        Some("estimate") => estimate::cmd_estimate(rest, out),
        Some("recommend") => recommend::cmd_recommend(rest, out),
        // Build step (Trunk's post_build hook): the Chinese and Russian table the web app loads.
        Some("i18n-pack") => i18n_pack(&rest),
        // Build step too: the cards' source links, which the web app loads for a detail panel.
        Some("sources-pack") => sources_pack(&rest),
        // Build step too: the accuracy page's tables (data/accuracy.toml), loaded when it opens.
        Some("accuracy-pack") => accuracy_pack(&rest),
        Some("help" | "--help" | "-h") => write_str(out, USAGE),
        Some(other) => Err(CliError(format!(
            "unknown command `{other}` (expected gpus, models, estimate, recommend or help)"
        ))),
        None => Err(CliError("the command is not valid UTF-8".into())),
    }
}

/// Writes the packed Chinese and Russian table to the path given.
#[cfg(not(target_arch = "wasm32"))]
fn i18n_pack(rest: &[OsString]) -> Result<(), CliError> {
    let path = rest.first().ok_or_else(|| CliError("i18n-pack needs the output path".into()))?;
    std::fs::write(path, crate::i18n::packed()).map_err(|e| CliError(format!("i18n-pack: cannot write {}: {e}", path.to_string_lossy())))
}

#[cfg(target_arch = "wasm32")]
fn i18n_pack(_: &[OsString]) -> Result<(), CliError> {
    Err(CliError("i18n-pack runs natively".into()))
}

/// Writes the packed table of every card's source links to the path given.
#[cfg(not(target_arch = "wasm32"))]
fn sources_pack(rest: &[OsString]) -> Result<(), CliError> {
    let path = rest.first().ok_or_else(|| CliError("sources-pack needs the output path".into()))?;
    std::fs::write(path, crate::catalog::sources::packed())
        .map_err(|e| CliError(format!("sources-pack: cannot write {}: {e}", path.to_string_lossy())))
}

#[cfg(target_arch = "wasm32")]
fn sources_pack(_: &[OsString]) -> Result<(), CliError> {
    Err(CliError("sources-pack runs natively".into()))
}

/// Writes the accuracy page's file (its tables rendered in each language from data/accuracy.toml,
/// then the sets themselves) to the path given.
#[cfg(not(target_arch = "wasm32"))]
fn accuracy_pack(rest: &[OsString]) -> Result<(), CliError> {
    let path = rest.first().ok_or_else(|| CliError("accuracy-pack needs the output path".into()))?;
    std::fs::write(path, crate::ui::components::accuracy_view::packed())
        .map_err(|e| CliError(format!("accuracy-pack: cannot write {}: {e}", path.to_string_lossy())))
}

#[cfg(target_arch = "wasm32")]
fn accuracy_pack(_: &[OsString]) -> Result<(), CliError> {
    Err(CliError("accuracy-pack runs natively".into()))
}

pub(crate) fn write_str(out: &mut dyn Write, s: &str) -> Result<(), CliError> {
    out.write_all(s.as_bytes()).map_err(|e| CliError(format!("cannot write output: {e}")))
}

/// Parses flags that are only `--json` (and `--help`). Returns whether `--json` was given.
fn json_flag_only(args: Vec<OsString>, help: &str, out: &mut dyn Write) -> Result<Option<bool>, CliError> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut json = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("json") => json = true,
            Long("help") | Short('h') => {
                write_str(out, help)?;
                return Ok(None);
            }
            other => return Err(other.unexpected().into()),
        }
    }
    Ok(Some(json))
}

/// One card as `gpus --json` prints it: exactly these keys (a contract).
#[derive(Debug, Serialize)]
pub struct GpuRow<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub vendor: catalog::Vendor,
    pub segment: catalog::Segment,
    pub memory_gib: f64,
    pub memory_bandwidth_gb_s: f64,
    pub fp32_tflops: Option<f64>,
    pub fp16_tflops: Option<f64>,
    pub bf16_tflops: Option<f64>,
    pub fp8_tflops: Option<f64>,
    pub int8_tops: Option<f64>,
    pub tdp_w: Option<f64>,
    pub nvlink: bool,
    pub launch_price_usd: Option<f64>,
}

impl<'a> From<&'a Gpu> for GpuRow<'a> {
    fn from(g: &'a Gpu) -> Self {
        GpuRow {
            id: &g.id,
            name: &g.name,
            vendor: g.vendor,
            segment: g.segment,
            memory_gib: g.memory_gib,
            memory_bandwidth_gb_s: g.memory_bandwidth_gb_s,
            fp32_tflops: g.fp32_tflops,
            fp16_tflops: g.fp16_tflops,
            bf16_tflops: g.bf16_tflops,
            fp8_tflops: g.fp8_tflops,
            int8_tops: g.int8_tops,
            tdp_w: g.tdp_w,
            nvlink: g.nvlink,
            launch_price_usd: g.launch_price_usd,
        }
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |v| format!("{v}"))
}

fn cmd_gpus(args: Vec<OsString>, out: &mut dyn Write) -> Result<(), CliError> {
    let help = "gpu-advisor gpus [--json]\n  Lists the GPU catalog. Tensor figures are dense (no 2:4 sparsity); FP16 is FP32-accumulate.\n";
    let Some(json) = json_flag_only(args, help, out)? else { return Ok(()) };
    let gpus = catalog::gpus();
    if json {
        let rows: Vec<GpuRow> = gpus.iter().map(GpuRow::from).collect();
        let text = serde_json::to_string_pretty(&rows).map_err(|e| CliError(e.to_string()))?;
        return write_str(out, &format!("{text}\n"));
    }
    let mut s = format!(
        "{:<24} {:<34} {:>7} {:>8} {:>7} {:>8} {:>8} {:>6} {:>6} {:>9}\n",
        "id", "name", "GiB", "GB/s", "FP32", "BF16", "FP8", "TDP W", "NVLink", "launch $"
    );
    for g in gpus {
        s.push_str(&format!(
            "{:<24} {:<34} {:>7} {:>8} {:>7} {:>8} {:>8} {:>6} {:>6} {:>9}\n",
            g.id,
            g.name,
            g.memory_gib,
            g.memory_bandwidth_gb_s,
            opt(g.fp32_tflops),
            opt(g.bf16_tflops.or(g.fp16_tflops)),
            opt(g.fp8_tflops),
            opt(g.tdp_w),
            if g.nvlink { "yes" } else { "no" },
            opt(g.launch_price_usd),
        ));
    }
    s.push_str(&format!("{} cards. TFLOPS are dense tensor rates unless noted.\n", gpus.len()));
    write_str(out, &s)
}

/// One preset as `models --json` prints it (a contract).
#[derive(Debug, Serialize)]
pub struct ModelRow<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub kind: ModelKind,
    pub params_total_b: f64,
    pub params_active_b: f64,
}

/// Every model preset as a [`ModelRow`], LLMs first.
pub fn model_rows() -> Vec<ModelRow<'static>> {
    let c = catalog::catalog();
    let mut rows: Vec<ModelRow> = c
        .llms
        .iter()
        .map(|m| ModelRow {
            id: &m.id,
            name: &m.name,
            kind: m.kind,
            params_total_b: m.params_total_b,
            params_active_b: m.params_active_b.unwrap_or(m.params_total_b),
        })
        .collect();
    rows.extend(c.diffusion.iter().map(|d| {
        let total: f64 = d.component.iter().map(|c| c.params_b).sum();
        ModelRow { id: &d.id, name: &d.name, kind: ModelKind::Diffusion, params_total_b: total, params_active_b: total }
    }));
    rows.extend(c.classic.iter().map(|m| ModelRow {
        id: &m.id,
        name: &m.name,
        kind: m.kind,
        params_total_b: m.params_m / 1000.0,
        params_active_b: m.params_m / 1000.0,
    }));
    rows
}

fn cmd_models(args: Vec<OsString>, out: &mut dyn Write) -> Result<(), CliError> {
    let help = "gpu-advisor models [--json]\n  Lists the model presets (LLM, diffusion, vision, NLP, speech).\n";
    let Some(json) = json_flag_only(args, help, out)? else { return Ok(()) };
    let rows = model_rows();
    if json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| CliError(e.to_string()))?;
        return write_str(out, &format!("{text}\n"));
    }
    let mut s = format!("{:<32} {:<40} {:<10} {:>10} {:>10}\n", "id", "name", "kind", "total B", "active B");
    for r in &rows {
        let kind = serde_json::to_value(r.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        s.push_str(&format!(
            "{:<32} {:<40} {:<10} {:>10.3} {:>10.3}\n",
            r.id, r.name, kind, r.params_total_b, r.params_active_b
        ));
    }
    write_str(out, &s)
}
