//! Compiles the catalogs into the binary: parses `data/*.toml`, validates every entry (a bad row
//! fails the build with a message naming it), and packs the result with postcard into
//! `$OUT_DIR/catalog.bin`, which `src/catalog/mod.rs` embeds. No TOML parser ships to the browser.

#[path = "src/catalog/schema.rs"]
#[allow(dead_code)]
mod schema;

use std::path::{Path, PathBuf};

fn load<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> T {
    let path = dir.join(name);
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not a valid catalog: {e}", path.display()))
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
    if !errors.is_empty() {
        panic!("the catalog has {} error(s):\n  {}", errors.len(), errors.join("\n  "));
    }

    let bundle = (gpus.gpu, models.model, diffusion.diffusion, classic.classic);
    let bytes = postcard::to_allocvec(&bundle).expect("postcard packs the catalog");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("catalog.bin");
    std::fs::write(&out, bytes).expect("write catalog.bin");
}
