#![cfg(not(target_arch = "wasm32"))]
//! The accuracy harness (`src/accuracy`) and the figures it publishes.
//!
//! - The harness's mechanics on hand-made domains: a refit that sees only the rows of its fold,
//!   source-balanced bands, and the out-of-fold in-band share, each checked against a hand
//!   calculation.
//! - The published figures (`data/accuracy.toml`, which `make test` regenerates and compares:
//!   `accuracy --check`) against the project's accuracy goals: median |error| of held-out rows
//!   (leave one GPU family out and leave one source out) ≤ 12% decode (leave one hardware
//!   generation out ≤ 15%), ≤ 20% prefill, serving, per-user speed, training, image and video, ≤ 30%
//!   time to first token, ≤ 8% memory, ≤ 25% offload; ≥ 80% of rows inside the band the other
//!   sources set. A goal the engine misses today is asserted at today's figure plus 3 points (a
//!   median) or less 5 points (a share), marked `GOAL NOT MET`, so that it cannot get worse
//!   unnoticed; docs/ACCURACY.md says which and why.

use gpu_advisor::accuracy::folds::{band_of, evaluate, summarize, Domain, Refit};
use gpu_advisor::accuracy::row::{Fold, Row, Set};
use gpu_advisor::catalog;
use gpu_advisor::model::Band;

/// Rows of y = k·x: each row's payload is x; the one fitted constant k is the median of
/// measured / x over the rows the fit is given.
struct Line {
    rows: Vec<Row<f64>>,
}

fn row(source: &str, family: &str, x: f64, measured: f64) -> Row<f64> {
    Row {
        set: Set::Decode,
        file: "hand",
        label: format!("{source} {family} x={x}"),
        gpu: catalog::gpu("rtx-4090").expect("card"),
        gpus: 1,
        measured,
        source: source.into(),
        citation: source.into(),
        family: family.into(),
        generation: family.into(),
        engine: "hand".into(),
        payload: x,
    }
}

impl Domain for Line {
    type Fit = f64;
    type Payload = f64;
    fn rows(&self) -> &[Row<f64>] {
        &self.rows
    }
    fn shipped(&self) -> f64 {
        1.0
    }
    fn refit(&self, train: &[usize]) -> Refit<f64> {
        let mut k: Vec<f64> = train.iter().map(|&i| self.rows[i].measured / self.rows[i].payload).collect();
        if k.is_empty() {
            return Refit { fit: 1.0, fallbacks: vec!["k"] };
        }
        k.sort_by(f64::total_cmp);
        Refit { fit: k[k.len() / 2], fallbacks: vec![] }
    }
    fn predict(&self, k: &f64, i: usize) -> Band {
        let mid = k * self.rows[i].payload;
        Band { low: mid, mid, high: mid }
    }
}

/// Source A's rows measure 2·x, B's 3·x, C's 4·x. Held out by source, A is predicted with k fitted
/// on B and C's rows: their ratios 3, 3, 4 (B has two rows), median 3, so A's row at x = 10 is
/// predicted 30 against 20 measured. In-sample, k is the median of 2, 3, 3, 4 (upper middle of
/// the sorted four): 3.
#[test]
fn every_fold_refits_on_the_rows_it_keeps() {
    let d = Line { rows: vec![row("A", "F1", 10.0, 20.0), row("B", "F1", 1.0, 3.0), row("B", "F2", 2.0, 6.0), row("C", "F2", 5.0, 20.0)] };
    let (scored, notes) = evaluate(&d);
    assert!(notes.fallbacks.is_empty());
    let a = &scored[0];
    assert_eq!(a.raw.mid, 10.0, "shipped k = 1");
    assert_eq!(a.in_sample.mid, 30.0);
    assert_eq!(a.fold(Fold::Source).mid, 30.0);
    // Held out by family F1 (A and one B row): k from B's x = 2 row (3) and C's (4): the upper
    // middle, 4.
    assert_eq!(a.fold(Fold::Family).mid, 40.0);
    // C held out: k from A (2) and B (3, 3): 3; C's row at x = 5 is predicted 15.
    assert_eq!(scored[3].fold(Fold::Source).mid, 15.0);
}

