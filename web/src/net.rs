//! Talking to `cfg-bench serve`: JSON over fetch with the one-time token, and
//! server-sent events for a run's progress. The browser never holds a key.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{EventSource, MessageEvent, RequestInit, Response};

/// Sends a request with the token; returns the status and the body text.
pub async fn call(method: &str, path: &str, token: &str, body: Option<String>) -> Result<(u16, String), String> {
    let init = RequestInit::new();
    init.set_method(method);
    let headers = web_sys::Headers::new().map_err(|e| format!("{e:?}"))?;
    headers.set("Authorization", &format!("Bearer {token}")).map_err(|e| format!("{e:?}"))?;
    if let Some(b) = &body {
        headers.set("Content-Type", "application/json").map_err(|e| format!("{e:?}"))?;
        init.set_body(&JsValue::from_str(b));
    }
    init.set_headers(&headers);
    let window = web_sys::window().ok_or("no window")?;
    let resp = JsFuture::from(window.fetch_with_str_and_init(path, &init)).await.map_err(|e| format!("{e:?}"))?;
    let resp: Response = resp.dyn_into().map_err(|_| "not a response")?;
    let text = JsFuture::from(resp.text().map_err(|e| format!("{e:?}"))?).await.map_err(|e| format!("{e:?}"))?;
    Ok((resp.status(), text.as_string().unwrap_or_default()))
}

/// A plain GET with no credentials (a public file on the Hub): the status and
/// at most `limit` bytes of body, else an error.
pub async fn get(url: &str, limit: usize) -> Result<(u16, String), String> {
    let window = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    init.set_method("GET");
    init.set_credentials(web_sys::RequestCredentials::Omit);
    let resp = JsFuture::from(window.fetch_with_str_and_init(url, &init)).await.map_err(|e| {
        e.dyn_ref::<js_sys::Error>().map_or_else(|| "network error".to_string(), |e| String::from(e.message()))
    })?;
    let resp: Response = resp.dyn_into().map_err(|_| "not a response")?;
    let declared = resp.headers().get("content-length").ok().flatten().and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(format!("the file is larger than {} KiB", limit / 1024));
    }
    // Read chunk by chunk and stop past the limit: a Content-Length can be
    // absent (chunked) or the compressed size.
    let too_large = || format!("the file is larger than {} KiB", limit / 1024);
    let mut bytes = Vec::new();
    if let Some(body) = resp.body() {
        let reader: web_sys::ReadableStreamDefaultReader = body.get_reader().unchecked_into();
        loop {
            let chunk = JsFuture::from(reader.read()).await.map_err(|e| format!("{e:?}"))?;
            let done = js_sys::Reflect::get(&chunk, &JsValue::from_str("done")).ok().and_then(|d| d.as_bool());
            if done != Some(false) {
                break;
            }
            let value = js_sys::Reflect::get(&chunk, &JsValue::from_str("value")).map_err(|e| format!("{e:?}"))?;
            let part = js_sys::Uint8Array::new(&value);
            if bytes.len() + part.length() as usize > limit {
                let _ = reader.cancel();
                return Err(too_large());
            }
            bytes.extend(part.to_vec());
        }
    }
    Ok((resp.status(), String::from_utf8_lossy(&bytes).into_owned()))
}

/// Opens the run's event stream; `on_event(kind, data)` sees every event.
pub fn follow(id: &str, token: &str, on_event: impl Fn(&str, String) + 'static) -> Result<EventSource, String> {
    let es = EventSource::new(&format!("/api/runs/{id}/events?token={token}")).map_err(|e| format!("{e:?}"))?;
    let on_event = std::rc::Rc::new(on_event);
    for kind in ["progress", "result"] {
        let f = on_event.clone();
        let es2 = es.clone();
        let cb = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            f(kind, e.data().as_string().unwrap_or_default());
            if kind == "result" {
                es2.close();
            }
        });
        es.add_event_listener_with_callback(kind, cb.as_ref().unchecked_ref()).map_err(|e| format!("{e:?}"))?;
        cb.forget();
    }
    Ok(es)
}

/// Offers `text` as a file download.
pub fn download(name: &str, text: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("text/plain");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    let doc = web_sys::window().and_then(|w| w.document());
    if let Some(a) =
        doc.and_then(|d| d.create_element("a").ok()).and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Copies text to the clipboard (best effort: needs a secure context, which
/// 127.0.0.1 is).
pub fn copy(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}
