//! `make accuracy`: scores the engine on every calibration row (nested cross-validation, bands
//! set out of fold) and writes `docs/ACCURACY.md`; `--check` fails instead when the file differs
//! from what the code produces (run by `make test`).

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
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
                    "{},\"{}\",{},{},{},{},{},{},{},{},{},{}\n",
                    s.summary.set.id(), r.label.replace('"', "'"), r.source, r.family, r.generation, r.engine, r.measured, r.raw, r.in_sample, r.held_out[0], r.held_out[1], r.held_out[2]
                ));
            }
        }
        if let Err(e) = std::fs::write(&out, csv) {
            eprintln!("accuracy: cannot write {out}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let md = gpu_advisor::accuracy::report::markdown(&a);
    let path = root.join("docs/ACCURACY.md");
    if check {
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk != md {
            eprintln!("accuracy: docs/ACCURACY.md is stale: run `make accuracy` and commit it");
            return ExitCode::FAILURE;
        }
        return ExitCode::SUCCESS;
    }
    if let Err(e) = std::fs::write(&path, &md) {
        eprintln!("accuracy: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    print!("{}", gpu_advisor::accuracy::report::summary_table(&a));
    ExitCode::SUCCESS
}
