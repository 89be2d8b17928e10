//! Calibration and cross-validation of the image-generation and classic-training speed models
//! against published measurements, read at test time from `tests/data/calibration/` (every row
//! names its source):
//! - diffusion.csv: SD 1.5 denoising seconds per image on A100, V100, T4, RTX 3090 and RTX 4090 at
//!   batch 1/4/16 (diffusers `docs/source/en/optimization/torch2.0.mdx` @07dc8feb, the "torch 2.0 -
//!   no compile" column; denoising only);
//! - diffusion_more.csv: Lambda's lambda-diffusers benchmark (whole SD pipeline, 30 steps, batch
//!   1/4/16, fp16 and fp32 on A10, A100 40GB/80GB, RTX A6000, V100), diffusers' memory-efficient
//!   attention table (7 GPUs), SDXL on A100 40GB/80GB (Hugging Face blog, diffusers tutorial) and
//!   FLUX.1-dev on an L20 (diffusers ParaAttention guide);
//! - training.csv and classic_training_more.csv: ResNet-50 and BERT training samples/s from two
//!   versions of lambdal/deeplearning-benchmark (@aa5addb6 and @fe450482, 24 cards, AMP and fp32)
//!   and NVIDIA DeepLearningExamples' READMEs (DGX A100 and DGX-1 single-GPU rows; its AMP
//!   ResNet-50 rows run channels_last, its BERT pre-training table is excluded: the row notes say
//!   why), and timm's RTX 3090 training benchmarks (huggingface/pytorch-image-models `results/`,
//!   NCHW and NHWC).
//!
//! - video.csv (the timed rows): the video engine reads the shared large-L2 factor and the VAE and
//!   text-encoder rates, so its rows join the fit of [`MediaFit`] (its own constants, [`VideoFit`],
//!   stay as `tests/video_calibration.rs` fits them).
//!
//! The acceptance figure (issue 11) is cross-validated: every GPU family and every source is held
//! out in turn, the engine's fitted constants ([`MediaFit`]) are refitted on the rows left (every
//! engine's: the constants are shared), and the held-out rows are predicted. Targets: median
//! |error| <= 20% and >= 80% of held-out rows inside the band.
//!
//! Procedure choice for leave-one-source-out, where one source (Lambda, 160 of 177 training rows)
//! dominates: unlike the LLM serving sets, where the app applies no fitted scalar and the shipped
//! physics is the held-out prediction, the shipped [`MediaFit`] was fitted on every row here, so the
//! held-out figure must come from a refit without the source. That strict refit is the acceptance
//! figure. The LLM-style alternative (shipped constants times one scalar refitted on the other
//! sources) is optimistic here and prints as `DIAGNOSTIC` lines in `residual_diagnostics`, with the
//! residuals by family, source, architecture, network and mode. The expected values are the
//! measured numbers in the files. `cargo test --test media_calibration -- --nocapture` prints the
//! tables that `docs/MODEL.md` reproduces.

mod common;
use common::{median, split_csv};
use gpu_advisor::catalog::{self, Gpu, Vendor};
use gpu_advisor::model::classic::{classic_samples_per_s_with, ClassicJob, ClassicMode, ClassicPrecision};
use gpu_advisor::model::diffusion::{image_timing_with, ImageJob};
use gpu_advisor::model::media::{MediaFit, OffloadMode};
use gpu_advisor::model::numeric::Fp32Math;
use gpu_advisor::model::precision::Precision;
use gpu_advisor::model::video::{video_timing_with_media, AttentionKernel, VideoFit, VideoJob};
use std::collections::{BTreeSet, HashMap};

const DIFFUSION_CSV: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration/diffusion.csv"));
const DIFFUSION_MORE_CSV: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration/diffusion_more.csv"));
const TRAINING_CSV: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration/training.csv"));
const TRAINING_MORE_CSV: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration/classic_training_more.csv"));
const VIDEO_CSV: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration/video.csv"));


