//! The URL form of [`AppState`]: a typed round trip. [`render`] writes only what differs from
//! the defaults; [`parse`] reads it back, and anything unknown, malformed or too long falls back to
//! the default with a note that says what was ignored. Parsing never panics.

use super::{advisor, AppState, CatalogFilter, Sort, View, MAX_COMPARE};
use crate::catalog::{self, Segment, Vendor};
use crate::i18n::{t, tf, Lang};

/// Longest value accepted for any parameter (characters).
pub const MAX_VALUE_CHARS: usize = 200;

/// The result of reading a query string.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    pub state: AppState,
    /// One line per ignored or corrected parameter, safe to show (values are shortened).
    pub notes: Vec<String>,
}

fn short(v: &str) -> String {
    let mut s: String = v.chars().filter(|c| !c.is_control()).take(24).collect();
    if v.chars().count() > 24 {
        s.push('…');
    }
    s
}

fn vendor_str(v: Vendor) -> &'static str {
    match v {
        Vendor::Nvidia => "nvidia",
        Vendor::Amd => "amd",
        Vendor::Intel => "intel",
        Vendor::Apple => "apple",
        Vendor::Huawei => "huawei",
    }
}

fn segment_str(s: Segment) -> &'static str {
    match s {
        Segment::Consumer => "consumer",
        Segment::Workstation => "workstation",
        Segment::Datacenter => "datacenter",
    }
}

/// Parses a vendor name as written in the URL.
pub fn parse_vendor(s: &str) -> Option<Vendor> {
    [Vendor::Nvidia, Vendor::Amd, Vendor::Intel, Vendor::Apple, Vendor::Huawei].into_iter().find(|v| vendor_str(*v) == s)
}

/// Parses a segment name as written in the URL.
pub fn parse_segment(s: &str) -> Option<Segment> {
    [Segment::Consumer, Segment::Workstation, Segment::Datacenter].into_iter().find(|v| segment_str(*v) == s)
}

/// Reads a query string (with or without the leading `?`); the notes are in English.
pub fn parse(query: &str) -> Parsed {
    parse_in(query, Lang::En)
}

/// Reads a query string; the notes are in the link's `lang`, or in `fallback` when it has none
/// (the browser's language).
pub fn parse_in(query: &str, fallback: Lang) -> Parsed {
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut out = Parsed::default();
    let pairs: Vec<(String, String)> = match crate::query::decode(query) {
        Some(p) => p,
        None => {
            out.notes.push(t(fallback, "The link's parameters could not be read; showing defaults.").into());
            return out;
        }
    };
    let lang = pairs.iter().find(|(k, _)| k == "lang").and_then(|(_, v)| Lang::parse(v)).unwrap_or(fallback);
    // `batch` is the older key for `users` (the serving concurrency): links that carry it still work.
    let has_users = pairs.iter().any(|(k, _)| k == "users");
    let st = &mut out.state;
    let notes = &mut out.notes;
    for (key, value) in pairs {
        if value.chars().count() > MAX_VALUE_CHARS {
            notes.push(tf(lang, "Ignored `{key}`: the value is too long.", &[("key", &short(&key))]));
            continue;
        }
        let bad = |notes: &mut Vec<String>| {
            notes.push(tf(lang, "Ignored `{key}={value}`: not a valid value.", &[("key", &short(&key)), ("value", &short(&value))]))
        };
        match key.as_str() {
            "view" => match View::parse(&value) {
                Some(v) => st.view = v,
                None => bad(notes),
            },
            "gpus" => {
                let mut ids = Vec::new();
                for id in value.split(',').filter(|s| !s.is_empty()) {
                    if catalog::gpu(id).is_none() {
                        notes.push(tf(lang, "Ignored unknown GPU `{id}`.", &[("id", &short(id))]));
                    } else if ids.len() >= MAX_COMPARE {
                        notes.push(tf(
                            lang,
                            "Compare shows at most {max} cards; ignored `{id}`.",
                            &[("max", &MAX_COMPARE.to_string()), ("id", &short(id))],
                        ));
                    } else if !ids.iter().any(|x: &String| x == id) {
                        ids.push(id.to_string());
                    }
                }
                st.compare = ids;
            }
            "q" => st.filter.query = value.chars().filter(|c| !c.is_control()).collect(),
            "vendor" => match parse_vendor(&value) {
                Some(v) => st.filter.vendor = Some(v),
                None => bad(notes),
            },
            "segment" => match parse_segment(&value) {
                Some(s) => st.filter.segment = Some(s),
                None => bad(notes),
            },
            "min_mem" => match value.parse::<f64>() {
                Ok(m) if m.is_finite() && m > 0.0 && m <= 4096.0 => st.filter.min_memory_gib = Some(m),
                _ => bad(notes),
            },
            "nvlink" => match value.as_str() {
                "1" | "true" => st.filter.nvlink_only = true,
                "0" | "false" => st.filter.nvlink_only = false,
                _ => bad(notes),
            },
            "sort" => {
                if value == "name" || super::fields::field(&value).is_some() {
                    st.sort.key = value;
                } else {
                    bad(notes)
                }
            }
            "dir" => match value.as_str() {
                "asc" => st.sort.descending = false,
                "desc" => st.sort.descending = true,
                _ => bad(notes),
            },
            "gpu" => match catalog::gpu(&value) {
                Some(_) => st.detail = Some(value),
                None => notes.push(tf(lang, "Ignored unknown GPU `{id}`.", &[("id", &short(&value))])),
            },
            "need_nvlink" | "dc_only" => match value.as_str() {
                "1" | "true" | "0" | "false" => {
                    let on = value == "1" || value == "true";
                    if key == "need_nvlink" { st.advisor.need_nvlink = on } else { st.advisor.datacenter_only = on }
                }
                _ => bad(notes),
            },
            "embed" => match value.as_str() {
                "1" | "true" => st.embed = true,
                "0" | "false" => st.embed = false,
                _ => bad(notes),
            },
            "accent" => {
                let hex = value.trim_start_matches('#');
                if (hex.len() == 6 || hex.len() == 3) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
                    st.accent = Some(hex.to_ascii_lowercase());
                } else {
                    bad(notes)
                }
            }
            "lang" => match value.as_str() {
                "en" | "zh" | "ru" => st.lang = Some(value),
                _ => bad(notes),
            },
            other => match advisor::Field::from_key(other) {
                Some(field) => {
                    let v: String = value.chars().filter(|c| !c.is_control()).collect();
                    if field == advisor::Field::Batch && !has_users {
                        st.advisor.set(advisor::Field::Users, v.clone());
                    }
                    st.advisor.set(field, v)
                }
                None => notes.push(tf(lang, "Ignored unknown parameter `{key}`.", &[("key", &short(&key))])),
            },
        }
    }
    // A link never leaves the advisor in an error state: every advisor value the engine rejects is
    // reset to its default, with a note (errors can hide behind an unknown model, so repeat).
    for _ in 0..4 {
        let Err(errors) = out.state.advisor.recommend_input() else { break };
        for e in errors {
            let value = out.state.advisor.get(e.field).to_string();
            let field = if value == e.field.default_value() { advisor::Field::Model } else { e.field };
            let shown = out.state.advisor.get(field).to_string();
            out.notes.push(tf(
                lang,
                "Ignored `{key}={value}`: {reason}.",
                &[("key", field.key()), ("value", &short(&shown)), ("reason", &e.message_in(lang))],
            ));
            out.state.advisor.set(field, field.default_value().to_string());
            if field == advisor::Field::Model {
                out.state.advisor.set(advisor::Field::Workload, advisor::Field::Workload.default_value().to_string());
            }
        }
    }
    out
}

