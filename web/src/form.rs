//! The form, built from the core's JSON Schemas: the common fields open, the
//! rest in collapsed sections that say how much is set and what is wrong in
//! them, `architecture` only where the model is not known. Each field keeps its
//! description (on hover and focus), its diagnostics, and the rule's
//! explanation one click away.

use cfg_core::schema;
use cfg_core::{Diagnostic, FileKind, Report};
use serde_json::Value;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::model;
use crate::state::{Action, File, State};

pub fn form(state: &UseReducerHandle<State>) -> Html {
    let config_value = (*state.config_json).clone();
    let settings_value = (*state.settings_json).clone();
    html! {
        <div class="form">
            <h3>{"config.toml"}<span class="muted">{" the vLLM server"}</span></h3>
            { children(state, &Place::top(File::Config, config_value.as_ref())) }
            <h3>{"settings.json"}<span class="muted">{" the load test"}</span></h3>
            { section(state, &Place::top(File::Settings, settings_value.as_ref())) }
            { classes_table(state, settings_value.as_ref()) }
        </div>
    }
}

/// Where the form is in one file: its schema there and its value there.
struct Place<'a> {
    file: File,
    root: &'static Value,
    pointer: String,
    /// The schema as the parent writes it (resolve it for the type).
    schema: &'static Value,
    value: Option<&'a Value>,
}

impl<'a> Place<'a> {
    fn top(file: File, value: Option<&'a Value>) -> Self {
        let root = schema::schema(if file == File::Config { FileKind::Config } else { FileKind::Settings });
        Place { file, root, pointer: String::new(), schema: root, value }
    }

    fn child(&self, key: &str, schema: &'static Value) -> Place<'a> {
        Place {
            file: self.file.clone(),
            root: self.root,
            pointer: format!("{}/{}", self.pointer, cfg_core::tree::escape_token(key)),
            schema,
            value: self.value.and_then(|v| v.get(key)),
        }
    }

    fn resolved(&self) -> &'static Value {
        schema::resolve(self.root, self.schema)
    }
}

fn file_name(file: &File) -> &'static str {
    if *file == File::Config { model::CONFIG_NAME } else { model::SETTINGS_NAME }
}

fn section_key(file: &File, pointer: &str) -> String {
    format!("{}:{pointer}", if *file == File::Config { "config" } else { "settings" })
}

pub fn diags_for<'a>(report: &'a Report, file: &str, pointer: &str) -> Vec<&'a Diagnostic> {
    report.diagnostics.iter().filter(|d| d.file == file && d.pointer == pointer).collect()
}

/// A diagnostic as the page shows it, with the rule's own documentation (the
/// text of `cfg-lint explain`) one click away.
pub fn diag_html(d: &Diagnostic) -> Html {
    let doc = cfg_core::rules::find(d.code).map(|r| r.doc);
    html! {
        <div class={classes!("diag", d.severity.as_str())} data-code={d.code}>
            <span class="sev">{d.severity.as_str()}</span>{" "}<b>{d.code}</b>{" "}{&d.message}
            if let Some(h) = &d.help { <div class="help">{format!("help: {h}")}</div> }
            if let Some(doc) = doc {
                <details class="explain"><summary>{format!("what {} checks", d.code)}</summary><div class="doc">{doc}</div></details>
            }
        </div>
    }
}

/// The properties of an object schema: scalars as fields, objects as sections.
fn children(state: &UseReducerHandle<State>, at: &Place<'_>) -> Html {
    let Some(props) = at.resolved().get("properties").and_then(Value::as_object) else { return Html::default() };
    let (fields, sections): (Vec<_>, Vec<_>) = props
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "$schema" | "request_distribution" | "bursts"))
        .map(|(k, p)| at.child(k, p))
        .partition(|child| child.resolved().get("properties").is_none());
    let fields = fields.iter().map(|child| field(state, child));
    let sections = sections.iter().filter_map(|child| {
        if child.pointer == "/model/architecture" && child.file == File::Config {
            // Only where the model's architecture is not known, or was overridden.
            let known = model::model_resolved(&state.config_name(), state.model_files.as_deref());
            if known && count_set(child.value) == 0 {
                return None;
            }
        }
        Some(section(state, child))
    });
    html! { <>{ for fields }{ for sections }</> }
}