/// A source with many rows weighs as much as a source with one: ratios 1.0 ×8 from source A and
/// 2.0 from B, 3.0 from C. Each source weighs 1/3; sorted, the cumulative weight reaches 10% at
/// the first 1.0 (A's 8 rows share 1/3) and 90% only at C's 3.0 (1/3 + 1/3 = 67% at B's 2.0).
/// Plain row percentiles would give 1.0–2.0.
#[test]
fn bands_weigh_every_source_the_same() {
    let mut v: Vec<(&str, f64)> = vec![("A", 1.0); 8];
    v.push(("B", 2.0));
    v.push(("C", 3.0));
    assert_eq!(band_of(&v), (1.0, 3.0));
    assert!(band_of(&[]).0.is_nan());
}

/// Out of fold: each source is scored against the band of the others. Sources A–F measure 1.0,
/// 1.1, 1.2, 1.3, 1.4 and 3.0 × the model (one row each, the model's k held at 1 by a shipped
/// fit that never refits: measured/x). With A held out, the others' band (each weighing 1/5) is
/// their 10th–90th percentile, 1.1–3.0: A's 1.0 falls outside. B against A, C, D, E, F: 1.0–3.0,
/// inside; C, D, E likewise inside; F against A–E: 1.0–1.4, outside. 4 of 6.
#[test]
fn a_source_is_scored_against_the_band_of_the_others() {
    struct Fixed(Vec<Row<f64>>);
    impl Domain for Fixed {
        type Fit = ();
        type Payload = f64;
        fn rows(&self) -> &[Row<f64>] {
            &self.0
        }
        fn shipped(&self) {}
        fn refit(&self, _: &[usize]) -> Refit<()> {
            Refit { fit: (), fallbacks: vec![] }
        }
        fn predict(&self, _: &(), i: usize) -> Band {
            let mid = self.0[i].payload;
            Band { low: mid, mid, high: mid }
        }
    }
    let ratios = [("A", 1.0), ("B", 1.1), ("C", 1.2), ("D", 1.3), ("E", 1.4), ("F", 3.0)];
    let d = Fixed(ratios.iter().map(|&(s, r)| row(s, "F1", 10.0, 10.0 * r)).collect());
    let (scored, _) = evaluate(&d);
    let refs: Vec<_> = scored.iter().collect();
    let m = summarize(Set::Decode, d.rows(), &refs, &|_| "");
    assert!((m.in_band_out_of_fold - 4.0 / 6.0).abs() < 1e-12, "{}", m.in_band_out_of_fold);
    assert_eq!(m.rows, 6);
    assert_eq!(m.sources, 6);
}

// ---------------------------------------------------------------------------------------------
// The published figures
// ---------------------------------------------------------------------------------------------

#[derive(serde::Deserialize)]
struct File {
    set: Vec<SetFigures>,
}

#[derive(serde::Deserialize)]
struct SetFigures {
    id: String,
    rows: usize,
    lofo: f64,
    loso: f64,
    logo: f64,
    in_band: f64,
}

fn figures() -> Vec<SetFigures> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/accuracy.toml")).expect("data/accuracy.toml");
    toml::from_str::<File>(&text).expect("valid").set
}

fn set(id: &str) -> SetFigures {
    figures().into_iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no set {id} in data/accuracy.toml"))
}

#[track_caller]
fn at_most(what: &str, value: f64, limit: f64) {
    assert!(value <= limit + 1e-9, "{what}: {:.1}% > {:.1}%", value * 100.0, limit * 100.0);
}

#[track_caller]
fn at_least(what: &str, value: f64, limit: f64) {
    assert!(value >= limit - 1e-9, "{what}: {:.1}% < {:.1}%", value * 100.0, limit * 100.0);
}

/// Every set with a goal is scored, on enough rows to mean something.
#[test]
fn every_set_is_scored() {
    let f = figures();
    for (id, min_rows) in [
        ("decode", 200),
        ("prefill", 120),
        ("serving", 400),
        ("per-user", 100),
        ("ttft", 100),
        ("training", 60),
        ("memory", 60),
        ("offload", 20),
        ("image", 50),
        ("classic", 150),
        ("video-time", 40),
        ("video-memory", 20),
    ] {
        let s = f.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no set {id}"));
        assert!(s.rows >= min_rows, "{id}: {} rows", s.rows);
    }
}

