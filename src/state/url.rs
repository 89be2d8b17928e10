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
    for (key, value) in pairs {
        if value.chars().count() > MAX_VALUE_CHARS {
            out.notes.push(tf(lang, "Ignored `{key}`: the value is too long.", &[("key", &short(&key))]));
            continue;
        }
        let st = &mut out.state;
        let read = read_catalog_key(st, &key, &value, lang, &mut out.notes).or_else(|| read_app_key(st, &key, &value));
        match read {
            Some(true) => {}
            Some(false) => out.notes.push(tf(lang, "Ignored `{key}={value}`: not a valid value.", &[("key", &short(&key)), ("value", &short(&value))])),
            None => match advisor::Field::from_key(&key) {
                Some(field) => {
                    let v: String = value.chars().filter(|c| !c.is_control()).collect();
                    if field == advisor::Field::Batch && !has_users {
                        st.advisor.set(advisor::Field::Users, v.clone());
                    }
                    st.advisor.set(field, v)
                }
                None => out.notes.push(tf(lang, "Ignored unknown parameter `{key}`.", &[("key", &short(&key))])),
            },
        }
    }
    reset_rejected(&mut out, lang);
    out
}

/// Reads a key of the catalog and compare views into `st`: `None` when `key` is not one,
/// `Some(false)` when its value is not valid. Unknown cards get their own note.
fn read_catalog_key(st: &mut AppState, key: &str, value: &str, lang: Lang, notes: &mut Vec<String>) -> Option<bool> {
    let ok = match key {
        "view" => View::parse(value).map(|v| st.view = v).is_some(),
        "gpus" => {
            st.compare = compare_ids(value, lang, notes);
            true
        }
        "q" => {
            st.filter.query = value.chars().filter(|c| !c.is_control()).collect();
            true
        }
        "vendor" => parse_vendor(value).map(|v| st.filter.vendor = Some(v)).is_some(),
        "segment" => parse_segment(value).map(|s| st.filter.segment = Some(s)).is_some(),
        "min_mem" => match crate::fmath::parse_f64(value).and_then(super::memory_filter_gib) {
            Some(m) => {
                st.filter.min_memory_gib = Some(m);
                true
            }
            None => false,
        },
        "nvlink" => flag(value).map(|on| st.filter.nvlink_only = on).is_some(),
        "sort" if value == "name" || super::fields::field(value).is_some() => {
            st.sort.key = value.to_string();
            true
        }
        "sort" => false,
        "dir" => match value {
            "asc" | "desc" => {
                st.sort.descending = value == "desc";
                true
            }
            _ => false,
        },
        "gpu" => {
            match catalog::gpu(value) {
                Some(_) => st.detail = Some(value.to_string()),
                None => notes.push(tf(lang, "Ignored unknown GPU `{id}`.", &[("id", &short(value))])),
            }
            true
        }
        _ => return None,
    };
    Some(ok)
}

/// The cards of `gpus=`: known ids, each once, at most [`MAX_COMPARE`]; a note for each other.
fn compare_ids(value: &str, lang: Lang, notes: &mut Vec<String>) -> Vec<String> {
    let mut ids = Vec::new();
    for id in value.split(',').filter(|s| !s.is_empty()) {
        if catalog::gpu(id).is_none() {
            notes.push(tf(lang, "Ignored unknown GPU `{id}`.", &[("id", &short(id))]));
        } else if ids.len() >= MAX_COMPARE {
            notes.push(tf(lang, "Compare shows at most {max} cards; ignored `{id}`.", &[("max", &MAX_COMPARE.to_string()), ("id", &short(id))]));
        } else if !ids.iter().any(|x: &String| x == id) {
            ids.push(id.to_string());
        }
    }
    ids
}

/// `1`/`true` or `0`/`false`.
fn flag(value: &str) -> Option<bool> {
    match value {
        "1" | "true" => Some(true),
        "0" | "false" => Some(false),
        _ => None,
    }
}

/// Reads a key of the whole app (the advisor's constraints, the embed, its accent and the
/// language) into `st`: `None` when `key` is not one, `Some(false)` when its value is not valid.
fn read_app_key(st: &mut AppState, key: &str, value: &str) -> Option<bool> {
    let ok = match key {
        "need_nvlink" => flag(value).map(|on| st.advisor.need_nvlink = on).is_some(),
        "dc_only" => flag(value).map(|on| st.advisor.datacenter_only = on).is_some(),
        "embed" => flag(value).map(|on| st.embed = on).is_some(),
        "accent" => {
            let hex = value.trim_start_matches('#');
            let ok = (hex.len() == 6 || hex.len() == 3) && hex.chars().all(|c| c.is_ascii_hexdigit());
            if ok {
                st.accent = Some(hex.to_ascii_lowercase());
            }
            ok
        }
        "lang" => {
            let ok = matches!(value, "en" | "zh" | "ru");
            if ok {
                st.lang = Some(value.to_string());
            }
            ok
        }
        _ => return None,
    };
    Some(ok)
}

/// A link never leaves the advisor in an error state: every advisor value the engine rejects is
/// reset to its default, with a note (errors can hide behind an unknown model, so repeat).
fn reset_rejected(out: &mut Parsed, lang: Lang) {
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
