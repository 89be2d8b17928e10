//! `docs/ACCURACY.md` from an [`Accuracy`](super::Accuracy): one table of figures per set against
//! its goals, the five worst held-out rows with their sources, the constants refitted on every
//! row beside the shipped ones, and what each fold could not determine.

use super::row::Set;
use super::{Accuracy, SetResult};
use crate::model::llm::fit::LlmFit;
use std::fmt::Write;

fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{:.1}%", x * 100.0)
    } else {
        "—".into()
    }
}

/// A figure against its goal: "12.3% ✓" or "12.3% ✗ (goal 12%)".
fn against(x: f64, goal: f64, at_most: bool) -> String {
    let ok = if at_most { x <= goal } else { x >= goal };
    format!("{} {}", pct(x), if ok { "✓" } else { "✗" })
}

/// The summary table: one line per set.
pub fn summary_table(a: &Accuracy) -> String {
    let mut out = String::new();
    out.push_str("| set | rows | sources | shipped | in-sample | LOFO | LOSO | LOGO | in band, out of fold | band (LOSO p10–p90) | goal |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for s in &a.sets {
        let m = &s.summary;
        let (goal, logo_goal) = m.set.goal();
        let logo = match logo_goal {
            Some(g) => against(m.held_out[2], g, true),
            None => pct(m.held_out[2]),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2}–{:.2} | ≤ {:.0}%{}, ≥ {:.0}% in band |",
            m.set.id(),
            m.rows,
            m.sources,
            pct(m.raw),
            pct(m.in_sample),
            against(m.held_out[0], goal, true),
            against(m.held_out[1], goal, true),
            logo,
            against(m.in_band_out_of_fold, Set::IN_BAND_GOAL, false),
            m.band().0,
            m.band().1,
            goal * 100.0,
            logo_goal.map(|g| format!(" (LOGO ≤ {:.0}%)", g * 100.0)).unwrap_or_default(),
            Set::IN_BAND_GOAL * 100.0,
        );
    }
    out
}

/// Median |error| of `rows` as shipped (`None`) or in fold `k` of [`super::Fold::ALL`].
fn median_error(rows: &[&super::RowResult], k: Option<usize>) -> f64 {
    let e: Vec<f64> = rows.iter().map(|r| (k.map_or(r.raw, |k| r.held_out[k]) / r.measured - 1.0).abs()).filter(|e| e.is_finite()).collect();
    super::row::median(e)
}

/// `rows` by source and in all, under `heading`: their median error as shipped and in each fold.
fn by_source(heading: &str, rows: &[&super::RowResult]) -> String {
    let mut out = format!("\n{heading}:\n\n| rows | source | shipped | LOFO | LOSO | LOGO |\n|---|---|---:|---:|---:|---:|\n");
    let line = |rows: &[&super::RowResult], name: &str| {
        let m = |k| pct(median_error(rows, k));
        format!("| {} | {} | {} | {} | {} | {} |\n", rows.len(), name, m(None), m(Some(0)), m(Some(1)), m(Some(2)))
    };
    let mut sources: Vec<&str> = rows.iter().map(|r| r.source.as_str()).collect();
    sources.sort_unstable();
    sources.dedup();
    for src in sources {
        let of: Vec<&super::RowResult> = rows.iter().copied().filter(|r| r.source == src).collect();
        out.push_str(&line(&of, src));
    }
    out.push_str(&line(rows, "**all**"));
    out
}

/// The training rows of runs past one node (more than 8 GPUs), by source and in all.
fn across_nodes(s: &SetResult) -> String {
    let multi: Vec<&super::RowResult> = s.rows.iter().filter(|r| r.gpus > 8).collect();
    let count = |f: fn(&super::RowResult) -> &str| multi.iter().map(|r| f(r)).collect::<std::collections::BTreeSet<_>>().len();
    let (lo, hi) = multi.iter().fold((u32::MAX, 0), |(lo, hi), r| (lo.min(r.gpus), hi.max(r.gpus)));
    let heading = format!("Past one node ({} rows of {} to {} GPUs; {} sources, {} hardware generations)", multi.len(), lo, hi, count(|r| &r.source), count(|r| &r.generation));
    by_source(&heading, &multi)
}

