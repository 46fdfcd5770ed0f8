//! The page. Both files are held as text; the form reads and writes them
//! through JSON; every change is linted by the core and the diagnostics are
//! shown next to the field their JSON pointer names, and in a list.

use std::rc::Rc;

use cfg_core::FileKind;
use cfg_core::schema;
use cfg_core::{Diagnostic, Report};
use serde_json::Value;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::model;
use crate::{charts, net};

const DEFAULT_CONFIG: &str = include_str!("../../examples/config.toml");
const DEFAULT_SETTINGS: &str = include_str!("../../examples/settings.json");

#[derive(Clone, Copy, PartialEq)]
pub enum Tab {
    Form,
    ConfigText,
    SettingsText,
}

#[derive(Clone, PartialEq)]
pub enum File {
    Config,
    Settings,
}

#[derive(Clone, Default, PartialEq)]
pub struct RunView {
    pub id: Option<String>,
    pub status: String,
    pub progress: Vec<Value>,
    pub result: Option<Value>,
    /// The runner's archive listing (JSON text) and the last comparison.
    pub archive: Option<String>,
    pub comparison: Option<String>,
}

#[derive(Clone)]
pub struct State {
    pub config: String,
    pub settings: String,
    pub report: Rc<Report>,
    pub tab: Tab,
    pub token: Option<String>,
    pub run: RunView,
    pub sweep: Option<Vec<cfg_core::sim::SweepPoint>>,
    pub sweep_error: Option<String>,
    /// Milliseconds each lint took, for the page's own measurements.
    pub lint_ms: Vec<f64>,
    /// The model's own config.json, when given on the page.
    pub model_files: Option<Rc<model::ModelFiles>>,
    /// What became of the last attempt to get them.
    pub model_note: Option<String>,
}

impl State {
    /// The `[model] name` the config gives now.
    fn config_name(&self) -> String {
        model::config_value(&self.config)
            .and_then(|v| v.pointer("/model/name").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default()
    }
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config
            && self.settings == other.settings
            && self.tab == other.tab
            && self.run == other.run
            && self.sweep == other.sweep
            && self.lint_ms.len() == other.lint_ms.len()
            && self.model_files == other.model_files
            && self.model_note == other.model_note
    }
}

pub enum Action {
    SetText(File, String),
    SetField(File, String, Option<Value>),
    RenameClass(String, String),
    AddClass,
    RemoveClass(String),
    Tab(Tab),
    Run(RunView),
    Sweep(Result<Vec<cfg_core::sim::SweepPoint>, String>),
    /// The model's own files (or none, to forget them).
    ModelFiles(Option<model::ModelFiles>),
    ModelNote(String),
}

fn relint(mut s: State) -> State {
    let t0 = net::now_ms();
    s.report = Rc::new(model::lint_with(&s.config, &s.settings, s.model_files.as_deref()));
    let ms = net::now_ms() - t0;
    s.lint_ms.push(ms);
    // Exposed for the browser test's per-keystroke measurement.
    if let Some(w) = web_sys::window() {
        let key = wasm_bindgen::JsValue::from_str("__cfgLintMs");
        let samples: js_sys::Array =
            js_sys::Reflect::get(&w, &key).ok().and_then(|v| v.dyn_into::<js_sys::Array>().ok()).unwrap_or_default();
        samples.push(&wasm_bindgen::JsValue::from_f64(ms));
        let _ = js_sys::Reflect::set(&w, &key, &samples);
    }
    // The whole state in the URL fragment: a link reproduces the page. Not the
    // token: a shared link must not share the runner.
    if let Some(w) = web_sys::window() {
        let frag = model::fragment(&s.config, &s.settings);
        if let Ok(h) = w.history() {
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("#{frag}")));
        }
    }
    s
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::SetText(File::Config, t) => s.config = t,
            Action::SetText(File::Settings, t) => s.settings = t,
            Action::SetField(file, pointer, value) => match file {
                File::Config => {
                    let mut v = model::config_value(&s.config).unwrap_or(Value::Object(Default::default()));
                    model::set_pointer(&mut v, &pointer, value);
                    s.config = model::config_text(&v);
                }
                File::Settings => {
                    let mut v = model::settings_value(&s.settings).unwrap_or(Value::Object(Default::default()));
                    model::set_pointer(&mut v, &pointer, value);
                    s.settings = model::settings_text(&v);
                }
            },
            Action::RenameClass(old, new) => {
                if let Some(mut v) = model::settings_value(&s.settings) {
                    if let Some(map) = v.get_mut("request_distribution").and_then(Value::as_object_mut)
                        && !new.is_empty()
                        && !map.contains_key(&new)
                    {
                        let entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                        for (k, val) in entries {
                            map.insert(if k == old { new.clone() } else { k }, val);
                        }
                    }
                    s.settings = model::settings_text(&v);
                }
            }
            Action::AddClass => {
                if let Some(mut v) = model::settings_value(&s.settings) {
                    let n = v.get("request_distribution").and_then(Value::as_object).map_or(0, |m| m.len());
                    model::set_pointer(
                        &mut v,
                        &format!("/request_distribution/class{}", n + 1),
                        Some(serde_json::json!({"weight": 0.0, "input_tokens": 512, "output_tokens": 128})),
                    );
                    s.settings = model::settings_text(&v);
                }
            }
            Action::RemoveClass(name) => {
                if let Some(mut v) = model::settings_value(&s.settings) {
                    model::set_pointer(
                        &mut v,
                        &format!("/request_distribution/{}", cfg_core::tree::escape_token(&name)),
                        None,
                    );
                    s.settings = model::settings_text(&v);
                }
            }
            Action::Tab(t) => {
                s.tab = t;
                return Rc::new(s);
            }
            Action::Run(r) => {
                s.run = r;
                return Rc::new(s);
            }
            Action::ModelFiles(files) => {
                s.model_note = files.as_ref().map(|f| format!("model files: {}", f.origin));
                s.model_files = files.map(Rc::new);
            }
            Action::ModelNote(note) => {
                s.model_note = Some(note);
                return Rc::new(s);
            }
            Action::Sweep(r) => {
                match r {
                    Ok(p) => {
                        s.sweep = Some(p);
                        s.sweep_error = None;
                    }
                    Err(e) => s.sweep_error = Some(e),
                }
                return Rc::new(s);
            }
        }
        Rc::new(relint(s))
    }
}

