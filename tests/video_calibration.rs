//! Calibration and cross-validation of the video-generation model (issue 14, section 5) against the
//! published per-GPU tables in `tests/data/calibration/video.csv`, every row with its source:
//! - the Wan2.1 README's "Computational Efficiency on Different GPUs" table (@9737cba9, 1-GPU column:
//!   T2V-1.3B on an RTX 4090, T2V-14B at 720P on H20, A100 and H100: seconds and peak memory);
//! - the Wan2.2 README's table (@42bf4cfa, T2V-A14B at 480P and 720P on H20, A100 and H100);
//! - the HunyuanVideo README's requirements table (@fa14b001, peak memory at 720p and 544p, 129 frames).
//!
//! The engine has two fitted constants ([`VideoFit`]), one per mechanism: the live bytes per token
//! and channel of a denoiser pass (memory) and the element-wise traffic bytes per token, channel
//! and block (time). Everything else is a hand count or a published figure (FlashAttention-2/3
//! efficiencies, the image engine's 16-bit tensor efficiency). The acceptance figure is
//! cross-validated: each source (LOSO), each GPU family for time and each model for memory (LOFO)
//! is held out in turn, the constant is refitted on the rows left, and the held-out rows are
//! predicted. Acceptance (as `tests/media_calibration.rs`): median held-out |error| <= 20% and at
//! least 80% of held-out rows inside the ±25% band, per scheme and per metric; in-sample every row
//! is inside the band. FlashAttention-3's speed is the paper's published 75% of the H100 peak, not
//! fitted, so holding out the Wan2.2 README (its only rows) no longer leaves it unidentified: every
//! held-out time row is inside ±25% since (asserted below). The expected values are
//! the measured numbers in the file. `cargo test --test video_calibration -- --nocapture` prints the
//! tables `docs/MODEL.md` reproduces.

mod common;
use common::split_csv;
use gpu_advisor::catalog::{self, Gpu};
use gpu_advisor::model::media::OffloadMode;
use gpu_advisor::model::video::{video_memory_with, video_timing_with, AttentionKernel, VideoFit, VideoJob};
use std::collections::{BTreeSet, HashMap};

const VIDEO_CSV: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration/video.csv"));

#[derive(Clone)]
struct Row {
    label: String,
    gpu: &'static Gpu,
    source: String,
    job: VideoJob,
    seconds: Option<f64>,
    peak_gib: Option<f64>,
}

fn rows() -> Vec<Row> {
    let mut lines = VIDEO_CSV.lines().filter(|l| !l.trim().is_empty());
    let header = split_csv(lines.next().unwrap());
    lines
        .map(|l| {
            let cells = split_csv(l);
            assert_eq!(cells.len(), header.len(), "bad CSV row: {l}");
            let r: HashMap<String, String> = header.iter().cloned().zip(cells).collect();
            let num = |k: &str| r[k].parse::<u32>().unwrap_or_else(|_| panic!("{k} in {l}"));
            let mut job = VideoJob::new(&r["model"]).unwrap();
            job.width_px = num("width");
            job.height_px = num("height");
            job.frames = num("frames");
            job.steps = num("steps");
            job.offload = OffloadMode::parse(&r["offload"]).unwrap();
            job.text_encoder_on_cpu = r["text_on_cpu"] == "true";
            job.attention = Some(if r["attention"] == "fa3" { AttentionKernel::Fa3 } else { AttentionKernel::Fa2 });
            let gpu = catalog::gpu(&r["gpu"]).unwrap_or_else(|| panic!("no catalog id {}", r["gpu"]));
            Row {
                label: format!("{} {} {}x{}x{}", r["gpu"], r["model"], job.width_px, job.height_px, job.frames),
                gpu,
                source: r["source"].split_whitespace().take(2).collect::<Vec<_>>().join(" "),
                job,
                seconds: r["seconds"].parse().ok(),
                peak_gib: r["peak_gib"].parse().ok(),
            }
        })
        .collect()
}

fn family(g: &Gpu) -> String {
    g.architecture.clone()
}

fn predict_s(fit: &VideoFit, r: &Row) -> f64 {
    video_timing_with(fit, &r.job, r.gpu, 1).unwrap().total_s.mid
}

fn predict_gib(fit: &VideoFit, r: &Row) -> f64 {
    video_memory_with(fit, &r.job, 1).unwrap().total_gib
}

