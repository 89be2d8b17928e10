//! Every interface string exists in every language. The English text is the key; this test
//! collects every key the UI uses — each `t(lang, "…")` and `tf(lang, "…", …)` call in `src/ui`,
//! and the labels, units and nouns the UI translates from `src/state` — and proves that each has
//! a Chinese and a Russian entry in `data/i18n.toml` (build.rs already proves each entry has both).
#![cfg(not(target_arch = "wasm32"))]

use gpu_advisor::i18n::{self, t, tf, Lang};
use std::collections::BTreeSet;
use std::path::Path;

/// The string literal at the start of `text` (just after its opening quote), unescaped; `None`
/// when it is empty or not closed.
fn read_literal(text: &str) -> Option<String> {
    let mut lit = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    lit.push(match n { 'n' => '\n', other => other });
                }
            }
            '"' => return (!lit.is_empty()).then_some(lit),
            c => lit.push(c),
        }
    }
    None
}

/// The string literal that starts right after `prefix` at each occurrence in `text`.
fn literals_after(text: &str, prefix: &str, out: &mut BTreeSet<String>) {
    let mut rest = text;
    while let Some(pos) = rest.find(prefix) {
        rest = &rest[pos + prefix.len()..];
        out.extend(read_literal(rest));
    }
}

/// The text of every `t(<lang>, "…")` and `tf(<lang>, "…", …)` call in `text`, where `<lang>` is
/// `lang`, `props.lang`, `input.lang` or `fallback` and the call may span lines (rustfmt breaks long ones).
fn translated_literals(text: &str, out: &mut BTreeSet<String>) {
    for start in ["t(", "tf("] {
        let mut rest = text;
        while let Some(pos) = rest.find(start) {
            let before = rest[..pos].chars().next_back();
            rest = &rest[pos + start.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // part of a longer name, such as `format(` or `get_tf(`
            }
            let args = rest.trim_start();
            let Some(after_lang) = ["lang", "props.lang", "input.lang", "fallback"].iter().find_map(|l| args.strip_prefix(l)) else {
                continue;
            };
            let Some(after_comma) = after_lang.trim_start().strip_prefix(',') else { continue };
            if let Some(lit) = after_comma.trim_start().strip_prefix('"') {
                out.extend(read_literal(lit));
            }
        }
    }
}

