//! Compiles the catalogs into the binary: parses `data/*.toml`, validates every entry (a bad row
//! fails the build with a message naming it), and packs the result with postcard into
//! `$OUT_DIR/catalog.bin`, which `src/catalog/mod.rs` embeds. No TOML parser ships to the browser.
//! It also cuts the embed snippet out of `assets/embed-parent.html` for the "Embed this" dialog,
//! so the parent-side script exists once. For the web app (wasm32) the catalog is packed without
//! its source links and notes, which the app loads only when a card's detail panel is opened.
//! From `data/accuracy.toml` it packs the accuracy sets (`accuracy_sets.bin`, native builds read
//! them) and writes the held-out error table every LLM estimate names (`held_out.rs`, included by
//! `src/catalog/accuracy.rs`).

#[path = "src/catalog/schema.rs"]
#[allow(dead_code)]
mod schema;

#[path = "src/catalog/accuracy_schema.rs"]
#[allow(dead_code)]
mod accuracy_schema;

use std::path::{Path, PathBuf};

fn load<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> T {
    let path = dir.join(name);
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not a valid catalog: {e}", path.display()))
}

/// The lines between the `gpu-advisor embed: start` and `end` comments of the documented parent
/// page, with their common indentation removed.
fn embed_snippet() -> String {
    let path = "assets/embed-parent.html";
    println!("cargo:rerun-if-changed={path}");
    let page = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let (_, after_start) = page.split_once("<!-- gpu-advisor embed: start -->").unwrap_or_else(|| panic!("{path}: no start marker"));
    let (block, _) = after_start.split_once("<!-- gpu-advisor embed: end -->").unwrap_or_else(|| panic!("{path}: no end marker"));
    let lines: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    let indent = lines.iter().map(|l| l.len() - l.trim_start().len()).min().unwrap_or(0);
    lines.iter().map(|l| l.get(indent..).unwrap_or(l.trim_start())).collect::<Vec<_>>().join("\n")
}

/// The sets whose held-out error an LLM estimate names for its own engine and GPU family
/// (`present::held_out`: its headline figure); other sets' pairs stay out of the
/// embedded table (training groups its rows by framework, which the app does not choose: an
/// estimate names its overall figure).
const PAIR_SETS: [&str; 3] = ["decode", "serving", "offload"];

/// The sets an estimate names: those, and training (its overall figure only).
const APP_SETS: [&str; 4] = ["decode", "serving", "offload", "training"];

/// A median |error| in per mille, `u16::MAX` when not available (the file writes -1.0).
fn per_mille(x: f64) -> u16 {
    if x.is_finite() && x >= 0.0 {
        (x * 1000.0).round().min(f64::from(u16::MAX - 1)) as u16
    } else {
        u16::MAX
    }
}

/// `data/accuracy.toml` (written by `make accuracy`), if there is one: its sets, packed for the
/// native build (`accuracy_sets.bin`; `gpu-advisor accuracy-pack` renders the accuracy page from
/// them), and the held-out table every LLM estimate reads, as Rust source (`held_out.rs`, a few
/// hundred bytes: the overall leave-one-family-out error and rows of each set an estimate names,
/// and per (set, engine, GPU family) the pair's). Without the file both are empty: the page says it cannot load its
/// data and estimates name no error.
fn accuracy(dir: &Path, out_dir: &Path, errors: &mut Vec<String>) {
    let path = dir.join("accuracy.toml");
    println!("cargo:rerun-if-changed={}", path.display());
    let file = match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str::<accuracy_schema::AccuracyFile>(&text).unwrap_or_else(|e| panic!("{} is not valid: {e}", path.display())),
        Err(_) => accuracy_schema::AccuracyFile { set: Vec::new(), held_out: Vec::new() },
    };
    for s in &file.set {
        if s.id.is_empty() || file.set.iter().filter(|o| o.id == s.id).count() > 1 {
            errors.push(format!("accuracy set `{}`: ids must be unique and not empty", s.id));
        }
    }
    std::fs::write(out_dir.join("accuracy_sets.bin"), postcard::to_allocvec(&file.set).expect("postcard packs the accuracy sets")).expect("write accuracy_sets.bin");

    // Names once each; pairs refer to them (and to their set) by index.
    fn position<'a>(names: &mut Vec<&'a str>, name: &'a str) -> usize {
        names.iter().position(|n| *n == name).unwrap_or_else(|| {
            names.push(name);
            names.len() - 1
        })
    }
    let mut engines: Vec<&str> = Vec::new();
    let mut families: Vec<&str> = Vec::new();
    let mut pairs = String::new();
    let app_sets: Vec<&accuracy_schema::SetAccuracy> = file.set.iter().filter(|s| APP_SETS.contains(&s.id.as_str())).collect();
    for h in &file.held_out {
        if !file.set.iter().any(|s| s.id == h.set) {
            errors.push(format!("accuracy held_out `{} / {} / {}`: no such set", h.set, h.engine, h.family));
            continue;
        }
        let error = per_mille(h.median_error);
        let set = app_sets.iter().position(|s| s.id == h.set);
        let Some(set) = set.filter(|_| PAIR_SETS.contains(&h.set.as_str()) && error != u16::MAX) else {
            continue;
        };
        let (engine, family) = (position(&mut engines, h.engine.as_str()), position(&mut families, h.family.as_str()));
        pairs.push_str(&format!("({set}, {engine}, {family}, {}, {error}), ", h.rows.min(u32::from(u16::MAX))));
    }
    let sets: Vec<String> = app_sets.iter().map(|s| format!("({:?}, {}, {})", s.id, s.rows, per_mille(s.lofo))).collect();
    let source = format!(
        "static SETS: [(&str, u32, u16); {}] = [{}];\nstatic ENGINES: [&str; {}] = {:?};\nstatic FAMILIES: [&str; {}] = {:?};\nstatic PAIRS: &[(u8, u8, u8, u16, u16)] = &[{pairs}];\n",
        sets.len(),
        sets.join(", "),
        engines.len(),
        engines,
        families.len(),
        families,
    );
    if file.set.len() > 255 || engines.len() > 255 || families.len() > 255 {
        errors.push("accuracy: more than 255 sets, engines or families".into());
    }
    std::fs::write(out_dir.join("held_out.rs"), source).expect("write held_out.rs");
}

