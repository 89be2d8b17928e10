//! Arbitrary text as a pasted Hugging Face `config.json`, then an estimate on an RTX 4090.
#![no_main]

use gpu_advisor::model::llm::{config_json::arch_from_config_json, estimate_llm, LlmJob};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let s = String::from_utf8_lossy(data);
    if let Ok(arch) = arch_from_config_json(&s) {
        let gpu = gpu_advisor::catalog::gpu("rtx-4090").expect("rtx-4090 is in the catalog");
        let mut job = LlmJob::default();
        job.model = arch;
        // Errors are fine; panics are not.
        let _ = estimate_llm(&job, gpu, 1);
    }
});
