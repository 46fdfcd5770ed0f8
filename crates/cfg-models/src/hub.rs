//! The Hub over HTTPS, only when asked (`--fetch`): `HF_ENDPOINT` (default
//! https://huggingface.co) and `HF_TOKEN` from the environment, as
//! `huggingface_hub` reads them. The token is sent, never printed or stored.

use std::path::Path;
use std::time::Duration;

use crate::local::{CONFIG, INDEX};
use crate::{MAX_CONFIG_BYTES, MAX_INDEX_BYTES, ModelFiles};

/// Whether `name` is shaped like a Hub id (`org/name`, no path).
pub fn is_hub_id(name: &str) -> bool {
    let mut parts = name.split('/');
    let ok = |p: Option<&str>| {
        p.is_some_and(|p| {
            !p.is_empty() && p != "." && p != ".." && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        })
    };
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

fn endpoint(env: &crate::Env) -> String {
    env.hf_endpoint.as_deref().unwrap_or("https://huggingface.co").trim_end_matches('/').to_string()
}

/// Fetches config.json (and the safetensors index, when the repository has one)
/// and writes both into the cache under `root`.
pub fn fetch(id: &str, root: Option<&Path>, env: &crate::Env) -> Result<ModelFiles, String> {
    let base = format!("{}/{id}/resolve/main", endpoint(env));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(30)))
        .http_status_as_error(false)
        .build()
        .into();
    let token = env.hf_token.as_ref();
    let get = |file: &str, limit: u64| -> Result<Option<(String, Option<String>)>, String> {
        let url = format!("{base}/{file}");
        let mut req = agent.get(&url);
        if let Some(t) = &token {
            req = req.header("Authorization", &format!("Bearer {}", t.trim()));
        }
        let mut resp = req.call().map_err(|e| format!("cannot fetch {url}: {e}"))?;
        match resp.status().as_u16() {
            200 => {}
            404 => return Ok(None),
            401 | 403 => {
                return Err(format!(
                    "the Hub refused {url} (HTTP {}): a gated or private model needs HF_TOKEN set to a token that may read it",
                    resp.status().as_u16()
                ));
            }
            other => return Err(format!("cannot fetch {url}: HTTP {other}")),
        }
        let revision = resp.headers().get("x-repo-commit").and_then(|v| v.to_str().ok()).map(str::to_string);
        let text = resp
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_string()
            .map_err(|e| format!("cannot read {url}: {e}"))?;
        Ok(Some((text, revision)))
    };
    let (config_json, revision) = get(CONFIG, MAX_CONFIG_BYTES)?
        .ok_or_else(|| format!("no model `{id}` at {}: check the id (or HF_ENDPOINT)", endpoint(env)))?;
    let safetensors_index = get(INDEX, MAX_INDEX_BYTES)?.map(|(text, _)| text);
    let mut files = ModelFiles { config_json, safetensors_index, origin: format!("{base}/{CONFIG}") };
    // Only a plain revision names a folder: the header comes from the network.
    let revision = revision
        .filter(|r| r.len() <= 64 && r.chars().all(|c| c.is_ascii_alphanumeric()))
        .unwrap_or_else(|| "main".into());
    if let Some(root) = root {
        let path = crate::cache::write(root, id, &revision, &files)?;
        files.origin = format!("{} (fetched from {base})", path.display());
    }
    Ok(files)
}
