//! Arbitrary `key=value` lines as the job's inputs, read twice: as the advisor's fields (the
//! key → value map the form and a link fill) and as `recommend`'s command-line flags
//! (`--key value`). Neither may panic; a job either path accepts must pass the engine's own
//! validation.
#![no_main]

use gpu_advisor::cli::recommend::parse_job;
use gpu_advisor::recommend::Job;
use gpu_advisor::state::advisor::{AdvisorInputs, Field};
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let pairs: Vec<(&str, &str)> = text.lines().map(|l| l.split_once('=').unwrap_or((l, ""))).collect();

    // The advisor's map: known keys set their field, `config` is a pasted config.json.
    let mut inputs = AdvisorInputs::default();
    for (key, value) in &pairs {
        match Field::from_key(key) {
            Some(field) => inputs.set(field, (*value).to_string()),
            None if *key == "config" => inputs.config_json = (*value).to_string(),
            None => {}
        }
    }
    if let Ok(Job::Llm(job)) = inputs.job() {
        assert!(job.validate().is_ok(), "the advisor accepted a job the engine rejects: {job:?}");
    }
    let _ = inputs.recommend_input();

    // The same lines as flags. `--config` reads a file, so it is left out.
    let mut args: Vec<OsString> = Vec::new();
    for (key, value) in pairs.iter().filter(|(k, _)| *k != "config") {
        args.push(format!("--{key}").into());
        if !value.is_empty() {
            args.push((*value).into());
        }
    }
    if let Ok(Some(Job::Llm(job))) = parse_job(args) {
        assert!(job.validate().is_ok(), "the flags gave a job the engine rejects: {job:?}");
    }
});
