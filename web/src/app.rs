//! The page's layout: the start, the summary, the two files, and the panels
//! beside them.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::state::{Action, File, State, Tab, initial, predict};
use crate::{form, model, net, run, side, start};

/// How long typing must pause before the simulator predicts (it takes tens of
/// milliseconds; the linter runs on every keystroke).
const PREDICT_AFTER_MS: i32 = 350;

/// Runs `f` once after `ms`, unless the returned guard is dropped first.
fn after(ms: i32, f: impl FnOnce() + 'static) -> impl FnOnce() {
    let window = web_sys::window();
    let callback = Closure::once(f);
    let handle = window.as_ref().and_then(|w| {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.as_ref().unchecked_ref(), ms).ok()
    });
    move || {
        if let (Some(w), Some(h)) = (window, handle) {
            w.clear_timeout_with_handle(h);
        }
        drop(callback);
    }
}

fn text_area(state: &UseReducerHandle<State>, file: File, text: &str, id: &str, label: &str) -> Html {
    let s = state.clone();
    let oninput = Callback::from(move |e: InputEvent| {
        s.dispatch(Action::SetText(file.clone(), e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    });
    html! {
        <textarea id={id.to_string()} aria-label={label.to_string()} rows="30" spellcheck="false" value={text.to_string()} {oninput}/>
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(initial);
    // Interactive: the first render is in the document. The browser test reads it.
    use_effect_with((), |_| {
        if let Some(w) = web_sys::window() {
            let _ = js_sys::Reflect::set(&w, &JsValue::from_str("__cfgReadyMs"), &JsValue::from_f64(net::now_ms()));
        }
    });
    {
        let state = state.clone();
        use_effect_with(state.generation, move |&generation| {
            after(PREDICT_AFTER_MS, move || {
                let result = predict(&state);
                state.dispatch(Action::Predicted(generation, result));
            })
        });
    }
    let tab = |t: Tab, label: &str, id: &str| {
        let s = state.clone();
        let selected = state.tab == t;
        html! {
            <button id={id.to_string()} role="tab" aria-selected={selected.to_string()} class={classes!("tab", selected.then_some("active"))}
                onclick={Callback::from(move |_| s.dispatch(Action::Tab(t)))}>{label}</button>
        }
    };
    // Drop either file, or a model's config.json, anywhere on the page.
    let on_drop = {
        let s = state.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            let Some(files) = e.data_transfer().and_then(|d| d.files()) else { return };
            for i in 0..files.length() {
                let Some(f) = files.get(i) else { continue };
                let s = s.clone();
                // Both files are refused past 1 MiB by the linter; nothing this
                // page reads is bigger than a few.
                if f.size() > f64::from(start::MAX_FILE_BYTES) {
                    s.dispatch(Action::ModelNote(format!("{} is too large to read here", f.name())));
                    continue;
                }
                wasm_bindgen_futures::spawn_local(async move {
                    let Ok(text) = wasm_bindgen_futures::JsFuture::from(f.text()).await else { return };
                    let text = text.as_string().unwrap_or_default();
                    if model::is_model_config(&text) {
                        s.dispatch(start::given_model_files(&s, &f.name(), "dropped on the page", text));
                        return;
                    }
                    let file = match cfg_core::detect_kind(&f.name(), &text) {
                        Some(cfg_core::FileKind::Config) => File::Config,
                        _ => File::Settings,
                    };
                    s.dispatch(Action::SetText(file, text));
                });
            }
        })
    };
    html! {
        <main data-ready="true" ondragover={Callback::from(|e: DragEvent| e.prevent_default())} ondrop={on_drop}>
            <header class="top">
                <h1>{"vLLM config and load-test builder"}</h1>
                <p class="tagline">{"Pick a model, a GPU and the traffic: get a config.toml and settings.json that vLLM starts with, checked as you type by the same rules as cfg-lint."}</p>
            </header>
            { side::summary(&state) }
            <div class="layout">
                <div class="main-col">
                    { start::card(&state) }
                    <section class="card" aria-labelledby="files-heading">
                        <div class="card-head">
                            <h2 id="files-heading">{"The two files"}</h2>
                            { side::file_actions(&state) }
                        </div>
                        <div role="tablist" class="tabs">
                            { tab(Tab::Form, "Form", "tab-form") }{ tab(Tab::ConfigText, "config.toml", "tab-config") }{ tab(Tab::SettingsText, "settings.json", "tab-settings") }
                        </div>
                        { match state.tab {
                            Tab::Form => form::form(&state),
                            Tab::ConfigText => text_area(&state, File::Config, &state.config, "text-config", "config.toml"),
                            Tab::SettingsText => text_area(&state, File::Settings, &state.settings, "text-settings", "settings.json"),
                        } }
                    </section>
                </div>
                <aside class="side-col">
                    { side::diagnostics(&state) }
                    { side::memory(&state) }
                    { side::launch(&state) }
                    { side::what_if(&state) }
                    { run::panel(&state) }
                </aside>
            </div>
        </main>
    }
}
