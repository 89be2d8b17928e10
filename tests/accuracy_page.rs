#![cfg(not(target_arch = "wasm32"))]
//! The accuracy page's data and the held-out error each LLM estimate names, against the file
//! they come from, `data/accuracy.toml` (written by `make accuracy`): the packed sets the web app
//! loads as `accuracy.bin` (`gpu-advisor accuracy-pack`) hold exactly the file's sets; the table
//! build.rs embeds answers each (set, engine, family) entry with the file's figure; the GPU-family
//! rule puts reference cards where the harness does.

use gpu_advisor::catalog::{self, accuracy, accuracy_schema::AccuracyFile};
use gpu_advisor::i18n::Lang;
use gpu_advisor::model::llm::{Engine, LlmJob, Workload};
use gpu_advisor::present::{self, InLang};
use gpu_advisor::recommend::{recommend, Job, RecommendInput};

/// The file as the harness wrote it.
fn file() -> AccuracyFile {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/accuracy.toml");
    toml::from_str(&std::fs::read_to_string(path).expect("data/accuracy.toml")).expect("data/accuracy.toml parses")
}

#[test]
fn the_packed_file_round_trips_accuracy_toml() {
    let file = file();
    assert!(!file.set.is_empty(), "data/accuracy.toml has no [[set]]");
    // What `gpu-advisor accuracy-pack` writes (Trunk's post_build hook).
    let path = std::env::temp_dir().join(format!("gpu-advisor-accuracy-{}.bin", std::process::id()));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = gpu_advisor::cli::run(vec!["accuracy-pack".into(), path.clone().into()], &mut out, &mut err);
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&err));
    let bytes = std::fs::read(&path).expect("accuracy-pack wrote its file");
    let _ = std::fs::remove_file(&path);
    // First the page in English, Chinese and Russian (what the app reads), then the sets.
    let (pages, rest): (Vec<(String, String, String)>, _) = postcard::take_from_bytes(&bytes).expect("the pages unpack");
    let sets: Vec<catalog::accuracy_schema::SetAccuracy> = postcard::from_bytes(rest).expect("the sets unpack");
    assert_eq!(sets, file.set);
    assert_eq!(accuracy::sets(), file.set.as_slice());
    let [(en, zh, ru)] = pages.as_slice() else { panic!("{} pages", pages.len()) };
    for (lang, page) in [(Lang::En, en), (Lang::Zh, zh), (Lang::Ru, ru)] {
        for s in &file.set {
            // Each set's line (its name in this language and its row count) and its worst rows,
            // each with its source.
            let line = format!("<tr data-set=\"{}\"><th scope=\"row\">{}</th><td>{}</td><td>{}</td>", s.id, present::set_name(lang, &s.id), s.rows, s.sources);
            assert!(page.contains(&line), "{lang:?}: no line {line}");
            assert!(page.contains(&format!("<section class=\"accuracy-view__set\" data-set=\"{}\">", s.id)), "{lang:?} {}", s.id);
            for w in &s.worst {
                let escaped = w.source.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
                assert!(page.contains(&escaped), "{lang:?}: no source {}", w.source);
                assert!(!w.source.trim().is_empty(), "set {}", s.id);
            }
        }
    }
    assert!(en.contains("Leave one family out") && zh.contains("留一家族") && ru.contains("Без семейства"));
}

#[test]
fn sources_link_to_their_page() {
    use gpu_advisor::ui::components::accuracy_view::source_href;
    assert_eq!(
        source_href("github mlc-ai/llm-perf-bench README.md @d401356f").as_deref(),
        Some("https://github.com/mlc-ai/llm-perf-bench/blob/d401356f/README.md")
    );
    assert_eq!(source_href("github dstackai/benchmarks").as_deref(), Some("https://github.com/dstackai/benchmarks"));
    assert_eq!(
        source_href("https://github.com/ggml-org/llama.cpp/pull/14001 (description by rillomas 2025-06-04)").as_deref(),
        Some("https://github.com/ggml-org/llama.cpp/pull/14001")
    );
    assert_eq!(source_href("vendor datasheet, 2024"), None);
    assert_eq!(source_href("github not a repo"), None);
    // Every source of the file that names GitHub or a URL gets a link.
    for s in &file().set {
        for w in &s.worst {
            let linkable = w.source.starts_with("github ") || w.source.starts_with("http");
            assert_eq!(source_href(&w.source).is_some(), linkable, "{}", w.source);
        }
    }
}