/// The sets with DeepSeek-style MoE rows, their median errors over the other rows: what the
/// engine does where it has no known gap.
fn without_mla_moe(a: &Accuracy) -> String {
    let mut out = String::new();
    for s in a.sets.iter().filter(|s| s.rows.iter().any(|r| r.class == "mla-moe")) {
        let rest: Vec<&super::RowResult> = s.rows.iter().filter(|r| r.class != "mla-moe").collect();
        let m = |k| pct(median_error(&rest, k));
        let _ = writeln!(out, "| {} | {} | {} | {} | {} | {} |", s.summary.set.id(), rest.len(), m(None), m(Some(0)), m(Some(1)), m(Some(2)));
    }
    if out.is_empty() {
        return out;
    }
    format!("\nThe same sets without their DeepSeek-style MoE rows (class `mla-moe`, a known gap: their sources disagree by about 3×, and they set no shared constant):\n\n| set | rows | shipped | LOFO | LOSO | LOGO |\n|---|---:|---:|---:|---:|---:|\n{out}")
}

/// A set's rows of a known gap (class `mla-moe`: a DeepSeek-style MoE's serving; class `moe`: an
/// MoE's training), by source and in all; empty without any.
fn mla_moe(s: &SetResult) -> String {
    let mut out = String::new();
    for (class, heading) in [
        ("mla-moe", "DeepSeek-style MoE (class `mla-moe`; these rows set no shared constant)"),
        ("moe", "Mixture-of-experts training (class `moe`; these rows set no shared constant)"),
    ] {
        let rows: Vec<&super::RowResult> = s.rows.iter().filter(|r| r.class == class).collect();
        if !rows.is_empty() {
            out.push_str(&by_source(heading, &rows));
        }
    }
    out
}

/// The five worst rows of a set.
fn worst(s: &SetResult) -> String {
    let mut rows: Vec<&super::RowResult> = s.rows.iter().collect();
    let e = |r: &super::RowResult| r.held_out.iter().map(|m| (m / r.measured - 1.0).abs()).fold(0.0, f64::max);
    rows.sort_by(|a, b| e(b).total_cmp(&e(a)));
    let mut out = String::from("| row | source | measured | shipped | LOFO | LOSO | LOGO |\n|---|---|---:|---:|---:|---:|---:|\n");
    for r in rows.iter().take(5) {
        let sign = |m: f64| format!("{:+.0}%", (m / r.measured - 1.0) * 100.0);
        let _ = writeln!(
            out,
            "| {} | {} | {:.3} | {:.3} | {} | {} | {} |",
            r.label.replace('|', "/"),
            r.citation.replace('|', "/"),
            r.measured,
            r.raw,
            sign(r.held_out[0]),
            sign(r.held_out[1]),
            sign(r.held_out[2])
        );
    }
    out
}

