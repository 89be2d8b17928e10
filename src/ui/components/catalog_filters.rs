//! The catalog's search box and filters (vendor, segment, minimum memory, NVLink).

use crate::catalog::{Segment, Vendor};
use crate::state::{url, Action, CatalogFilter};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use crate::i18n::t;
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CatalogFiltersProps {
    pub filter: CatalogFilter,
    pub dispatch: Callback<Action>,
}

/// The filter bar above the catalog table.
#[function_component(CatalogFilters)]
pub fn catalog_filters(props: &CatalogFiltersProps) -> Html {
    let lang = use_lang();
    let d = props.dispatch.clone();
    let on_query = d.reform(|e: InputEvent| Action::SetQuery(e.target_unchecked_into::<HtmlInputElement>().value()));
    let on_vendor = d.reform(|e: Event| Action::SetVendor(url::parse_vendor(&e.target_unchecked_into::<HtmlSelectElement>().value())));
    let on_segment = d.reform(|e: Event| Action::SetSegment(url::parse_segment(&e.target_unchecked_into::<HtmlSelectElement>().value())));
    let on_mem = d.reform(|e: InputEvent| {
        let v = e.target_unchecked_into::<HtmlInputElement>().value_as_number();
        Action::SetMinMemory((v.is_finite() && v > 0.0).then_some(v))
    });
    let on_nvlink = d.reform(|e: Event| Action::SetNvlinkOnly(e.target_unchecked_into::<HtmlInputElement>().checked()));
    let f = &props.filter;
    let vendor_opt = |v: Option<Vendor>, value: &str, label: &str| {
        html! { <option value={value.to_string()} selected={f.vendor == v}>{ label }</option> }
    };
    let segment_opt = |s: Option<Segment>, value: &str, label: &str| {
        html! { <option value={value.to_string()} selected={f.segment == s}>{ label }</option> }
    };
    html! {
        <section class="catalog-filters" aria-label={t(lang, "Filters")}>
            <label class="catalog-filters__field catalog-filters__field--search">
                <span class="catalog-filters__label">{ t(lang, "Search") }</span>
                <input class="catalog-filters__input" type="search" placeholder={t(lang, "e.g. 4090, Hopper, 48GB")}
                    value={f.query.clone()} oninput={on_query} />
            </label>
            <label class="catalog-filters__field">
                <span class="catalog-filters__label">{ t(lang, "Vendor") }</span>
                <select class="catalog-filters__input" onchange={on_vendor}>
                    { vendor_opt(None, "", "All") }
                    { vendor_opt(Some(Vendor::Nvidia), "nvidia", "NVIDIA") }
                    { vendor_opt(Some(Vendor::Amd), "amd", "AMD") }
                    { vendor_opt(Some(Vendor::Intel), "intel", "Intel") }
                    { vendor_opt(Some(Vendor::Apple), "apple", "Apple") }
                    { vendor_opt(Some(Vendor::Huawei), "huawei", "Huawei") }
                </select>
            </label>
            <label class="catalog-filters__field">
                <span class="catalog-filters__label">{ t(lang, "Segment") }</span>
                <select class="catalog-filters__input" onchange={on_segment}>
                    { segment_opt(None, "", "All") }
                    { segment_opt(Some(Segment::Consumer), "consumer", "Consumer") }
                    { segment_opt(Some(Segment::Workstation), "workstation", "Workstation") }
                    { segment_opt(Some(Segment::Datacenter), "datacenter", "Datacenter") }
                </select>
            </label>
            <label class="catalog-filters__field catalog-filters__field--narrow">
                <span class="catalog-filters__label">{ t(lang, "Memory ≥ GiB") }</span>
                <input class="catalog-filters__input" type="number" min="0" max="1024" step="8" inputmode="numeric"
                    value={f.min_memory_gib.map(crate::decimal::plain).unwrap_or_default()} oninput={on_mem} />
            </label>
            <label class="catalog-filters__check">
                <input type="checkbox" checked={f.nvlink_only} onchange={on_nvlink} />
                <span>{ t(lang, "NVLink only") }</span>
            </label>
        </section>
    }
}