fn rows(text: &str) -> Vec<HashMap<String, String>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = split_csv(lines.next().unwrap());
    lines
        .map(|l| {
            let cells = split_csv(l);
            assert_eq!(cells.len(), header.len(), "bad CSV row: {l}");
            header.iter().cloned().zip(cells).collect()
        })
        .collect()
}

/// Catalog id for a GPU name of the two original files (the new files hold catalog ids). The
/// diffusers page says only "A100"; we take the 40 GB SXM card (the rate model reads the 16-bit
/// peak, identical on all A100s, and the bandwidth).
fn gpu_id(name: &str) -> String {
    match name {
        "A100" => "a100-40gb-sxm",
        "A100 80GB SXM4" => "a100-80gb-sxm",
        "V100" | "V100 16GB" => "v100-sxm2-16gb",
        "T4" => "t4",
        "RTX 3090" => "rtx-3090",
        "RTX 4090" => "rtx-4090",
        other => other,
    }
    .to_string()
}

fn gpu(id: &str) -> &'static Gpu {
    catalog::gpu(id).unwrap_or_else(|| panic!("no catalog id {id}"))
}

/// GPU family of a calibration row.
fn family(g: &Gpu) -> &'static str {
    match g.vendor {
        Vendor::Nvidia if g.memory_type.as_deref().is_some_and(|m| m.starts_with("HBM")) => "NVIDIA HBM datacenter",
        Vendor::Nvidia => "NVIDIA GDDR",
        Vendor::Amd => "AMD",
        Vendor::Apple => "Apple",
        Vendor::Intel | Vendor::Huawei => "other",
    }
}

/// Source key: the repository (owner/name) of the `source` column.
fn source_key(source: &str) -> String {
    let s = source.trim_start_matches("github ");
    if let Some(rest) = s.strip_prefix("https://huggingface.co/") {
        return format!("huggingface.co/{}", rest.split('/').take(3).collect::<Vec<_>>().join("/"));
    }
    s.split_whitespace().next().unwrap_or(s).to_string()
}

#[derive(Clone)]
enum Case {
    Image { job: ImageJob, denoise_only: bool },
    Classic { job: ClassicJob },
    /// A video row: its own constants stay at [`VideoFit::CALIBRATED`] (`tests/video_calibration.rs`
    /// fits them); it enters the fit through the shared constants it reads (large-L2 factor, VAE and
    /// text-encoder rates).
    Video { job: VideoJob },
}

#[derive(Clone)]
struct Row {
    label: String,
    gpu: &'static Gpu,
    family: &'static str,
    source: String,
    measured: f64,
    case: Case,
}

impl Row {
    /// (low, mid, high) under `fit`.
    fn predict(&self, fit: &MediaFit) -> (f64, f64, f64) {
        match &self.case {
            Case::Image { job, denoise_only } => {
                let t = image_timing_with(fit, job, self.gpu, 1).unwrap();
                let b = if *denoise_only { t.denoise_band_s } else { t.total_s };
                (b.low, b.mid, b.high)
            }
            Case::Classic { job } => {
                let b = classic_samples_per_s_with(fit, job, self.gpu, 1).unwrap();
                (b.low, b.mid, b.high)
            }
            Case::Video { job } => {
                let b = video_timing_with_media(&VideoFit::CALIBRATED, fit, job, self.gpu, 1).unwrap().total_s;
                (b.low, b.mid, b.high)
            }
        }
    }
}

