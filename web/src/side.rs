//! The answer at a glance: the sticky summary, the diagnostics, the memory
//! picture, the launch command and the what-if curve.

use yew::prelude::*;

use crate::fmt::{count, figure, thousands};
use crate::state::{Action, State};
use crate::{charts, form, net};

/// Starts or not, KV cache, concurrency, errors and warnings, and the
/// simulator's prediction: the answer before reading anything else.
pub fn summary(state: &UseReducerHandle<State>) -> Html {
    let report = &state.report;
    let errors = report.count(cfg_core::Severity::Error);
    let warnings = report.count(cfg_core::Severity::Warning);
    let lint_ms = state.lint_ms.last().copied().unwrap_or(0.0);
    let (verdict, class) = match (&report.memory, errors) {
        (Some(m), _) if !m.fits() => ("does not start", "bad"),
        (_, e) if e > 0 => ("has errors", "bad"),
        (Some(_), _) => ("starts", "good"),
        (None, _) => ("memory not checked", "unknown"),
    };
    let memory = report.memory.as_ref().filter(|m| m.fits()).map(|m| {
        html! { <>
            <div class="stat"><span class="stat-value">{thousands(m.kv_capacity_tokens)}</span><span class="stat-label">{"KV cache tokens"}</span></div>
            <div class="stat"><span class="stat-value">{format!("{}×", figure(m.max_concurrency))}</span><span class="stat-label">{format!("requests of {} tokens at once", thousands(u64::from(m.max_model_len)))}</span></div>
        </> }
    });
    // The settings' own SLA, when the prediction already misses it.
    let sla_ttft = report.settings.as_ref().and_then(|s| s.sla.as_ref()).and_then(|s| s.ttft_p99_ms);
    let over_sla = |ttft: f64| sla_ttft.filter(|&limit| ttft > limit);
    let prediction = match &state.prediction {
        Some((g, Ok(prediction))) if *g == state.generation => {
            match (prediction.point.ttft_p99_ms, prediction.point.note.as_deref()) {
                (Some(ttft), _) => html! { <>
                    <div class="stat" id="predicted-ttft" data-over-sla={over_sla(ttft).is_some().to_string()} title={format!("the built-in simulator, {:.0} s of this load in virtual time", prediction.seconds)}>
                        <span class={classes!("stat-value", over_sla(ttft).is_some().then_some("bad"))}>{format!("{} ms", figure(ttft))}</span>
                        <span class="stat-label">{ match over_sla(ttft) {
                            Some(limit) => format!("predicted TTFT p99, over the SLA's {} ms", figure(limit)),
                            None => "predicted TTFT p99".to_string(),
                        } }</span>
                    </div>
                    <div class="stat" title="output tokens of the requests that finished in the simulated window"><span class="stat-value">{format!("{} tok/s", figure(prediction.point.output_tokens_per_sec))}</span><span class="stat-label">{format!("predicted output, {} at once", prediction.point.value)}</span></div>
                </> },
                (None, Some(note)) => {
                    html! { <div class="stat wide"><span class="stat-label">{format!("simulator: {note}")}</span></div> }
                }
                (None, None) => Html::default(),
            }
        }
        Some((g, Err(e))) if *g == state.generation => {
            html! { <div class="stat wide"><span class="stat-label">{format!("no prediction: {e}")}</span></div> }
        }
        _ => {
            html! { <div class="stat"><span class="stat-value muted">{"…"}</span><span class="stat-label">{"predicting"}</span></div> }
        }
    };
    html! {
        <section id="summary" class="summary" aria-label="summary" data-errors={errors.to_string()} data-warnings={warnings.to_string()}
            data-verdict={verdict} data-predicted={state.prediction.as_ref().is_some_and(|(g, _)| *g == state.generation).to_string()}>
            <div class={classes!("verdict-badge", class)}>{verdict}</div>
            { memory.unwrap_or_default() }
            <a class="stat" href="#diagnostics-heading">
                <span class={classes!("stat-value", (errors > 0).then_some("bad"))}>{count(errors, "error", "errors")}</span>
                <span class="stat-label">{count(warnings, "warning", "warnings")}</span>
            </a>
            { prediction }
            <div class="stat small"><span class="stat-label">{format!("validated in {lint_ms:.2} ms by cfg-core {}", env!("CARGO_PKG_VERSION"))}</span></div>
        </section>
    }
}

