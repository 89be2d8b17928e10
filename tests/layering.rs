//! The engine returns facts; the presentation layer writes sentences. `src/model` and
//! `src/recommend` never reach the interface languages: this test reads every `.rs` file under
//! them and fails when one names `crate::i18n` anywhere (a `use`, a path inside a function, a doc
//! link), or uses the name `i18n` in its code (`use crate::{catalog, i18n}`, `super::super::i18n`).
//! Comments may still say where translations live. Translated text belongs in `src/present`.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

/// The `.rs` files under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("read {}: {e}", d.display())) {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `line` without its `//` comment (a `//` inside a string literal is kept).
fn code_part(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

/// True when `code` uses `i18n` as a name (not as part of a longer one such as `my_i18n`).
fn names_i18n(code: &str) -> bool {
    names_word(code, "i18n")
}

/// True when `code` has `word` as a whole identifier.
fn names_word(code: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).any(|(at, m)| {
        let before = code[..at].chars().next_back();
        let after = code[at + m.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The lines of `src` that reach the interface languages, as `(line number, line)`.
fn violations(src: &str) -> Vec<(usize, String)> {
    src.lines()
        .enumerate()
        .filter(|(_, line)| line.contains("crate::i18n") || names_i18n(code_part(line)))
        .map(|(i, line)| (i + 1, line.trim().to_string()))
        .collect()
}

#[test]
fn the_checker_finds_every_form() {
    for bad in [
        "use crate::i18n::{num, Lang};",
        "use crate::i18n;",
        "    let s = crate::i18n::tf(lang, t, &pairs);",
        "pub fn for_lang(lang: crate::i18n::Lang) -> Currency {",
        "use crate::{catalog, i18n};",
        "use super::super::i18n::Lang;",
        "/// See [`crate::i18n::Lang`].",
    ] {
        assert_eq!(violations(bad).len(), 1, "missed: {bad}");
    }
    for fine in [
        "// Translations live in data/i18n.toml.",
        "let x = 1; // the i18n table",
        "let url = \"http://x\"; // i18n",
        "fn my_i18n_helper() {}",
    ] {
        assert!(violations(fine).is_empty(), "flagged: {fine}");
    }
}

#[test]
fn engine_does_not_import_i18n() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src/model", "src/recommend"] {
        files.extend(rust_files(&root.join(dir)));
    }
    assert!(files.len() > 20, "found only {} files under src/model and src/recommend", files.len());
    let mut found = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("read {}: {e}", f.display()));
        for (n, line) in violations(&src) {
            found.push(format!("{}:{n}: {line}", f.strip_prefix(root).unwrap_or(f).display()));
        }
    }
    assert!(
        found.is_empty(),
        "the engine (src/model, src/recommend) reaches the interface languages; write sentences in src/present instead:\n{}",
        found.join("\n")
    );
}

/// `make fuzz` runs without AddressSanitizer because no code of ours can corrupt memory: no
/// `unsafe` block, function or impl anywhere in `src/` (a comment may still say the word).
#[test]
fn no_unsafe_code_in_src() {
    assert!(
        names_word(code_part("let p = unsafe { f() };"), "unsafe"),
        "the checker must see an unsafe block"
    );
    assert!(
        !names_word(code_part("// no unsafe here"), "unsafe"),
        "comments are not code"
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = rust_files(&root.join("src"));
    assert!(
        files.len() > 50,
        "found only {} files under src",
        files.len()
    );
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| {
            let src =
                std::fs::read_to_string(f).unwrap_or_else(|e| panic!("read {}: {e}", f.display()));
            src.lines()
                .enumerate()
                .filter(|(_, line)| names_word(code_part(line), "unsafe"))
                .map(|(n, line)| {
                    format!(
                        "{}:{}: {}",
                        f.strip_prefix(root).unwrap_or(f).display(),
                        n + 1,
                        line.trim()
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        found.is_empty(),
        "unsafe code in src/ (then run `make fuzz FUZZ_SANITIZER=address`):\n{}",
        found.join("\n")
    );
}
