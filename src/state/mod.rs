//! The app's inputs, the actions that change them, and their URL form.
//!
//! The reducer ([`AppState::apply`]) is a pure function: no storage, no URL, no browser. The UI
//! wraps it in a Yew `Reducible` and does side effects in effects. Results are never stored here;
//! the UI derives them from these inputs.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

pub mod advisor;
pub mod fields;
pub mod export;
pub mod sizing;
pub mod stored;
pub mod url;

use crate::catalog::{self, Gpu, Segment, Vendor};

/// At most this many cards in the compare view.
pub const MAX_COMPARE: usize = 4;

/// Which page is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Advisor,
    Catalog,
    Compare,
    /// How far the engine's estimates are from measurements it did not see.
    Accuracy,
}

impl View {
    /// The URL value.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Advisor => "advisor",
            View::Catalog => "catalog",
            View::Compare => "compare",
            View::Accuracy => "accuracy",
        }
    }

    /// Parses the URL value.
    pub fn parse(s: &str) -> Option<View> {
        match s {
            "advisor" => Some(View::Advisor),
            "catalog" => Some(View::Catalog),
            "compare" => Some(View::Compare),
            "accuracy" => Some(View::Accuracy),
            _ => None,
        }
    }
}

/// The catalog's search and filters.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CatalogFilter {
    /// Free-text search over name, id and architecture.
    pub query: String,
    pub vendor: Option<Vendor>,
    pub segment: Option<Segment>,
    pub min_memory_gib: Option<f64>,
    pub nvlink_only: bool,
}

/// A memory filter as the app keeps it: to the thousandth of a GiB (a link writes it with at most
/// nine decimals, so a finer value would not read back the same), from above 0 to 4096 GiB.
pub fn memory_filter_gib(m: f64) -> Option<f64> {
    let thousandths = (m * 1000.0).round() / 1000.0;
    (thousandths.is_finite() && thousandths > 0.0 && thousandths <= 4096.0).then_some(thousandths)
}

impl CatalogFilter {
    /// True when `gpu` passes every filter.
    pub fn matches(&self, gpu: &Gpu) -> bool {
        let q = self.query.trim().to_ascii_lowercase();
        let text_ok = q.is_empty()
            || q.split_whitespace().all(|w| {
                gpu.name.to_ascii_lowercase().contains(w) || gpu.id.contains(w) || gpu.architecture.to_ascii_lowercase().contains(w)
            });
        text_ok
            && self.vendor.is_none_or(|v| gpu.vendor == v)
            && self.segment.is_none_or(|s| gpu.segment == s)
            && self.min_memory_gib.is_none_or(|m| gpu.memory_gib >= m)
            && (!self.nvlink_only || gpu.nvlink)
    }
}

/// The sort order of the catalog table.
#[derive(Debug, Clone, PartialEq)]
pub struct Sort {
    /// `name` or a [`fields::Field`] key.
    pub key: String,
    pub descending: bool,
}

impl Default for Sort {
    fn default() -> Self {
        Sort { key: "memory".into(), descending: true }
    }
}

/// Everything the user chose.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AppState {
    pub view: View,
    pub filter: CatalogFilter,
    pub sort: Sort,
    /// Card ids in the compare view, in order, at most [`MAX_COMPARE`].
    pub compare: Vec<String>,
    /// The card whose detail panel is open.
    pub detail: Option<String>,
    /// The advisor's inputs.
    pub advisor: advisor::AdvisorInputs,
    /// Embedded in another page (`?embed=1`): compact, no site chrome.
    pub embed: bool,
    /// Accent colour for embeds, six hex digits without `#`.
    pub accent: Option<String>,
    /// Interface language chosen in the URL (`en`, `zh`, `ru`).
    pub lang: Option<String>,
}

/// One user action.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    SetView(View),
    SetQuery(String),
    SetVendor(Option<Vendor>),
    SetSegment(Option<Segment>),
    SetMinMemory(Option<f64>),
    SetNvlinkOnly(bool),
    /// Sort by this key; the same key again flips the direction.
    SortBy(String),
    /// Add or remove a card from the comparison.
    ToggleCompare(String),
    /// Replace the comparison.
    SetCompare(Vec<String>),
    ShowDetail(Option<String>),
    /// Set one advisor input (text as typed).
    SetInput(advisor::Field, String),
    /// Paste (or clear) a Hugging Face `config.json` for a custom model.
    SetConfigJson(String),
    SetNeedNvlink(bool),
    SetDatacenterOnly(bool),
    /// Choose the interface language.
    SetLang(String),
    /// Replace the whole state (from the URL, on back/forward).
    Replace(Box<AppState>),
}