/// How many values are set under a JSON value.
fn count_set(value: Option<&Value>) -> usize {
    match value {
        None | Some(Value::Null) => 0,
        Some(Value::Object(m)) => m.values().map(|v| count_set(Some(v))).sum(),
        Some(_) => 1,
    }
}

/// A collapsible section for an object schema. Closed, it still says how many
/// values are set in it and how many errors and warnings; its fields are only
/// built when it is open.
fn section(state: &UseReducerHandle<State>, at: &Place<'_>) -> Html {
    let (file, pointer, current) = (&at.file, at.pointer.as_str(), at.value);
    let name = cfg_core::tree::pointer_tokens(pointer).last().unwrap_or_else(|| "load test".into());
    let key = section_key(file, pointer);
    let fname = file_name(file);
    let inside: Vec<&Diagnostic> = state
        .report
        .diagnostics
        .iter()
        .filter(|d| {
            d.file == fname
                && (pointer.is_empty() || d.pointer == pointer || d.pointer.starts_with(&format!("{pointer}/")))
        })
        .collect();
    let errors = inside.iter().filter(|d| d.severity == cfg_core::Severity::Error).count();
    let warnings = inside.iter().filter(|d| d.severity == cfg_core::Severity::Warning).count();
    let unresolved_arch = pointer == "/model/architecture";
    let open = state.is_open(&key) || unresolved_arch && count_set(current) == 0;
    let ontoggle = {
        let (s, key) = (state.clone(), key.clone());
        Callback::from(move |e: Event| {
            let details: web_sys::HtmlDetailsElement = e.target_unchecked_into();
            s.dispatch(Action::Toggle(key.clone(), details.open()));
        })
    };
    let desc = at.resolved().get("description").and_then(Value::as_str).map(schema::first_sentence).unwrap_or_default();
    let set = count_set(current);
    let own = diags_for(&state.report, fname, pointer);
    html! {
        <details class="section" data-section={pointer.to_string()} {open} {ontoggle}>
            <summary>
                <span class="section-name">{name}</span>
                <span class="count">{ if set == 0 { "nothing set".to_string() } else { format!("{set} set") } }</span>
                if errors > 0 { <span class="badge error">{crate::fmt::count(errors, "error", "errors")}</span> }
                if warnings > 0 { <span class="badge warning">{crate::fmt::count(warnings, "warning", "warnings")}</span> }
                if unresolved_arch { <span class="muted">{" needed only for a model the page does not know"}</span> }
            </summary>
            if open {
                <p class="section-desc">{desc}</p>
                { for own.into_iter().map(diag_html) }
                { children(state, at) }
            }
        </details>
    }
}

