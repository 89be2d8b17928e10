//! Weight and KV-cache number formats (to be completed by the LLM sizing work).

use serde::{Deserialize, Serialize};

/// How model weights are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    Fp32,
    Tf32,
    Fp16,
    Bf16,
    Fp8,
    Int8,
    Int4,
    Nf4,
    Q2K,
    Q3KM,
    Q40,
    Q4KM,
    Q5KM,
    Q6K,
    Q80,
}
