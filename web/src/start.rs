//! The start: a model (the catalog, any Hugging Face id with its config.json
//! fetched from the Hub or dropped here), a GPU and how many, and the
//! traffic. The core makes the pair from them and says why each value.

use serde_json::Value;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use crate::state::{Action, StartChoices, State};
use crate::{model, net};

/// The largest file the page reads (a config.json is a few KiB).
pub const MAX_FILE_BYTES: u32 = 4 << 20;

/// A config.json given on the page, for the model the start names now.
pub fn given_model_files(state: &State, file: &str, how: &str, text: String) -> Action {
    let name = if state.start.model.trim().is_empty() { state.config_name() } else { state.start.model.trim().into() };
    Action::ModelFiles(Some(model::ModelFiles::new(name, format!("{file} ({how})"), text, None)))
}

fn set_choice(state: &UseReducerHandle<State>, change: fn(&mut StartChoices, String)) -> Callback<String> {
    let s = state.clone();
    Callback::from(move |value: String| {
        let mut choices = s.start.clone();
        change(&mut choices, value);
        s.dispatch(Action::Start(choices));
    })
}

fn text_input(id: &str, label: &str, value: &str, list: Option<&str>, set: Callback<String>, hint: &str) -> Html {
    let oninput = Callback::from(move |e: InputEvent| set.emit(e.target_unchecked_into::<HtmlInputElement>().value()));
    html! {
        <label class="choice" for={id.to_string()}>
            <span class="choice-label">{label}</span>
            <input id={id.to_string()} type="text" list={list.map(str::to_string)} value={value.to_string()} {oninput}
                autocomplete="off" spellcheck="false" placeholder={hint.to_string()}/>
        </label>
    }
}

pub fn card(state: &UseReducerHandle<State>) -> Html {
    let st = &state.start;
    let traffic = {
        let set = set_choice(state, |c, v| c.traffic = v);
        Callback::from(move |e: Event| set.emit(e.target_unchecked_into::<HtmlSelectElement>().value()))
    };
    let build = {
        let s = state.clone();
        Callback::from(move |_| s.dispatch(Action::BuildPair))
    };
    html! {
        <section class="card start" id="start" aria-labelledby="start-heading">
            <h2 id="start-heading">{"Start from three choices"}</h2>
            <div class="choices">
                { text_input("start-model", "Model", &st.model, Some("catalog-models"), set_choice(state, |c, v| c.model = v), "a catalog model or any Hugging Face id") }
                { text_input("start-gpu", "GPU", &st.gpu, Some("catalog-gpus"), set_choice(state, |c, v| c.gpu = v), "H100, L4, MI300X...") }
                <label class="choice narrow" for="start-count">
                    <span class="choice-label">{"GPUs on the node"}</span>
                    <input id="start-count" type="number" min="1" max="64" value={st.count.clone()}
                        oninput={ let set = set_choice(state, |c, v| c.count = v); Callback::from(move |e: InputEvent| set.emit(e.target_unchecked_into::<HtmlInputElement>().value())) }/>
                </label>
                <label class="choice" for="start-traffic">
                    <span class="choice-label">{"Traffic"}</span>
                    <select id="start-traffic" onchange={traffic}>
                        { for cfg_core::plan::Traffic::ALL.iter().map(|t| html! {
                            <option value={t.name()} selected={st.traffic == t.name()}>{t.label()}</option>
                        }) }
                    </select>
                </label>
            </div>
            <CatalogLists/>
            { model_files(state) }
            <div class="actions">
                <button id="build-pair" class="primary" onclick={build}>{"Build the pair"}</button>
                <span class="muted">{"replaces both files below with values computed for these choices"}</span>
            </div>
            { plan_notes(state) }
        </section>
    }
}

/// The catalog's models and GPUs for the two search-as-you-type inputs. They
/// never change: a component without props renders them once, and as one
/// piece of HTML, not as an element per model and GPU (146) built one call
/// at a time (a fifth of the first render's elements).
#[function_component(CatalogLists)]
fn catalog_lists() -> Html {
    let html = use_memo((), |_| {
        let esc = cfg_core::output::chart::escape_xml;
        let mut s = String::from("<datalist id=\"catalog-models\">");
        for id in cfg_core::catalog::ids() {
            s += &format!("<option value=\"{}\"></option>", esc(id));
        }
        s += "</datalist><datalist id=\"catalog-gpus\">";
        for g in cfg_core::catalog::GPUS {
            s += &format!("<option value=\"{}\">{} GiB</option>", esc(g.name), g.memory_gib);
        }
        s += "</datalist>";
        AttrValue::from(s)
    });
    Html::from_html_unchecked((*html).clone())
}

