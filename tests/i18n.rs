//! Every interface string exists in every language. The English text is the key; this test
//! collects every key the UI uses — each `t(lang, "…")` and `tf(lang, "…", …)` call in `src/ui`,
//! and the labels, units and nouns the UI translates from `src/state` — and proves that each has
//! a Chinese and a Russian entry in `data/i18n.toml` (build.rs already proves each entry has both).
#![cfg(not(target_arch = "wasm32"))]

use gpu_advisor::i18n::{self, t, tf, Lang};
use std::collections::BTreeSet;
use std::path::Path;

/// The string literal that starts right after `prefix` at each occurrence in `text`.
fn literals_after(text: &str, prefix: &str, out: &mut BTreeSet<String>) {
    let mut rest = text;
    while let Some(pos) = rest.find(prefix) {
        let after = &rest[pos + prefix.len()..];
        let mut lit = String::new();
        let mut chars = after.chars();
        let mut closed = false;
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        lit.push(match n { 'n' => '\n', other => other });
                    }
                }
                '"' => {
                    closed = true;
                    break;
                }
                c => lit.push(c),
            }
        }
        if closed && !lit.is_empty() {
            out.insert(lit);
        }
        rest = after;
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
    let mut keys = BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        literals_after(&text, "t(lang, \"", &mut keys);
        literals_after(&text, "tf(lang, \"", &mut keys);
        literals_after(&text, "t(props.lang, \"", &mut keys);
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