impl AppState {
    /// The state after `action`.
    pub fn apply(mut self, action: Action) -> AppState {
        match action {
            Action::SetView(v) => self.view = v,
            Action::SetQuery(q) => self.filter.query = q,
            Action::SetVendor(v) => self.filter.vendor = v,
            Action::SetSegment(s) => self.filter.segment = s,
            Action::SetMinMemory(m) => self.filter.min_memory_gib = m.and_then(memory_filter_gib),
            Action::SetNvlinkOnly(b) => self.filter.nvlink_only = b,
            Action::SortBy(key) => {
                if self.sort.key == key {
                    self.sort.descending = !self.sort.descending;
                } else {
                    self.sort = Sort { descending: key != "name", key };
                }
            }
            Action::ToggleCompare(id) => {
                if let Some(pos) = self.compare.iter().position(|c| *c == id) {
                    self.compare.remove(pos);
                } else if self.compare.len() < MAX_COMPARE && catalog::gpu(&id).is_some() {
                    self.compare.push(id);
                }
            }
            Action::SetCompare(ids) => {
                let mut out: Vec<String> = Vec::new();
                for id in ids {
                    if catalog::gpu(&id).is_some() && !out.contains(&id) && out.len() < MAX_COMPARE {
                        out.push(id);
                    }
                }
                self.compare = out;
            }
            Action::ShowDetail(id) => self.detail = id.filter(|id| catalog::gpu(id).is_some()),
            Action::SetInput(field, value) => {
                if field == advisor::Field::Model {
                    self.adjust_workload_to_model(&value);
                }
                self.advisor.set(field, value);
            }
            Action::SetConfigJson(text) => {
                self.advisor.config_json = text;
                if !self.advisor.config_json.trim().is_empty() {
                    self.advisor.set(advisor::Field::Model, "custom".into());
                }
            }
            Action::SetNeedNvlink(b) => self.advisor.need_nvlink = b,
            Action::SetDatacenterOnly(b) => self.advisor.datacenter_only = b,
            Action::SetLang(l) => self.lang = Some(l).filter(|l| ["en", "zh", "ru"].contains(&l.as_str())),
            Action::Replace(s) => return *s,
        }
        self
    }

    /// A new model keeps the workload when its kind lists it, else takes the kind's default
    /// ([`MediaKind::workloads`](crate::model::media_job::MediaKind::workloads): image or video
    /// generation, a classic network's inference; inference for a language model).
    fn adjust_workload_to_model(&mut self, model: &str) {
        use crate::model::llm::Workload;
        use crate::model::media_job::{MediaKind, MediaWorkload};
        let current = self.advisor.get(advisor::Field::Workload);
        let workload = if let Some(kind) = MediaKind::of_preset(model) {
            match MediaWorkload::parse(current) {
                Some(w) if kind.workloads().contains(&w) => return,
                _ => kind.default_workload().as_str(),
            }
        } else if (model == "custom" || crate::catalog::llm(model).is_some()) && Workload::parse(current).is_none() {
            Workload::Inference.as_str()
        } else {
            return;
        };
        self.advisor.set(advisor::Field::Workload, workload.into());
    }

    /// The catalog rows to show: filtered, then sorted (missing values last, ties by id).
    pub fn visible_gpus(&self) -> Vec<&'static Gpu> {
        let mut rows: Vec<&'static Gpu> = catalog::gpus().iter().filter(|g| self.filter.matches(g)).collect();
        let field = fields::field(&self.sort.key);
        crate::sort::sort_by(&mut rows, |a, b| {
            let ord = match field {
                Some(f) => match ((f.get)(a), (f.get)(b)) {
                    (Some(x), Some(y)) => {
                        let o = x.total_cmp(&y);
                        if self.sort.descending { o.reverse() } else { o }
                    }
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                },
                None => {
                    let o = a.name.to_ascii_lowercase().cmp(&b.name.to_ascii_lowercase());
                    if self.sort.descending { o.reverse() } else { o }
                }
            };
            ord.then_with(|| a.id.cmp(&b.id))
        });
        rows
    }

    /// The cards being compared, resolved.
    pub fn compared_gpus(&self) -> Vec<&'static Gpu> {
        self.compare.iter().filter_map(|id| catalog::gpu(id)).collect()
    }
}
