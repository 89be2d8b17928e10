#![cfg(not(target_arch = "wasm32"))]
//! The 2025 presets of issue 14: parameter counts against their model cards, each pasted
//! `config.json` (tests/data/configs/, the sizing keys of the Hugging Face file named in its
//! `_source`) against its preset, and the memory checks the acceptance lists.

use gpu_advisor::catalog;
use gpu_advisor::model::llm::{config_json, ModelArch};

fn config(id: &str) -> ModelArch {
    let path = format!("{}/tests/data/configs/{id}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    config_json::parse_config_json(&text).unwrap_or_else(|n| panic!("{id}: {n}"))
}

#[test]
#[ignore]
fn print_parsed_configs() {
    let dir = format!("{}/tests/data/configs", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(dir).expect("dir").map(|e| e.expect("entry").file_name().to_string_lossy().replace(".json", "")).collect();
    names.sort();
    for n in names {
        let m = config(&n);
        println!(
            "{n}: total {:.3}B active {:.3}B embed {:.3}B layers {} inter {} experts {}/{} width {} dense {} window {:?} frac {:.4} state {} x {}",
            m.params_total / 1e9, m.params_active / 1e9, m.embedding_params() / 1e9, m.layers, m.intermediate_size, m.experts_total, m.experts_active,
            m.moe_intermediate_size, m.dense_layers, m.sliding_window, m.sliding_window_layers_fraction, m.fixed_state_layers, m.fixed_state_elements_per_layer
        );
    }
}
