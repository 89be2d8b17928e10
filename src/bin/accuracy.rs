//! `make accuracy`: scores the engine on every calibration row (nested cross-validation, bands
//! set out of fold) and writes `docs/ACCURACY.md`; `--check` fails instead when the file differs
//! from what the code produces (run by `make test`).

use std::process::ExitCode;

/// The harness is native only (it reads the calibration files); the web build has nothing to run.
#[cfg(target_arch = "wasm32")]
fn main() -> ExitCode {
    ExitCode::SUCCESS
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> ExitCode {
    use std::path::Path;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let check = std::env::args().any(|a| a == "--check");
    let a = match gpu_advisor::accuracy::run(&root.join("tests/data/calibration")) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("accuracy: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(i) = std::env::args().position(|a| a == "--rows") {
        // Every scored row as CSV, for looking into the misses.
        let out = std::env::args().nth(i + 1).unwrap_or_else(|| "target/accuracy-rows.csv".into());
        let mut csv = String::from("set,label,source,family,generation,engine,measured,shipped,in_sample,lofo,loso,logo\n");
        for s in &a.sets {
            for r in &s.rows {
                csv.push_str(&format!(
                    "{},\"{}\",{},{},{},\"{}\",{},{},{},{},{},{}\n",
                    s.summary.set.id(), r.label.replace('"', "'"), r.source, r.family, r.generation, r.engine.replace('"', "'"), r.measured, r.raw, r.in_sample, r.held_out[0], r.held_out[1], r.held_out[2]
                ));
            }
        }
        if let Err(e) = std::fs::write(&out, csv) {
            eprintln!("accuracy: cannot write {out}: {e}");
            return ExitCode::FAILURE;
        }
        // The rows that are not scored, with the reason (the report counts them).
        for why in &a.skipped {
            println!("left out: {why}");
        }
        for why in &a.not_modelled {
            println!("not modelled: {why}");
        }
    }
    let mut files = vec![
        ("docs/ACCURACY.md".to_string(), gpu_advisor::accuracy::report::markdown(&a)),
        ("data/accuracy.toml".to_string(), gpu_advisor::accuracy::report::data_toml(&a)),
        ("src/model/bands.rs".to_string(), gpu_advisor::accuracy::report::bands_rs(&a)),
        ("src/model/llm/calibrated.rs".to_string(), gpu_advisor::accuracy::report::calibrated_rs(&a.llm_full)),
    ];
    for s in &a.sets {
        files.push((format!("docs/accuracy/{}.svg", s.summary.set.id()), gpu_advisor::accuracy::report::plot_svg(s)));
    }
    if !check {
        let _ = std::fs::create_dir_all(root.join("docs/accuracy"));
    }
    for (name, text) in &files {
        let path = root.join(name);
        if check {
            if std::fs::read_to_string(&path).unwrap_or_default() != *text {
                eprintln!("accuracy: {name} is stale: run `make accuracy` and commit it");
                return ExitCode::FAILURE;
            }
        } else if let Err(e) = std::fs::write(&path, text) {
            eprintln!("accuracy: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    if check {
        return ExitCode::SUCCESS;
    }
    print!("{}", gpu_advisor::accuracy::report::summary_table(&a));
    ExitCode::SUCCESS
}