#[test]
fn the_embedded_table_answers_each_pair_with_the_files_figure() {
    let file = file();
    let mut pairs = 0;
    for h in &file.held_out {
        let got = accuracy::held_out(&h.set, Some(&h.engine), &h.family);
        match h.set.as_str() {
            // The sets an estimate names for its own engine: the pair's figure, in per mille.
            "decode" | "serving" | "offload" => {
                let got = got.unwrap_or_else(|| panic!("{} / {} / {}", h.set, h.engine, h.family));
                pairs += 1;
                assert!(got.pair, "{} / {} / {}", h.set, h.engine, h.family);
                assert_eq!(got.rows, h.rows);
                assert!((got.median_error - h.median_error).abs() <= 0.0005 + 1e-12, "{} / {} / {}: {} against {}", h.set, h.engine, h.family, got.median_error, h.median_error);
            }
            // Training rows are grouped by framework, which the app does not choose: the set's
            // overall figure answers.
            "training" => assert!(!got.expect("training has a figure").pair, "{} / {}", h.set, h.engine),
            // No estimate names the other sets: the table leaves them out.
            _ => assert_eq!(got, None, "{} / {}", h.set, h.engine),
        }
    }
    assert!(pairs > 0, "no (set, engine, family) entry for decode, serving or offload");
    // A pair without rows falls back to the set's overall leave-one-family-out figure.
    let decode = file.set.iter().find(|s| s.id == "decode").expect("a decode set");
    let overall = accuracy::held_out("decode", Some("no-such-engine"), "NVIDIA HBM").expect("decode has a LOFO figure");
    assert!(!overall.pair);
    assert_eq!(overall.rows, decode.rows);
    assert!((overall.median_error - decode.lofo).abs() <= 0.0005 + 1e-12);
    assert_eq!(accuracy::held_out("no-such-set", None, "Apple"), None);
}

#[test]
fn cards_fall_into_the_harness_families() {
    for (id, family) in [
        ("h100-sxm", "NVIDIA HBM"),
        ("a100-80gb-pcie", "NVIDIA HBM"),
        ("rtx-4090", "NVIDIA GDDR"),
        ("rtx-a6000", "NVIDIA GDDR"),
        ("mi300x", "AMD Instinct"),
        ("ryzen-ai-max-395", "AMD Radeon"),
        ("arc-a770", "Intel Arc"),
    ] {
        let gpu = catalog::gpu(id).unwrap_or_else(|| panic!("card {id}"));
        assert_eq!(accuracy::family_of(gpu), family, "{id}");
    }
    for g in catalog::gpus() {
        let f = accuracy::family_of(g);
        assert!(["NVIDIA HBM", "NVIDIA GDDR", "AMD Instinct", "AMD Radeon", "Apple", "Intel Arc", "other"].contains(&f), "{}: {f}", g.id);
    }
}

#[test]
fn an_llm_option_names_the_held_out_error_of_its_engine_and_family() {
    // One user, vLLM: the decode figure of the card's own pair if it has one, else the set's
    // figure and a note that the pair has none.
    let job = LlmJob { engine: Some(Engine::Vllm), ..LlmJob::for_preset(catalog::llm("llama-3-8b").expect("preset")) };
    let input = RecommendInput::new(Job::Llm(Box::new(job)));
    let rec = recommend(&input).expect("recommend");
    let option = rec.options.first().expect("an option");
    let note = present::held_out(option, &input).expect("a held-out line");
    let family = accuracy::family_of(catalog::gpu(&option.gpu).expect("card"));
    let decode = accuracy::held_out("decode", Some("vllm"), family).expect("decode figure");
    let pct = gpu_advisor::decimal::fixed(decode.median_error * 100.0, 0);
    let expected = if decode.pair {
        format!("LLM decode, one request — vllm on {family}: {pct}% median error on {} held-out rows, leave-family-out", decode.rows)
    } else {
        format!("LLM decode, one request — vllm on {family}: no held-out rows for this pair; the set's {pct}% median error on {} rows, leave-family-out", decode.rows)
    };
    assert_eq!(note.to_string(), expected);
    // In Chinese and Russian too, set name included (the table is native).
    assert!(note.in_lang(Lang::Zh).starts_with("LLM 解码，单个请求 — vllm，"), "{}", note.in_lang(Lang::Zh));
    assert!(note.in_lang(Lang::Ru).starts_with("LLM: декодирование, один запрос — vllm на "), "{}", note.in_lang(Lang::Ru));
    // Many users (the job's batch is its users in flight): the serving set.
    let job = LlmJob { engine: Some(Engine::Vllm), batch: 32, ..LlmJob::for_preset(catalog::llm("llama-3-8b").expect("preset")) };
    let input = RecommendInput::new(Job::Llm(Box::new(job)));
    let rec = recommend(&input).expect("recommend");
    let note = present::held_out(rec.options.first().expect("an option"), &input).expect("a held-out line");
    assert!(note.to_string().starts_with("LLM serving, all users — vllm on "), "{note}");
    // Training names the training set's overall figure.
    let job = LlmJob { workload: Workload::Lora, ..LlmJob::for_preset(catalog::llm("llama-3-8b").expect("preset")) };
    let input = RecommendInput::new(Job::Llm(Box::new(job)));
    let rec = recommend(&input).expect("recommend");
    let note = present::held_out(rec.options.first().expect("an option"), &input).expect("a held-out line");
    assert!(note.to_string().starts_with("LLM training and fine-tuning speed — any framework on "), "{note}");
    assert!(note.to_string().contains("no held-out rows for this pair"), "{note}");
    assert!(note.in_lang(Lang::Zh).contains("任意框架") && note.in_lang(Lang::Ru).contains("любой фреймворк"));
}
