//! Exports of the advisor's results as CSV and as a Markdown table, for pasting into a sheet or a
//! blog post.

use crate::recommend::{OptionRow, Recommendation};

fn opt(v: Option<f64>, d: usize) -> String {
    v.map_or_else(String::new, |v| crate::decimal::fixed(v, d))
}

fn speed(o: &OptionRow) -> (String, String, String, String) {
    match &o.rate {
        Some((b, kind)) => (crate::decimal::fixed(b.low, 2), crate::decimal::fixed(b.mid, 2), crate::decimal::fixed(b.high, 2), kind.unit().to_string()),
        None => Default::default(),
    }
}

const HEADER: [&str; 13] = [
    "gpu", "count", "fits", "per_gpu_gib", "capacity_gib", "speed_low", "speed_mid", "speed_high", "speed_unit",
    "purchase_usd", "hourly_usd", "tco_usd", "usd_per_million",
];

fn row(o: &OptionRow) -> [String; 13] {
    let (lo, mid, hi, unit) = speed(o);
    [
        o.gpu.clone(),
        o.count.to_string(),
        o.estimate.fits.to_string(),
        crate::decimal::fixed(o.estimate.per_gpu_gib, 2),
        crate::decimal::fixed(o.capacity_gib, 1),
        lo,
        mid,
        hi,
        unit,
        opt(o.cost.purchase.as_ref().map(|p| p.total_usd), 0),
        opt(o.cost.rent_hourly_usd, 2),
        crate::decimal::fixed(o.tco_usd, 0),
        opt(o.usd_per_million, 3),
    ]
}

fn csv_cell(s: &str) -> String {
    // RFC 4180 quoting, and a leading quote mark against spreadsheet formula injection.
    let s = if s.starts_with(['=', '+', '-', '@']) && crate::fmath::parse_f64(s).is_none() { format!("'{s}") } else { s.to_string() };
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

/// The options as CSV (RFC 4180), one row per option, with a header.
pub fn csv(r: &Recommendation) -> String {
    let mut out = HEADER.join(",");
    out.push('\n');
    for o in &r.options {
        out.push_str(&row(o).iter().map(|c| csv_cell(c)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// The options as a Markdown table.
pub fn markdown(r: &Recommendation) -> String {
    let mut out = String::from("| card | count | per GPU GiB | speed (low–high) | purchase $ | $/hour | TCO $ | $ per million (of the speed unit) |\n|---|---:|---:|---|---:|---:|---:|---:|\n");
    for o in &r.options {
        let (lo, mid, hi, unit) = speed(o);
        let cells = [
            o.gpu_name.replace('|', "/"),
            o.count.to_string(),
            crate::decimal::fixed(o.estimate.per_gpu_gib, 1),
            if mid.is_empty() { String::new() } else { format!("{mid} ({lo}–{hi}) {unit}") },
            opt(o.cost.purchase.as_ref().map(|p| p.total_usd), 0),
            opt(o.cost.rent_hourly_usd, 2),
            crate::decimal::fixed(o.tco_usd, 0),
            opt(o.usd_per_million, 3),
        ];
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    /// RFC 4180 quoting, and the OWASP "CSV injection" guard: a cell that a spreadsheet would read
    /// as a formula gets a leading quote mark; plain negative numbers stay numbers.
    #[test]
    fn cells_are_quoted_and_formulas_defused() {
        assert_eq!(csv_cell("rtx-4090"), "rtx-4090");
        assert_eq!(csv_cell("a,b"), "\"a,b\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell("=1+2"), "'=1+2");
        assert_eq!(csv_cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_cell("-5"), "-5");
    }

    #[test]
    fn one_row_per_option_under_the_header() {
        let job = crate::recommend::Job::Llm(Box::new(crate::model::llm::LlmJob::for_preset(
            crate::catalog::llm("llama-3.1-8b").expect("preset"),
        )));
        let rec = crate::recommend::recommend(&crate::recommend::RecommendInput::new(job)).expect("recommend");
        let text = csv(&rec);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.first().copied(), Some("gpu,count,fits,per_gpu_gib,capacity_gib,speed_low,speed_mid,speed_high,speed_unit,purchase_usd,hourly_usd,tco_usd,usd_per_million"));
        assert_eq!(lines.len(), rec.options.len() + 1);
        assert!(lines.iter().skip(1).all(|l| l.split(',').count() == 13), "{text}");
        assert_eq!(markdown(&rec).lines().count(), rec.options.len() + 2);
    }
}
