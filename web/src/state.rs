//! What the page holds and how actions change it. Both files are held as
//! text; every change is linted by the core, and the simulator's prediction
//! follows a moment after typing stops.

use std::collections::BTreeSet;
use std::rc::Rc;

use cfg_core::Report;
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

use crate::{model, net};

const DEFAULT_CONFIG: &str = include_str!("../../examples/config.toml");
const DEFAULT_SETTINGS: &str = include_str!("../../examples/settings.json");

/// The virtual seconds the summary's prediction simulates: the load test's own
/// duration, within these bounds. Long requests need a long window to finish
/// in; the page is busy for about a millisecond per simulated second (the
/// what-if sweep is there for longer looks).
const PREDICT_SECONDS: (f64, f64) = (60.0, 120.0);

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

/// The start's three choices, as typed.
#[derive(Clone, PartialEq)]
pub struct StartChoices {
    pub model: String,
    pub gpu: String,
    pub count: String,
    pub traffic: String,
}

/// The simulator's figures for the pair, and how long it simulated.
#[derive(Clone, PartialEq)]
pub struct Prediction {
    pub point: cfg_core::sim::SweepPoint,
    pub seconds: f64,
}

#[derive(Clone)]
pub struct State {
    pub config: String,
    pub settings: String,
    /// Both files as JSON, read once per change (the form, the start and the
    /// reducer all look at them; a TOML parse per look cost milliseconds).
    pub config_json: Rc<Option<Value>>,
    pub settings_json: Rc<Option<Value>>,
    /// The last config that parsed: what the start follows changes against.
    followed: Option<Value>,
    pub report: Rc<Report>,
    /// Bumped by every lint: a prediction belongs to one generation.
    pub generation: u64,
    pub tab: Tab,
    pub token: Option<String>,
    /// The Hub the page fetches model files from.
    pub hub: String,
    pub start: StartChoices,
    /// The last plan's reasons, or why it could not be made.
    pub plan: Option<Result<Rc<Vec<cfg_core::plan::Choice>>, String>>,
    /// Form sections shown open, by JSON pointer (file-prefixed).
    pub open: Rc<BTreeSet<String>>,
    pub run: RunView,
    pub sweep: Option<Vec<cfg_core::sim::SweepPoint>>,
    pub sweep_error: Option<String>,
    /// The simulator's prediction for this generation's pair.
    pub prediction: Option<(u64, Result<Prediction, String>)>,
    /// Milliseconds each lint took, for the page's own measurements.
    pub lint_ms: Vec<f64>,
    /// The model's own config.json, when given on the page.
    pub model_files: Option<Rc<model::ModelFiles>>,
    /// What became of the last attempt to get them.
    pub model_note: Option<String>,
}

impl State {
    /// The `[model] name` the config gives now.
    pub fn config_name(&self) -> String {
        (*self.config_json)
            .as_ref()
            .and_then(|v| v.pointer("/model/name").and_then(Value::as_str))
            .unwrap_or_default()
            .to_string()
    }

    /// The architecture from the model's own files, when they are for the
    /// model the config names.
    pub fn found_arch(&self) -> Option<cfg_core::arch::Arch> {
        self.model_files.as_ref().and_then(|f| f.arch_for(&self.config_name()))
    }

    pub fn is_open(&self, key: &str) -> bool {
        self.open.contains(key)
    }
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        self.generation == other.generation
            && self.tab == other.tab
            && self.start == other.start
            && self.plan == other.plan
            && self.open == other.open
            && self.run == other.run
            && self.sweep == other.sweep
            && self.sweep_error == other.sweep_error
            && self.prediction == other.prediction
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
    Predicted(u64, Result<Prediction, String>),
    /// The model's own files (or none, to forget them).
    ModelFiles(Option<model::ModelFiles>),
    ModelNote(String),
    Start(StartChoices),
    BuildPair,
    /// A form section opened (true) or closed.
    Toggle(String, bool),
}

/// Sections open on a first visit: what most people set.
const OPEN_AT_FIRST: &[&str] =
    &["config:/model", "config:/batching", "config:/parallel", "config:/hardware", "settings:", "settings:/sla"];

