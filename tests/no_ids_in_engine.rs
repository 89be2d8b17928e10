//! No catalog id in the engine. Behaviour that belongs to one card or one model lives in the
//! data files as a field with its source, applying to every entry it is true for (docs/MODEL.md,
//! "No ids in the engine"); `src/model` branches on fields and physics only. This test reads every
//! `id` of `data/gpus.toml`, `data/models.toml`, `data/diffusion.toml` and `data/classic.toml` and
//! fails when one appears as a string literal in the code of `src/model/**/*.rs` (comments may name
//! cards and models as examples or sources), or when code compares an id or a name with a literal
//! (`gpu.id.starts_with("gaudi")`, `spec.id.contains("schnell")`).
#![cfg(not(target_arch = "wasm32"))]

use gpu_advisor::catalog::schema;
use std::path::{Path, PathBuf};

/// Every catalog id, with the file it comes from.
fn catalog_ids() -> Vec<(String, &'static str)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("read {f}: {e}"));
    let gpus: schema::GpuFile = toml::from_str(&read("gpus.toml")).expect("gpus.toml");
    let models: schema::ModelFile = toml::from_str(&read("models.toml")).expect("models.toml");
    let diffusion: schema::DiffusionFile = toml::from_str(&read("diffusion.toml")).expect("diffusion.toml");
    let classic: schema::ClassicFile = toml::from_str(&read("classic.toml")).expect("classic.toml");
    let mut ids: Vec<(String, &'static str)> = Vec::new();
    ids.extend(gpus.gpu.into_iter().map(|g| (g.id, "gpus.toml")));
    ids.extend(models.model.into_iter().map(|m| (m.id, "models.toml")));
    ids.extend(diffusion.diffusion.into_iter().map(|d| (d.id, "diffusion.toml")));
    ids.extend(classic.classic.into_iter().map(|c| (c.id, "classic.toml")));
    ids
}

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

/// A string literal in code: its line, its text (escapes left as written) and the code just
/// before it on that line, with comments and earlier literals taken out.
#[derive(Debug)]
struct Literal {
    line: usize,
    text: String,
    before: String,
}

/// The string literals of Rust source `src` outside comments: `"…"`, byte strings and raw strings
/// (`r"…"`, `r#"…"#`); char literals and lifetimes are told apart, `//` and nested `/* */`
/// comments (doc comments included) skipped.
fn code_literals(src: &str) -> Vec<Literal> {
    let chars: Vec<char> = src.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let mut code_on_line = String::new();
    while i < chars.len() {
        let c = at(i);
        if c == '\n' {
            line += 1;
            code_on_line.clear();
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && at(i) != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if at(i) == '\n' {
                        line += 1;
                        code_on_line.clear();
                    }
                    i += 1;
                }
            }
        } else if c == '"' || ((c == 'r' || c == 'b') && !is_ident(at(i.wrapping_sub(1))) && starts_string(&chars, i)) {
            // Prefix (b, r, br) and the raw string's hashes.
            let mut j = i;
            let mut raw = false;
            while at(j) == 'b' || at(j) == 'r' {
                raw |= at(j) == 'r';
                j += 1;
            }
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1; // the opening quote
            let start_line = line;
            let mut text = String::new();
            while j < chars.len() {
                let d = at(j);
                if d == '\\' && !raw {
                    if at(j + 1) == '\n' {
                        line += 1;
                    }
                    text.push(d);
                    text.push(at(j + 1));
                    j += 2;
                    continue;
                }
                if d == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                if d == '\n' {
                    line += 1;
                }
                text.push(d);
                j += 1;
            }
            out.push(Literal { line: start_line, text, before: code_on_line.clone() });
            code_on_line.push_str("\"\"");
            i = j;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\'', '"') or a lifetime ('a).
            if at(i + 1) == '\\' {
                let mut j = i + 3;
                while j < chars.len() && at(j) != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                code_on_line.push(c);
                i += 1;
            }
            code_on_line.push_str("' '");
        } else {
            code_on_line.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// True when a `b`/`r` at `i` opens a byte or raw string (`b"`, `r"`, `r#"`, `br"`, `br#"`).
fn starts_string(chars: &[char], i: usize) -> bool {
    let mut j = i;
    while chars.get(j).is_some_and(|c| *c == 'b' || *c == 'r') && j < i + 2 {
        j += 1;
    }
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    chars.get(j) == Some(&'"')
}

/// Calls and comparisons that test an id or a name against a literal.
const ID_TESTS: [&str; 12] = [
    "id.starts_with(",
    "id.ends_with(",
    "id.contains(",
    "id.strip_prefix(",
    "id ==",
    "id !=",
    "id.as_str() ==",
    "name.starts_with(",
    "name.ends_with(",
    "name.contains(",
    "name ==",
    "name.as_str() ==",
];

/// Every problem in one file's source: a literal equal to a catalog id, or a literal an id or a
/// name is tested against.
fn problems_in(file: &str, src: &str, ids: &[(String, &'static str)]) -> Vec<String> {
    let mut out = Vec::new();
    for lit in code_literals(src) {
        if let Some((id, data)) = ids.iter().find(|(id, _)| *id == lit.text) {
            out.push(format!("{file}:{}: \"{id}\" is an id of data/{data}", lit.line));
        }
        let before = lit.before.trim_end();
        let tests_id = |t: &&&str| {
            let t = t.trim_end();
            before.ends_with(t) && !before[..before.len() - t.len()].ends_with(is_ident)
        };
        if let Some(test) = ID_TESTS.iter().find(tests_id) {
            out.push(format!("{file}:{}: `{test}\"{}\"` tests an id or a name against a literal", lit.line, lit.text));
        }
    }
    out
}

#[test]
fn no_catalog_id_in_engine_code() {
    let ids = catalog_ids();
    assert!(ids.len() > 150, "read only {} ids from the data files", ids.len());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = rust_files(&root.join("src/model"));
    assert!(files.len() > 20, "found only {} files under src/model", files.len());
    let mut problems = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        let name = path.strip_prefix(root).unwrap_or(path).display().to_string();
        problems.extend(problems_in(&name, &src, &ids));
    }
    assert!(
        problems.is_empty(),
        "src/model branches on catalog ids; move the behaviour into a data field with its source:\n  {}",
        problems.join("\n  ")
    );
}

/// The scanner finds ids in code, and only there: the check above can fail.
#[test]
fn the_scanner_finds_ids_in_code_and_only_there() {
    let ids = vec![("rtx-4090".to_string(), "gpus.toml"), ("sdxl".to_string(), "diffusion.toml")];
    let src = r##"
//! Module doc naming "rtx-4090" as an example.
/// A doc line: `"sdxl"`.
fn f(gpu: &Gpu, spec: &Spec) -> f64 {
    /* a block comment with "rtx-4090" /* nested "sdxl" */ still comment */
    let quote = '"';
    let life: &'static str = "rtx-4090";
    if gpu.id.starts_with("gaudi") { return 1.0; } // a trailing comment: "sdxl"
    let raw = r#"not an id: rtx-4090 inside text"#;
    let escaped = "say \"sdxl\"";
    match spec.family.as_str() { "sdxl" => 2.0, _ => 0.0 }
}
"##;
    let problems = problems_in("example.rs", src, &ids);
    let joined = problems.join("\n");
    assert_eq!(problems.len(), 3, "{joined}");
    assert!(problems[0].starts_with("example.rs:7: \"rtx-4090\""), "{joined}");
    assert!(problems[1].starts_with("example.rs:8: `id.starts_with(\"gaudi\"`"), "{joined}");
    assert!(problems[2].starts_with("example.rs:11: \"sdxl\""), "{joined}");
}

/// The fields that replace the engine's id tests hold their invariants, and build.rs rejects a
/// broken copy, naming it.
#[test]
fn the_fields_that_replace_ids_are_validated() {
    use gpu_advisor::catalog::{self, Vendor};
    let c = catalog::catalog();
    assert_eq!(schema::validate_gpus(&c.gpus), Vec::<String>::new());
    assert_eq!(schema::validate_models(&c.llms, &c.diffusion, &c.classic), Vec::<String>::new());

    // One sustained-clock reference per NVIDIA architecture and memory class that had one before
    // the rule moved into the data (docs/MODEL.md, "Sustained clocks").
    let mut refs: Vec<(&str, bool, &str)> =
        c.gpus.iter().filter(|g| g.sustained_clock_reference).map(|g| (g.architecture.as_str(), g.has_hbm(), g.id.as_str())).collect();
    refs.sort();
    let expected = [
        ("Ada Lovelace", false, "rtx-4090"),
        ("Ampere", false, "rtx-3090"),
        ("Ampere", true, "a100-80gb-sxm"),
        ("Blackwell", false, "rtx-5090"),
        ("Blackwell", true, "b200"),
        ("Hopper", true, "h100-sxm"),
        ("Turing", false, "titan-rtx"),
        ("Volta", true, "v100-sxm2-16gb"),
    ];
    assert_eq!(refs, expected);
    // A second reference in a class, and a measured GEMM clock without or above its boost clock.
    let mut second = catalog::gpu("rtx-4090d").expect("rtx-4090d").clone();
    second.sustained_clock_reference = true;
    let mut gpus = c.gpus.clone();
    gpus.push(second);
    let errors = schema::validate_gpus(&gpus).join("\n");
    assert!(errors.contains("rtx-4090d") && errors.contains("second sustained_clock_reference") && errors.contains("rtx-4090"), "{errors}");
    let mut mi = catalog::gpu("mi300x").expect("mi300x").clone();
    assert_eq!(mi.vendor, Vendor::Amd);
    mi.boost_clock_mhz = None;
    assert!(schema::validate_gpus(std::slice::from_ref(&mi)).join("\n").contains("gemm_clock_mhz needs boost_clock_mhz"));
    mi.boost_clock_mhz = Some(1000);
    assert!(schema::validate_gpus(std::slice::from_ref(&mi)).join("\n").contains("must not exceed boost_clock_mhz"));
    // A measured GEMM rate above the 16-bit rate it is read against, or without one.
    let mut apu = catalog::gpu("ryzen-ai-max-395").expect("ryzen-ai-max-395").clone();
    apu.gemm_tflops = Some(60.0);
    assert!(schema::validate_gpus(std::slice::from_ref(&apu)).join("\n").contains("gemm_tflops (60) must not exceed"));
    (apu.bf16_tflops, apu.fp16_tflops) = (None, None);
    assert!(schema::validate_gpus(std::slice::from_ref(&apu)).join("\n").contains("gemm_tflops needs bf16_tflops or fp16_tflops"));

    // Exactly one default LLM; every image preset has its geometry; classic networks are named.
    let mut llms = c.llms.clone();
    for m in &mut llms {
        m.default_job_model = true;
    }
    assert!(schema::validate_models(&llms, &c.diffusion, &c.classic).join("\n").contains("exactly one preset needs default_job_model"));
    let mut diffusion = c.diffusion.clone();
    let sdxl = diffusion.iter_mut().find(|d| d.id == "sdxl").expect("sdxl");
    sdxl.attention_heads = None;
    sdxl.dit_width = Some(3072);
    let errors = schema::validate_models(&c.llms, &diffusion, &c.classic).join("\n");
    assert!(errors.contains("diffusion `sdxl`: image presets need") && errors.contains("a UNet needs traffic_width"), "{errors}");
    let classic = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/classic.toml")).expect("classic.toml");
    assert!(toml::from_str::<schema::ClassicFile>(&classic).is_ok());
    let broken = classic.replacen("network = \"convnet\"", "network = \"cnn\"", 1);
    assert!(toml::from_str::<schema::ClassicFile>(&broken).is_err(), "a network other than transformer or convnet must not load");
}