/// Writes the state as a query string (without `?`); defaults are left out.
pub fn render(state: &AppState) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    if state.view != View::default() {
        pairs.push(("view", state.view.as_str().into()));
    }
    if !state.compare.is_empty() {
        pairs.push(("gpus", state.compare.join(",")));
    }
    let f = &state.filter;
    let d = CatalogFilter::default();
    if f.query != d.query {
        pairs.push(("q", f.query.clone()));
    }
    if let Some(v) = f.vendor {
        pairs.push(("vendor", vendor_str(v).into()));
    }
    if let Some(s) = f.segment {
        pairs.push(("segment", segment_str(s).into()));
    }
    if let Some(m) = f.min_memory_gib {
        pairs.push(("min_mem", crate::decimal::plain(m)));
    }
    if f.nvlink_only {
        pairs.push(("nvlink", "1".into()));
    }
    let ds = Sort::default();
    if state.sort.key != ds.key {
        pairs.push(("sort", state.sort.key.clone()));
    }
    if state.sort.descending != ds.descending || state.sort.key != ds.key {
        pairs.push(("dir", if state.sort.descending { "desc" } else { "asc" }.into()));
    }
    if let Some(id) = &state.detail {
        pairs.push(("gpu", id.clone()));
    }
    for field in advisor::Field::ALL {
        let v = state.advisor.get(field);
        // `users` goes with every `batch`: a link with `batch` alone is an older one, whose batch
        // was the number of users (see `parse_in`).
        let users_for_batch = field == advisor::Field::Users && state.advisor.get(advisor::Field::Batch) != advisor::Field::Batch.default_value();
        if v != field.default_value() || users_for_batch {
            pairs.push((field.key(), v.to_string()));
        }
    }
    if state.advisor.need_nvlink {
        pairs.push(("need_nvlink", "1".into()));
    }
    if state.advisor.datacenter_only {
        pairs.push(("dc_only", "1".into()));
    }
    if state.embed {
        pairs.push(("embed", "1".into()));
    }
    if let Some(a) = &state.accent {
        pairs.push(("accent", a.clone()));
    }
    if let Some(l) = &state.lang {
        pairs.push(("lang", l.clone()));
    }
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    crate::query::encode(&pairs)
}