/// The whole of `docs/ACCURACY.md`.
pub fn markdown(a: &Accuracy) -> String {
    let mut out = String::from("# Accuracy\n\n");
    out.push_str(
        "How far the engine's estimates fall from published measurements it was not fitted to. \
         Generated by `make accuracy` (`src/accuracy`) from every row of `tests/data/calibration/` \
         (each row names its source); `make test` fails when this file, `data/accuracy.toml`, \
         `src/model/bands.rs` or `src/model/llm/calibrated.rs` differs from what the code produces. \
         The app's accuracy page (`?view=accuracy`) shows the same tables.\n\n",
    );
    out.push_str("## Procedure\n\n");
    out.push_str(
        "Every row is predicted five ways: by the engine as shipped; refitted on every row \
         (in-sample); and refitted without the row's GPU family (LOFO), without its source (LOSO) and \
         without its hardware generation (LOGO: an architecture and memory class, such as Blackwell \
         GeForce or RDNA 4). Inside each fold **every fitted constant is refitted** on the rows left \
         in: the LLM engine's per-engine and per-back-end factors, llama.cpp's in-flight cap and \
         expert-tile constant, the serving request time, the training MFUs (`src/accuracy/llm.rs`), \
         the image, classic and video constants (`src/accuracy/media.rs`) and the RAM-offload share \
         (`src/accuracy/offload.rs`). Datasheet values stay fixed. A constant whose rows are all held \
         out takes the fitted value of a related one (another llama.cpp back-end's, another card \
         family's), else its physics default (listed below by fold). The shipped constants are the \
         fit on every row (`src/model/llm/calibrated.rs`).\n\n\
         **Bands are set out of fold.** A set's band is the 10th–90th percentile of measured / model \
         over its held-out (LOSO) predictions, every source weighing the same. A row is scored \
         against the band of the *other* sources' rows only, so the in-band share below is never \
         measured on the rows that set the band. The app shows each set's band \
         (`src/model/bands.rs`; the LOFO band for engine and card pairs without rows).\n\n\
         Error is model / measured − 1; tables give the median |error|. Goals: median |error| of \
         held-out rows ≤ 12% decode (LOGO ≤ 15%), ≤ 20% prefill, serving, per-user speed, training, \
         image, classic and video, ≤ 30% time to first token, ≤ 8% memory, ≤ 25% offload; ≥ 80% of \
         rows in band out of fold. ✓ meets the goal, ✗ misses it.\n\n",
    );
    out.push_str(&summary_table(a));
    out.push_str(&without_mla_moe(a));
    let _ = write!(
        out,
        "\n{} data rows read; {} scored, {} left out with a reason, {} whose metric the engine has no output for (listed by `./target/accuracy/accuracy --rows FILE`).\n",
        a.read,
        a.sets.iter().map(|s| s.summary.rows).sum::<usize>(),
        a.skipped.len(),
        a.not_modelled.len()
    );
    for s in &a.sets {
        let m = &s.summary;
        let _ = write!(out, "\n## {}\n\n![{}](accuracy/{}.svg)\n\n", m.set.title(), m.set.id(), m.set.id());
        for b in &m.bands {
            let name = if b.class.is_empty() { "band".to_string() } else { format!("band of class `{}`", b.class) };
            let _ = writeln!(
                out,
                "- {name}: {:.2}–{:.2} × the model (LOSO, {} rows); for a GPU family without rows {:.2}–{:.2} (LOFO)",
                b.band.0, b.band.1, b.rows, b.band_new_family.0, b.band_new_family.1
            );
        }
        if m.set == Set::Training {
            out.push_str(&across_nodes(s));
        }
        out.push_str(&mla_moe(s));
        out.push_str("\nThe five worst held-out rows:\n\n");
        out.push_str(&worst(s));
    }
    out.push_str("\n## Constants\n\nShipped, and refitted on every row (they match: the shipped values are written from that fit).\n\n| constant | shipped | refitted on every row |\n|---|---:|---:|\n");
    for (name, shipped, refit) in &a.constants {
        let _ = writeln!(out, "| {name} | {shipped:.4} | {refit:.4} |");
    }
    out.push_str("\n## Constants a fold could not determine\n\nEach fell back, in the folds listed, to the related constant the most rows of the fold determine (another llama.cpp back-end's share, another card family's training MFU), else to its physics default.\n\n| constant | folds |\n|---|---|\n");
    let mut by_knob: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for (domain, notes) in &a.notes {
        for ((fold, key), names) in &notes.fallbacks {
            for n in names {
                by_knob.entry(n).or_default().push(format!("{} {} ({domain})", fold.short(), key));
            }
        }
    }
    for (knob, folds) in by_knob {
        let shown = if folds.len() > 8 { format!("{} folds (every fold: no row determines it)", folds.len()) } else { folds.join("; ") };
        let _ = writeln!(out, "| {knob} | {shown} |");
    }
    out
}

/// TOML string literal.
fn q(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A figure rounded to four decimals (NaN written as -1: TOML has no NaN the app reads).
fn f4(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.4}")
    } else {
        "-1.0".into()
    }
}

/// Held-out median |error| by (set, engine, GPU family): what an estimate's "how this was
/// computed" names for its own pair, leave-one-family-out (the card's family held out), with at
/// least three rows.
pub fn held_out_groups(a: &Accuracy) -> Vec<(Set, String, String, usize, f64)> {
    let mut out = Vec::new();
    for s in &a.sets {
        let mut groups: std::collections::BTreeMap<(String, String), Vec<f64>> = Default::default();
        for r in &s.rows {
            groups.entry((r.engine.clone(), r.family.clone())).or_default().push((r.held_out[0] / r.measured - 1.0).abs());
        }
        for ((engine, family), errs) in groups {
            if errs.len() >= 3 {
                let n = errs.len();
                out.push((s.summary.set, engine, family, n, super::row::median(errs)));
            }
        }
    }
    out
}