/// Lints the pair again; `before` is the state the change started from (a
/// keystroke changes one file: the other one's parse is kept).
fn relint(mut s: State, before: Option<&State>) -> State {
    let t0 = net::now_ms();
    if before.is_none_or(|b| b.config != s.config) {
        s.config_json = Rc::new(model::config_value(&s.config));
        follow_config(&mut s);
    }
    if before.is_none_or(|b| b.settings != s.settings) {
        s.settings_json = Rc::new(model::settings_value(&s.settings));
    }
    s.report = Rc::new(model::lint_with(&s.config, &s.settings, s.model_files.as_deref()));
    let ms = net::now_ms() - t0;
    s.generation += 1;
    s.lint_ms.push(ms);
    if s.lint_ms.len() > 1000 {
        s.lint_ms.drain(..500);
    }
    // Exposed for the browser test's per-keystroke measurement.
    if let Some(w) = web_sys::window() {
        let key = JsValue::from_str("__cfgLintMs");
        let samples: js_sys::Array =
            js_sys::Reflect::get(&w, &key).ok().and_then(|v| v.dyn_into::<js_sys::Array>().ok()).unwrap_or_default();
        samples.push(&JsValue::from_f64(ms));
        let _ = js_sys::Reflect::set(&w, &key, &samples);
    }
    // The whole state in the URL fragment: a link reproduces the page. Not the
    // token: a shared link must not share the runner.
    if let Some(w) = web_sys::window() {
        let frag = model::fragment(&s.config, &s.settings);
        let search = w.location().search().unwrap_or_default();
        if let Ok(h) = w.history() {
            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&format!("{search}#{frag}")));
        }
    }
    s
}

/// The start follows the config: a model or GPU newly named in the form or
/// the text is what the start shows (what was typed in the start alone stays).
/// Compared with the last config that parsed, so a moment of broken TOML
/// while typing does not count as every value changing.
fn follow_config(s: &mut State) {
    let Some(v) = (*s.config_json).clone() else { return };
    let before = s.followed.replace(v.clone());
    let changed = |p: &str| {
        let now = v.pointer(p).filter(|x| !x.is_null())?;
        (before.as_ref().and_then(|b| b.pointer(p)) != Some(now)).then(|| now.clone())
    };
    if let Some(name) = changed("/model/name").and_then(|n| n.as_str().map(str::to_string)) {
        s.start.model = name;
    }
    if let Some(gpu) = changed("/hardware/gpu").and_then(|n| n.as_str().map(str::to_string)) {
        s.start.gpu = gpu;
    }
    if let Some(n) = changed("/hardware/gpu_count").and_then(|n| n.as_u64()) {
        s.start.count = n.to_string();
    }
}