fn diffusion_rows() -> Vec<Row> {
    let mut out = Vec::new();
    for text in [DIFFUSION_CSV, DIFFUSION_MORE_CSV] {
        for r in rows(text) {
            if r["notes"].starts_with("EXCLUDED") {
                continue; // the row's notes say why
            }
            let model = if r["model"] == "SD v1.5" { "sd-1.5" } else { r["model"].as_str() };
            let g = gpu(&gpu_id(&r["gpu"]));
            let mut job = ImageJob::new(model).unwrap();
            let (w, h) = r["resolution"].split_once('x').unwrap();
            job.width_px = w.parse().unwrap();
            job.height_px = h.parse().unwrap();
            job.steps = r["steps"].parse().unwrap();
            job.batch = r["batch"].parse().unwrap();
            let p = r["precision"].as_str();
            (job.precision, job.fp32_math) = match p {
                "fp16" => (Precision::Fp16, Fp32Math::PytorchDefault),
                "bf16" => (Precision::Bf16, Fp32Math::PytorchDefault),
                "fp32 tf32-ngc" => (Precision::Fp32, Fp32Math::Tf32),
                "fp32 strict" => (Precision::Fp32, Fp32Math::Strict),
                other => panic!("unmapped precision {other}"),
            };
            let denoise_only = match r["metric"].as_str() {
                "pipeline_it_s" => true,
                "pipeline_latency_s" => false,
                other => panic!("unmapped metric {other}"),
            };
            out.push(Row {
                label: format!("{} {} b{} {} {}", g.id, model, job.batch, p, if denoise_only { "denoise" } else { "pipeline" }),
                gpu: g,
                family: family(g),
                source: source_key(&r["source"]),
                measured: r["sec_per_image"].parse().unwrap(),
                case: Case::Image { job, denoise_only },
            });
        }
    }
    out
}

/// The timed rows of video.csv (seconds per clip; the memory-only rows are left out), read as
/// `tests/video_calibration.rs` reads them.
fn video_rows() -> Vec<Row> {
    let mut out = Vec::new();
    for r in rows(VIDEO_CSV) {
        let Ok(seconds) = r["seconds"].parse::<f64>() else { continue };
        let num = |k: &str| r[k].parse::<u32>().unwrap();
        let mut job = VideoJob::new(&r["model"]).unwrap();
        (job.width_px, job.height_px, job.frames, job.steps) = (num("width"), num("height"), num("frames"), num("steps"));
        job.offload = OffloadMode::parse(&r["offload"]).unwrap();
        job.text_encoder_on_cpu = r["text_on_cpu"] == "true";
        job.attention = Some(if r["attention"] == "fa3" { AttentionKernel::Fa3 } else { AttentionKernel::Fa2 });
        let g = gpu(&r["gpu"]);
        out.push(Row {
            label: format!("{} {} {}x{}x{}", g.id, r["model"], job.width_px, job.height_px, job.frames),
            gpu: g,
            family: family(g),
            source: source_key(&r["source"]),
            measured: seconds,
            case: Case::Video { job },
        });
    }
    out
}

fn classic_rows() -> Vec<Row> {
    classic_rows_where(false)
}

/// The classic rows; `excluded` picks the rows whose notes say `EXCLUDED` (and why) instead.
fn classic_rows_where(excluded: bool) -> Vec<Row> {
    let mut out = Vec::new();
    for text in [TRAINING_CSV, TRAINING_MORE_CSV] {
        for r in rows(text) {
            if r["notes"].starts_with("EXCLUDED") != excluded {
                continue;
            }
            let (id, seq) = match r["model"].as_str() {
                "ResNet-50" => ("resnet-50", None),
                "ResNet-152" => ("resnet-152", None),
                "ViT-B/16" => ("vit-b-16", None),
                "ViT-L/16" => ("vit-l-16", None),
                "BERT-large SQuAD fine-tune" => ("bert-large", None),
                "BERT-base SQuAD fine-tune" => ("bert-base", None),
                "BERT-large pre-training seq 128" => ("bert-large", Some(128)),
                "BERT-large pre-training seq 512" => ("bert-large", Some(512)),
                _ => continue, // the MPT-7B LLM rows belong to tests/calibration.rs
            };
            let g = gpu(&gpu_id(&r["gpu"]));
            let mut job = ClassicJob::new(id, ClassicMode::Train).unwrap();
            job.batch = Some(r["batch_per_gpu"].parse().unwrap());
            job.seq_len = seq;
            // The memory format the source ran (its notes say so): NCHW, PyTorch's default, else.
            job.channels_last = r["notes"].contains("memory_format nhwc");
            let p = r["precision"].as_str();
            (job.precision, job.fp32_math) = if p.starts_with("AMP") {
                (ClassicPrecision::Amp, Fp32Math::PytorchDefault)
            } else if p == "TF32" || p.starts_with("fp32 (TF32") {
                // NGC containers: TF32 for convolutions and matmuls where the card has it.
                (ClassicPrecision::Fp32, Fp32Math::Tf32)
            } else if p.starts_with("fp32 (strict") {
                (ClassicPrecision::Fp32, Fp32Math::Strict)
            } else {
                panic!("unmapped precision {p}")
            };
            let tag = match (job.precision, job.fp32_math) {
                (ClassicPrecision::Amp, _) => "amp",
                (_, Fp32Math::Strict) => "fp32",
                _ => "tf32",
            };
            let old = r["source"].contains("@fe450482");
            out.push(Row {
                label: format!(
                    "{} {}{} {}{}{}",
                    g.id,
                    id,
                    seq.map(|s| format!("@{s}")).unwrap_or_default(),
                    tag,
                    if job.channels_last { " nhwc" } else { "" },
                    if old { " (2022)" } else { "" }
                ),
                gpu: g,
                family: family(g),
                source: source_key(&r["source"]),
                measured: r["value_per_gpu"].parse().unwrap(),
                case: Case::Classic { job },
            });
        }
    }
    out
}