fn rs_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every key the UI translates.
fn used_keys() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rs_files(&root.join("src/ui"), &mut files);
    // The presentation layer writes the recommender's reasons, why-not notes and notes in the
    // interface language.
    rs_files(&root.join("src/present"), &mut files);
    // Link notes and the remembered-settings notes.
    files.push(root.join("src/state/url.rs"));
    files.push(root.join("src/state/stored.rs"));
    let mut keys = BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        translated_literals(&text, &mut keys);
    }
    // The engine's assumption notes, the held-out error notes and the config.json problems:
    // `Note::new("template", …)` and `Note::plain("text")` in src/model, src/present and src/state.
    let mut model_files = Vec::new();
    rs_files(&root.join("src/model"), &mut model_files);
    rs_files(&root.join("src/present"), &mut model_files);
    rs_files(&root.join("src/state"), &mut model_files);
    // The engine's errors are notes too: `EstimateError::invalid(field, "text")` and a price
    // override's `bad(part, "text")` turn a plain text into one.
    rs_files(&root.join("src/recommend"), &mut model_files);
    for f in &model_files {
        let text = std::fs::read_to_string(f).unwrap();
        for call in ["Note::new(", "Note::plain("] {
            let mut rest = text.as_str();
            while let Some(pos) = rest.find(call) {
                rest = &rest[pos + call.len()..];
                if let Some(lit) = rest.trim_start().strip_prefix('"') {
                    keys.extend(read_literal(lit));
                }
            }
        }
        for call in ["EstimateError::invalid(", " bad("] {
            let mut rest = text.as_str();
            while let Some(pos) = rest.find(call) {
                rest = &rest[pos + call.len()..];
                // The message is the second argument: after the first comma outside brackets.
                let mut depth = 0i32;
                let comma = rest.char_indices().find(|&(_, c)| {
                    depth += match c { '(' | '[' => 1, ')' | ']' => -1, _ => 0 };
                    c == ',' && depth == 0 || depth < 0
                });
                if let Some((i, ',')) = comma {
                    if let Some(lit) = rest[i + 1..].trim_start().strip_prefix('"') {
                        keys.extend(read_literal(lit));
                    }
                }
            }
        }
    }
    // The advisor's field errors: `FieldError::new(field, "template", …)`.
    let advisor = std::fs::read_to_string(root.join("src/state/advisor.rs")).unwrap();
    let mut rest = advisor.as_str();
    while let Some(pos) = rest.find("FieldError::new(") {
        rest = &rest[pos + "FieldError::new(".len()..];
        if let Some(q) = rest.find('"').filter(|&q| !rest[..q].contains(')')) {
            keys.extend(read_literal(&rest[q + 1..]));
        }
    }
    // Keys translated indirectly, through a variable.
    let fields = std::fs::read_to_string(root.join("src/state/fields.rs")).unwrap();
    for p in ["label: \"", "unit: \"", "noun: \""] {
        literals_after(&fields, p, &mut keys);
    }
    literals_after(&fields, "tf(lang, \"", &mut keys);
    literals_after(&fields, "t(lang, if v > 0.0 { \"", &mut keys);
    let sizing = std::fs::read_to_string(root.join("src/state/sizing.rs")).unwrap();
    for p in ["label: \"", "unit: \""] {
        literals_after(&sizing, p, &mut keys);
    }
    let bar = std::fs::read_to_string(root.join("src/ui/components/memory_bar.rs")).unwrap();
    for term in ["\"weights\", \"", "\"kv\", \"", "\"activations\", \"", "\"gradients\", \"", "\"optimizer\", \"", "\"overhead\", \""] {
        literals_after(&bar, term, &mut keys);
    }
    // Labels the recommender translates through a variable: price sources, host kinds
    // (`t(lang, p.host.label())`) and rate-kind nouns (`t(lang, kind.noun())`).
    let cost_rs = std::fs::read_to_string(root.join("src/recommend/cost.rs")).unwrap();
    for p in ["PriceSource::Override => \"", "PriceSource::Street => \"", "PriceSource::Launch => \"", "HostKind::Integrated => \"", "HostKind::Desktop => \"", "HostKind::Workstation => \"", "HostKind::PcieServer => \"", "HostKind::BaseboardServer => \""] {
        literals_after(&cost_rs, p, &mut keys);
    }
    for s in ["output tokens", "tokens", "images", "samples"] {
        keys.insert(s.to_string());
    }
    // The form's workload names (`t(lang, present::workload_label(w))`).
    for w in gpu_advisor::model::llm::Workload::ALL {
        keys.insert(gpu_advisor::present::workload_label(w).to_string());
    }
    // … and the image, video and classic ones (`t(lang, present::media_workload_label(w))`).
    for w in gpu_advisor::model::media_job::MediaWorkload::ALL {
        keys.insert(gpu_advisor::present::media_workload_label(w).to_string());
    }
    // Units of the recommender's rate kinds (`t(lang, kind.unit())`).
    for s in ["consumer", "workstation", "datacenter", "no", "yes", "output tokens/s", "tokens/s", "training tokens/s", "images/s", "samples/s"] {
        keys.insert(s.to_string());
    }
    keys.retain(|k| !k.is_empty());
    keys
}

#[test]
fn every_ui_string_exists_in_every_language() {
    let table: BTreeSet<&str> = i18n::table().iter().map(|(en, _, _)| en.as_str()).collect();
    let missing: Vec<String> = used_keys().into_iter().filter(|k| !table.contains(k.as_str())).collect();
    assert!(missing.is_empty(), "{} UI strings have no zh/ru entry in data/i18n.toml:\n{}", missing.len(), missing.join("\n"));
    assert!(used_keys().len() > 100, "the scanner found too few keys: it is probably broken");
}

#[test]
fn lookups_translate_and_fill_placeholders() {
    // Hand-written expectations for two entries of data/i18n.toml.
    assert_eq!(t(Lang::En, "Compare cards"), "Compare cards");
    assert_ne!(t(Lang::Zh, "Compare cards"), "Compare cards");
    assert_ne!(t(Lang::Ru, "Compare cards"), "Compare cards");
    let ru = tf(Lang::Ru, "Show all {n} cards", &[("n", "74")]);
    assert!(ru.contains("74") && !ru.contains("{n}"), "{ru}");
    // Russian numbers: a no-break space groups thousands and a comma marks decimals.
    assert_eq!(i18n::num(Lang::Ru, 1234.5, 1), "1\u{a0}234,5");
    assert_eq!(i18n::num(Lang::Zh, 1234.5, 1), "1,234.5");
    assert_eq!(Lang::parse("zh-CN"), Some(Lang::Zh));
    assert_eq!(Lang::parse("ru_RU"), Some(Lang::Ru));
    assert_eq!(Lang::parse("de"), None);
}

