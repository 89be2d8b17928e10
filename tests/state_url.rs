//! The URL form of the app state: a typed round trip, and hostile input never panics and is noted.
#![cfg(not(target_arch = "wasm32"))]

use gpu_advisor::catalog::{Segment, Vendor};
use gpu_advisor::state::{url, Action, AppState, View};
use proptest::prelude::*;

#[test]
fn a_shared_compare_link_reproduces_the_view() {
    let p = url::parse("?view=compare&gpus=rtx-a5000,rtx-4090");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    assert_eq!(p.state.view, View::Compare);
    assert_eq!(p.state.compare, vec!["rtx-a5000", "rtx-4090"]);
    assert_eq!(url::render(&p.state), "view=compare&gpus=rtx-a5000%2Crtx-4090");
}

#[test]
fn round_trip_of_a_full_state() {
    let s = AppState::default()
        .apply(Action::SetView(View::Compare))
        .apply(Action::SetQuery("ada 48 gb".into()))
        .apply(Action::SetVendor(Some(Vendor::Nvidia)))
        .apply(Action::SetSegment(Some(Segment::Datacenter)))
        .apply(Action::SetMinMemory(Some(40.0)))
        .apply(Action::SetNvlinkOnly(true))
        .apply(Action::SortBy("bandwidth".into()))
        .apply(Action::ToggleCompare("h100-sxm".into()))
        .apply(Action::ToggleCompare("l40s".into()))
        .apply(Action::ShowDetail(Some("l4".into())));
    let back = url::parse(&url::render(&s));
    assert!(back.notes.is_empty(), "{:?}", back.notes);
    assert_eq!(back.state, s);
    assert_eq!(url::parse(&url::render(&AppState::default())).state, AppState::default());
}

#[test]
fn bad_parameters_fall_back_with_a_note() {
    let p = url::parse("view=nope&gpus=rtx-4090,not-a-gpu,<script>&min_mem=-5&zzz=1&sort=__proto__");
    assert_eq!(p.state.view, View::Advisor, "the advisor is the main page");
    assert_eq!(p.state.compare, vec!["rtx-4090"]);
    assert_eq!(p.state.filter.min_memory_gib, None);
    assert_eq!(p.notes.len(), 6, "{:?}", p.notes);
    let long = format!("q={}", "a".repeat(5000));
    assert_eq!(url::parse(&long).notes.len(), 1);
}

#[test]
fn compare_holds_at_most_four_known_cards() {
    let mut s = AppState::default();
    for id in ["h100-sxm", "l4", "l40s", "rtx-4090", "rtx-3090", "rtx-4090", "nope"] {
        s = s.apply(Action::ToggleCompare(id.into()));
    }
    // Five toggles of distinct real cards: the fifth is refused; the second 4090 toggle removes it.
    assert_eq!(s.compare, vec!["h100-sxm", "l4", "l40s"]);
}

#[test]
fn filters_and_sorting() {
    let s = AppState::default().apply(Action::SetNvlinkOnly(true)).apply(Action::SetMinMemory(Some(80.0)));
    let rows = s.visible_gpus();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|g| g.nvlink && g.memory_gib >= 80.0));
    assert!(rows.windows(2).all(|w| w[0].memory_gib >= w[1].memory_gib), "default sort: memory, descending");
    let s = AppState::default().apply(Action::SetQuery("4090".into()));
    let ids: Vec<&str> = s.visible_gpus().iter().map(|g| g.id.as_str()).collect();
    assert!(ids.contains(&"rtx-4090") && ids.contains(&"rtx-4090d"), "{ids:?}");
}

proptest! {
    #[test]
    fn parse_never_panics(q in ".{0,300}") {
        let _ = url::parse(&q);
    }

    #[test]
    fn parse_never_panics_on_known_keys(k in "(view|gpus|q|vendor|segment|min_mem|nvlink|sort|dir|gpu)", v in ".{0,80}") {
        let p = url::parse(&format!("{k}={v}"));
        // Whatever was read must render and read back to the same state.
        prop_assert_eq!(url::parse(&url::render(&p.state)).state, p.state);
    }
}

