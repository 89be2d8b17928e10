//! The command line's flags and the app's URL keys are one table (`cli::keys`): every flag the
//! table lists is one `estimate` or `recommend` takes, every sizing flag is in it, every advisor
//! input's URL key has its flag, and README.md shows the table as the code writes it.

use gpu_advisor::cli::keys::{readme_table, sizing_flags, FLAG_URL_KEYS};
use gpu_advisor::state::advisor::Field;
use std::ffi::OsString;

/// The error `command --flag x` prints (empty when it ran).
fn error_of(command: &str, flag: &str) -> String {
    let args: Vec<OsString> = [command, &format!("--{flag}"), "x"].iter().map(OsString::from).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    gpu_advisor::cli::run(args, &mut out, &mut err);
    String::from_utf8_lossy(&err).into_owned()
}

#[test]
fn every_listed_flag_is_one_a_command_takes() {
    for (flag, _) in FLAG_URL_KEYS {
        // lexopt's message for a flag a command does not know: "invalid option '--flag'".
        let unknown = format!("invalid option '--{flag}'");
        let taken = ["estimate", "recommend"].iter().any(|c| !error_of(c, flag).contains(&unknown));
        assert!(taken, "--{flag} is in the table but neither command takes it");
    }
    // The check can fail: a made-up flag is refused by both.
    assert!(error_of("recommend", "no-such-flag").contains("invalid option '--no-such-flag'"));
}

#[test]
fn every_sizing_flag_is_listed() {
    let listed: Vec<&str> = FLAG_URL_KEYS.iter().map(|(f, _)| *f).collect();
    let missing: Vec<&&str> = sizing_flags().iter().filter(|f| !listed.contains(f)).collect();
    assert!(missing.is_empty(), "sizing flags missing from cli::keys: {missing:?}");
}

#[test]
fn every_advisor_input_has_its_flag() {
    let keys: Vec<&str> = FLAG_URL_KEYS.iter().filter_map(|(_, k)| *k).collect();
    let url_only: Vec<&str> = Field::ALL.iter().map(|f| f.key()).filter(|k| !keys.contains(k)).collect();
    assert!(url_only.is_empty(), "URL keys without a command-line flag: {url_only:?}");
    // And the table names no URL key the app does not read (the two constraint keys are the
    // app's own checkboxes, read by the link parser).
    for k in keys {
        assert!(Field::from_key(k).is_some() || ["need_nvlink", "dc_only"].contains(&k), "`{k}` is not a URL key");
    }
}

#[test]
fn the_readme_shows_the_table() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md");
    assert!(readme.contains(&readme_table()), "README.md's flag table differs from cli::keys; paste this:\n{}", readme_table());
}

/// The lines of `job`'s pretty `Debug` that differ from `base`'s: what one input changed.
fn changed(base: &gpu_advisor::recommend::Job, job: &gpu_advisor::recommend::Job) -> Vec<String> {
    let (b, j) = (format!("{base:#?}"), format!("{job:#?}"));
    let before: Vec<&str> = b.lines().collect();
    let mut out: Vec<String> = j.lines().filter(|l| !before.contains(l)).map(str::to_string).collect();
    out.sort();
    out
}

/// The job `recommend --model … --workload … [--flag value]` describes.
fn cli_job(model: &str, workload: &str, extra: Option<(&str, &str)>) -> gpu_advisor::recommend::Job {
    let mut args: Vec<String> = ["--model", model, "--workload", workload].map(String::from).to_vec();
    if let Some((flag, value)) = extra {
        args.extend([format!("--{flag}"), value.to_string()]);
    }
    let args: Vec<OsString> = args.into_iter().map(OsString::from).collect();
    match gpu_advisor::cli::recommend::parse_job(args) {
        Ok(Some(job)) => job,
        other => panic!("{model} {workload} {extra:?}: {:?}", other.map(|_| ()).map_err(|e| e.to_string())),
    }
}

/// The job the advisor's map (a link's or the form's keys) describes.
fn app_job(model: &str, workload: &str, extra: Option<(&str, &str)>) -> gpu_advisor::recommend::Job {
    let mut inputs = gpu_advisor::state::advisor::AdvisorInputs::default();
    inputs.set(Field::Model, model.into());
    inputs.set(Field::Workload, workload.into());
    if let Some((key, value)) = extra {
        inputs.set(Field::from_key(key).expect("a URL key"), value.into());
    }
    match inputs.job() {
        Ok(job) => job,
        Err(e) => panic!("{model} {workload} {extra:?}: {:?}", e.iter().map(|e| e.message.clone()).collect::<Vec<_>>()),
    }
}

