//! Finding a model's files: an explicit path, a local folder, the Hugging Face
//! cache laid out as huggingface_hub lays it out, and a Hub-shaped server on
//! 127.0.0.1 (pointed at by HF_ENDPOINT); no test reaches the internet.

use std::path::{Path, PathBuf};

use cfg_models::test_hub::hub;
use cfg_models::{Env, Lookup, find, not_found_help};

const CONFIG: &str = r#"{"model_type":"qwen2","hidden_size":3584,"num_hidden_layers":28}"#;
const INDEX: &str = r#"{"metadata":{"total_size":15231233024},"weight_map":{}}"#;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cfg-models-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn env_with_cache(root: &Path) -> Env {
    Env { hf_hub_cache: Some(root.to_path_buf()), ..Env::default() }
}

fn lookup(name: &str) -> Lookup {
    Lookup { name: name.into(), ..Lookup::default() }
}

#[test]
fn an_explicit_path_or_a_local_folder_is_read_with_its_index() {
    let dir = scratch("local");
    std::fs::write(dir.join("config.json"), CONFIG).unwrap();
    std::fs::write(dir.join("model.safetensors.index.json"), INDEX).unwrap();
    let env = Env::default();
    for l in [
        Lookup { explicit: Some(dir.join("config.json")), ..lookup("any") },
        Lookup { explicit: Some(dir.clone()), ..lookup("any") },
        lookup(dir.to_str().unwrap()),
    ] {
        let files = find(&l, &env).unwrap().unwrap();
        assert_eq!(files.config_json, CONFIG);
        assert_eq!(files.safetensors_index.as_deref(), Some(INDEX));
        assert!(files.origin.ends_with("config.json"), "{}", files.origin);
    }
    let missing = Lookup { explicit: Some(dir.join("nope.json")), ..lookup("any") };
    assert!(find(&missing, &env).unwrap_err().contains("cannot read"));
}

#[test]
fn the_cache_is_read_at_the_revision_refs_main_names() {
    let root = scratch("cache");
    let model = root.join("models--Qwen--Qwen2.5-7B-Instruct");
    for (rev, text) in [("aaa111", r#"{"old":true}"#), ("bbb222", CONFIG)] {
        std::fs::create_dir_all(model.join("snapshots").join(rev)).unwrap();
        std::fs::write(model.join("snapshots").join(rev).join("config.json"), text).unwrap();
    }
    std::fs::create_dir_all(model.join("refs")).unwrap();
    std::fs::write(model.join("refs/main"), "bbb222\n").unwrap();
    let env = env_with_cache(&root);
    let files = find(&lookup("Qwen/Qwen2.5-7B-Instruct"), &env).unwrap().unwrap();
    assert_eq!(files.config_json, CONFIG);
    assert!(files.origin.contains("snapshots/bbb222"), "{}", files.origin);
    assert_eq!(find(&lookup("Qwen/Other"), &env).unwrap(), None, "not cached, not fetched: nothing");
    // HF_HOME/hub when HF_HUB_CACHE is not set.
    let home = Env { hf_home: Some(root.parent().unwrap().to_path_buf()), ..Env::default() };
    assert_eq!(home.cache_root().unwrap(), root.parent().unwrap().join("hub"));
    assert!(not_found_help("x/y", &env).contains("--fetch"));
}

#[test]
fn a_fetch_asks_the_hub_sends_the_token_and_fills_the_cache() {
    let root = scratch("fetch");
    let (endpoint, seen) = hub(vec![
        ("/acme/chat-7b/resolve/main/config.json", CONFIG),
        ("/acme/chat-7b/resolve/main/model.safetensors.index.json", INDEX),
    ]);
    let env = Env { hf_endpoint: Some(endpoint), hf_token: Some("hf_secret_token".into()), ..env_with_cache(&root) };
    assert_eq!(find(&lookup("acme/chat-7b"), &env).unwrap(), None, "no network unless asked");
    assert!(seen.lock().unwrap().is_empty());
    let fetched = find(&Lookup { fetch: true, ..lookup("acme/chat-7b") }, &env).unwrap().unwrap();
    assert_eq!((fetched.config_json.as_str(), fetched.safetensors_index.as_deref()), (CONFIG, Some(INDEX)));
    // The token is sent, never kept: nothing written into the cache holds it.
    let mut written = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
            if entry.is_dir() { stack.push(entry) } else { written.push(std::fs::read_to_string(&entry).unwrap()) }
        }
    }
    assert!(!written.is_empty() && written.iter().all(|t| !t.contains("hf_secret_token")), "the token was written");
    let requests = seen.lock().unwrap().clone();
    assert!(requests.iter().all(|r| r.ends_with("Bearer hf_secret_token")), "{requests:?}");
    // The cache now has it, at the revision the Hub named: no second fetch.
    let cached = root.join("models--acme--chat-7b/snapshots/c0ffee42/config.json");
    assert_eq!(std::fs::read_to_string(cached).unwrap(), CONFIG);
    let again = find(&lookup("acme/chat-7b"), &env).unwrap().unwrap();
    assert_eq!(again.config_json, CONFIG);
    assert_eq!(seen.lock().unwrap().len(), requests.len());
    // An unknown model is a clear error.
    let err = find(&Lookup { fetch: true, ..lookup("acme/missing") }, &env).unwrap_err();
    assert!(err.contains("no model `acme/missing`"), "{err}");
}
