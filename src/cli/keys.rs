//! The command line's flags beside the app's URL keys: one table, so that a command and a link can
//! ask the same question. Each flag of `estimate` and `recommend` is listed with the URL key that
//! sets the same input, or none where only the command line has it; `tests/cli_keys.rs` checks the
//! table against both commands and `Field::ALL`, and that README.md's table is this one.

/// `(flag without --, URL key)`, in the order of the README's table.
pub const FLAG_URL_KEYS: &[(&str, Option<&str>)] = &[
    // The job.
    ("model", Some("model")),
    ("params", Some("params")),
    ("config", None),
    ("workload", Some("workload")),
    ("precision", Some("precision")),
    ("kv-precision", Some("kv")),
    ("engine", Some("engine")),
    ("backend", Some("backend")),
    ("context", Some("context")),
    ("prompt-tokens", Some("prompt")),
    ("output-tokens", Some("output")),
    ("users", Some("users")),
    ("batch", Some("batch")),
    ("seq-len", Some("seq_len")),
    ("images", Some("images")),
    ("image-resolution", Some("image_res")),
    ("resolution", Some("resolution")),
    ("steps", Some("steps")),
    ("frames", Some("frames")),
    ("offload-mode", Some("offload_mode")),
    ("fp32-math", Some("fp32_math")),
    // Training.
    ("optimizer", Some("optimizer")),
    ("grad-checkpointing", Some("ckpt")),
    ("lora-rank", Some("lora_rank")),
    ("zero", Some("zero")),
    ("grad-accum", Some("grad_accum")),
    ("framework", Some("framework")),
    ("master-weights", Some("master_weights")),
    ("optimizer-in-backward", Some("opt_in_backward")),
    ("tp", Some("tp")),
    ("cp", Some("cp")),
    ("pp", Some("pp")),
    ("vp", Some("vp")),
    ("ep", Some("ep")),
    ("global-batch", Some("global_batch")),
    ("nic-gbit-s", Some("nic_gbit_s")),
    ("train-tokens", Some("train_tokens")),
    ("deadline-days", Some("deadline_days")),
    // Serving.
    ("target-tokens-per-s-per-user", Some("tps_user")),
    ("max-ttft-s", Some("ttft")),
    ("arrival-rate", Some("rate_rps")),
    ("prefix-hit", Some("prefix_hit")),
    ("spec-decode", Some("spec")),
    ("spec-accept", Some("spec_accept")),
    ("arrivals", Some("arrivals")),
    ("cuda-graphs", Some("cuda_graphs")),
    ("moe-layout", Some("moe_layout")),
    ("disagg", Some("disagg")),
    ("api-price", Some("api_price")),
    // Home lab.
    ("ram-gib", Some("ram")),
    ("ram-gb-s", Some("ram_bw")),
    ("offload", Some("offload")),
    ("gpu-share-gib", Some("gpu_share")),
    // Cards.
    ("gpu", None),
    ("gpus", None),
    ("mix", Some("mix")),
    ("owned", Some("owned")),
    ("max-gpus", Some("max_gpus")),
    ("max-watts", Some("max_w")),
    ("require-nvlink", Some("need_nvlink")),
    ("datacenter-only", Some("dc_only")),
    ("region", Some("region")),
    ("headroom", Some("headroom")),
    // Budget and costs.
    ("budget-usd", Some("budget")),
    ("budget-usd-per-hour", Some("budget")),
    ("budget-usd-per-month", None),
    ("mode", Some("mode")),
    ("objective", Some("objective")),
    ("months", Some("months")),
    ("hours-per-day", Some("hours")),
    ("usd-per-kwh", Some("kwh")),
    ("utilisation", Some("util")),
    ("pue", Some("pue")),
    ("price-basis", Some("price_basis")),
    ("rent-basis", Some("rent")),
    ("prices", Some("prices")),
    ("complete-machine", Some("host")),
    ("no-host", Some("host")),
    ("currency", Some("currency")),
    ("rate", Some("rate")),
    // Output.
    ("top", None),
    ("all-counts", None),
    ("json", None),
];

/// README.md's table of the flags and their URL keys, as this table writes it.
pub fn readme_table() -> String {
    let mut out = String::from("| command-line flag | URL key |\n|---|---|\n");
    for (flag, key) in FLAG_URL_KEYS {
        let key = key.map_or_else(|| "— (command line only)".to_string(), |k| format!("`{k}`"));
        out.push_str(&format!("| `--{flag}` | {key} |\n"));
    }
    out
}

/// Every sizing flag `estimate` and `recommend` share, without its `--`.
pub fn sizing_flags() -> &'static [&'static str] {
    &super::flags::SizingArgs::FLAGS
}