/// `data/accuracy.toml`: per set its figures, bands and five worst rows; per (set, engine,
/// family) its held-out error. The app's accuracy page and its estimates read it.
pub fn data_toml(a: &Accuracy) -> String {
    let mut out = String::from("# Generated by `make accuracy` (src/accuracy) from tests/data/calibration/: do not edit.\n");
    out.push_str("# Median |error| of held-out rows per set and fold, the share inside the band other sources set, the\n");
    out.push_str("# bands (measured / model, 10th-90th percentile of held-out rows), and each set's five worst rows.\n");
    for s in &a.sets {
        let m = &s.summary;
        let (goal, logo_goal) = m.set.goal();
        let nan = super::folds::ClassBand { class: "", rows: 0, band: (f64::NAN, f64::NAN), band_new_family: (f64::NAN, f64::NAN) };
        let own = m.bands.iter().find(|b| b.class.is_empty()).unwrap_or(&nan);
        let _ = write!(
            out,
            "\n[[set]]\nid = {}\nrows = {}\nsources = {}\nshipped = {}\nin_sample = {}\nlofo = {}\nloso = {}\nlogo = {}\nin_band = {}\nband = [{}, {}]\nband_new_family = [{}, {}]\ngoal = {}\n",
            q(m.set.id()),
            m.rows,
            m.sources,
            f4(m.raw),
            f4(m.in_sample),
            f4(m.held_out[0]),
            f4(m.held_out[1]),
            f4(m.held_out[2]),
            f4(m.in_band_out_of_fold),
            f4(m.band().0),
            f4(m.band().1),
            f4(own.band_new_family.0),
            f4(own.band_new_family.1),
            f4(goal),
        );
        if let Some(g) = logo_goal {
            let _ = writeln!(out, "goal_logo = {}", f4(g));
        }
        for b in &m.bands {
            let _ = write!(
                out,
                "[[set.class_band]]\nclass = {}\nrows = {}\nband = [{}, {}]\nnew_family = [{}, {}]\n",
                q(b.class),
                b.rows,
                f4(b.band.0),
                f4(b.band.1),
                f4(b.band_new_family.0),
                f4(b.band_new_family.1)
            );
        }
        let mut rows: Vec<&super::RowResult> = s.rows.iter().collect();
        let e = |r: &super::RowResult| r.held_out.iter().map(|m| (m / r.measured - 1.0).abs()).fold(0.0, f64::max);
        rows.sort_by(|a, b| e(b).total_cmp(&e(a)));
        for r in rows.iter().take(5) {
            let worst = r.held_out.iter().copied().max_by(|a, b| (a / r.measured - 1.0).abs().total_cmp(&(b / r.measured - 1.0).abs())).unwrap_or(f64::NAN);
            let _ = write!(
                out,
                "[[set.worst]]\nlabel = {}\nsource = {}\nmeasured = {}\nmodel = {}\n",
                q(&r.label),
                q(&r.citation),
                f4(r.measured),
                f4(worst)
            );
        }
    }
    for (set, engine, family, n, err) in held_out_groups(a) {
        let _ = write!(out, "\n[[held_out]]\nset = {}\nengine = {}\nfamily = {}\nrows = {}\nmedian_error = {}\n", q(set.id()), q(&engine), q(&family), n, f4(err));
    }
    out
}

/// A band's factors rounded outward to two decimals (low down, high up); `fallback` where the
/// set has no rows of the class.
fn outward((lo, hi): (f64, f64), fallback: (f64, f64)) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi >= lo) {
        return fallback;
    }
    // A band holds its mid, even where the held-out rows all fall to one side of it.
    ((lo.min(1.0) * 100.0).floor() / 100.0, (hi.max(1.0) * 100.0).ceil() / 100.0)
}