fn initial() -> State {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let (c, s, token) = model::parse_fragment(&hash);
    // The token arrives once, in the URL cfg-bench serve printed; it is kept for
    // this tab only and taken out of the address bar by the first relint.
    let storage = web_sys::window().and_then(|w| w.session_storage().ok().flatten());
    let token = match (token, &storage) {
        (Some(t), Some(st)) => {
            let _ = st.set_item("cfg-bench-token", &t);
            Some(t)
        }
        (None, Some(st)) => st.get_item("cfg-bench-token").ok().flatten(),
        (t, None) => t,
    };
    relint(State {
        config: c.unwrap_or_else(|| DEFAULT_CONFIG.to_string()),
        settings: s.unwrap_or_else(|| DEFAULT_SETTINGS.to_string()),
        report: Rc::new(Report::default()),
        tab: Tab::Form,
        token,
        run: RunView::default(),
        sweep: None,
        sweep_error: None,
        lint_ms: Vec::new(),
        model_files: None,
        model_note: None,
    })
}

/// An input of the page by its id (for the run controls outside the form).
fn input_by_id(id: &str) -> Option<HtmlInputElement> {
    web_sys::window()?.document()?.get_element_by_id(id)?.dyn_into::<HtmlInputElement>().ok()
}

fn diags_for<'a>(report: &'a Report, file: &str, pointer: &str) -> Vec<&'a Diagnostic> {
    report.diagnostics.iter().filter(|d| d.file == file && d.pointer == pointer).collect()
}

fn diag_html(d: &Diagnostic) -> Html {
    html! {
        <div class={classes!("diag", d.severity.as_str())} data-code={d.code}>
            <b>{format!("{}[{}]", d.severity, d.code)}</b>{" "}{&d.message}
            if let Some(h) = &d.help { <div class="help">{format!("help: {h}")}</div> }
        </div>
    }
}

/// One form field, built from its schema: label, input, description, default.
fn field(
    state: &UseReducerHandle<State>,
    file: File,
    root: &Value,
    pointer: &str,
    sub: &Value,
    current: Option<&Value>,
) -> Html {
    let sub = schema::resolve(root, sub);
    let key = cfg_core::tree::pointer_tokens(pointer).last().unwrap_or_default();
    let description = sub.get("description").and_then(Value::as_str).unwrap_or("");
    // A value with several spellings (max_model_len: 8192, "32k", "auto") is typed
    // as its first one.
    let kind = sub
        .get("type")
        .or_else(|| sub.pointer("/anyOf/0/type"))
        .and_then(Value::as_str)
        .unwrap_or("string")
        .to_string();
    let default = sub.get("default").map(|d| d.to_string()).unwrap_or_default();
    let choices = schema::enum_values(root, Some(sub));
    let file_name = if file == File::Config { model::CONFIG_NAME } else { model::SETTINGS_NAME };
    let diags = diags_for(&state.report, file_name, pointer);
    let shown = match current {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => {
            a.iter().map(|x| x.as_f64().map_or_else(|| x.to_string(), |f| f.to_string())).collect::<Vec<_>>().join(", ")
        }
        Some(v) => v.to_string(),
        None => String::new(),
    };
    let dispatch = {
        let state = state.clone();
        let (file, pointer, kind) = (file.clone(), pointer.to_string(), kind.clone());
        Callback::from(move |raw: String| {
            state.dispatch(Action::SetField(file.clone(), pointer.clone(), model::typed_input(&raw, &kind)))
        })
    };
    let picker = catalog_picker(pointer, &shown, &dispatch);
    let input = if !choices.is_empty() || kind == "boolean" {
        let options = if kind == "boolean" { vec!["true".to_string(), "false".to_string()] } else { choices };
        let onchange = {
            let d = dispatch.clone();
            Callback::from(move |e: Event| d.emit(e.target_unchecked_into::<HtmlSelectElement>().value()))
        };
        html! {
            <select {onchange} data-pointer={pointer.to_string()}>
                <option value="" selected={shown.is_empty()}>{format!("(default {default})")}</option>
                { for options.iter().map(|o| html! { <option value={o.clone()} selected={*o == shown}>{o}</option> }) }
            </select>
        }
    } else {
        let oninput = {
            let d = dispatch.clone();
            Callback::from(move |e: InputEvent| d.emit(e.target_unchecked_into::<HtmlInputElement>().value()))
        };
        html! { <input type="text" value={shown} placeholder={default} {oninput} data-pointer={pointer.to_string()}/> }
    };
    html! {
        <div class={classes!("field", (!diags.is_empty()).then_some("has-diag"))}>
            <label title={description.to_string()}>{key}</label>
            <div>{ picker }{ input }</div>
            <div class="desc">{schema::first_sentence(description)}</div>
            { for diags.into_iter().map(diag_html) }
        </div>
    }
}