/// One form field, built from its schema: label, input, default as the
/// placeholder, the description shown on hover or focus.
fn field(state: &UseReducerHandle<State>, at: &Place<'_>) -> Html {
    let (file, pointer, current) = (at.file.clone(), at.pointer.as_str(), at.value);
    let sub = at.resolved();
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
    let choices = schema::enum_values(at.root, Some(sub));
    let diags = diags_for(&state.report, file_name(&file), pointer);
    let shown = match current {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => {
            a.iter().map(|x| x.as_f64().map_or_else(|| x.to_string(), |f| f.to_string())).collect::<Vec<_>>().join(", ")
        }
        Some(v) => v.to_string(),
        None => String::new(),
    };
    let id = format!("f-{}{}", if file == File::Config { "c" } else { "s" }, pointer.replace(['/', '~'], "-"));
    let desc_id = format!("{id}-desc");
    let dispatch = {
        let state = state.clone();
        let (file, pointer, kind) = (file.clone(), pointer.to_string(), kind.clone());
        Callback::from(move |raw: String| {
            state.dispatch(Action::SetField(file.clone(), pointer.clone(), model::typed_input(&raw, &kind)))
        })
    };
    // The model and the GPU search the catalogs as you type (the start's lists).
    let list = match pointer {
        "/model/name" => Some("catalog-models"),
        "/hardware/gpu" => Some("catalog-gpus"),
        _ => None,
    };
    let invalid = diags.iter().any(|d| d.severity == cfg_core::Severity::Error);
    let input = if !choices.is_empty() || kind == "boolean" {
        let options = if kind == "boolean" { vec!["true".to_string(), "false".to_string()] } else { choices };
        let onchange = {
            let d = dispatch.clone();
            Callback::from(move |e: Event| d.emit(e.target_unchecked_into::<HtmlSelectElement>().value()))
        };
        let default_label = if default.is_empty() { "(not set)".to_string() } else { format!("(default {default})") };
        html! {
            <select id={id.clone()} {onchange} data-pointer={pointer.to_string()} aria-describedby={desc_id.clone()} aria-invalid={invalid.to_string()}>
                <option value="" selected={shown.is_empty()}>{default_label}</option>
                { for options.iter().map(|o| html! { <option value={o.clone()} selected={*o == shown}>{o}</option> }) }
            </select>
        }
    } else {
        let oninput = {
            let d = dispatch.clone();
            Callback::from(move |e: InputEvent| d.emit(e.target_unchecked_into::<HtmlInputElement>().value()))
        };
        html! {
            <input id={id.clone()} type="text" value={shown} placeholder={default} {oninput} data-pointer={pointer.to_string()} list={list}
                aria-describedby={desc_id.clone()} aria-invalid={invalid.to_string()} autocomplete="off" spellcheck="false"/>
        }
    };
    html! {
        <div class={classes!("field", (!diags.is_empty()).then_some("has-diag"))}>
            <label for={id.clone()} title={description.to_string()}>{key}</label>
            <div class="control">{ input }
                <div class="desc" id={desc_id} role="tooltip">{schema::first_sentence(description)}</div>
            </div>
            { for diags.into_iter().map(diag_html) }
        </div>
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
        let diags: Vec<&Diagnostic> = state
            .report
            .diagnostics
            .iter()
            .filter(|d| d.file == model::SETTINGS_NAME && d.pointer.starts_with(&ptr))
            .collect();
        let rename = {
            let (state, old) = (state.clone(), name.clone());
            Callback::from(move |e: Event| {
                state.dispatch(Action::RenameClass(old.clone(), e.target_unchecked_into::<HtmlInputElement>().value()))
            })
        };
        let remove = {
            let (state, n) = (state.clone(), name.clone());
            Callback::from(move |_| state.dispatch(Action::RemoveClass(n.clone())))
        };
        let cell = |k: &str, label: &str| {
            let state = state.clone();
            let p = format!("{ptr}/{k}");
            let kind = if k == "weight" { "number" } else { "integer" };
            let oninput = {
                let p = p.clone();
                Callback::from(move |e: InputEvent| {
                    state.dispatch(Action::SetField(
                        File::Settings,
                        p.clone(),
                        model::typed_input(&e.target_unchecked_into::<HtmlInputElement>().value(), kind),
                    ))
                })
            };
            let v = c.get(k).map(|v| v.to_string()).unwrap_or_default();
            html! { <td><input type="text" size="7" value={v} {oninput} data-pointer={p} aria-label={format!("{name}: {label}")}/></td> }
        };
        html! {
            <>
            <tr class={classes!((!diags.is_empty()).then_some("has-diag"))} data-class={name.clone()}>
                <td><input type="text" size="9" value={name.clone()} onchange={rename} aria-label={format!("name of class {name}")}/></td>
                { cell("weight", "weight") }{ cell("input_tokens", "input tokens") }{ cell("output_tokens", "output tokens") }
                <td class="bar"><svg width="80" height="10" aria-hidden="true"><rect width={format!("{:.1}", 80.0 * weight.clamp(0.0, 1.0))} height="10" class="weight-bar"/></svg></td>
                <td><button class="quiet" onclick={remove} aria-label={format!("remove class {name}")}>{"remove"}</button></td>
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
        <fieldset class="classes" data-section="/request_distribution">
            <legend>{"request classes"}</legend>
            <table>
                <thead><tr><th scope="col">{"class"}</th><th scope="col">{"weight"}</th><th scope="col">{"input tokens"}</th><th scope="col">{"output tokens"}</th><th scope="col">{"share"}</th><th></th></tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            <p class={classes!("sum", ((sum - 1.0).abs() > 1e-6).then_some("bad"))}>{format!("weights sum to {sum:.3}")}</p>
            <button class="quiet" onclick={add}>{"add class"}</button>
        </fieldset>
    }
}