fn plan_notes(state: &State) -> Html {
    match &state.plan {
        None => Html::default(),
        Some(Err(e)) => html! { <p id="plan-error" class="diag error" role="alert">{e}</p> },
        Some(Ok(choices)) => html! {
            <div id="plan">
                <h3>{"Why these values"}</h3>
                <ul class="plan">
                    { for choices.iter().map(|c| html! {
                        <li data-key={c.key}><code>{format!("{} = {}", c.key, c.value)}</code><span>{&c.why}</span></li>
                    }) }
                </ul>
            </div>
        },
    }
}

/// The model's own config.json: fetched (through `cfg-bench serve` when the
/// page came from it, which reads this machine's Hugging Face cache and uses
/// its HF_TOKEN; else straight from the Hub), chosen, or dropped on the page.
fn model_files(state: &UseReducerHandle<State>) -> Html {
    let name = state.start.model.trim().to_string();
    let choose = {
        let s = state.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Some(f) = input.files().and_then(|l| l.get(0)) {
                let s = s.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    if f.size() > f64::from(MAX_FILE_BYTES) {
                        s.dispatch(Action::ModelNote(format!("{} is too large for a config.json", f.name())));
                        return;
                    }
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
            if !model::is_hub_id(&name) {
                s.dispatch(Action::ModelNote(format!(
                    "`{name}` is not a Hugging Face id (owner/name); choose its config.json instead"
                )));
                return;
            }
            s.dispatch(Action::ModelNote(format!("fetching {name}'s config.json ...")));
            wasm_bindgen_futures::spawn_local(async move {
                let outcome = match s.token.clone() {
                    Some(token) => through_runner(&name, &token).await,
                    None => from_hub(&s.hub, &name).await,
                };
                s.dispatch(match outcome {
                    Ok(files) => Action::ModelFiles(Some(files)),
                    Err(why) => Action::ModelNote(format!("cannot fetch {name}: {why}")),
                });
            });
        })
    };
    let forget = {
        let s = state.clone();
        Callback::from(move |_| s.dispatch(Action::ModelFiles(None)))
    };
    let in_catalog = cfg_core::catalog::find_model(&name).is_some();
    html! {
        <div class="model-files">
            <button id="fetch-model-config" class="quiet" onclick={fetch}>{"fetch its config.json"}</button>
            <label class="file-choice">{"or choose one "}<input type="file" id="model-config-file" accept=".json,application/json" onchange={choose}/></label>
            if state.model_files.is_some() { <button id="forget-model-config" class="quiet" onclick={forget}>{"use the catalog"}</button> }
            <p id="model-files-note" class="muted" aria-live="polite">{ match (&state.model_files, &state.model_note) {
                (Some(f), _) if f.for_name != name && f.for_name != state.config_name() => format!("the config.json given is {}'s; not used for {name}", f.for_name),
                (_, Some(note)) => note.clone(),
                _ if in_catalog => "in the catalog: its real config.json is built in".into(),
                _ => "not in the catalog: fetch its config.json from the Hub, or drop it on the page".into(),
            } }</p>
        </div>
    }
}

/// Through `cfg-bench serve`: its Hugging Face cache first, then the Hub with
/// its HF_TOKEN (which the page never sees).
async fn through_runner(name: &str, token: &str) -> Result<model::ModelFiles, String> {
    let path = format!("/api/model-config?name={}", js_sys::encode_uri_component(name));
    let (status, body) = net::call("GET", &path, token, None).await?;
    let v: Value = serde_json::from_str(&body).unwrap_or_default();
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    if status != 200 {
        return Err(text("error").unwrap_or_else(|| format!("the runner answered {status}")));
    }
    let config_json = text("config_json").ok_or("the runner answered without a config.json")?;
    Ok(model::ModelFiles::new(
        name.to_string(),
        text("origin").unwrap_or_else(|| name.to_string()),
        config_json,
        text("safetensors_index"),
    ))
}

/// Straight from the Hub, in the browser: config.json, and the safetensors
/// index for the exact weight size when there is one.
async fn from_hub(hub: &str, name: &str) -> Result<model::ModelFiles, String> {
    let url = model::hub_file_url(hub, name, "config.json");
    let (status, body) = net::get(&url, MAX_FILE_BYTES as usize)
        .await
        .map_err(|e| format!("{hub} cannot be reached from this page ({e}); download config.json and drop it here"))?;
    match status {
        200 => {}
        401 | 403 => {
            return Err(format!(
                "{hub} says {status}: the model is gated or private. Accept its licence on the Hub and fetch through `cfg-bench serve` with HF_TOKEN set, or drop its config.json here"
            ));
        }
        404 => return Err(format!("{hub} has no {name} (check the id)")),
        s => return Err(format!("{hub} answered {s}")),
    }
    if !model::is_model_config(&body) {
        return Err("what the Hub sent is not a model's config.json".into());
    }
    let index_url = model::hub_file_url(hub, name, "model.safetensors.index.json");
    let index = match net::get(&index_url, MAX_FILE_BYTES as usize).await {
        Ok((200, text)) => Some(text),
        _ => None,
    };
    Ok(model::ModelFiles::new(name.to_string(), url, body, index))
}
