//! Browser tests (wasm-bindgen-test in headless Chromium): the app mounts, renders the catalog
//! and reacts to input. They wait by polling the DOM, never with a fixed sleep.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> web_sys::Element {
    // Tests share one page: start each from the same URL (the app writes its state there).
    gpu_advisor::ui::dom::replace_query("view=catalog");
    let document = gloo::utils::document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<gpu_advisor::ui::app::App>::with_root(root.clone()).render();
    root
}

/// Polls until `selector` matches at least `min` elements, for up to 5 s.
async fn wait_for(root: &web_sys::Element, selector: &str, min: u32) -> web_sys::NodeList {
    for _ in 0..250 {
        let list = root.query_selector_all(selector).unwrap();
        if list.length() >= min {
            return list;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {min} × `{selector}`");
}

#[wasm_bindgen_test]
async fn catalog_renders_every_card() {
    let root = mount();
    let rows = wait_for(&root, ".catalog-table__row", 60).await;
    assert_eq!(rows.length() as usize, gpu_advisor::catalog::gpus().len());
    assert!(root.text_content().unwrap().contains("GeForce RTX 4090"));
}

#[wasm_bindgen_test]
async fn search_filters_the_table() {
    let root = mount();
    wait_for(&root, ".catalog-table__row", 60).await;
    let input: web_sys::HtmlInputElement = root.query_selector("input[type=search]").unwrap().unwrap().dyn_into().unwrap();
    input.set_value("a5000");
    input.dispatch_event(&web_sys::InputEvent::new("input").unwrap()).unwrap();
    for _ in 0..250 {
        let n = root.query_selector_all(".catalog-table__row").unwrap().length();
        if n == 1 {
            assert!(root.query_selector("[data-gpu=rtx-a5000]").unwrap().is_some());
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("search did not narrow the table to the RTX A5000");
}

/// The app reads pasted `config.json` with the browser's `JSON.parse` (`ui::browser_json`), not
/// serde_json's parser. Same shape as the model card: gpt-oss-20b has 20.9 B parameters, 3.6 B
/// active (openai/gpt-oss-20b model card), and its config says 24 layers, 32 experts, 8 KV heads.
#[wasm_bindgen_test]
fn pasted_config_reads_through_the_browser_json_parser() {
    gpu_advisor::ui::browser_json::install();
    let text = include_str!("data/configs/gpt-oss-20b.json");
    let m = gpu_advisor::model::llm::config_json::parse_config_json(text).expect("the stored config parses");
    assert_eq!((m.layers, m.experts_total, m.kv_heads, m.vocab_size), (24, 32, 8, 201_088));
    assert!((m.params_total / 20.9e9 - 1.0).abs() < 0.02, "total {}", m.params_total);
    // `{"a": 1,⏎  "b": 1 x}`: 'x' is character 18, on line 2 at column 10 (9 characters after
    // the newline at index 8).
    let broken = gpu_advisor::json::read("{\"a\": 1,\n  \"b\": 1 x}").expect_err("not JSON");
    assert_eq!(broken.at, Some((2, 10)));
    assert!(gpu_advisor::json::read("{\"a\": ").expect_err("cut short").eof);
    // Whole numbers read as integers, as serde_json reads them; fractions as floats.
    let v = gpu_advisor::json::read("{\"n\": 4096, \"f\": 0.5, \"s\": [\"x\", null, true]}").expect("JSON");
    assert_eq!((v["n"].as_u64(), v["f"].as_f64(), v["s"][0].as_str(), v["s"][2].as_bool()), (Some(4096), Some(0.5), Some("x"), Some(true)));
}

/// The app's number reader in the browser (`fmath::parse_f64`, the browser's `Number` behind a
/// character check) reads every text as Rust's `str::parse::<f64>` does, the contract it keeps:
/// plain, signed, exponent and trailing-point numbers alike, `inf` and `nan` in any case, and
/// nothing from what `Number` alone would take (spaces, hex, an empty text, separators).
#[wasm_bindgen_test]
fn numbers_read_as_rust_reads_them() {
    let texts = [
        "0", "12", "-3.5", "+7", ".5", "5.", "1e5", "1E-3", "2.5e+2", "1e999", "-1e999", "4.9e-324", "0.1", "123456789.123456789",
        "inf", "-Infinity", "NaN", "", " 1", "1 ", "0x10", "1_000", "1,5", "1e", "e5", ".", "-", "+", "1.2.3", "--1", "1e5.5", "12abc",
    ];
    for t in texts {
        let want = t.parse::<f64>().ok();
        let got = gpu_advisor::fmath::parse_f64(t);
        let same = match (want, got) {
            (Some(a), Some(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            (None, None) => true,
            _ => false,
        };
        assert!(same, "`{t}`: Rust {want:?}, the app {got:?}");
    }
}
