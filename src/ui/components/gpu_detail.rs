//! The detail panel of one card: every field with its unit, notes, cloud prices, and the sources
//! behind the values (the links and notes load when the first panel opens: `ui::sources_load`).

use crate::catalog::sources::GpuSources;
use crate::catalog::Gpu;
use crate::i18n::{t, Lang};
use crate::state::fields::FIELDS;
use crate::state::Action;
use crate::ui::lang::use_lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GpuDetailProps {
    pub id: AttrValue,
    pub dispatch: Callback<Action>,
}

/// Every field the card has, with its unit, then its interconnect and street price date.
fn fields(lang: Lang, g: &Gpu) -> Html {
    html! {
        <dl class="gpu-detail__fields">
            { for FIELDS.iter().filter_map(|f| (f.get)(g).map(|v| html! {
                <>
                    <dt class="gpu-detail__key">{ t(lang, f.label) }</dt>
                    <dd class="gpu-detail__value">
                        { format!("{} {}", f.display(lang, Some(v)), f.unit) }
                    </dd>
                </>
            })) }
            if let Some(i) = &g.interconnect {
                <dt class="gpu-detail__key">{ t(lang, "Interconnect") }</dt><dd class="gpu-detail__value">{ i }</dd>
            }
            if let Some(d) = &g.street_price_date {
                <dt class="gpu-detail__key">{ t(lang, "Street price date") }</dt><dd class="gpu-detail__value">{ d }</dd>
            }
        </dl>
    }
}

/// The card's cloud prices, each with its source once `links` are loaded.
fn cloud(lang: Lang, g: &Gpu, links: Option<&GpuSources>) -> Html {
    let cloud_link = |i: usize| links.and_then(|l| l.cloud.get(i)).filter(|u| !u.is_empty()).cloned();
    html! {
        <ul class="gpu-detail__cloud">
            { for g.cloud.iter().enumerate().map(|(i, c)| html! {
                <li>{ format!("{}: ${}/h ({}) ", c.provider, crate::i18n::num(lang, c.usd_per_hour, 2), c.date) }
                    if let Some(url) = cloud_link(i) {
                        <a href={url} target="_blank" rel="noopener noreferrer">{ t(lang, "source") }</a>
                    }
                </li>
            }) }
        </ul>
    }
}

/// A side panel (a dialog on phones) for one card.
#[function_component(GpuDetail)]
pub fn gpu_detail(props: &GpuDetailProps) -> Html {
    let lang = use_lang();
    let Some(g) = crate::catalog::gpu(&props.id) else { return html! {} };
    let close = props.dispatch.reform(|_| Action::ShowDetail(None));
    let onkeydown = {
        let d = props.dispatch.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                d.emit(Action::ShowDetail(None));
            }
        })
    };
    let compare = props.dispatch.reform({ let id = g.id.clone(); move |_| Action::ToggleCompare(id.clone()) });
    // The links are not in the web app's catalog: they load with the first panel, then show.
    let loaded = use_state(crate::catalog::sources::installed);
    {
        let loaded = loaded.clone();
        use_effect_with((), move |_| {
            if !*loaded {
                wasm_bindgen_futures::spawn_local(async move {
                    if crate::ui::sources_load::load().await {
                        loaded.set(true);
                    }
                });
            }
        });
    }
    let links = if *loaded { crate::catalog::sources::gpu(&g.id) } else { None };
    html! {
        <aside class="gpu-detail" role="dialog" aria-modal="false" aria-labelledby="gpu-detail-title" {onkeydown}>
            <div class="gpu-detail__head">
                <h2 class="gpu-detail__title" id="gpu-detail-title">{ &g.name }</h2>
                <button type="button" class="gpu-detail__close" onclick={close} aria-label={t(lang, "Close")}>{ "×" }</button>
            </div>
            <p class="gpu-detail__meta">{ format!("{} · {} · {} · {}", g.architecture, g.release_year,
                g.memory_type.as_deref().unwrap_or(t(lang, "memory type not published")), g.form_factor.as_deref().unwrap_or("")) }</p>
            { fields(lang, g) }
            if let Some(notes) = links.as_ref().map(|l| &l.notes).filter(|n| !n.is_empty()) {
                <h3 class="gpu-detail__sub">{ t(lang, "Notes") }</h3>
                <ul class="gpu-detail__notes">{ for notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            }
            if !g.cloud.is_empty() {
                <h3 class="gpu-detail__sub">{ t(lang, "Cloud prices (on demand, per GPU)") }</h3>
                { cloud(lang, g, links.as_ref()) }
            }
            <h3 class="gpu-detail__sub">{ t(lang, "Sources") }</h3>
            <ul class="gpu-detail__sources">
                if let Some(l) = &links {
                    { for l.sources.iter().map(|s| html! { <li><a href={s.clone()} target="_blank" rel="noopener noreferrer">{ s }</a></li> }) }
                    if let Some(p) = &l.price_source {
                        <li>{ t(lang, "Prices: ") }<a href={p.clone()} target="_blank" rel="noopener noreferrer">{ p }</a></li>
                    }
                }
            </ul>
            <button type="button" class="gpu-detail__compare" onclick={compare}>{ t(lang, "Add to / remove from compare") }</button>
        </aside>
    }
}