/// A config.json given on the page, for the model the config names now.
fn given_model_files(state: &State, file: &str, how: &str, text: String) -> Action {
    let origin = format!("{file} ({how})");
    Action::ModelFiles(Some(model::ModelFiles {
        for_name: state.config_name(),
        origin,
        config_json: text,
        safetensors_index: None,
    }))
}

/// The model's own config.json: chosen or dropped here, or fetched through
/// `cfg-bench serve` (from this machine's Hugging Face cache, else the Hub with
/// the server's HF_TOKEN, which the page never sees). Without them the catalog's
/// copy is used, when the model is in it.
fn model_files_panel(state: &UseReducerHandle<State>) -> Html {
    let name = model::config_value(&state.config)
        .and_then(|v| v.pointer("/model/name").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_default();
    let choose = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(f) = input.files().and_then(|l| l.get(0)) {
                let s = s.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let Ok(text) = wasm_bindgen_futures::JsFuture::from(f.text()).await else { return };
                    let text = text.as_string().unwrap_or_default();
                    if model::is_model_config(&text) {
                        s.dispatch(given_model_files(&s, &f.name(), "chosen on the page", text));
                    } else {
                        s.dispatch(Action::ModelNote(format!("{} is not a model's config.json", f.name())));
                    }
                });
            }
        })
    };
    let fetch = {
        let (s, name) = (state.clone(), name.clone());
        Callback::from(move |_| {
            let (s, name) = (s.clone(), name.clone());
            let Some(token) = s.token.clone() else {
                s.dispatch(Action::ModelNote("fetching needs the page served by `cfg-bench serve` (it fetches with its own HF_TOKEN); or choose the config.json here".into()));
                return;
            };
            s.dispatch(Action::ModelNote(format!("fetching {name}'s config.json ...")));
            wasm_bindgen_futures::spawn_local(async move {
                let path = format!("/api/model-config?name={}", js_sys::encode_uri_component(&name));
                match net::call("GET", &path, &token, None).await {
                    Ok((200, body)) => {
                        let v: Value = serde_json::from_str(&body).unwrap_or_default();
                        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
                        match text("config_json") {
                            Some(config_json) => s.dispatch(Action::ModelFiles(Some(model::ModelFiles {
                                for_name: name.clone(),
                                origin: text("origin").unwrap_or_else(|| name.clone()),
                                config_json,
                                safetensors_index: text("safetensors_index"),
                            }))),
                            None => s.dispatch(Action::ModelNote("the server answered without a config.json".into())),
                        }
                    }
                    Ok((_, body)) => {
                        let v: Value = serde_json::from_str(&body).unwrap_or_default();
                        let why = v.get("error").and_then(Value::as_str).unwrap_or("the server refused").to_string();
                        s.dispatch(Action::ModelNote(format!("cannot fetch {name}: {why}")));
                    }
                    Err(e) => s.dispatch(Action::ModelNote(format!("cannot fetch {name}: {e}"))),
                }
            });
        })
    };
    let forget = {
        let s = state.clone();
        Callback::from(move |_| s.dispatch(Action::ModelFiles(None)))
    };
    html! {
        <div class="model-files">
            <label title="the model's own config.json: exact architecture, quantization and lengths">{"model's config.json "}</label>
            <input type="file" id="model-config-file" accept=".json,application/json" onchange={choose}/>
            <button id="fetch-model-config" onclick={fetch}>{format!("fetch {name}'s config.json")}</button>
            if state.model_files.is_some() { <button id="forget-model-config" onclick={forget}>{"use the catalog"}</button> }
            <span id="model-files-note">{ match (&state.model_files, &state.model_note) {
                (Some(f), _) if f.for_name != name => format!("the config.json given is {}'s; the config now names {name}: not used", f.for_name),
                (_, Some(note)) => note.clone(),
                _ => "no config.json given: the catalog's copy is used when the model is in it (or drop one on the page)".into(),
            } }</span>
        </div>
    }
}

