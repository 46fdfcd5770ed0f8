//! `cfg-bench smoke`, and the same check before every run: one streamed
//! request, text printed as it arrives, failures diagnosed in the order the
//! SPEC gives (the key, then the route and model, then the connection).

use std::io::Write;
use std::time::Duration;

use cfg_core::model::LoadTestSettings;

use crate::args::SettingsFile;
use crate::client::FailureKind;
use crate::{client, inputs};

pub async fn run(settings: SettingsFile) -> Result<u8, String> {
    let path = settings.resolve()?;
    let inputs::Linted { settings, .. } = match inputs::lint(&path, None) {
        Ok(v) => v,
        Err(refused) => {
            eprintln!("{}", refused.message);
            return Ok(refused.code);
        }
    };
    let key = inputs::read_key(&settings)?;
    Ok(if check(&settings, key.as_deref(), true, client::Transport::Auto).await { 0 } else { 1 })
}

pub async fn check(
    settings: &LoadTestSettings,
    key: Option<&str>,
    print_text: bool,
    transport: client::Transport,
) -> bool {
    let client = reqwest::Client::new();
    let http = client::Http::new(client.clone(), transport);
    let api = client::Api::from_endpoint(&settings.endpoint);
    let spec = client::RequestSpec {
        model: settings.model.clone(),
        prompt: "Say hello in one short sentence.".into(),
        max_tokens: 16,
        force_output_length: false,
    };
    let mut out = std::io::stdout();
    // The run's own limit: a smoke test is one of its requests.
    let timeout = Duration::from_secs_f64(settings.request_timeout_seconds.unwrap_or(120.0).clamp(0.1, 86_400.0));
    let r = client::send(&http, &settings.endpoint, api, key, &spec, timeout, |t| {
        if print_text {
            // The server's text, with no way to drive the terminal.
            let _ = write!(out, "{}", cfg_core::output::escape_controls(t));
            let _ = out.flush();
        }
    })
    .await;
    match r {
        Ok(t) => {
            if print_text {
                println!();
            }
            eprintln!(
                "smoke test passed: first token after {:.0} ms, {} tokens in {:.0} ms{}",
                t.ttft * 1000.0,
                t.output_tokens,
                t.e2e * 1000.0,
                if t.simulated { " (simulated server)" } else { "" }
            );
            true
        }
        Err(f) => {
            eprintln!("smoke test failed: {}", f.message);
            for line in diagnose(settings, key, &f, &client).await {
                eprintln!("  - {line}");
            }
            false
        }
    }
}

async fn diagnose(
    settings: &LoadTestSettings,
    key: Option<&str>,
    f: &client::Failure,
    http: &reqwest::Client,
) -> Vec<String> {
    let var = settings.api_key_env.clone().unwrap_or_else(|| "(none)".into());
    match f.status() {
        Some(401) | Some(403) => vec![
            format!("the key was rejected ({}). Check, in order:", f.kind),
            format!(
                "the key is read from the environment: ${var} is {}",
                if key.is_some() { "set" } else { "NOT set" }
            ),
            "the key is not revoked (try it with curl)".into(),
            "it is sent as `Authorization: Bearer <key>` (what this tool sends; some gateways want another header)"
                .into(),
            "the model name is mapped on the gateway side".into(),
        ],
        Some(404) => {
            let mut lines = vec![format!("404: the endpoint or the model \"{}\" is unknown", settings.model)];
            if let Some(u) = cfg_core::url::Url::parse(&settings.endpoint) {
                let models = format!("{}://{}/v1/models", u.scheme, u.authority);
                // Bounded in time and size: the list is a hint, not worth a hang.
                let mut req = http.get(&models).timeout(Duration::from_secs(10));
                if let Some(k) = key {
                    req = req.bearer_auth(k);
                }
                if let Ok(mut resp) = req.send().await
                    && let Ok(body) = client::read_capped(&mut resp, 1 << 20).await
                    && let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body)
                {
                    let names: Vec<String> = v["data"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m["id"].as_str())
                        .map(|n| client::redact(&cfg_core::output::escape_controls(n), key))
                        .collect();
                    let shown: Vec<&str> = names.iter().take(20).map(String::as_str).collect();
                    if !shown.is_empty() {
                        let more = names.len() - shown.len();
                        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                        lines.push(format!("{models} offers: {}{more}", shown.join(", ")));
                    }
                }
            }
            lines
        }
        Some(code) => vec![format!("HTTP {code} from the server: {}", f.message)],
        None => match f.kind {
            FailureKind::ConnectionRefused => {
                vec!["nothing listens at the endpoint's host and port: is the server (or gateway) running?".into()]
            }
            FailureKind::Dns => vec!["the endpoint's host name does not resolve: check the spelling or the DNS".into()],
            FailureKind::Tls => {
                vec!["TLS failed: the certificate is invalid for this host, or the endpoint speaks plain HTTP".into()]
            }
            FailureKind::Timeout => {
                vec!["no answer in time: the server may be loading the model (cold start) or overloaded".into()]
            }
            _ => vec![format!("{}: {}", f.kind, f.message)],
        },
    }
}