#[test]
fn bad_advisor_values_in_a_link_are_reset_with_a_note() {
    let p = url::parse("model=llama-3-70b&batch=abc&context=0&budget=-5&hours=99");
    assert_eq!(p.state.advisor.get(gpu_advisor::state::advisor::Field::Model), "llama-3-70b");
    for (field, default) in [("batch", "1"), ("context", "8192"), ("hours", "8")] {
        let f = gpu_advisor::state::advisor::Field::from_key(field).unwrap();
        assert_eq!(p.state.advisor.get(f), default, "{field}");
        assert!(p.notes.iter().any(|n| n.contains(&format!("`{field}="))), "no note for {field}: {:?}", p.notes);
    }
    assert!(p.state.advisor.recommend_input().is_ok());
    // An unknown model falls back to the default model, with a note naming it.
    let p = url::parse("model=gpt-17-quadrillion&workload=lora");
    assert!(p.notes.iter().any(|n| n.contains("gpt-17")), "{:?}", p.notes);
    assert!(p.state.advisor.recommend_input().is_ok());
    // A custom model without a parameter count cannot be sized: reset to the default model.
    let p = url::parse("model=custom&params=");
    assert!(p.state.advisor.recommend_input().is_ok(), "{:?}", p.notes);
}

#[test]
fn stored_state_round_trips_and_old_versions_are_dropped() {
    use gpu_advisor::state::stored;
    let s = AppState::default().apply(Action::SetInput(gpu_advisor::state::advisor::Field::Batch, "8".into()));
    assert_eq!(stored::decode(&stored::encode(&s)).unwrap().state, s);
    assert!(stored::decode(r#"{"v":0,"q":"batch=8"}"#).unwrap_err().contains("older version"));
    assert!(stored::decode("not json").is_err());
    assert!(stored::decode(&"x".repeat(100_000)).is_err());
}

proptest! {
    #[test]
    fn any_link_yields_a_sizable_advisor_state(k in "(model|params|workload|precision|kv|engine|context|batch|budget|mode|currency|prices|hours|max_gpus|resolution|steps|users|tps_user|ttft|rate_rps|prefix_hit|spec|spec_accept|api_price)", v in ".{0,40}") {
        let p = url::parse(&format!("{k}={v}"));
        prop_assert!(p.state.advisor.recommend_input().is_ok(), "{:?}", p.notes);
    }
}

/// Link notes and field errors come out in the link's language. Expected texts are the
/// entries of data/i18n.toml for "Ignored unknown parameter `{key}`." and "`{text}` is not a
/// number"; without `lang` the notes stay English.
#[test]
fn notes_and_field_errors_follow_the_language() {
    use gpu_advisor::i18n::Lang;
    use gpu_advisor::state::advisor::Field;
    let zh = gpu_advisor::state::url::parse("?lang=zh&foo=1");
    assert_eq!(zh.notes, vec!["已忽略未知参数 `foo`。".to_string()]);
    let ru = gpu_advisor::state::url::parse("?foo=1&lang=ru");
    assert_eq!(ru.notes, vec!["Пропущен неизвестный параметр `foo`.".to_string()]);
    let en = gpu_advisor::state::url::parse("?foo=1");
    assert_eq!(en.notes, vec!["Ignored unknown parameter `foo`.".to_string()]);
    // The browser's language when the link has none.
    let fallback = gpu_advisor::state::url::parse_in("?foo=1", Lang::Zh);
    assert_eq!(fallback.notes, vec!["已忽略未知参数 `foo`。".to_string()]);

    let mut inputs = gpu_advisor::state::advisor::AdvisorInputs::default();
    inputs.set(Field::Batch, "abc".into());
    let errors = inputs.recommend_input().expect_err("a bad batch");
    let e = errors.iter().find(|e| e.field == Field::Batch).expect("an error on batch");
    assert_eq!(e.message, "`abc` is not a number");
    assert_eq!(e.message_in(Lang::Zh), "`abc` 不是数字");
    assert_eq!(e.message_in(Lang::Ru), "`abc` — не число");
}

/// A purchase is the cards alone by default (`host=none`); `host=include` buys a complete
/// machine; an unknown value is reset with a note that names the key.
#[test]
fn host_option_in_the_link() {
    let p = url::parse("?host=include");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    assert!(p.state.advisor.recommend_input().expect("valid").cost.include_host);
    assert!(!url::parse("").state.advisor.recommend_input().expect("valid").cost.include_host);
    assert!(!url::parse("?host=none").state.advisor.recommend_input().expect("valid").cost.include_host);
    let bad = url::parse("?host=maybe");
    assert_eq!(bad.notes, vec!["Ignored `host=maybe`: choose include or none.".to_string()]);
    assert!(!bad.state.advisor.recommend_input().expect("reset").cost.include_host);
    // The link keeps a choice other than the default, and leaves the default out.
    assert_eq!(url::render(&url::parse("?host=include").state), "host=include");
    assert_eq!(url::render(&url::parse("?host=none").state), "");
}

/// A pasted config.json that lacks a key: the error beside the field names the key, in English
/// and in the interface language (data/i18n.toml: "config.json: {problem}" and "missing required
/// key `{key}`").
#[test]
fn config_json_errors_name_the_key_in_every_language() {
    use gpu_advisor::i18n::Lang;
    use gpu_advisor::state::advisor::{AdvisorInputs, Field};
    let mut inputs = AdvisorInputs::default();
    inputs.set(Field::Model, "custom".into());
    inputs.config_json = r#"{"hidden_size": 4096}"#.into();
    let errors = inputs.recommend_input().expect_err("incomplete config");
    let e = errors.iter().find(|e| e.field == Field::Params).expect("an error on the model field");
    assert_eq!(e.message, "config.json: missing required key `num_hidden_layers`");
    assert_eq!(e.message_in(Lang::Zh), "config.json：缺少必需的键 `num_hidden_layers`");
    assert_eq!(e.message_in(Lang::Ru), "config.json: нет обязательного ключа `num_hidden_layers`");
}

/// The serving URL keys reach the recommender and round-trip; an old link's `batch` is the number
/// of users, and a bad value is reset with a note naming it.
#[test]
fn serving_keys_reach_the_recommender_and_round_trip() {
    use gpu_advisor::model::llm::serving::SpecDecode;
    let p = url::parse("?users=50&tps_user=20&ttft=2&prefix_hit=0.3&spec=eagle&spec_accept=0.7&api_price=0.5");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    let i = p.state.advisor.recommend_input().expect("a valid input");
    let t = i.serving;
    assert_eq!((t.tokens_per_s_per_user, t.max_ttft_s, t.prefix_hit, t.spec, t.spec_accept), (Some(20.0), Some(2.0), 0.3, SpecDecode::Eagle, Some(0.7)));
    assert_eq!(i.cost.api_usd_per_million, Some(0.5));
    let gpu_advisor::recommend::Job::Llm(job) = &i.job else { panic!("an LLM job") };
    assert_eq!(job.batch, 50);
    assert_eq!(url::parse(&url::render(&p.state)).state, p.state);
    // An old link: `batch` was the users.
    let old = url::parse("?batch=8");
    let gpu_advisor::recommend::Job::Llm(job) = old.state.advisor.recommend_input().expect("valid").job else { panic!("LLM") };
    assert_eq!(job.batch, 8);
    // Out of range: reset with a note.
    let bad = url::parse("?prefix_hit=1.5&tps_user=-3");
    assert!(bad.notes.iter().any(|n| n.contains("`prefix_hit=")), "{:?}", bad.notes);
    assert!(bad.notes.iter().any(|n| n.contains("`tps_user=")), "{:?}", bad.notes);
    assert!(bad.state.advisor.recommend_input().is_ok());
}

/// The offload keys (`ram`, `ram_bw`, `offload`) and the unified-memory share
/// (`gpu_share`) reach the LLM job and round trip; RAM of 0 or less, or a word, is reset with a
/// note naming the key, and the job still sizes.
#[test]
fn offload_keys_reach_the_job_and_round_trip() {
    use gpu_advisor::model::llm::host::OffloadMode;
    let p = url::parse("?model=gpt-oss-120b&ram=64&ram_bw=89.6&offload=experts&gpu_share=110");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    let i = p.state.advisor.recommend_input().expect("a valid input");
    let gpu_advisor::recommend::Job::Llm(job) = &i.job else { panic!("an LLM job") };
    assert_eq!((job.host.ram_gib, job.host.ram_gb_s, job.host.mode, job.host.unified_gpu_gib), (64.0, Some(89.6), OffloadMode::Experts, Some(110.0)));
    assert_eq!(url::parse(&url::render(&p.state)).state, p.state);
    // No `ram`: no offload.
    let plain = url::parse("?model=gpt-oss-120b");
    let gpu_advisor::recommend::Job::Llm(job) = plain.state.advisor.recommend_input().expect("valid").job else { panic!("LLM") };
    assert_eq!(job.host.ram_gib, 0.0);
    reset_with_a_note(&["?ram=0", "?ram=-8", "?ram=lots", "?offload=disk"]);
}

/// The video URL keys `frames` and `offload_mode` round trip, reach the job, and a bad value is
/// an error beside its field (and, in a link, a reset with a note).
#[test]
fn video_keys_reach_the_job_and_round_trip() {
    use gpu_advisor::model::media::OffloadMode;
    use gpu_advisor::state::advisor::Field;
    let p = url::parse("?model=wan2.1-t2v-14b&workload=video-generation&resolution=832x480&frames=49&offload_mode=model");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    let i = p.state.advisor.recommend_input().expect("a valid input");
    let gpu_advisor::recommend::Job::Media(m) = &i.job else { panic!("a media job") };
    assert_eq!((m.workload.as_str(), m.frames, m.offload_mode, m.resolution), ("video-generation", Some(49), Some(OffloadMode::Model), Some((832, 480))));
    assert_eq!(url::parse(&url::render(&p.state)).state, p.state);
    let e = i.job.estimate(gpu_advisor::catalog::gpu("h100-sxm").unwrap(), 1).unwrap();
    assert!(e.throughput.seconds_per_video.is_some());
    // Bad values: an error beside the field while typing, a reset with a note in a link.
    for (field, bad) in [(Field::Frames, "0"), (Field::Frames, "lots"), (Field::OffloadMode, "disk")] {
        let mut inputs = p.state.advisor.clone();
        inputs.set(field, bad.into());
        let errs = inputs.job().expect_err(bad);
        assert!(errs.iter().any(|e| e.field == field), "{bad}: {errs:?}");
    }
    let bad = url::parse("?model=wan2.1-t2v-1.3b&frames=0&offload_mode=disk");
    assert!(bad.notes.iter().any(|n| n.contains("`frames=")), "{:?}", bad.notes);
    assert!(bad.notes.iter().any(|n| n.contains("`offload_mode=")), "{:?}", bad.notes);
    assert!(bad.state.advisor.recommend_input().is_ok());
}

/// Choosing a video preset switches the workload to video generation, and back for an image preset.
#[test]
fn choosing_a_video_preset_sets_the_video_workload() {
    use gpu_advisor::state::advisor::Field;
    let s = AppState::default().apply(Action::SetInput(Field::Model, "hunyuanvideo".into()));
    assert_eq!(s.advisor.get(Field::Workload), "video-generation");
    let s = s.apply(Action::SetInput(Field::Model, "sdxl".into()));
    assert_eq!(s.advisor.get(Field::Workload), "image-generation");
    let s = s.apply(Action::SetInput(Field::Model, "ltx-video".into())).apply(Action::SetInput(Field::Model, "llama-3-8b".into()));
    assert_eq!(s.advisor.get(Field::Workload), "inference");
}
#[test]
fn image_keys_reach_the_job_and_round_trip() {
    use gpu_advisor::state::advisor::Field;
    let p = url::parse("?model=qwen2.5-vl-7b&images=2&image_res=1920x1080");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    assert_eq!(url::render(&p.state), "model=qwen2.5-vl-7b&images=2&image_res=1920x1080");
    assert_eq!(url::parse(&url::render(&p.state)).state, p.state);
    let gpu_advisor::recommend::Job::Llm(job) = p.state.advisor.job().expect("valid") else { panic!("LLM") };
    assert_eq!((job.images, job.image_width_px, job.image_height_px), (2, 1920, 1080));
    // Zero images is fine on any model; images on a text-only model, a negative count, a
    // non-number and a bad WxH are each an error on their own field (and a link resets them).
    let mut inputs = gpu_advisor::state::advisor::AdvisorInputs::default();
    inputs.set(Field::Images, "0".into());
    assert!(inputs.job().is_ok());
    for (field, value, model) in [(Field::Images, "1", "llama-3.1-8b"), (Field::Images, "-1", "qwen2.5-vl-7b"), (Field::Images, "two", "qwen2.5-vl-7b"), (Field::ImageRes, "1024", "qwen2.5-vl-7b"), (Field::ImageRes, "0x10", "qwen2.5-vl-7b")] {
        let mut inputs = gpu_advisor::state::advisor::AdvisorInputs::default();
        inputs.set(Field::Model, model.into());
        inputs.set(Field::Images, "1".into());
        inputs.set(field, value.into());
        let errors = inputs.job().expect_err(value);
        assert!(errors.iter().any(|e| e.field == field), "{value}: {errors:?}");
    }
    let bad = url::parse("?model=qwen2.5-vl-7b&images=1&image_res=big");
    assert!(bad.notes.iter().any(|n| n.contains("`image_res=")), "{:?}", bad.notes);
    assert!(bad.state.advisor.job().is_ok());
}

#[test]
fn owned_mix_and_backend_keys_round_trip_and_name_their_field() {
    use gpu_advisor::state::advisor::{AdvisorInputs, Field};
    let p = url::parse("?owned=rtx-3090:1&mix=rtx-4090:1,rtx-3090:1&backend=vulkan");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    assert_eq!(url::parse(&url::render(&p.state)).state, p.state);
    let i = p.state.advisor.recommend_input().expect("valid");
    assert_eq!(i.owned, vec![("rtx-3090".to_string(), 1)]);
    assert_eq!(i.mix, vec![("rtx-4090".to_string(), 1), ("rtx-3090".to_string(), 1)]);
    let gpu_advisor::recommend::Job::Llm(job) = &i.job else { panic!("LLM") };
    assert_eq!(job.backend, Some(gpu_advisor::model::llm::engines::Backend::Vulkan));
    // Unknown ids, bad counts, an unknown back-end and a mix no engine runs: each on its field.
    for (field, value, engine) in [
        (Field::Owned, "rtx-9999:1", ""),
        (Field::Owned, "rtx-3090:0", ""),
        (Field::Mix, "rtx-4090:two", ""),
        (Field::Mix, "rtx-4090:1,apple-m2-ultra:1", ""),
        (Field::Mix, "rtx-4090:1,rtx-3090:1", "vllm"),
        (Field::Backend, "opencl", ""),
    ] {
        let mut inputs = AdvisorInputs::default();
        inputs.set(field, value.into());
        inputs.set(Field::Engine, engine.into());
        let errors = inputs.recommend_input().expect_err(value);
        assert!(errors.iter().any(|e| e.field == field), "{value}: {errors:?}");
    }
    let bad = url::parse("?owned=nope:1");
    assert!(bad.notes.iter().any(|n| n.contains("`owned=")), "{:?}", bad.notes);
    assert!(bad.state.advisor.recommend_input().is_ok());
}

/// The currency follows the reader's language while it is left on `auto` (the default): yuan
/// for Chinese, roubles for Russian, dollars for English; a currency in the link wins, and the
/// link leaves `auto` out.
#[test]
fn the_currency_follows_the_language_unless_chosen() {
    use gpu_advisor::i18n::Lang;
    use gpu_advisor::recommend::cost::Currency;
    let currency = |query: &str, lang: Lang| {
        let mut s = url::parse(query).state;
        s.advisor.reader_lang = lang;
        s.advisor.recommend_input().expect("valid").cost.currency
    };
    assert_eq!(currency("", Lang::En), Currency::Usd);
    assert_eq!(currency("", Lang::Zh), Currency::Cny);
    assert_eq!(currency("", Lang::Ru), Currency::Rub);
    assert_eq!(currency("?currency=usd", Lang::Zh), Currency::Usd);
    assert_eq!(currency("?currency=eur", Lang::Ru), Currency::Eur);
    assert_eq!(url::render(&url::parse("?currency=auto").state), "");
    assert_eq!(url::render(&url::parse("?currency=usd").state), "currency=usd");
}

/// A link's rejected values are explained in the link's language, engine errors included: the
/// expected fragments are the zh/ru entries of `data/i18n.toml` for each message.
#[test]
fn rejected_values_are_explained_in_the_links_language() {
    use gpu_advisor::i18n::Lang;
    let cases: [(&str, &str, &str); 5] = [
        // A parameter count the engine cannot read (EstimateError from custom::parse_param_count).
        ("model=custom&params=abc", "不是参数量", "не число параметров"),
        // Mixed cards on an engine that splits every layer (EstimateError from mixed::split).
        ("model=llama-3.1-8b&engine=vllm&mix=rtx-4090:1,rtx-3090:1", "张量并行", "тензорный параллелизм"),
        // Images on a model without a vision tower (the advisor's own field error).
        ("model=llama-3.1-8b&images=2", "视觉语言模型", "мультимодальную"),
        // A price override whose price is not a number.
        ("prices=rtx-4090:buy=abc", "价格不是数字", "цена — не число"),
        // A number out of its range.
        ("users=0", "之间", "от"),
    ];
    for (query, zh, ru) in cases {
        for (lang, code, expected) in [(Lang::Zh, "zh", zh), (Lang::Ru, "ru", ru)] {
            let parsed = url::parse_in(&format!("lang={code}&{query}"), Lang::En);
            let notes = parsed.notes.join("\n");
            assert!(notes.contains(expected), "{lang:?} notes for {query}: {notes}");
            // No English sentence is left: the words of each note outside its `key=value` quote
            // are not ASCII prose ("is not", "must be", "needs").
            for english in ["is not", "must be", "needs ", "only", "unknown"] {
                assert!(!notes.contains(english), "{lang:?} notes for {query} keep English `{english}`: {notes}");
            }
        }
    }
}

#[test]
fn a_memory_filter_finer_than_a_link_writes_reads_back_the_same() {
    // Found by the url_state fuzz target: `min_mem=03.666666666676` needs 12 decimals, a link
    // writes at most 9 ("3.666666667"), so the link read back as another filter. The filter is
    // kept to the thousandth of a GiB: 3.666666666676 → 3.667, which a link writes exactly.
    let p = url::parse("min_mem=03.666666666676");
    assert_eq!(p.state.filter.min_memory_gib, Some(3.667));
    let rendered = url::render(&p.state);
    assert_eq!(rendered, "min_mem=3.667");
    assert_eq!(url::parse(&rendered).state, p.state);
    // 0.0004 GiB rounds to 0, no filter at all; 4096.0004 to 4096, the largest kept.
    assert_eq!(url::parse("min_mem=0.0004").state.filter.min_memory_gib, None);
    assert_eq!(url::parse("min_mem=4096.0004").state.filter.min_memory_gib, Some(4096.0));
}

/// A cluster plan in a link: the mesh, the global batch, the accumulation, the scale-out port and
/// the training numerics reach the job and round trip; the serving switches (arrivals, CUDA
/// graphs, the MoE layout) reach the recommender. A part of the mesh left out is 1 (Megatron's
/// `--tensor-model-parallel-size` and the others default to 1). Bad values are reset with a note
/// naming the key.
#[test]
fn cluster_plan_keys_reach_the_job_and_round_trip() {
    use gpu_advisor::model::llm::job::{MeshSpec, MoeLayout};
    use gpu_advisor::model::llm::serving::Arrivals;
    let p = url::parse("?model=llama-3.1-70b&workload=training&tp=8&pp=4&global_batch=1024&grad_accum=8&nic_gbit_s=400&master_weights=off&opt_in_backward=on");
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    let i = p.state.advisor.recommend_input().expect("a valid input");
    let gpu_advisor::recommend::Job::Llm(job) = &i.job else { panic!("an LLM job") };
    assert_eq!(job.mesh, Some(MeshSpec { tp: 8, cp: 1, pp: 4, interleave: 1, ep: 1 }));
    assert_eq!((job.global_batch, job.grad_accum, job.nic_gbit_s), (Some(1024), 8, Some(400.0)));
    assert_eq!((job.master_weights, job.optimizer_in_backward), (false, true));
    assert_eq!(url::parse(&url::render(&p.state)).state, p.state);
    // Without them: the layout search's choice, the platform's port, transformers' numerics
    // (fp32 master weights, the optimizer after backward).
    let plain = url::parse("?model=llama-3.1-70b&workload=training");
    let gpu_advisor::recommend::Job::Llm(job) = plain.state.advisor.recommend_input().expect("valid").job else { panic!("LLM") };
    assert_eq!((job.mesh, job.global_batch, job.grad_accum, job.nic_gbit_s), (None, None, 1, None));
    assert_eq!((job.master_weights, job.optimizer_in_backward), (true, false));

    let s = url::parse("?model=qwen3-30b-a3b&arrivals=in-step&cuda_graphs=off&moe_layout=dep");
    assert!(s.notes.is_empty(), "{:?}", s.notes);
    let i = s.state.advisor.recommend_input().expect("a valid input");
    assert_eq!(i.serving.arrivals, Arrivals::InStep);
    let gpu_advisor::recommend::Job::Llm(job) = &i.job else { panic!("an LLM job") };
    assert_eq!((job.cuda_graphs, job.moe_layout), (Some(false), MoeLayout::DpAttention));
    assert_eq!(url::parse(&url::render(&s.state)).state, s.state);

    reset_with_a_note(&["?tp=0", "?pp=1.5", "?cp=lots", "?global_batch=0", "?nic_gbit_s=0", "?grad_accum=0", "?master_weights=maybe", "?cuda_graphs=sometimes", "?moe_layout=zz", "?arrivals=burst"]);
}

/// Each link of one bad `key=value` is read with that value reset and a note naming the key, and
/// the advisor's input is then valid.
fn reset_with_a_note(links: &[&str]) {
    for bad in links {
        let b = url::parse(bad);
        let key = bad.trim_start_matches('?').split('=').next().unwrap_or("");
        assert!(b.notes.iter().any(|n| n.contains(&format!("`{key}="))), "{bad}: {:?}", b.notes);
        assert!(b.state.advisor.recommend_input().is_ok(), "{bad}");
    }
}