/// Rows added to the calibration set with the nested cross-validation: llama.cpp on the newest
/// cards (Blackwell GeForce and DGX Spark; RDNA 4, Strix Halo and Battlemage), MXFP4/NVFP4
/// serving, LoRA/QLoRA peaks and multi-GPU video: at least 150, from these five files.
#[test]
fn at_least_150_new_rows() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration/");
    let n: usize = ["llm_inference_newgen_nvidia.csv", "llm_inference_newgen_amd_intel.csv", "llm_serving_fp4.csv", "memory_peft.csv", "video_multi_gpu.csv"]
        .iter()
        .map(|f| std::fs::read_to_string(format!("{dir}{f}")).expect(f).lines().skip(1).filter(|l| !l.trim().is_empty()).count())
        .sum();
    assert!(n >= 150, "{n} new rows");
}

#[test]
fn decode_meets_its_goals() {
    let s = set("decode");
    at_most("decode LOSO", s.loso, 0.12);
    at_most("decode LOFO", s.lofo, 0.12);
    at_most("decode LOGO", s.logo, 0.15);
    at_least("decode in band", s.in_band, 0.736 - 0.05); // GOAL NOT MET (≥ 80%): guard at 73.6% − 5
}

#[test]
fn prefill_meets_its_goals() {
    let s = set("prefill");
    at_most("prefill LOSO", s.loso, 0.218 + 0.03); // GOAL NOT MET (≤ 20%)
    at_most("prefill LOFO", s.lofo, 0.290 + 0.03); // GOAL NOT MET (≤ 20%)
    at_least("prefill in band", s.in_band, 0.80);
}

#[test]
fn serving_meets_its_goals() {
    let s = set("serving");
    at_most("serving LOFO", s.lofo, 0.20);
    at_most("serving LOSO", s.loso, 0.218 + 0.03); // GOAL NOT MET (≤ 20%)
    // The DeepSeek-R1 rows: dstack's early-2025 engines run 1.4–3.5× below the model, outside
    // the DeepSeek band that InferenceX's 2025–2026 rows, near it, help set, and the other way round.
    at_least("serving in band", s.in_band, 0.747 - 0.05); // GOAL NOT MET (≥ 80%)
    let p = set("per-user");
    at_most("per-user LOSO", p.loso, 0.20);
    at_most("per-user LOFO", p.lofo, 0.221 + 0.03); // GOAL NOT MET (≤ 20%)
    at_least("per-user in band", p.in_band, 0.608 - 0.05); // GOAL NOT MET (≥ 80%): the DeepSeek rows, as above
}

#[test]
fn ttft_meets_its_goals() {
    let s = set("ttft");
    // DeepSeek-R1's first tokens run 2–10× the model's time in both its sources (68 of 194 rows).
    at_most("TTFT LOSO", s.loso, 0.481 + 0.03); // GOAL NOT MET (≤ 30%)
    at_most("TTFT LOFO", s.lofo, 0.643 + 0.03); // GOAL NOT MET (≤ 30%)
    at_least("TTFT in band", s.in_band, 0.80);
}

#[test]
fn training_meets_its_goals() {
    let s = set("training");
    at_most("training LOSO", s.loso, 0.20);
    at_most("training LOFO", s.lofo, 0.20);
    // The 22 MoE rows (class `moe`) come from two sources that disagree: Grok-1's eight large
    // experts train near the model, the fine-grained MoEs at 0.15–0.6 of it, so each source's
    // rows fall outside the band the other sets.
    at_least("training in band", s.in_band, 0.721 - 0.05); // GOAL NOT MET (≥ 80%)
}

#[test]
fn memory_meets_its_goals() {
    let s = set("memory");
    at_most("memory LOSO", s.loso, 0.081 + 0.03); // GOAL NOT MET (≤ 8%)
    at_most("memory LOFO", s.lofo, 0.081 + 0.03); // GOAL NOT MET (≤ 8%)
    at_least("memory in band", s.in_band, 0.761 - 0.05); // GOAL NOT MET (≥ 80%)
}

#[test]
fn media_meets_its_goals() {
    // In band out of fold (≥ 80%): GOAL NOT MET by all four, guarded at today's share less 5
    // points (image 79.2%; classic 46.8%: its four sources disagree by about 10% each way; video
    // time 65.4%: twelve sources, most of a few rows each, set a narrow 0.86–1.09 band; video
    // memory 62.5%).
    for (id, in_band) in [("image", 0.792 - 0.05), ("classic", 0.468 - 0.05), ("video-time", 0.654 - 0.05), ("video-memory", 0.625 - 0.05)] {
        let s = set(id);
        at_most(&format!("{id} LOFO"), s.lofo, 0.20);
        at_most(&format!("{id} LOSO"), s.loso, 0.20);
        at_least(&format!("{id} in band"), s.in_band, in_band);
    }
    let o = set("offload");
    at_most("offload LOFO", o.lofo, 0.25);
    at_most("offload LOSO", o.loso, 0.25);
}