/// For the GPU and the model: a picker fed by the core's catalogs (memory,
/// compute capability, parameters), next to the free text for anything else.
fn catalog_picker(pointer: &str, shown: &str, dispatch: &Callback<String>) -> Html {
    let options: Vec<(String, String)> = match pointer {
        "/hardware/gpu" => cfg_core::catalog::GPUS
            .iter()
            .map(|g| {
                let cc = g.compute_capability.map_or("ROCm".to_string(), |(a, b)| format!("cc {a}.{b}"));
                (g.name.to_string(), format!("{} ({} GiB, {cc})", g.name, g.memory_gib))
            })
            .collect(),
        "/model/name" => cfg_core::catalog::models()
            .iter()
            .map(|m| {
                let params =
                    m.arch.num_parameters.map_or(String::new(), |n| format!(" ({:.1}B params)", n as f64 / 1e9));
                (m.id.to_string(), format!("{}{params}", m.id))
            })
            .collect(),
        _ => return Html::default(),
    };
    let known = options.iter().any(|(v, _)| v.eq_ignore_ascii_case(shown));
    let onchange = {
        let d = dispatch.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            if !v.is_empty() {
                d.emit(v);
            }
        })
    };
    html! {
        <select {onchange} class="picker" data-picker={pointer.to_string()}>
            <option value="" selected={!known}>{"custom (type below)"}</option>
            { for options.iter().map(|(v, label)| html! { <option value={v.clone()} selected={v.eq_ignore_ascii_case(shown)}>{label}</option> }) }
        </select>
    }
}

/// A fieldset for an object schema, one field per property.
fn section(
    state: &UseReducerHandle<State>,
    file: File,
    root: &Value,
    pointer: &str,
    sub: &Value,
    current: Option<&Value>,
) -> Html {
    let sub = schema::resolve(root, sub);
    let props = sub.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let name = cfg_core::tree::pointer_tokens(pointer).last().unwrap_or_default();
    let file_name = if file == File::Config { model::CONFIG_NAME } else { model::SETTINGS_NAME };
    let own = diags_for(&state.report, file_name, pointer);
    let children = props
        .iter()
        .filter(|(k, _)| k.as_str() != "$schema" && k.as_str() != "request_distribution" && k.as_str() != "bursts")
        .map(|(k, p)| {
            let child_ptr = format!("{pointer}/{}", cfg_core::tree::escape_token(k));
            let value = current.and_then(|c| c.get(k));
            let resolved = schema::resolve(root, p);
            if resolved.get("properties").is_some() {
                section(state, file.clone(), root, &child_ptr, p, value)
            } else {
                field(state, file.clone(), root, &child_ptr, p, value)
            }
        });
    let desc = sub.get("description").and_then(Value::as_str).map(schema::first_sentence).unwrap_or_default();
    html! {
        <fieldset data-section={pointer.to_string()}>
            <legend>{ if name.is_empty() { "(top level)".to_string() } else { name } }</legend>
            <div class="desc">{desc}</div>
            { for own.into_iter().map(diag_html) }
            { for children }
        </fieldset>
    }
}