fn main() {
    println!("cargo:rerun-if-changed=src/catalog/schema.rs");
    println!("cargo:rerun-if-env-changed=GPU_ADVISOR_DATA_DIR");
    let dir = PathBuf::from(std::env::var("GPU_ADVISOR_DATA_DIR").unwrap_or_else(|_| "data".into()));
    let gpus: schema::GpuFile = load(&dir, "gpus.toml");
    let models: schema::ModelFile = load(&dir, "models.toml");
    let diffusion: schema::DiffusionFile = load(&dir, "diffusion.toml");
    let classic: schema::ClassicFile = load(&dir, "classic.toml");

    let mut errors = schema::validate_gpus(&gpus.gpu);
    errors.extend(schema::validate_models(&models.model, &diffusion.diffusion, &classic.classic));

    // Interface strings: English key -> zh, ru. Every entry needs both, with the same placeholders.
    let i18n_path = dir.join("i18n.toml");
    println!("cargo:rerun-if-changed={}", i18n_path.display());
    let i18n_text = std::fs::read_to_string(&i18n_path).unwrap_or_else(|e| panic!("cannot read {}: {e}", i18n_path.display()));
    let i18n: std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>> =
        toml::from_str(&i18n_text).unwrap_or_else(|e| panic!("{} is not valid: {e}", i18n_path.display()));
    let placeholders = |s: &str| -> Vec<String> {
        let mut out: Vec<String> = s.split('{').skip(1).filter_map(|p| p.split_once('}').map(|(n, _)| n.to_string())).collect();
        out.sort();
        out
    };
    let mut entries: Vec<(String, String, String)> = Vec::new();
    for (en, langs) in &i18n {
        let zh = langs.get("zh").filter(|s| !s.trim().is_empty());
        let ru = langs.get("ru").filter(|s| !s.trim().is_empty());
        match (zh, ru) {
            (Some(zh), Some(ru)) => {
                if placeholders(zh) != placeholders(en) || placeholders(ru) != placeholders(en) {
                    errors.push(format!("i18n `{en}`: placeholders differ between languages"));
                }
                if langs.keys().any(|k| k != "zh" && k != "ru") {
                    errors.push(format!("i18n `{en}`: only zh and ru are allowed"));
                }
                entries.push((en.clone(), zh.clone(), ru.clone()));
            }
            _ => errors.push(format!("i18n `{en}`: needs both zh and ru")),
        }
    }
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    accuracy(&dir, &out_dir, &mut errors);
    if !errors.is_empty() {
        panic!("the catalog has {} error(s):\n  {}", errors.len(), errors.join("\n  "));
    }
    let snippet = embed_snippet();
    assert!(snippet.contains("src=\"./?embed=1\""), "assets/embed-parent.html: the iframe src must be ./?embed=1");
    std::fs::write(out_dir.join("embed_snippet.html"), snippet).expect("write embed_snippet.html");
    std::fs::write(out_dir.join("i18n.bin"), postcard::to_allocvec(&entries).expect("postcard packs i18n")).expect("write i18n.bin");

    let (mut gpu, mut llms, mut diffusion, mut classic) = (gpus.gpu, models.model, diffusion.diffusion, classic.classic);
    // The web app shows no model's sources and a card's (and its notes) only in its detail panel, which loads them
    // from `sources.bin` (`gpu-advisor sources-pack`, run by Trunk's post_build hook; see
    // `catalog::sources`): the wasm's catalog goes without the links, to keep the first load small.
    // Native builds (CLI, tests, check-data) keep every field.
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        for g in &mut gpu {
            g.sources.clear();
            g.notes.clear();
            g.price_source = None;
            // The sparse figures only check that the dense ones are dense (done above).
            g.fp4_sparse_tflops = None;
            g.fp16_sparse_tflops = None;
            for c in &mut g.cloud {
                c.source.clear();
            }
        }
        // Nor does it read a model's family, release date or component names (the native
        // build's checks and listings do).
        for m in &mut llms {
            m.source.clear();
            m.family.clear();
            m.released = None;
        }
        for d in &mut diffusion {
            d.sources.clear();
            d.step_flops_source = None;
            d.family.clear();
            d.released = None;
            for part in &mut d.component {
                part.name.clear();
            }
        }
        for c in &mut classic {
            c.sources.clear();
            c.flops_source = None;
            c.released = None;
        }
    }
    let bundle = (gpu, llms, diffusion, classic);
    let bytes = postcard::to_allocvec(&bundle).expect("postcard packs the catalog");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("catalog.bin");
    std::fs::write(&out, bytes).expect("write catalog.bin");
}
