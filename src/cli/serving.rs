//! The serving block of `estimate`: its JSON keys (`throughput.per_user_tokens_per_s`,
//! `throughput.aggregate_tokens_per_s`, `throughput.ttft_s`, `serving{users, capacity, max_users,
//! curve}`, plus `replicas`, `gpus_per_replica`, `prefill_replicas` and `kv_transfer_s`) added to the estimate's object, and the table
//! lines.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use super::{write_str, CliError};
use crate::model::llm::serving::ServingReport;
use crate::model::Estimate;
use serde_json::{json, Value};
use std::io::Write;

/// A serving report and the deployment it is for.
pub struct Served {
    pub report: ServingReport,
    pub replicas: u32,
    pub gpus_per_replica: u32,
}

/// The estimate as JSON with the serving keys (null when there is no report).
pub fn print_json(est: &Estimate, served: Option<&Served>, out: &mut dyn Write) -> Result<(), CliError> {
    let report = served.map(|s| &s.report);
    let mut v = serde_json::to_value(est).map_err(|e| CliError(e.to_string()))?;
    if let Some(t) = v.get_mut("throughput").and_then(Value::as_object_mut) {
        t.insert("per_user_tokens_per_s".into(), json!(report.map(|r| r.per_user_tokens_per_s)));
        t.insert("aggregate_tokens_per_s".into(), json!(report.map(|r| r.aggregate_tokens_per_s)));
        t.insert("ttft_s".into(), json!(report.and_then(|r| r.ttft_s)));
    }
    if let Some(o) = v.as_object_mut() {
        let serving = served.map_or(Value::Null, |s| {
            let r = &s.report;
            json!({ "users": r.users, "capacity": r.capacity, "max_users": r.max_users, "curve": r.curve,
                    "replicas": s.replicas, "gpus_per_replica": s.gpus_per_replica,
                    "prefill_replicas": r.prefill_replicas, "kv_transfer_s": r.kv_transfer_s })
        });
        o.insert("serving".into(), serving);
    }
    let text = serde_json::to_string_pretty(&v).map_err(|e| CliError(e.to_string()))?;
    write_str(out, &format!("{text}\n"))
}

/// The table lines of a serving report.
pub fn table(served: &Served) -> String {
    let r = &served.report;
    let b = |x: crate::model::Band| format!("{:.1} ({:.1}–{:.1})", x.mid, x.low, x.high);
    let mut s = format!(
        "serving  {:.0} user(s) in flight of {} the build holds: {} output tokens/s per user, {} in total\n",
        r.users,
        r.capacity,
        b(r.per_user_tokens_per_s),
        b(r.aggregate_tokens_per_s)
    );
    s.push_str(&match r.ttft_s {
        Some(t) => format!("ttft     {:.3} ({:.3}–{:.3}) s\n", t.mid, t.low, t.high),
        None => "ttft     unbounded: requests arrive faster than the build serves them\n".into(),
    });
    if r.prefill_replicas > 0 {
        s.push_str(&format!(
            "layout   {} prefill and {} decode replicas of {} GPUs each, KV cache moved in {:.1} ms\n",
            r.prefill_replicas,
            served.replicas.saturating_sub(r.prefill_replicas),
            served.gpus_per_replica,
            r.kv_transfer_s * 1e3
        ));
    } else if served.replicas > 1 {
        s.push_str(&format!("layout   {} replicas of {} GPUs each\n", served.replicas, served.gpus_per_replica));
    }
    if let Some(m) = r.max_users {
        s.push_str(&format!("max users meeting the targets: {m}\n"));
    }
    s.push_str("curve    users: per-user tokens/s, total tokens/s, TTFT s\n");
    for p in &r.curve {
        s.push_str(&format!(
            "         {}: {:.1}, {:.0}, {:.2}\n",
            p.users, p.per_user_tokens_per_s, p.aggregate_tokens_per_s, p.ttft_s
        ));
    }
    s
}