/// Writes the keys that still lack an entry to `target/i18n-missing.txt` (a helper for translators).
#[test]
fn list_missing_keys_for_translators() {
    let table: BTreeSet<&str> = i18n::table().iter().map(|(en, _, _)| en.as_str()).collect();
    let missing: Vec<String> = used_keys().into_iter().filter(|k| !table.contains(k.as_str())).collect();
    let _ = std::fs::write(Path::new(env!("CARGO_MANIFEST_DIR")).join("target/i18n-missing.txt"), missing.join("\n"));
}

/// Every assumption line the engine writes reads in Chinese and Russian (its template has an
/// entry, so it differs from the English), and in English it is exactly its JSON text. Covers LLM
/// inference on several cards (a nested, translated layout: "tensor parallel ×{n}" is
/// "张量并行 ×{n}" in data/i18n.toml), LLM fine-tuning with ZeRO, image generation, image
/// fine-tuning and classic training and inference.
#[test]
fn assumptions_follow_the_language() {
    use gpu_advisor::catalog;
    use gpu_advisor::model::classic::{estimate_classic, ClassicJob, ClassicMode};
    use gpu_advisor::model::diffusion::{estimate_image, Finetune, ImageJob};
    use gpu_advisor::model::llm::{estimate_llm, LlmJob, Workload};
    use gpu_advisor::present::InLang;
    let gpu = |id: &str| catalog::gpu(id).unwrap();
    let llm = LlmJob::for_preset(catalog::llm("llama-3.1-70b").unwrap());
    let tuning = LlmJob { workload: Workload::FinetuneFull, zero: 3, ..LlmJob::for_preset(catalog::llm("llama-3.1-8b").unwrap()) };
    let mut dreambooth = ImageJob::new("sdxl").unwrap();
    dreambooth.finetune = Finetune::DreamBooth;
    let estimates = [
        estimate_llm(&llm, gpu("h100-sxm"), 2).unwrap(),
        estimate_llm(&tuning, gpu("a100-80gb-sxm"), 8).unwrap(),
        estimate_image(&ImageJob::new("flux.1-dev").unwrap(), gpu("rtx-4090"), 2).unwrap(),
        estimate_image(&dreambooth, gpu("rtx-4090"), 1).unwrap(),
        estimate_classic(&ClassicJob::new("resnet-50", ClassicMode::Train).unwrap(), gpu("rtx-3090"), 2).unwrap(),
        estimate_classic(&ClassicJob::new("whisper-large-v3", ClassicMode::Infer).unwrap(), gpu("l4"), 1).unwrap(),
    ];
    for e in &estimates {
        assert!(!e.assumptions.is_empty());
        for a in &e.assumptions {
            assert_eq!(a.in_lang(Lang::En), a.to_string());
            assert_eq!(serde_json::to_value(a).unwrap(), serde_json::Value::String(a.to_string()));
            assert_ne!(a.in_lang(Lang::Zh), a.to_string(), "no Chinese for: {a}");
            assert_ne!(a.in_lang(Lang::Ru), a.to_string(), "no Russian for: {a}");
        }
    }
    let layout = estimates[0].assumptions.iter().find(|a| a.starts_with("layout at 2 GPU(s): tensor parallel ×2")).unwrap();
    assert!(layout.in_lang(Lang::Zh).contains("张量并行 ×2"), "{}", layout.in_lang(Lang::Zh));
}