/// Training past one node (docs/ACCURACY.md's "Past one node" table, rows of more than 8 GPUs):
/// the cluster goal is a nested, cross-validated median error ≤ 20% over at least 4 sources, from
/// 8 to 1,024+ GPUs. LOFO and LOSO meet it over the whole table; leave-generation-out misses it
/// by a few tenths since the MoE rows (class `moe`, a known gap: an MoE trains below its FLOPs)
/// joined it. The NVIDIA HBM rows (four fifths of it) carry the median, while the MI250X rows stay
/// above their measurements and the Ascend 910B rows below (the table's per-source rows show them).
#[test]
fn training_past_one_node_meets_its_goal() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ACCURACY.md")).expect("docs/ACCURACY.md");
    let head = text.lines().find(|l| l.starts_with("Past one node (")).expect("the past-one-node table");
    let num = |s: &str| s.trim().trim_end_matches('%').parse::<f64>().unwrap_or(f64::NAN) / 100.0;
    let sources: usize = head.split("; ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).expect("sources");
    let most: u32 = head.split(" to ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).expect("largest count");
    assert!(sources >= 4 && most >= 1024, "{head}");
    let all = text.lines().skip_while(|l| !l.starts_with("Past one node (")).find(|l| l.contains("| **all** |")).expect("the all row");
    let cells: Vec<&str> = all.split('|').map(str::trim).collect();
    // | rows | source | shipped | LOFO | LOSO | LOGO |
    at_most("past one node LOSO", num(cells[5]), 0.20);
    at_most("past one node LOGO", num(cells[6]), 0.204 + 0.03); // GOAL NOT MET (≤ 20%)
    at_most("past one node LOFO", num(cells[4]), 0.20);
}

/// A fold that holds out every row of a constant's own (here CUDA's llama.cpp weight-stream
/// share: its rows are the NVIDIA GDDR cards') refits it from its best-determined relative, not
/// its physics default: the share of the llama.cpp back-end with the most rows left in. The
/// expected value is found here by counting each back-end's rows in the fold with the knobs' own
/// row tests, independently of the harness's choice.
#[test]
fn a_constant_without_rows_takes_its_best_determined_relative() {
    use gpu_advisor::accuracy::llm::LlmDomain;
    use gpu_advisor::accuracy::llm_rows::inventory;
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration"));
    let mut inv = inventory(dir).expect("calibration rows");
    inv.rows.retain(|r| r.set == Set::Decode && r.engine == "llama.cpp");
    let d = LlmDomain::new(inv);
    let train: Vec<usize> = (0..d.rows().len()).filter(|&i| d.rows()[i].family != "NVIDIA GDDR").collect();
    assert!(train.len() >= 50 && train.len() < d.rows().len(), "{} of {}", train.len(), d.rows().len());
    let Refit { fit, fallbacks } = d.refit(&train);
    let cuda = "llama.cpp weight-stream share, CUDA";
    assert!(fallbacks.contains(&cuda), "{fallbacks:?}");
    let group = d.groups().iter().find(|g| g.knobs.iter().any(|k| k.name == cuda)).expect("llama.cpp decode group");
    let rows_of = |name: &str| {
        let k = group.knobs.iter().find(|k| k.name == name).expect(name);
        train.iter().filter(|&&i| (k.determines)(&d.rows()[i])).count()
    };
    let siblings = [
        ("llama.cpp weight-stream share, Vulkan", fit.llama_cpp_vulkan.weight_bw),
        ("llama.cpp weight-stream share, ROCm", fit.llama_cpp_rocm.weight_bw),
        ("llama.cpp weight-stream share, Metal", fit.llama_cpp_metal.weight_bw),
        ("llama.cpp weight-stream share, SYCL", fit.llama_cpp_sycl.weight_bw),
    ];
    let (best, share) = siblings.iter().max_by_key(|(name, _)| rows_of(name)).expect("siblings");
    assert!(rows_of(best) >= 3, "{best}: {} rows", rows_of(best));
    assert_eq!(fit.llama_cpp.weight_bw, *share, "CUDA's share should be {best}'s");
    assert!((fit.llama_cpp.weight_bw - 0.80).abs() > 1e-9, "the physics default was kept");
}