/// The request-class table: add, remove, rename; weights as bars and a sum.
fn classes_table(state: &UseReducerHandle<State>, settings: Option<&Value>) -> Html {
    let classes =
        settings.and_then(|s| s.get("request_distribution")).and_then(Value::as_object).cloned().unwrap_or_default();
    let sum: f64 = classes.values().filter_map(|c| c.get("weight").and_then(Value::as_f64)).sum();
    let rows = classes.iter().map(|(name, c)| {
        let ptr = format!("/request_distribution/{}", cfg_core::tree::escape_token(name));
        let weight = c.get("weight").and_then(Value::as_f64).unwrap_or(0.0);
        let diags: Vec<&Diagnostic> = state.report.diagnostics.iter().filter(|d| d.file == model::SETTINGS_NAME && d.pointer.starts_with(&ptr)).collect();
        let rename = {
            let (state, old) = (state.clone(), name.clone());
            Callback::from(move |e: Event| state.dispatch(Action::RenameClass(old.clone(), e.target_unchecked_into::<HtmlInputElement>().value())))
        };
        let remove = {
            let (state, n) = (state.clone(), name.clone());
            Callback::from(move |_| state.dispatch(Action::RemoveClass(n.clone())))
        };
        let cell = |k: &str| {
            let state = state.clone();
            let p = format!("{ptr}/{k}");
            let kind = if k == "weight" { "number" } else { "integer" };
            let oninput = {
                let p = p.clone();
                Callback::from(move |e: InputEvent| {
                    state.dispatch(Action::SetField(File::Settings, p.clone(), model::typed_input(&e.target_unchecked_into::<HtmlInputElement>().value(), kind)))
                })
            };
            let v = c.get(k).map(|v| v.to_string()).unwrap_or_default();
            html! { <td><input type="text" size="7" value={v} {oninput} data-pointer={p}/></td> }
        };
        html! {
            <>
            <tr class={classes!((!diags.is_empty()).then_some("has-diag"))} data-class={name.clone()}>
                <td><input type="text" size="8" value={name.clone()} onchange={rename}/></td>
                { cell("weight") }{ cell("input_tokens") }{ cell("output_tokens") }
                <td><svg width="100" height="10"><rect width={format!("{:.1}", 100.0 * weight.clamp(0.0, 1.0))} height="10" fill="#4878d0"/></svg></td>
                <td><button onclick={remove}>{"remove"}</button></td>
            </tr>
            if !diags.is_empty() { <tr><td colspan="6">{ for diags.into_iter().map(diag_html) }</td></tr> }
            </>
        }
    });
    let add = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::AddClass))
    };
    html! {
        <fieldset data-section="/request_distribution">
            <legend>{"request_distribution"}</legend>
            <table>
                <tr><th>{"class"}</th><th>{"weight"}</th><th>{"input tokens"}</th><th>{"output tokens"}</th><th></th><th></th></tr>
                { for rows }
            </table>
            <p class={classes!("sum", ((sum - 1.0).abs() > 1e-6).then_some("bad"))}>{format!("weights sum to {sum:.3}")}</p>
            <button onclick={add}>{"add class"}</button>
        </fieldset>
    }
}

fn run_panel(state: &UseReducerHandle<State>) -> Html {
    let Some(token) = state.token.clone() else {
        return html! { <p class="note">{"Start `cfg-bench serve` and open the URL it prints to run load tests from this page."}</p> };
    };
    let start = {
        let state = state.clone();
        Callback::from(move |_| {
            let (state, token) = (state.clone(), token.clone());
            let simulate = input_by_id("simulate").is_some_and(|i| i.checked());
            let duration = input_by_id("duration").and_then(|i| i.value().parse::<u32>().ok());
            let body = serde_json::json!({"config": state.config, "settings": state.settings, "simulate": simulate, "duration_seconds": duration}).to_string();
            state.dispatch(Action::Run(RunView { status: "starting".into(), ..Default::default() }));
            wasm_bindgen_futures::spawn_local(async move {
                match net::call("POST", "/api/runs", &token, Some(body)).await {
                    Ok((202, text)) => {
                        let id = serde_json::from_str::<Value>(&text)
                            .ok()
                            .and_then(|v| v["id"].as_str().map(str::to_string))
                            .unwrap_or_default();
                        let view = std::rc::Rc::new(std::cell::RefCell::new(RunView {
                            id: Some(id.clone()),
                            status: "running".into(),
                            ..Default::default()
                        }));
                        state.dispatch(Action::Run(view.borrow().clone()));
                        let st = state.clone();
                        let _ = net::follow(&id, &token, move |kind, data| {
                            let mut v = view.borrow_mut();
                            if let Ok(json) = serde_json::from_str::<Value>(&data) {
                                if kind == "progress" {
                                    v.progress.push(json);
                                } else {
                                    v.result = Some(json);
                                    v.status = "done".into();
                                }
                            }
                            st.dispatch(Action::Run(v.clone()));
                        });
                    }
                    Ok((status, text)) => state.dispatch(Action::Run(RunView {
                        status: format!("refused ({status}): {text}"),
                        ..Default::default()
                    })),
                    Err(e) => {
                        state.dispatch(Action::Run(RunView { status: format!("error: {e}"), ..Default::default() }))
                    }
                }
            });
        })
    };
    let stop = {
        let state = state.clone();
        Callback::from(move |_| {
            if let (Some(id), Some(token)) = (state.run.id.clone(), state.token.clone()) {
                wasm_bindgen_futures::spawn_local(async move {
                    let _ = net::call("POST", &format!("/api/runs/{id}/stop"), &token, None).await;
                });
            }
        })
    };
    let run = &state.run;
    let series = |key: &str| -> Vec<(f64, f64)> {
        run.progress.iter().filter_map(|p| Some((p["elapsed_s"].as_f64()?, p[key].as_f64()?))).collect()
    };
    let last = run.progress.last();
    // Once the result is in, the page draws the report's own charts from it.
    let finished: Option<cfg_core::model::BenchResult> =
        run.result.as_ref().and_then(|r| serde_json::from_value(r.clone()).ok());
    html! {
        <section id="run">
            <h2>{"Load test"}</h2>
            <label><input type="checkbox" id="simulate" checked=true/>{" against the built-in simulator (from config.toml)"}</label>
            {" duration "}<input type="text" id="duration" size="4" value="10"/>{" s "}
            <button id="start-run" onclick={start} disabled={state.report.has_errors()}>{"Start run"}</button>
            <button onclick={stop}>{"Stop"}</button>
            <p id="run-status" data-status={run.status.clone()}>{&run.status}
                if let Some(p) = last { {format!(" | {}: {:.0}/{:.0} s, {} ok, {} errors, {} in flight", p["phase"].as_str().unwrap_or(""), p["elapsed_s"].as_f64().unwrap_or(0.0), p["duration_s"].as_f64().unwrap_or(0.0), p["completed"], p["errors"], p["in_flight"])} }
            </p>
            { match finished {
                Some(r) => charts::result_charts(&r),
                None => html! { <>
                    { charts::banded("Output tokens streamed per second (live)", "tok/s", "seconds since the measured phase began", &[("output tok/s", "#4878d0", series("output_tokens_per_sec"))], "chart-throughput", live_bands(&run.progress)) }
                    { charts::banded("Requests so far (live)", "requests", "seconds since the measured phase began", &[("finished", "#6acc64", series("completed")), ("failed", "#d65f5f", series("errors")), ("in flight", "#956cb4", series("in_flight"))], "chart-requests", live_bands(&run.progress)) }
                    { charts::banded("TTFT so far (live)", "ms", "seconds since the measured phase began", &[("p50", "#6acc64", series("ttft_p50_ms")), ("p99", "#d65f5f", series("ttft_p99_ms"))], "chart-ttft", live_bands(&run.progress)) }
                    { charts::banded("Server queue and KV usage (live)", "", "seconds since the measured phase began", &[("waiting", "#d65f5f", series("waiting")), ("running", "#4878d0", series("running")), ("KV %", "#956cb4", run.progress.iter().filter_map(|p| Some((p["elapsed_s"].as_f64()?, p["kv_cache_usage"].as_f64()? * 100.0))).collect())], "chart-server", live_bands(&run.progress)) }
                </> },
            } }
            { run.result.as_ref().map(verdict).unwrap_or_default() }
            { archive_panel(state) }
        </section>
    }
}