/// Counts take their plural form by the CLDR rules (unicode.org, "Language Plural Rules"):
/// English "1 user" but "0 users", "2 users"; Russian один for 1, 21, 101 (not 11), few for 2–4,
/// 22–24 (not 12–14), many otherwise; Chinese one form.
#[test]
fn counts_take_their_plural_form() {
    use gpu_advisor::i18n::{plural_form, Lang};
    assert_eq!([0, 1, 2, 11, 21].map(|n| plural_form(Lang::En, n)), [2, 0, 2, 2, 2]);
    assert_eq!([1, 21, 101, 11, 111].map(|n| plural_form(Lang::Ru, n)), [0, 0, 0, 2, 2]);
    assert_eq!([2, 3, 4, 22, 24, 12, 14, 5, 0, 25].map(|n| plural_form(Lang::Ru, n)), [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]);
    assert_eq!([1, 2, 5].map(|n| plural_form(Lang::Zh, n)), [2, 2, 2]);
    assert_eq!(gpu_advisor::i18n::users(Lang::En, 1), "1 user");
    assert_eq!(gpu_advisor::i18n::users(Lang::En, 4), "4 users");
    assert_eq!(gpu_advisor::i18n::users(Lang::Ru, 21), "21 пользователь");
    assert_eq!(gpu_advisor::i18n::users(Lang::Ru, 3), "3 пользователя");
    assert_eq!(gpu_advisor::i18n::users(Lang::Ru, 12), "12 пользователей");
    assert_eq!(gpu_advisor::i18n::users(Lang::Zh, 1), "1 个用户");
}

/// What an answer says of its options (the reasons under each, the assumptions behind its
/// estimate, the why-not list and the list's notes) is written in the reader's language: for a
/// dozen questions (buying, renting, training, images, video, offload, serving targets, owned and
/// mixed cards), every such line read in Chinese holds a CJK character and every one read in
/// Russian a Cyrillic one, and none keeps an English phrase of the templates. (Card and provider
/// names and units such as GiB stay as they are.)
#[test]
fn an_answers_sentences_are_in_the_readers_language() {
    use gpu_advisor::present::{self, InLang};
    use gpu_advisor::state::url;
    let questions = [
        "?model=llama-3.1-8b&budget=300", "?model=llama-3.1-70b&precision=fp8&mode=rent", "?model=sdxl&workload=dreambooth&budget=500",
        "?model=resnet-50&workload=training&max_gpus=1", "?model=wan2.1-t2v-14b&budget=1000", "?model=deepseek-v3&users=64&tps_user=20&ttft=1",
        "?model=llama-3.1-8b&workload=qlora&budget=2000&host=include", "?model=qwen2.5-vl-7b&images=4&max_w=100", "?model=llama-3.1-70b&workload=training&tp=8&pp=4",
        "?model=llama-3.1-8b&owned=rtx-3090:1", "?model=llama-3.1-8b&precision=q4_k_m&ram=64", "?model=sdxl&mode=rent", "?model=llama-3.1-8b&mix=rtx-4090:1,rtx-3090:1",
        "?model=llama-3.2-1b&workload=lora&train_tokens=10m",
    ];
    let english = [" the ", " and ", " per ", " with ", " is ", "GPU-hour", "needs ", "only ", " h ", " h,", " h)"];
    let mut bad = Vec::new();
    let mut lines_read = 0;
    for (lang, script) in [(Lang::Zh, (0x4E00u32, 0x9FFFu32)), (Lang::Ru, (0x0400, 0x04FF))] {
        for q in questions {
            let mut parsed = url::parse_in(q, lang);
            parsed.state.advisor.reader_lang = lang;
            let input = parsed.state.advisor.recommend_input().unwrap_or_else(|e| panic!("{q}: {e:?}"));
            let rec = gpu_advisor::recommend::recommend(&input).unwrap_or_else(|e| panic!("{q}: {e:?}"));
            let mut lines = present::why_not_all(&rec, &input, lang);
            for o in &rec.options {
                lines.extend(present::reasons(o, &input, lang));
                lines.extend(o.estimate.assumptions.iter().map(|a| a.in_lang(lang)));
            }
            lines.extend(rec.notes.iter().map(|n| present::note(n, &input, lang)));
            for line in lines {
                lines_read += 1;
                let in_script = line.chars().any(|c| (script.0..=script.1).contains(&(c as u32)));
                if !in_script || english.iter().any(|w| line.contains(w)) {
                    bad.push(format!("{lang:?} {q}: {line}"));
                }
            }
        }
    }
    assert!(lines_read > 500, "only {lines_read} lines read: the questions found too few options");
    assert!(bad.is_empty(), "{} lines not in the reader's language:\n{}", bad.len(), bad.join("\n"));
}