/// `src/model/bands.rs`: the bands the engine shows, each from the held-out rows of its set and
/// class (leave-one-source-out ratios, source-balanced 10th–90th percentile; leave-one-family-out
/// for pairs without rows), rounded outward.
pub fn bands_rs(a: &Accuracy) -> String {
    let find = |set: Set, class: &str| -> Option<&super::folds::ClassBand> {
        a.sets.iter().find(|s| s.summary.set == set).and_then(|s| s.summary.bands.iter().find(|b| b.class == class))
    };
    let mut out = String::from(
        "//! The bands the LLM engine shows around its estimates, as factors of the estimate (low, high):\n\
         //! generated by `make accuracy` (src/accuracy/report.rs) from the calibration rows: do not\n\
         //! edit. Each is the 10th–90th percentile of measured / model over the held-out rows of its set\n\
         //! (and class), every source weighing the same: `fitted` from the leave-one-source-out\n\
         //! predictions, shown for engine and card pairs with published rows; `new_family` from the\n\
         //! leave-one-family-out predictions, shown for pairs without any. Rounded outward to two\n\
         //! decimals, and widened to hold the mid where the rows fall to one side of it. `docs/ACCURACY.md` has each set's rows and figures.\n\n\
         /// A set's band: (low, high) factors for pairs with rows and for pairs without.\n\
         #[derive(Debug, Clone, Copy, PartialEq)]\n\
         pub struct SetBand {\n    pub fitted: (f64, f64),\n    pub new_family: (f64, f64),\n}\n",
    );
    let items: [(&str, Set, &str, &str); 11] = [
        ("DECODE", Set::Decode, "", "One request's decode tokens/s."),
        ("PREFILL", Set::Prefill, "", "Prompt tokens/s."),
        ("SERVING", Set::Serving, "", "A server's output tokens/s at its concurrency."),
        ("SERVING_MLA_MOE", Set::Serving, "mla-moe", "The same for a DeepSeek-style MoE (routed experts and latent attention)."),
        ("PER_USER", Set::PerUser, "", "One user's tokens/s at a concurrency above 1."),
        ("PER_USER_MLA_MOE", Set::PerUser, "mla-moe", "The same for a DeepSeek-style MoE."),
        ("TTFT", Set::Ttft, "", "Time to first token, requests arriving at random."),
        ("TTFT_IN_STEP", Set::Ttft, "in-step", "Time to first token, fixed-length requests sent together."),
        ("TRAINING", Set::Training, "", "Training tokens/s."),
        ("TRAINING_MOE", Set::Training, "moe", "The same for a mixture-of-experts model."),
        ("MEMORY", Set::Memory, "", "Training and fine-tuning peak memory."),
    ];
    for (name, set, class, doc) in items {
        let fallback = (0.65, 1.35);
        let own = find(set, class).or_else(|| find(set, ""));
        let fitted = outward(own.map_or((f64::NAN, f64::NAN), |b| b.band), fallback);
        let new_family = outward(own.map_or((f64::NAN, f64::NAN), |b| b.band_new_family), fitted);
        let rows = own.map_or(0, |b| b.rows);
        let _ = write!(
            out,
            "\n/// {doc} ({rows} held-out rows.)\npub const {name}: SetBand = SetBand {{ fitted: ({:.2}, {:.2}), new_family: ({:.2}, {:.2}) }};\n",
            fitted.0, fitted.1, new_family.0.min(fitted.0), new_family.1.max(fitted.1)
        );
    }
    // The TTFT of a DeepSeek-style MoE: its own class when it has rows.
    let mla = find(Set::Ttft, "mla-moe");
    let fitted = outward(mla.map_or((f64::NAN, f64::NAN), |b| b.band), (0.65, 1.35));
    let new_family = outward(mla.map_or((f64::NAN, f64::NAN), |b| b.band_new_family), fitted);
    let _ = write!(
        out,
        "\n/// Time to first token of a DeepSeek-style MoE. ({} held-out rows.)\npub const TTFT_MLA_MOE: SetBand = SetBand {{ fitted: ({:.2}, {:.2}), new_family: ({:.2}, {:.2}) }};\n",
        mla.map_or(0, |b| b.rows),
        fitted.0,
        fitted.1,
        new_family.0.min(fitted.0),
        new_family.1.max(fitted.1)
    );
    out
}