/// Import, download and copy both files.
pub fn file_actions(state: &UseReducerHandle<State>) -> Html {
    let import = |file: crate::state::File, id: &str, label: &str| {
        let s = state.clone();
        let onchange = Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<web_sys::HtmlInputElement>();
            if let Some(f) = input.files().and_then(|l| l.get(0)) {
                let (s, file) = (s.clone(), file.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(text) = wasm_bindgen_futures::JsFuture::from(f.text()).await {
                        s.dispatch(Action::SetText(file, text.as_string().unwrap_or_default()));
                    }
                });
            }
        });
        html! { <label class="file-choice">{label}<input type="file" id={id.to_string()} {onchange}/></label> }
    };
    let download = |name: &'static str, text: String| Callback::from(move |_| net::download(name, &text));
    let copy = |text: String| Callback::from(move |_| net::copy(&text));
    html! {
        <div class="file-actions">
            <button id="download-config" onclick={download("config.toml", state.config.clone())}>{"download config.toml"}</button>
            <button id="download-settings" onclick={download("settings.json", state.settings.clone())}>{"download settings.json"}</button>
            <button class="quiet" onclick={copy(state.config.clone())}>{"copy config.toml"}</button>
            <button class="quiet" onclick={copy(state.settings.clone())}>{"copy settings.json"}</button>
            { import(crate::state::File::Config, "import-config", "open config.toml ") }
            { import(crate::state::File::Settings, "import-settings", "open settings.json ") }
        </div>
    }
}

pub fn diagnostics(state: &State) -> Html {
    let report = &state.report;
    html! {
        <section class="card" aria-labelledby="diagnostics-heading">
            <h2 id="diagnostics-heading">{"Diagnostics"}</h2>
            if report.diagnostics.is_empty() { <p class="muted">{"Nothing to report."}</p> }
            <ul id="diagnostics">{ for report.diagnostics.iter().map(|d| html! {
                <li class={d.severity.as_str()} data-code={d.code} data-pointer={d.pointer.clone()}>
                    <span class="where">{format!("{}:{}:{}", d.file, d.line, d.column)}</span>
                    { form::diag_html(d) }
                </li>
            }) }</ul>
        </section>
    }
}

pub fn memory(state: &State) -> Html {
    html! {
        <section class="card" aria-labelledby="memory-heading">
            <h2 id="memory-heading">{"GPU memory"}</h2>
            { state.report.memory.as_ref().map(charts::memory_bar).unwrap_or_else(|| html! {
                <p class="muted">{"Name a GPU and a model the page knows (the catalog, or its config.json above) to see where the memory goes."}</p>
            }) }
            { for state.report.diagnostics.iter().filter(|d| d.code == "CFG201" || d.code == "CFG202").map(form::diag_html) }
        </section>
    }
}

pub fn launch(state: &State) -> Html {
    let launch = state.report.config.as_ref().map(cfg_core::render::launch);
    let command = launch.as_ref().map(cfg_core::render::command_line);
    let yaml = launch.as_ref().map(cfg_core::render::yaml);
    let copy = |text: Option<String>| Callback::from(move |_| net::copy(text.as_deref().unwrap_or_default()));
    html! {
        <section class="card" aria-labelledby="launch-heading">
            <h2 id="launch-heading">{"vllm serve"}</h2>
            <pre id="launch" tabindex="0">{ command.clone().unwrap_or_else(|| "fix the config's errors to render the launch".into()) }</pre>
            <div class="actions"><button class="quiet" onclick={copy(command)}>{"copy command"}</button>
            <button class="quiet" onclick={copy(yaml.clone())}>{"copy as YAML"}</button></div>
            <details><summary>{"as a vLLM YAML config"}</summary><pre id="launch-yaml" tabindex="0">{ yaml.unwrap_or_default() }</pre></details>
        </section>
    }
}

pub fn what_if(state: &UseReducerHandle<State>) -> Html {
    let sweep = {
        let s = state.clone();
        Callback::from(move |_| {
            let result = match (&s.report.config, &s.report.settings) {
                (Some(c), Some(st)) => {
                    let arch = s.found_arch();
                    cfg_core::sim::sweep_max_num_seqs_with(c, st, arch.as_ref(), &[8, 16, 32, 64, 128, 256], 60.0)
                }
                _ => Err("fix the errors first: the simulator needs both files".into()),
            };
            s.dispatch(Action::Sweep(result));
        })
    };
    html! {
        <section class="card" aria-labelledby="whatif-heading">
            <h2 id="whatif-heading">{"What if: max_num_seqs"}</h2>
            <p class="muted">{"The built-in simulator runs this load at each value in virtual time: TTFT against throughput, before renting a GPU."}</p>
            <button id="sweep" onclick={sweep}>{"predict TTFT and throughput"}</button>
            if let Some(e) = &state.sweep_error { <p class="diag error">{e}</p> }
            if let Some(points) = &state.sweep {
                { charts::lines("Predicted TTFT p99 against max_num_seqs", "ms", "max_num_seqs", &[("TTFT p99", "#d65f5f", points.iter().filter_map(|p| Some((f64::from(p.value), p.ttft_p99_ms?))).collect())], "chart-sweep-ttft") }
                { charts::lines("Predicted output throughput against max_num_seqs", "tok/s", "max_num_seqs", &[("output tok/s", "#4878d0", points.iter().map(|p| (f64::from(p.value), p.output_tokens_per_sec)).collect())], "chart-sweep-tput") }
                { for points.iter().filter_map(|p| Some(html! { <p class="diag warning">{format!("max_num_seqs {}: no request finished: {}", p.value, p.note.as_deref()?)}</p> })) }
            }
        </section>
    }
}
