//! Live load tests through `cfg-bench serve`: start and stop a run, its live
//! charts, the verdict, and the runner's archive. Without the runner (the page
//! served by any static file server) it says how to start one.

use serde_json::Value;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::fmt::json_figure;
use crate::state::{Action, RunView, State};
use crate::{charts, model, net};

/// An input of the page by its id (for the run controls outside the form).
fn input_by_id(id: &str) -> Option<HtmlInputElement> {
    web_sys::window()?.document()?.get_element_by_id(id)?.dyn_into::<HtmlInputElement>().ok()
}

/// Without the runner: what to run, and a way to carry this pair to it.
fn no_runner(state: &UseReducerHandle<State>) -> Html {
    let open = {
        let s = state.clone();
        Callback::from(move |_| {
            let Some(url) = input_by_id("runner-url").map(|i| i.value()) else { return };
            if let Some(target) = model::runner_link(&url, &s.config, &s.settings)
                && let Some(w) = web_sys::window()
            {
                let _ = w.location().set_href(&target);
            }
        })
    };
    html! {
        <section class="card" id="run" aria-labelledby="run-heading">
            <h2 id="run-heading">{"Load test"}</h2>
            <div id="run-instructions">
                <p>{"Live runs need the runner on the machine that can reach your vLLM server (or its built-in simulator). This page works without it for everything else."}</p>
                <pre tabindex="0">{"cfg-bench serve\n# prints: open http://127.0.0.1:PORT/#token=..."}</pre>
                <p>{"Paste the address it prints: the page opens there with these two files."}</p>
                <div class="actions">
                    <input id="runner-url" type="url" placeholder="http://127.0.0.1:8787/#token=..." aria-label="address cfg-bench serve printed"/>
                    <button id="open-runner" onclick={open}>{"open with this pair"}</button>
                </div>
            </div>
        </section>
    }
}
pub fn panel(state: &UseReducerHandle<State>) -> Html {
    let Some(token) = state.token.clone() else {
        return no_runner(state);
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
        <section class="card" id="run" aria-labelledby="run-heading">
            <h2 id="run-heading">{"Load test"}</h2>
            <div class="actions">
                <label><input type="checkbox" id="simulate" checked=true/>{" against the built-in simulator (from config.toml)"}</label>
                <label>{"duration "}<input type="text" id="duration" size="4" value="10"/>{" s"}</label>
            </div>
            <div class="actions">
                <button id="start-run" class="primary" onclick={start} disabled={state.report.has_errors()}>{"Start run"}</button>
                <button class="quiet" onclick={stop}>{"Stop"}</button>
            </div>
            <p id="run-status" data-status={run.status.clone()}>{&run.status}
                if let Some(p) = last { {format!(" | {}: {:.0}/{:.0} s, {} ok, {} errors, {} in flight", p["phase"].as_str().unwrap_or(""), p["elapsed_s"].as_f64().unwrap_or(0.0), p["duration_s"].as_f64().unwrap_or(0.0), json_figure(&p["completed"]), json_figure(&p["errors"]), json_figure(&p["in_flight"]))} }
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
            <button id="list-runs" class="quiet" onclick={list}>{"list runs"}</button>
            <table>{ for runs.iter().map(|r| html! {
                <tr><td>{r["id"].as_str().unwrap_or("")}</td><td>{format!("TTFT p99 {} ms", json_figure(&r["ttft_p99_ms"]))}</td><td>{format!("{} tok/s", json_figure(&r["throughput_tokens_per_sec"]))}</td><td>{ if r["sla_met"] == true { "SLA ok" } else { "SLA fail" } }</td></tr>
            }) }</table>
            <div class="actions">
                <label>{"baseline "}<input id="baseline" size="24"/></label>
                <label>{"candidate "}<input id="candidate" size="24"/></label>
                <button class="quiet" onclick={compare}>{"compare"}</button>
            </div>
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
            <p>{format!("TTFT p50 {} ms, p99 {} ms; TPOT p99 {} ms; {} tok/s; error rate {}", json_figure(&r["ttft_ms"]["p50"]), json_figure(&r["ttft_ms"]["p99"]), json_figure(&r["tpot_ms"]["p99"]), json_figure(&r["throughput_tokens_per_sec"]), r["error_rate"].as_f64().map_or("n/a".into(), |e| format!("{:.2}%", e * 100.0)))}</p>
            <ul>{ for sla.iter().map(|c| html! { <li class={if c["pass"] == true { "pass" } else { "fail" }}>{format!("{}: limit {}, actual {} {}", c["name"].as_str().unwrap_or(""), json_figure(&c["limit"]), json_figure(&c["actual"]), if c["pass"] == true { "ok" } else { "FAIL" })}</li> }) }</ul>
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