/// A flag and its URL key are one input: each changes the job in the same way, whichever door it
/// comes through (the layout a cluster planner fixes, the training numerics, the serving engine's
/// switches). The expected change is spelled out too, so a key both doors ignore fails.
#[test]
fn a_flag_and_its_url_key_change_the_job_alike() {
    let train = ("llama-3.1-70b", "training");
    let serve = ("qwen3-30b-a3b", "inference");
    let cases: [((&str, &str), &str, &str, &str); 11] = [
        (train, "tp", "8", "tp: 8"),
        (train, "cp", "2", "cp: 2"),
        (train, "pp", "4", "pp: 4"),
        (train, "vp", "2", "interleave: 2"),
        (train, "grad-accum", "4", "grad_accum: 4"),
        (train, "global-batch", "512", "512"),
        (train, "nic-gbit-s", "400", "400.0"),
        (train, "master-weights", "off", "master_weights: false"),
        (train, "optimizer-in-backward", "on", "optimizer_in_backward: true"),
        (serve, "cuda-graphs", "off", "false"),
        (serve, "moe-layout", "ep", "moe_layout: Expert"),
    ];
    for ((model, workload), flag, value, expected) in cases {
        let key = FLAG_URL_KEYS.iter().find(|(f, _)| *f == flag).and_then(|(_, k)| *k).expect("the flag has a URL key");
        let by_flag = changed(&cli_job(model, workload, None), &cli_job(model, workload, Some((flag, value))));
        let by_key = changed(&app_job(model, workload, None), &app_job(model, workload, Some((key, value))));
        assert_eq!(by_flag, by_key, "--{flag} {value} and {key}={value} change different things");
        assert!(by_key.iter().any(|l| l.contains(expected)), "{key}={value} did not set `{expected}`: {by_key:?}");
    }
}

/// One map, one set of defaults: a command and a link that give the same inputs describe the same
/// job, field for field, including everything they leave out (the app's defaults: bf16, a 1,024-
/// token prompt and 256 out, an 8,192-token cache capped at the model's window, transformers'
/// numerics). Llama 2 7B's window is 4,096 tokens (its config.json's max_position_embeddings), so
/// its cache is 4,096, not 8,192.
#[test]
fn a_command_and_a_link_with_the_same_inputs_make_the_same_job() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 6] = [
        ("llama-3.1-8b", "inference", &[]),
        ("llama-2-7b", "inference", &[("users", "8")]),
        ("qwen3-30b-a3b", "inference", &[("kv-precision", "fp8"), ("moe-layout", "ep"), ("ram-gib", "64")]),
        ("llama-3.1-70b", "training", &[("tp", "8"), ("pp", "4"), ("seq-len", "8192"), ("framework", "megatron")]),
        ("llama-3.1-8b", "finetune-full", &[("framework", "torchtune"), ("optimizer", "adamw-8bit")]),
        ("llama-3.1-8b", "lora", &[("lora-rank", "64"), ("grad-checkpointing", "full")]),
    ];
    for (model, workload, extra) in cases {
        let mut args: Vec<String> = ["--model", model, "--workload", workload].map(String::from).to_vec();
        let mut inputs = gpu_advisor::state::advisor::AdvisorInputs::default();
        inputs.set(Field::Model, model.into());
        inputs.set(Field::Workload, workload.into());
        for (flag, value) in extra {
            args.extend([format!("--{flag}"), value.to_string()]);
            let key = FLAG_URL_KEYS.iter().find(|(f, _)| f == flag).and_then(|(_, k)| *k).expect("a URL key");
            inputs.set(Field::from_key(key).expect("an advisor input"), value.to_string());
        }
        let args: Vec<OsString> = args.into_iter().map(OsString::from).collect();
        let by_command = gpu_advisor::cli::recommend::parse_job(args).expect("valid flags").expect("a job");
        let by_link = inputs.job().expect("valid inputs");
        assert_eq!(format!("{by_command:?}"), format!("{by_link:?}"), "{model} {workload} {extra:?}");
    }
    let plain = app_job("llama-2-7b", "inference", None);
    let gpu_advisor::recommend::Job::Llm(job) = plain else { panic!("an LLM job") };
    assert_eq!((job.context_tokens, job.prompt_tokens, job.output_tokens), (4096, 1024, 256));
    assert_eq!(job.precision, gpu_advisor::model::precision::Precision::Bf16);
}
