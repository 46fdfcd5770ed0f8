//! Component tests in a real browser (headless Chromium): the app renders,
//! and typing into a field brings the linter's error next to it.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<cfg_web::app::App>::with_root(root.clone()).render();
    root
}

async fn settle() {
    yew::scheduler::flush().await;
    // Let the browser run the re-render the dispatch scheduled.
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
    yew::scheduler::flush().await;
}

#[wasm_bindgen_test]
async fn renders_the_example_pair_clean_with_a_field_per_key() {
    let root = mount();
    settle().await;
    let summary = root.query_selector("#summary").unwrap().expect("summary");
    assert_eq!(summary.get_attribute("data-errors").as_deref(), Some("0"));
    for pointer in ["/model/name", "/batching/max_num_seqs", "/hardware/gpu", "/concurrency", "/sla/ttft_p99_ms"] {
        assert!(
            root.query_selector(&format!("[data-pointer=\"{pointer}\"]")).unwrap().is_some(),
            "no field for {pointer}"
        );
    }
    assert!(root.query_selector(".memory svg").unwrap().is_some(), "the memory picture is drawn");
}

#[wasm_bindgen_test]
async fn a_bad_value_shows_its_error_code_next_to_the_field() {
    let root = mount();
    settle().await;
    let input: HtmlInputElement = root
        .query_selector("input[data-pointer=\"/model/max_model_len\"]")
        .unwrap()
        .expect("field")
        .dyn_into()
        .unwrap();
    input.set_value("100000000");
    input.dispatch_event(&web_sys::InputEvent::new("input").unwrap()).unwrap();
    settle().await;
    let diag = root.query_selector(".field.has-diag .diag[data-code=\"CFG005\"]").unwrap();
    assert!(diag.is_some(), "out-of-range error next to max_model_len: {}", root.inner_html().len());
}