/// The phases seen so far in a live run's progress events: measured from 0
/// to the duration, then the drain.
fn live_bands(progress: &[Value]) -> Vec<cfg_core::output::chart::Band<'static>> {
    use cfg_core::model::PhaseName;
    use cfg_core::output::run_charts::phase_color;
    let Some(last) = progress.last() else { return Vec::new() };
    let duration = last["duration_s"].as_f64().unwrap_or(0.0);
    let now = last["elapsed_s"].as_f64().unwrap_or(0.0);
    let band = |name: PhaseName, start: f64, end: f64| cfg_core::output::chart::Band {
        label: name.as_str(),
        start,
        end,
        color: phase_color(name),
    };
    let mut bands = vec![band(PhaseName::Measured, 0.0, now.min(duration))];
    if now > duration {
        bands.push(band(PhaseName::Drain, duration, now));
    }
    bands
}

/// Archived runs from the runner, and a comparison of two of them.
fn archive_panel(state: &UseReducerHandle<State>) -> Html {
    let Some(token) = state.token.clone() else { return Html::default() };
    let list = {
        let (state, token) = (state.clone(), token.clone());
        Callback::from(move |_| {
            let (state, token) = (state.clone(), token.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let text = match net::call("GET", "/api/runs", &token, None).await {
                    Ok((200, t)) => t,
                    Ok((s, t)) => format!("{s}: {t}"),
                    Err(e) => e,
                };
                let mut run = state.run.clone();
                run.archive = Some(text);
                state.dispatch(Action::Run(run));
            });
        })
    };
    let compare = {
        let (state, token) = (state.clone(), token);
        Callback::from(move |_| {
            let value = |id: &str| input_by_id(id).map(|i| i.value()).unwrap_or_default();
            let (a, b) = (value("baseline"), value("candidate"));
            let (state, token) = (state.clone(), token.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let path = format!("/api/compare?baseline={a}&candidate={b}");
                let text = match net::call("GET", &path, &token, None).await {
                    Ok((200, t)) => serde_json::from_str::<Value>(&t)
                        .ok()
                        .and_then(|v| v["table"].as_str().map(str::to_string))
                        .unwrap_or(t),
                    Ok((s, t)) => format!("{s}: {t}"),
                    Err(e) => e,
                };
                let mut run = state.run.clone();
                run.comparison = Some(text);
                state.dispatch(Action::Run(run));
            });
        })
    };
    let runs: Vec<Value> = state
        .run
        .archive
        .as_deref()
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
        .and_then(|v| v["runs"].as_array().cloned())
        .unwrap_or_default();
    html! {
        <div id="archive">
            <h3>{"Archived runs"}</h3>
            <button id="list-runs" onclick={list}>{"list runs"}</button>
            <table>{ for runs.iter().map(|r| html! {
                <tr><td>{r["id"].as_str().unwrap_or("")}</td><td>{format!("TTFT p99 {} ms", r["ttft_p99_ms"])}</td><td>{format!("{:.0} tok/s", r["throughput_tokens_per_sec"].as_f64().unwrap_or(0.0))}</td><td>{ if r["sla_met"] == true { "SLA ok" } else { "SLA fail" } }</td></tr>
            }) }</table>
            {"baseline "}<input id="baseline" size="30"/>{" candidate "}<input id="candidate" size="30"/>
            <button onclick={compare}>{"compare"}</button>
            if let Some(c) = &state.run.comparison { <pre id="comparison">{c}</pre> }
        </div>
    }
}

