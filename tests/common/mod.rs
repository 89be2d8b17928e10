//! Helpers shared by the calibration tests (`calibration.rs`, `llm_crossval.rs`,
//! `media_calibration.rs`): reading the CSV files of `tests/data/calibration/`, the shapes their
//! rows name, and the median. Each test binary uses a part of it.
#![allow(dead_code)]

/// The data rows of a calibration CSV (header skipped), from `tests/data/calibration/` or, failing
/// that, `../shared/calibration/`.
pub fn read_csv(name: &str) -> Vec<Vec<String>> {
    let local = format!("{}/tests/data/calibration/{name}", env!("CARGO_MANIFEST_DIR"));
    let shared = format!("{}/../shared/calibration/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&local)
        .or_else(|_| std::fs::read_to_string(&shared))
        .unwrap_or_else(|e| panic!("cannot read {name} from {local} or {shared}: {e}"));
    text.lines().skip(1).filter(|l| !l.trim().is_empty()).map(split_csv).collect()
}

/// Splits one CSV line, honouring double quotes.
pub fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// LLaMA-1 30B ("Llama-33B" in the exllamav2 table), from huggyllama/llama-30b config.json.
pub const LLAMA_30B_CONFIG: &str = r#"{"model_type":"llama","hidden_size":6656,"intermediate_size":17920,
 "num_attention_heads":52,"num_hidden_layers":60,"vocab_size":32000,"max_position_embeddings":2048,
 "tie_word_embeddings":false}"#;

/// The median (NaN for no values).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