fn edit_settings(s: &mut State, change: impl FnOnce(&mut Value)) {
    if let Some(mut v) = (*s.settings_json).clone() {
        change(&mut v);
        s.settings = model::settings_text(&v);
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::SetText(File::Config, t) => {
                s.config = t;
            }
            Action::SetText(File::Settings, t) => s.settings = t,
            Action::SetField(File::Config, pointer, value) => {
                let mut v = (*s.config_json).clone().unwrap_or(Value::Object(Default::default()));
                model::set_pointer(&mut v, &pointer, value);
                s.config = model::config_text(&v);
            }
            Action::SetField(File::Settings, pointer, value) => {
                let mut v = (*s.settings_json).clone().unwrap_or(Value::Object(Default::default()));
                model::set_pointer(&mut v, &pointer, value);
                s.settings = model::settings_text(&v);
            }
            Action::RenameClass(old, new) => edit_settings(&mut s, |v| {
                if let Some(map) = v.get_mut("request_distribution").and_then(Value::as_object_mut)
                    && !new.is_empty()
                    && !map.contains_key(&new)
                {
                    let entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                    for (k, val) in entries {
                        map.insert(if k == old { new.clone() } else { k }, val);
                    }
                }
            }),
            Action::AddClass => edit_settings(&mut s, |v| {
                let n = v.get("request_distribution").and_then(Value::as_object).map_or(0, |m| m.len());
                model::set_pointer(
                    v,
                    &format!("/request_distribution/class{}", n + 1),
                    Some(serde_json::json!({"weight": 0.0, "input_tokens": 512, "output_tokens": 128})),
                );
            }),
            Action::RemoveClass(name) => edit_settings(&mut s, |v| {
                model::set_pointer(v, &format!("/request_distribution/{}", cfg_core::tree::escape_token(&name)), None);
            }),
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
            Action::Predicted(generation, result) => {
                if generation == s.generation {
                    s.prediction = Some((generation, result));
                }
                return Rc::new(s);
            }
            Action::Start(choices) => {
                s.start = choices;
                return Rc::new(s);
            }
            Action::Toggle(key, open) => {
                if s.is_open(&key) != open {
                    let mut set = (*s.open).clone();
                    if open {
                        set.insert(key);
                    } else {
                        set.remove(&key);
                    }
                    s.open = Rc::new(set);
                }
                return Rc::new(s);
            }
            Action::BuildPair => {
                let st = &s.start;
                match model::plan(&st.model, &st.gpu, &st.count, &st.traffic, s.model_files.as_deref()) {
                    Ok(plan) => {
                        s.config = plan.config;
                        s.settings = plan.settings;
                        s.plan = Some(Ok(Rc::new(plan.choices)));
                        s.tab = Tab::Form;
                    }
                    Err(e) => {
                        s.plan = Some(Err(e));
                        return Rc::new(s);
                    }
                }
            }
        }
        Rc::new(relint(s, Some(&self)))
    }
}

pub fn initial() -> State {
    let window = web_sys::window();
    let hash = window.as_ref().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let search = window.as_ref().and_then(|w| w.location().search().ok()).unwrap_or_default();
    let (c, s, token) = model::parse_fragment(&hash);
    // The token arrives once, in the URL cfg-bench serve printed; it is kept for
    // this tab only and taken out of the address bar by the first relint.
    let storage = window.as_ref().and_then(|w| w.session_storage().ok().flatten());
    let token = match (token, &storage) {
        (Some(t), Some(st)) => {
            let _ = st.set_item("cfg-bench-token", &t);
            Some(t)
        }
        (None, Some(st)) => st.get_item("cfg-bench-token").ok().flatten(),
        (t, None) => t,
    };
    let state = State {
        config: c.unwrap_or_else(|| DEFAULT_CONFIG.to_string()),
        settings: s.unwrap_or_else(|| DEFAULT_SETTINGS.to_string()),
        report: Rc::new(Report::default()),
        config_json: Rc::new(None),
        settings_json: Rc::new(None),
        followed: None,
        generation: 0,
        tab: Tab::Form,
        token,
        hub: model::hub_from_query(&search),
        start: StartChoices { model: String::new(), gpu: String::new(), count: "1".into(), traffic: "mixed".into() },
        plan: None,
        open: Rc::new(OPEN_AT_FIRST.iter().map(|k| k.to_string()).collect()),
        run: RunView::default(),
        sweep: None,
        sweep_error: None,
        prediction: None,
        lint_ms: Vec::new(),
        model_files: None,
        model_note: None,
    };
    relint(state, None)
}

/// The simulator's prediction for the pair as it is now.
pub fn predict(state: &State) -> Result<Prediction, String> {
    let (Some(config), Some(settings)) = (&state.report.config, &state.report.settings) else {
        return Err("fix the errors first: the simulator needs both files".into());
    };
    let arch = state.found_arch();
    let seconds = f64::from(settings.duration_seconds).clamp(PREDICT_SECONDS.0, PREDICT_SECONDS.1);
    let t0 = net::now_ms();
    let point = cfg_core::sim::predict(config, settings, arch.as_ref(), seconds)?;
    // Exposed for the browser test: how long the page was busy predicting.
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str("__cfgPredictMs"), &JsValue::from_f64(net::now_ms() - t0));
    }
    Ok(Prediction { point, seconds })
}