/// `x` to four significant digits.
fn sig4(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(3 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

/// `fit` with every knob rounded to four significant digits: the values written into the source.
pub fn rounded(fit: &LlmFit, groups: &[super::llm::Group]) -> LlmFit {
    let mut f = *fit;
    for k in groups.iter().flat_map(|g| &g.knobs) {
        let v = sig4(*(k.at)(&mut f));
        *(k.at)(&mut f) = v;
    }
    f
}

/// `src/model/llm/calibrated.rs`: `CALIBRATED`, the LLM engine's constants refitted on
/// every calibration row (`fit`, already [`rounded`]).
pub fn calibrated_rs(fit: &LlmFit) -> String {
    let body = format!("{fit:#?}").replace("inf", "f64::INFINITY");
    format!(
        "//! The LLM engine's shipped constants ([`CALIBRATED`], an [`LlmFit`]): every fitted constant\n\
         //! refitted on every calibration row by `make accuracy` (src/accuracy/llm.rs), four significant\n\
         //! digits; the others are the defaults that no row determines. Generated: do not edit.\n\n\
         use super::engines::Efficiency;\nuse super::fit::{{BackendDecode, LlmFit}};\n\n\
         /// The constants the app ships (fitted numbers, whatever constant they happen to be near).\n\
         #[allow(clippy::approx_constant)]\npub const CALIBRATED: LlmFit = {body};\n"
    )
}

/// Colours of the GPU families in the plots.
fn family_colour(family: &str) -> &'static str {
    match family {
        "NVIDIA HBM" => "#2e7d32",
        "NVIDIA GDDR" => "#76b900",
        "AMD Instinct" => "#c62828",
        "AMD Radeon" => "#ef6c00",
        "Apple" => "#6a1b9a",
        "Intel Arc" => "#1565c0",
        _ => "#616161",
    }
}

/// A log–log plot of one set: each row's leave-one-source-out prediction against its
/// measurement, coloured by GPU family, with the diagonal and the set's band.
pub fn plot_svg(s: &SetResult) -> String {
    let pts: Vec<(f64, f64, &str)> = s
        .rows
        .iter()
        .filter(|r| r.measured > 0.0 && r.held_out[1] > 0.0 && r.held_out[1].is_finite())
        .map(|r| (r.measured, r.held_out[1], r.family.as_str()))
        .collect();
    let (w, h, pad) = (420.0, 420.0, 48.0);
    let lo = pts.iter().flat_map(|p| [p.0, p.1]).fold(f64::INFINITY, f64::min).max(1e-9).log10().floor();
    let hi = pts.iter().flat_map(|p| [p.0, p.1]).fold(0.0, f64::max).max(1e-9).log10().ceil().max(lo + 1.0);
    let x = |v: f64| pad + (v.log10() - lo) / (hi - lo) * (w - 2.0 * pad);
    let y = |v: f64| h - pad - (v.log10() - lo) / (hi - lo) * (h - 2.0 * pad);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">\n<title>{}: held-out prediction (leave one source out) against measurement</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"#fff\"/>\n",
        s.summary.set.title()
    );
    let (b0, b1) = s.summary.band();
    let (a, b) = (10f64.powf(lo), 10f64.powf(hi));
    let _ = writeln!(out, "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#000\"/>", x(a), y(a), x(b), y(b));
    if b0.is_finite() && b1.is_finite() && b0 > 0.0 {
        // measured = band × model: the model axis is vertical, so the band lines are model = measured / factor.
        for f in [b0, b1] {
            let _ = writeln!(out, "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>", x(a), y(a / f), x(b), y(b / f));
        }
    }
    for e in (lo as i32)..=(hi as i32) {
        let v = 10f64.powi(e);
        let _ = writeln!(out, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">1e{e}</text>", x(v), h - pad + 16.0);
        let _ = writeln!(out, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">1e{e}</text>", pad - 4.0, y(v) + 4.0);
    }
    let _ = writeln!(out, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">measured</text>", w / 2.0, h - 8.0);
    let _ = writeln!(out, "<text x=\"14\" y=\"{:.1}\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">model, source held out</text>", h / 2.0, h / 2.0);
    for (m, p, fam) in &pts {
        let _ = writeln!(out, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{}\" fill-opacity=\"0.75\"/>", x(*m), y(*p), family_colour(fam));
    }
    let families: std::collections::BTreeSet<&str> = pts.iter().map(|p| p.2).collect();
    for (i, fam) in families.iter().enumerate() {
        let ly = pad + 14.0 * i as f64;
        let _ = writeln!(out, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>", pad + 8.0, ly, family_colour(fam), pad + 16.0, ly + 4.0, fam);
    }
    out.push_str("</svg>\n");
    out
}