fn verdict(r: &Value) -> Html {
    let v = &r["verdict"];
    let sla = v["sla"].as_array().cloned().unwrap_or_default();
    let findings = v["findings"].as_array().cloned().unwrap_or_default();
    html! {
        <div id="verdict" data-sla-met={v["sla_met"].to_string()}>
            <h3>{ if v["sla_met"] == true { "Verdict: SLA met" } else { "Verdict: SLA NOT met" } }{ if r["simulated"] == true { " (simulated target)" } else { "" } }</h3>
            <p>{format!("TTFT p50 {} ms, p99 {} ms; TPOT p99 {} ms; {} tok/s; error rate {}", r["ttft_ms"]["p50"], r["ttft_ms"]["p99"], r["tpot_ms"]["p99"], r["throughput_tokens_per_sec"], r["error_rate"])}</p>
            <ul>{ for sla.iter().map(|c| html! { <li>{format!("{}: limit {}, actual {} {}", c["name"].as_str().unwrap_or(""), c["limit"], c["actual"], if c["pass"] == true { "ok" } else { "FAIL" })}</li> }) }</ul>
            { for findings.iter().map(|f| html! {
                <div class={classes!("finding", f["severity"].as_str().unwrap_or("").to_string())}>
                    <b>{f["title"].as_str().unwrap_or("")}</b>{format!(" ({})", f["evidence"].as_str().unwrap_or(""))}
                    <ul>{ for f["advice"].as_array().cloned().unwrap_or_default().iter().map(|a| html! { <li>{a.as_str().unwrap_or("")}</li> }) }</ul>
                </div>
            }) }
            if let Some(c) = v.get("capacity").filter(|c| !c.is_null()) {
                <p class="capacity">{format!("Capacity plan: {} instance(s). {}", c["instances"], c["explanation"].as_str().unwrap_or(""))}</p>
            }
        </div>
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(initial);
    let config_root = schema::schema(FileKind::Config);
    let settings_root = schema::schema(FileKind::Settings);
    let config_value = model::config_value(&state.config);
    let settings_value = model::settings_value(&state.settings);
    let tab = |t: Tab, label: &str, id: &str| {
        let s = state.clone();
        html! { <button id={id.to_string()} class={classes!((state.tab == t).then_some("active"))} onclick={Callback::from(move |_| s.dispatch(Action::Tab(t)))}>{label}</button> }
    };
    let text_area = |file: File, text: &str, id: &str| {
        let s = state.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            s.dispatch(Action::SetText(file.clone(), e.target_unchecked_into::<HtmlTextAreaElement>().value()))
        });
        html! { <textarea id={id.to_string()} rows="30" cols="100" spellcheck="false" value={text.to_string()} {oninput}/> }
    };
    let import = |file: File, id: &str| {
        let s = state.clone();
        let onchange = Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(f) = input.files().and_then(|l| l.get(0)) {
                let (s, file) = (s.clone(), file.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(text) = wasm_bindgen_futures::JsFuture::from(f.text()).await {
                        s.dispatch(Action::SetText(file, text.as_string().unwrap_or_default()));
                    }
                });
            }
        });
        html! { <input type="file" id={id.to_string()} {onchange}/> }
    };
    let download = |name: &'static str, text: String| Callback::from(move |_| net::download(name, &text));
    // Drop either file anywhere on the page: its name (or content) says which.
    let on_drop = {
        let s = state.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            let Some(files) = e.data_transfer().and_then(|d| d.files()) else { return };
            for i in 0..files.length() {
                let Some(f) = files.get(i) else { continue };
                let s = s.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let Ok(text) = wasm_bindgen_futures::JsFuture::from(f.text()).await else { return };
                    let text = text.as_string().unwrap_or_default();
                    if model::is_model_config(&text) {
                        s.dispatch(given_model_files(&s, &f.name(), "dropped on the page", text));
                        return;
                    }
                    let file = match cfg_core::detect_kind(&f.name(), &text) {
                        Some(FileKind::Config) => File::Config,
                        _ => File::Settings,
                    };
                    s.dispatch(Action::SetText(file, text));
                });
            }
        })
    };
    let sweep = {
        let s = state.clone();
        Callback::from(move |_| {
            let result = match (&s.report.config, &s.report.settings) {
                (Some(c), Some(st)) => cfg_core::sim::sweep_max_num_seqs(c, st, &[8, 16, 32, 64, 128, 256], 60.0),
                _ => Err("fix the errors first: the simulator needs both files".into()),
            };
            s.dispatch(Action::Sweep(result));
        })
    };
    let lint_ms = state.lint_ms.last().copied().unwrap_or(0.0);
    let launch = state.report.config.as_ref().map(|c| cfg_core::render::command_line(&cfg_core::render::launch(c)));
    let launch_yaml = state.report.config.as_ref().map(|c| cfg_core::render::yaml(&cfg_core::render::launch(c)));
    let copy = |text: String| Callback::from(move |_| net::copy(&text));
    let counts = (state.report.count(cfg_core::Severity::Error), state.report.count(cfg_core::Severity::Warning));
    html! {
        <main data-ready="true" ondragover={Callback::from(|e: DragEvent| e.prevent_default())} ondrop={on_drop}>
            <h1>{"vLLM config and load-test builder"}</h1>
            <p id="summary" data-errors={counts.0.to_string()}>{format!("{} error(s), {} warning(s); validated in {lint_ms:.2} ms by cfg-core {}", counts.0, counts.1, env!("CARGO_PKG_VERSION"))}</p>
            <nav>{ tab(Tab::Form, "Form", "tab-form") }{ tab(Tab::ConfigText, "config.toml", "tab-config") }{ tab(Tab::SettingsText, "settings.json", "tab-settings") }
                {" import: config "}{ import(File::Config, "import-config") }{" settings "}{ import(File::Settings, "import-settings") }
                <button id="download-config" onclick={download("config.toml", state.config.clone())}>{"download config.toml"}</button>
                <button id="download-settings" onclick={download("settings.json", state.settings.clone())}>{"download settings.json"}</button>
                <button onclick={copy(state.config.clone())}>{"copy config.toml"}</button>
                <button onclick={copy(state.settings.clone())}>{"copy settings.json"}</button>
            </nav>
            <div class="columns">
                <div class="left">
                    { match state.tab {
                        Tab::Form => html! { <>
                            { model_files_panel(&state) }
                            <h2>{"config.toml"}</h2>
                            { section(&state, File::Config, config_root, "", config_root, config_value.as_ref()) }
                            <h2>{"settings.json"}</h2>
                            { section(&state, File::Settings, settings_root, "", settings_root, settings_value.as_ref()) }
                            { classes_table(&state, settings_value.as_ref()) }
                        </> },
                        Tab::ConfigText => text_area(File::Config, &state.config, "text-config"),
                        Tab::SettingsText => text_area(File::Settings, &state.settings, "text-settings"),
                    } }
                </div>
                <div class="right">
                    <h2>{"Diagnostics"}</h2>
                    <ul id="diagnostics">{ for state.report.diagnostics.iter().map(|d| html! {
                        <li class={d.severity.as_str()} data-code={d.code} data-pointer={d.pointer.clone()}>{format!("{}:{}:{} {}[{}] {}", d.file, d.line, d.column, d.severity, d.code, d.message)}</li>
                    }) }</ul>
                    <h2>{"GPU memory"}</h2>
                    { state.report.memory.as_ref().map(charts::memory_bar).unwrap_or_else(|| html! { <p>{"Name a GPU ([hardware] gpu) and a catalog model, or give the model's config.json above, to see the memory picture."}</p> }) }
                    { for state.report.diagnostics.iter().filter(|d| d.code == "CFG201" || d.code == "CFG202").map(diag_html) }
                    <h2>{"vllm serve"}</h2>
                    <pre id="launch">{ launch.clone().unwrap_or_else(|| "fix the config's errors to render the launch".into()) }</pre>
                    <button onclick={copy(launch.clone().unwrap_or_default())}>{"copy command"}</button>
                    <pre id="launch-yaml">{ launch_yaml.clone().unwrap_or_default() }</pre>
                    <button onclick={copy(launch_yaml.unwrap_or_default())}>{"copy YAML"}</button>
                    <h2>{"What if: max_num_seqs"}</h2>
                    <button id="sweep" onclick={sweep}>{"predict TTFT and throughput (simulator, virtual time)"}</button>
                    if let Some(e) = &state.sweep_error { <p class="diag error">{e}</p> }
                    if let Some(points) = &state.sweep {
                        { charts::lines("Predicted TTFT p99 (ms) vs max_num_seqs", "ms", "", &[("TTFT p99", "#d65f5f", points.iter().filter_map(|p| Some((f64::from(p.value), p.ttft_p99_ms?))).collect())], "chart-sweep-ttft") }
                        { charts::lines("Predicted throughput (tok/s) vs max_num_seqs", "tok/s", "", &[("output tok/s", "#4878d0", points.iter().map(|p| (f64::from(p.value), p.output_tokens_per_sec)).collect())], "chart-sweep-tput") }
                        { for points.iter().filter_map(|p| Some(html! { <p class="diag warning">{format!("max_num_seqs {}: no request finished: {}", p.value, p.note.as_deref()?)}</p> })) }
                    }
                    { run_panel(&state) }
                </div>
            </div>
        </main>
    }
}