/// |error| and inside-band for one prediction.
fn score(measured: f64, (low, mid, high): (f64, f64, f64)) -> (f64, bool) {
    ((mid - measured).abs() / measured, low <= measured && measured <= high)
}

/// Mean absolute log error of `rows` under `fit`.
fn loss(rows: &[&Row], fit: &MediaFit) -> f64 {
    if rows.is_empty() {
        return 0.0;
    }
    rows.iter().map(|r| (r.predict(fit).1 / r.measured).ln().abs()).sum::<f64>() / rows.len() as f64
}

/// A fitted constant: its name and a handle to it.
type Knob = (&'static str, fn(&mut MediaFit) -> &mut f64);

/// The fitted constants, in the order the fit visits them.
fn knobs() -> Vec<Knob> {
    vec![
        ("eta_tensor_16", |f| &mut f.eta_tensor_16),
        ("eta_32", |f| &mut f.eta_32),
        ("fp32_intensity_divisor", |f| &mut f.fp32_intensity_divisor),
        ("large_l2_bandwidth_factor", |f| &mut f.large_l2_bandwidth_factor),
        ("intensity_diffusion", |f| &mut f.intensity_diffusion),
        ("intensity_convnet", |f| &mut f.intensity_convnet),
        ("intensity_transformer", |f| &mut f.intensity_transformer),
        ("eager_step_latency_s", |f| &mut f.eager_step_latency_s),
        ("train_step_latency_s", |f| &mut f.train_step_latency_s),
    ]
}

/// Refits every [`MediaFit`] constant on the rows of the three engines that read them (`sets`:
/// diffusion, classic, video) by coordinate descent over multiplicative steps, from `start`. The
/// objective is the mean |log error| of the generation rows (image and video pooled, one weight per
/// row) plus that of the classic rows. A fold without Ada rows cannot see the large-L2 factor: it
/// is set to 1 (no L2 gain) and kept there.
fn refit(sets: [&[&Row]; 3], start: &MediaFit) -> MediaFit {
    let generation: Vec<&Row> = sets[0].iter().chain(sets[2]).copied().collect();
    let objective = |f: &MediaFit| loss(&generation, f) + loss(sets[1], f);
    let mut fit = *start;
    let l2_seen = sets.iter().flat_map(|rows| rows.iter()).any(|r| r.gpu.architecture == "Ada Lovelace");
    if !l2_seen {
        fit.large_l2_bandwidth_factor = 1.0;
    }
    let mut best = objective(&fit);
    for step in [1.25_f64, 1.1, 1.03, 1.01] {
        for _sweep in 0..4 {
            let mut improved = false;
            for (name, knob) in knobs() {
                if name == "large_l2_bandwidth_factor" && !l2_seen {
                    continue;
                }
                for dir in [step, 1.0 / step] {
                    loop {
                        let mut trial = fit;
                        let v = knob(&mut trial);
                        *v *= dir;
                        // Physical bounds: eager kernels reach at most 80% of the dense peak, the
                        // fixed per-step costs stay under 10 ms (launches and loss scaling; the
                        // optimizer's traffic is counted apart), the L2 factor is at least 1.
                        let ok = match name {
                            "eta_tensor_16" | "eta_32" => *v <= 0.8,
                            "train_step_latency_s" => *v <= 0.01,
                            "large_l2_bandwidth_factor" | "fp32_intensity_divisor" => *v >= 1.0,
                            _ => true,
                        };
                        if !ok {
                            break;
                        }
                        let l = objective(&trial);
                        if l < best - 1e-9 {
                            best = l;
                            fit = trial;
                            improved = true;
                        } else {
                            break;
                        }
                    }
                }
            }
            if !improved {
                break;
            }
        }
    }
    fit
}

struct Figures {
    median: f64,
    inside: f64,
    n: usize,
}

fn figures(scores: &[(f64, bool)]) -> Figures {
    Figures {
        median: median(scores.iter().map(|s| s.0).collect()),
        inside: scores.iter().filter(|s| s.1).count() as f64 / scores.len().max(1) as f64,
        n: scores.len(),
    }
}

fn print_rows(title: &str, rows: &[Row], fit: &MediaFit) -> Figures {
    println!("{title}");
    println!("| row | source | measured | low | mid | high | error | in band |");
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    let mut scores = Vec::new();
    for r in rows {
        let p = r.predict(fit);
        let s = score(r.measured, p);
        println!(
            "| {} | {} | {:.4} | {:.4} | {:.4} | {:.4} | {:+.1}% | {} |",
            r.label,
            r.source,
            r.measured,
            p.0,
            p.1,
            p.2,
            (p.1 / r.measured - 1.0) * 100.0,
            if s.1 { "yes" } else { "no" }
        );
        scores.push(s);
    }
    let f = figures(&scores);
    println!("\nin-sample: median |error| {:.1}%, inside band {:.0}% of {} rows\n", f.median * 100.0, f.inside * 100.0, f.n);
    for r in rows {
        let (low, mid, high) = r.predict(fit);
        // +/-35% at most, plus the launch-latency widening of generation (at most +0.30).
        let max = 0.35 + gpu_advisor::model::diffusion::LAUNCH_BAND_EXTRA;
        assert!(high <= mid * (1.0 + max) + 1e-9 && low >= mid * (1.0 - max) - 1e-9, "band too wide: {}", r.label);
    }
    f
}

/// Cross-validation of one engine: for every group (family, then source) of engine `target` of
/// `engines` (diffusion, classic, video), refit on the rows of every engine outside the group (a
/// held-out family leaves every engine; a source is one engine's) and score the group's rows.
/// Returns (family figures, source figures) over all held-out rows.
fn cross_validate(title: &str, engines: [&[Row]; 3], target: usize) -> (Figures, Figures) {
    println!("{title}");
    println!("| held out | rows | median \\|error\\| | inside band |");
    println!("|---|---:|---:|---:|");
    let mut result = Vec::new();
    for (kind, key) in [("family", (|r: &Row| r.family.to_string()) as fn(&Row) -> String), ("source", |r: &Row| r.source.clone())] {
        let groups: BTreeSet<String> = engines[target].iter().map(key).collect();
        let mut all = Vec::new();
        for g in &groups {
            let train: Vec<Vec<&Row>> = (0..3)
                .map(|i| engines[i].iter().filter(|r| (i != target && kind == "source") || &key(r) != g).collect())
                .collect();
            let fit = refit([&train[0], &train[1], &train[2]], &MediaFit::CALIBRATED);
            if std::env::var("PRINT_FITS").is_ok() {
                println!("{g}: {fit:?}");
            }
            let scores: Vec<(f64, bool)> = engines[target].iter().filter(|r| &key(r) == g).map(|r| score(r.measured, r.predict(&fit))).collect();
            let f = figures(&scores);
            println!("| {kind}: {g} | {} | {:.1}% | {:.0}% |", f.n, f.median * 100.0, f.inside * 100.0);
            all.extend(scores);
        }
        let f = figures(&all);
        println!("| **all {kind} folds** | {} | {:.1}% | {:.0}% |", f.n, f.median * 100.0, f.inside * 100.0);
        result.push(f);
    }
    println!();
    let mut it = result.into_iter();
    (it.next().unwrap(), it.next().unwrap())
}

#[test]
fn diffusion_in_sample_and_cross_validated() {
    let d = diffusion_rows();
    let c = classic_rows();
    assert_eq!(d.len(), 13 + 40, "diffusion.csv 13 rows + diffusion_more.csv 41 rows, one excluded (its notes say why)");
    let ins = print_rows("Diffusion rows (seconds per image), calibrated constants", &d, &MediaFit::CALIBRATED);
    let v = video_rows();
    let (fam, src) = cross_validate("Diffusion cross-validation", [&d, &c, &v], 0);
    // Targets (issue 11): median <= 20% and >= 80% inside, in-sample and cross-validated.
    assert!(ins.median <= 0.20, "in-sample median {}", ins.median);
    assert!(ins.inside >= 0.80, "in-sample inside {}", ins.inside);
    assert!(fam.median <= 0.20, "leave-one-family-out median {}", fam.median);
    assert!(src.median <= 0.20, "leave-one-source-out median {}", src.median);
    assert!(src.inside >= 0.80, "leave-one-source-out inside {}", src.inside);
    // Met since the UNets' and the VAE's 3x3 convolutions get Winograd on the FP32 units (the
    // V100's strict-FP32 rows) and a denoiser's FLOPs per byte scale with its width (SDXL, FLUX).
    // Still outside when their family is held out: the RTX 4090 rows (no Ada row left to fit the
    // large-L2 factor) and the A100 batch-1 rows (host launch latency).
    assert!(fam.inside >= 0.80, "leave-one-family-out inside {}", fam.inside);
}

#[test]
fn training_in_sample_and_cross_validated() {
    let d = diffusion_rows();
    let c = classic_rows();
    // training.csv: 16 ResNet-50/BERT rows; classic_training_more.csv: 169 (162, 7 timm rows
    // added), 8 of them excluded (DeepLearningExamples' BERT pre-training table; the notes say why).
    assert_eq!(c.len(), 16 + 169 - 8);
    assert_eq!(classic_rows_where(true).len(), 8);
    let ins = print_rows("Classic training rows (samples/s), calibrated constants", &c, &MediaFit::CALIBRATED);
    let v = video_rows();
    let (fam, src) = cross_validate("Classic training cross-validation", [&d, &c, &v], 1);
    // Targets (issue 11), met since the memory format is modelled (channels_last: the
    // DeepLearningExamples AMP ResNet-50 rows run NHWC, Lambda's and timm's NCHW rows do not) and
    // DeepLearningExamples' BERT pre-training table is excluded (its notes say why).
    assert!(ins.median <= 0.20, "in-sample median {}", ins.median);
    assert!(ins.inside >= 0.80, "in-sample inside {}", ins.inside);
    assert!(fam.median <= 0.20, "leave-one-family-out median {}", fam.median);
    assert!(fam.inside >= 0.80, "leave-one-family-out inside {}", fam.inside);
    assert!(src.median <= 0.20, "leave-one-source-out median {}", src.median);
    assert!(src.inside >= 0.80, "leave-one-source-out inside {}", src.inside);
}

/// Refits [`MediaFit`] on every row and prints it: how `MediaFit::CALIBRATED` was obtained.
/// `cargo test --test media_calibration -- --ignored --nocapture print_full_fit`.
#[test]
#[ignore]
fn print_full_fit() {
    let d = diffusion_rows();
    let c = classic_rows();
    let dr: Vec<&Row> = d.iter().collect();
    let cr: Vec<&Row> = c.iter().collect();
    let v = video_rows();
    let vr: Vec<&Row> = v.iter().collect();
    let fit = refit([&dr, &cr, &vr], &MediaFit::CALIBRATED);
    println!("{fit:#?}\nloss diffusion {:.4}, classic {:.4}, video {:.4}", loss(&dr, &fit), loss(&cr, &fit), loss(&vr, &fit));
    if std::env::var("PRINT_ROWS").is_ok() {
        print_rows("diffusion under the full fit", &d, &fit);
        print_rows("classic under the full fit", &c, &fit);
    }
}

/// The shipped constants are the full refit: refitting every [`MediaFit`] constant on every row of
/// the three engines, from [`MediaFit::CALIBRATED`], moves none of them by more than 2% (the finest
/// step of the descent is 1%). Until this test, a physics change could leave the shipped values
/// behind the fit: the Winograd commit (9275d62) changed the classic rows without a refit, and the
/// refit then gave eta_tensor_16 0.79 against the shipped 0.74.
#[test]
fn the_shipped_constants_are_the_full_refit() {
    let (d, c, v) = (diffusion_rows(), classic_rows(), video_rows());
    assert_eq!(v.len(), 10, "video.csv: 10 timed rows (two memory-only rows)");
    let (dr, cr, vr): (Vec<&Row>, Vec<&Row>, Vec<&Row>) = (d.iter().collect(), c.iter().collect(), v.iter().collect());
    let fit = refit([&dr, &cr, &vr], &MediaFit::CALIBRATED);
    let (mut a, mut b) = (fit, MediaFit::CALIBRATED);
    for (name, knob) in knobs() {
        let (x, y) = (*knob(&mut a), *knob(&mut b));
        assert!((x / y - 1.0).abs() <= 0.02, "{name}: refit {x}, shipped {y}");
    }
}

/// The batch sizes Lambda trained with (training.csv, from pytorch-train-bs-*.csv) ran on those
/// cards, so the model must say they fit. Only the ResNet-50 rows: BERT ran with NVIDIA's fused
/// kernels, which the model's generic activation estimate does not know about.
#[test]
fn lambda_resnet_batches_fit() {
    for r in rows(TRAINING_CSV).iter().filter(|r| r["model"] == "ResNet-50") {
        let g = gpu(&gpu_id(&r["gpu"]));
        let mut job = ClassicJob::new("resnet-50", ClassicMode::Train).unwrap();
        job.precision = if r["precision"].starts_with("AMP") { ClassicPrecision::Amp } else { ClassicPrecision::Tf32 };
        let batch: u32 = r["batch_per_gpu"].parse().unwrap();
        let max = gpu_advisor::model::classic::max_batch_that_fits(&job, g).unwrap();
        assert!(max >= batch, "{} {}: ran batch {batch}, model's max {max}", r["gpu"], r["precision"]);
    }
}

/// Signed median ln(model / measured) of `rows` under `fit`, by a grouping key, printed as
/// `DIAGNOSTIC` lines: where the misses sit (family, source, network, numeric mode, batch class).
fn print_residuals(title: &str, rows: &[Row], fit: &MediaFit, key: fn(&Row) -> String) {
    let groups: BTreeSet<String> = rows.iter().map(key).collect();
    for g in groups {
        let rs: Vec<f64> = rows.iter().filter(|r| key(r) == g).map(|r| (r.predict(fit).1 / r.measured).ln()).collect();
        let n = rs.len();
        let inside = rows.iter().filter(|r| key(r) == g).filter(|r| score(r.measured, r.predict(fit)).1).count();
        println!(
            "DIAGNOSTIC {title} {g}: {n} rows, median ln(model/measured) {:+.3} ({:+.1}%), inside band {}/{n}",
            median(rs.clone()),
            (median(rs).exp() - 1.0) * 100.0,
            inside
        );
    }
}

/// The network and numeric mode of a row, from its label ("<gpu> <net> <mode> ...").
fn net_mode(r: &Row) -> String {
    let mut it = r.label.split_whitespace().skip(1);
    let net = it.next().unwrap_or("");
    let mode = it.next().unwrap_or("");
    format!("{net} {mode}")
}

/// Residuals by group, in-sample and under each source-held-out fit, and the alternative
/// leave-one-source-out procedures (`docs/MODEL.md`, "Calibration and cross-validation").
#[test]
fn residual_diagnostics() {
    let d = diffusion_rows();
    let c = classic_rows();
    let v = video_rows();
    let fit = MediaFit::CALIBRATED;
    print_residuals("video in-sample arch", &v, &fit, |r| r.gpu.architecture.clone());
    for (name, set) in [("diffusion", &d), ("classic", &c)] {
        print_residuals(&format!("{name} in-sample family"), set, &fit, |r| r.family.to_string());
        print_residuals(&format!("{name} in-sample source"), set, &fit, |r| r.source.clone());
        print_residuals(&format!("{name} in-sample arch"), set, &fit, |r| r.gpu.architecture.clone());
        print_residuals(&format!("{name} in-sample net/mode"), set, &fit, net_mode);
    }
    // The LLM-style alternative to the acceptance LOSO: the shipped constants times one scalar per
    // engine, refitted on the other sources (optimistic here: the shipped constants saw every row).
    for (name, set) in [("diffusion", &d), ("classic", &c)] {
        let sources: BTreeSet<String> = set.iter().map(|r| r.source.clone()).collect();
        let mut all = Vec::new();
        for src in &sources {
            let logs: Vec<f64> = set.iter().filter(|r| &r.source != src).map(|r| (r.measured / r.predict(&fit).1).ln()).collect();
            let k = median(logs).exp();
            let scores: Vec<(f64, bool)> = set
                .iter()
                .filter(|r| &r.source == src)
                .map(|r| {
                    let (lo, mid, hi) = r.predict(&fit);
                    score(r.measured, (lo * k, mid * k, hi * k))
                })
                .collect();
            let f = figures(&scores);
            println!("DIAGNOSTIC {name} LOSO scalar-only {src}: scalar {k:.3}, {} rows, median {:.1}%, inside {:.0}%", f.n, f.median * 100.0, f.inside * 100.0);
            all.extend(scores);
        }
        let f = figures(&all);
        println!("DIAGNOSTIC {name} LOSO scalar-only all: {} rows, median {:.1}%, inside {:.0}%", f.n, f.median * 100.0, f.inside * 100.0);
    }
    // The excluded rows, for the record (their notes say why).
    for r in classic_rows_where(true) {
        println!("DIAGNOSTIC classic excluded {}: measured {:.1}, model {:+.1}%", r.label, r.measured, (r.predict(&fit).1 / r.measured - 1.0) * 100.0);
    }
    // Launch-latency share of every generation row (the band widens with it, LAUNCH_BAND_EXTRA).
    for r in &d {
        if let Case::Image { job, .. } = &r.case {
            let t = image_timing_with(&fit, job, r.gpu, 1).unwrap();
            println!("DIAGNOSTIC diffusion launch share {}: {:.3} ({})", r.label, t.launch_share, r.source);
        }
    }
    // Held-out rows of each family fold, one line per row (what the fold's refit misses).
    for (name, target, other) in [("diffusion", &d, &c), ("classic", &c, &d)] {
        let families: BTreeSet<&str> = target.iter().map(|r| r.family).collect();
        for fam in families {
            let tt: Vec<&Row> = target.iter().filter(|r| r.family != fam).collect();
            let to: Vec<&Row> = other.iter().filter(|r| r.family != fam).collect();
            let tv: Vec<&Row> = v.iter().filter(|r| r.family != fam).collect();
            let f = if name == "diffusion" { refit([&tt, &to, &tv], &fit) } else { refit([&to, &tt, &tv], &fit) };
            for r in target.iter().filter(|r| r.family == fam) {
                let (lo, mid, hi) = r.predict(&f);
                let inside = lo <= r.measured && r.measured <= hi;
                println!("DIAGNOSTIC {name} LOFO {fam}: {} {:+.1}%{}", r.label, (mid / r.measured - 1.0) * 100.0, if inside { "" } else { " (outside)" });
            }
        }
    }
}
