//! The advisor form's constraints section (a disclosure): how many cards, memory headroom, power,
//! region, offload to system RAM, cards owned and mixed builds (LLM serving), unified memory, and
//! the NVLink and datacenter-licence checks.

use crate::i18n::t;
use crate::model::llm::host::OffloadMode;
use crate::state::advisor::Field;
use crate::state::Action;
use crate::ui::form_section::{named, options, SectionProps};
use crate::ui::lang::use_lang;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The fields the section holds (its summary lists those that differ from their default).
pub const FIELDS: [Field; 10] = [Field::MaxGpus, Field::Headroom, Field::MaxWatts, Field::Region, Field::Ram, Field::RamBw, Field::Offload, Field::GpuShare, Field::Owned, Field::Mix];

/// The section's fields, shown while its disclosure is open.
#[function_component(FormConstraints)]
pub fn form_constraints(props: &SectionProps) -> Html {
    let lang = use_lang();
    let inputs = &props.inputs;
    let on_nvlink = props.dispatch.reform(|e: Event| Action::SetNeedNvlink(e.target_unchecked_into::<HtmlInputElement>().checked()));
    let on_dc = props.dispatch.reform(|e: Event| Action::SetDatacenterOnly(e.target_unchecked_into::<HtmlInputElement>().checked()));
    html! {
        <>
            { props.text(lang, Field::MaxGpus, t(lang, "At most N cards"), t(lang, "Per node, 1–8 (datacenter cards may go multi-node)."), "numeric") }
            { props.text(lang, Field::Headroom, t(lang, "Memory headroom %"), t(lang, "Spare memory to keep on every card."), "decimal") }
            { props.text(lang, Field::MaxWatts, t(lang, "At most W watts"), t(lang, "Total board power; empty = no limit."), "numeric") }
            { props.select(lang, Field::Region, t(lang, "Region"), t(lang, "China: only cards sold there (e.g. 4090 D, H20)."), options(&[("global", t(lang, "Global")), ("cn", t(lang, "China"))])) }
            if props.applies.serving {
                { props.text(lang, Field::Ram, t(lang, "System RAM for offload (GiB)"), t(lang, "llama.cpp keeps what does not fit on the GPU in RAM; empty = no offload."), "decimal") }
                if !inputs.get(Field::Ram).trim().is_empty() {
                    { props.text(lang, Field::RamBw, t(lang, "RAM bandwidth (GB/s)"), t(lang, "Empty = typical for the card's platform: dual-channel DDR4 or DDR5, 8-channel server DDR5."), "decimal") }
                    { props.select(lang, Field::Offload, t(lang, "Offload placement"), t(lang, "auto: the faster that fits, whole layers (-ngl) or MoE experts (--n-cpu-moe)."),
                        named(false, &OffloadMode::ALL.map(OffloadMode::as_str))) }
                }
                { props.text(lang, Field::Owned, t(lang, "Cards you own"), t(lang, "e.g. rtx-3090:1 — at no cost; the answer is what to add."), "text") }
                { props.text(lang, Field::Mix, t(lang, "Mixed build"), t(lang, "e.g. rtx-4090:1,rtx-3090:1 — layers split by memory."), "text") }
            }
            { props.text(lang, Field::GpuShare, t(lang, "Unified memory for the GPU (GiB)"), t(lang, "Mac, Strix Halo, DGX Spark: what the GPU may use; empty = the platform default."), "decimal") }
            <label class="advisor-form__check"><input type="checkbox" checked={inputs.need_nvlink} onchange={on_nvlink} />{ t(lang, " NVLink or Infinity Fabric required") }</label>
            <label class="advisor-form__check"><input type="checkbox" checked={inputs.datacenter_only} onchange={on_dc} />{ t(lang, " Datacenter licence only") }</label>
        </>
    }
}