/// Golden-section search of the `x` in `lo..hi` that minimises `f`.
fn argmin(lo: f64, hi: f64, f: impl Fn(f64) -> f64) -> f64 {
    let (mut a, mut b) = (lo, hi);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..80 {
        let (c, d) = (b - g * (b - a), a + g * (b - a));
        if f(c) < f(d) {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// The constants refitted by least squares of log error on `train`: memory alone, the two time
/// constants by alternating one-dimensional searches.
fn fit_on(train: &[&Row]) -> VideoFit {
    let sq = |x: f64| x * x;
    let time_loss = |f: &VideoFit| -> f64 { train.iter().filter_map(|r| r.seconds.map(|s| sq((predict_s(f, r) / s).ln()))).sum() };
    let mut fit = VideoFit::CALIBRATED;
    fit.live_bytes_per_token_channel = argmin(10.0, 400.0, |x| {
        let f = VideoFit { live_bytes_per_token_channel: x, ..fit };
        train.iter().filter_map(|r| r.peak_gib.map(|m| sq((predict_gib(&f, r) / m).ln()))).sum()
    });
    for _ in 0..40 {
        fit.sm_overhead_sm_per_tflops = argmin(0.0, 1.0, |x| time_loss(&VideoFit { sm_overhead_sm_per_tflops: x, ..fit }));
        fit.traffic_bytes_per_token_channel = argmin(0.0, 3000.0, |x| time_loss(&VideoFit { traffic_bytes_per_token_channel: x, ..fit }));
    }
    fit
}

/// Held-out relative errors (predicted / measured - 1) of time and memory rows, holding out each
/// group of `key` in turn.
fn cross_validate(all: &[Row], key: impl Fn(&Row) -> String, time: bool) -> Vec<(String, String, f64)> {
    let groups: BTreeSet<String> = all.iter().map(&key).collect();
    let mut out = Vec::new();
    for g in groups {
        let train: Vec<&Row> = all.iter().filter(|r| key(r) != g).collect();
        let fit = fit_on(&train);
        for r in all.iter().filter(|r| key(r) == g) {
            let err = if time { r.seconds.map(|s| predict_s(&fit, r) / s - 1.0) } else { r.peak_gib.map(|m| predict_gib(&fit, r) / m - 1.0) };
            if let Some(e) = err {
                out.push((g.clone(), r.label.clone(), e));
            }
        }
    }
    out
}

fn report(title: &str, errs: &[(String, String, f64)]) {
    println!("{title}");
    for (g, label, e) in errs {
        println!("  {g:<28} {label:<48} {:+.1}%", e * 100.0);
    }
}

/// Median |error| <= 20% and at least 80% of rows inside the ±25% band.
#[track_caller]
fn accept(what: &str, errs: &[(String, String, f64)]) {
    accept_at(what, errs, 0.80);
}

/// [`accept`] with `min_inside` in place of the 80% target (a regression guard where it is not met).
#[track_caller]
fn accept_at(what: &str, errs: &[(String, String, f64)], min_inside: f64) {
    let abs: Vec<f64> = errs.iter().map(|e| e.2.abs()).collect();
    let median = common::median(abs.clone());
    let inside = abs.iter().filter(|e| **e <= 0.25).count() as f64 / abs.len() as f64;
    println!("{what}: median |error| {:.1}%, {:.0}% inside ±25%", median * 100.0, inside * 100.0);
    assert!(median <= 0.20, "{what}: median |error| {:.1}%", median * 100.0);
    assert!(inside >= min_inside, "{what}: only {:.0}% inside the band", inside * 100.0);
    // Time rows: all ten inside when held out, by scheme (docs/MODEL.md, "Video generation").
    if what.ends_with("time") {
        assert!(inside >= 1.0, "{what}: a held-out time row left the ±25% band");
    }
}

#[test]
fn the_shipped_constants_are_the_fit_on_every_row() {
    let all = rows();
    let fit = fit_on(&all.iter().collect::<Vec<_>>());
    println!("fit on all rows: {fit:?}");
    let c = VideoFit::CALIBRATED;
    assert!((fit.live_bytes_per_token_channel / c.live_bytes_per_token_channel - 1.0).abs() < 0.05, "{fit:?}");
    assert!((fit.traffic_bytes_per_token_channel / c.traffic_bytes_per_token_channel - 1.0).abs() < 0.10, "{fit:?}");
    assert!((fit.sm_overhead_sm_per_tflops / c.sm_overhead_sm_per_tflops - 1.0).abs() < 0.10, "{fit:?}");
}

#[test]
fn in_sample_errors_are_inside_the_band() {
    let c = VideoFit::CALIBRATED;
    for r in rows() {
        if let Some(s) = r.seconds {
            let e = predict_s(&c, &r) / s - 1.0;
            println!("time   {:<48} measured {s:>8.1} s  model {:>8.1} s  {:+.1}%", r.label, predict_s(&c, &r), e * 100.0);
            assert!(e.abs() <= 0.25, "{}: {:+.1}%", r.label, e * 100.0);
        }
        if let Some(m) = r.peak_gib {
            let e = predict_gib(&c, &r) / m - 1.0;
            println!("memory {:<48} measured {m:>8.1} GiB model {:>8.1} GiB {:+.1}%", r.label, predict_gib(&c, &r), e * 100.0);
            assert!(e.abs() <= 0.25, "{}: {:+.1}%", r.label, e * 100.0);
        }
    }
}

#[test]
fn leave_one_family_out_time_and_memory_stay_inside_the_band() {
    let all = rows();
    let time = cross_validate(&all, |r| family(r.gpu), true);
    let memory = cross_validate(&all, |r| r.job.model.clone(), false);
    report("LOFO time (held-out GPU family)", &time);
    report("LOFO memory (held-out model)", &memory);
    assert_eq!(time.len(), 10);
    assert_eq!(memory.len(), 12);
    accept("LOFO time", &time);
    accept("LOFO memory", &memory);
}

#[test]
fn leave_one_source_out_time_and_memory_stay_inside_the_band() {
    let all = rows();
    let time = cross_validate(&all, |r| r.source.clone(), true);
    let memory = cross_validate(&all, |r| r.source.clone(), false);
    report("LOSO time (held-out source)", &time);
    report("LOSO memory (held-out source)", &memory);
    assert_eq!(time.len(), 10);
    assert_eq!(memory.len(), 12);
    accept("LOSO time", &time);
    accept("LOSO memory", &memory);
}

