//! `cfg-lint server` driven as an editor drives it: the real binary over
//! stdio, the SPEC's pair in a folder, and the protocol's messages in order
//! (initialize, didOpen of both files, hover, completion, codeAction, the fix
//! applied through didChange, shutdown, exit).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

const CONFIG: &str = include_str!("../../../examples/spec/config.toml");
const SETTINGS: &str = include_str!("../../../examples/spec/settings.json");

struct Client {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: i64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cfg-lint"))
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cfg-lint server starts");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("every message has a Content-Length")];
                stdout.read_exact(&mut body).unwrap();
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        Client { child, stdin, messages, next_id: 0 }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and returns its result, collecting what arrives before it.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next();
            if message["id"] == json!(id) {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message["result"].clone();
            }
        }
    }

    fn next(&self) -> Value {
        self.messages.recv_timeout(Duration::from_secs(20)).expect("the server answers within 20 s")
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics_for(&self, uri: &str) -> Vec<Value> {
        loop {
            let message = self.next();
            if message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == uri {
                return message["params"]["diagnostics"].as_array().cloned().unwrap_or_default();
            }
        }
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics.iter().map(|d| d["code"].as_str().unwrap_or_default().to_string()).collect()
}

/// The position of the first `needle` in `text` (ASCII text: columns are bytes).
fn position_of(text: &str, needle: &str) -> Value {
    let at = text.find(needle).expect("needle in text");
    let line = text[..at].matches('\n').count();
    let character = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    json!({"line": line, "character": character})
}

#[test]
fn an_editor_session_on_the_spec_pair() {
    let dir = tempfile::tempdir().unwrap();
    let (config_path, settings_path) = (dir.path().join("config.toml"), dir.path().join("settings.json"));
    std::fs::write(&config_path, CONFIG).unwrap();
    std::fs::write(&settings_path, SETTINGS).unwrap();
    let (config_uri, settings_uri) = (uri(&config_path), uri(&settings_path));

    let mut client = Client::start();
    let init = client.request("initialize", json!({"processId": null, "rootUri": uri(dir.path()), "capabilities": {}}));
    let caps = &init["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16", "{init}");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync: {init}");
    assert_eq!(caps["hoverProvider"], true);
    assert_eq!(caps["codeActionProvider"], true);
    client.notify("initialized", json!({}));

    // settings.json alone: its partner is config.toml on disk, so CFG501 is there at once.
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": settings_uri, "languageId": "json", "version": 1, "text": SETTINGS}}),
    );
    let diagnostics = client.diagnostics_for(&settings_uri);
    let cfg501 = diagnostics.iter().find(|d| d["code"] == "CFG501").unwrap_or_else(|| panic!("{diagnostics:?}"));
    assert_eq!(cfg501["range"]["start"], json!({"line": 10, "character": 4}), "settings.json line 11");
    assert_eq!(cfg501["severity"], 1);
    assert!(cfg501["message"].as_str().unwrap().contains("help: raise max_model_len"), "{cfg501}");

    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": config_uri, "languageId": "toml", "version": 1, "text": CONFIG}}),
    );
    let config_diagnostics = client.diagnostics_for(&config_uri);
    assert!(!codes(&config_diagnostics).contains(&"CFG501".to_string()), "CFG501 belongs to settings.json");

    // Hover: a key's documentation, and a diagnostic's rule.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": config_uri}, "position": position_of(CONFIG, "max_num_seqs")}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.starts_with("**max_num_seqs**") && text.len() > 60, "{hover}");
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": settings_uri}, "position": position_of(SETTINGS, "\"tail\"")}),
    );
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(text.contains("**CFG501** `request-class-exceeds-max-model-len`"), "{hover}");

    // Completion: the keys a section still lacks, then a value of an enum.
    let batching = position_of(CONFIG, "max_num_seqs");
    let items =
        client.request("textDocument/completion", json!({"textDocument": {"uri": config_uri}, "position": batching}));
    let labels: Vec<&str> = items.as_array().unwrap().iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(labels.contains(&"enable_chunked_prefill") && !labels.contains(&"max_num_seqs"), "{labels:?}");
    let item = items.as_array().unwrap().iter().find(|i| i["label"] == "enable_chunked_prefill").unwrap();
    assert_eq!(item["insertText"], "enable_chunked_prefill = ");
    let edited = CONFIG.replace("dtype = \"auto\"", "dtype = \"");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": config_uri, "version": 2}, "contentChanges": [{"text": edited}]}),
    );
    client.diagnostics_for(&config_uri);
    let mut at = position_of(&edited, "dtype = \"");
    at["character"] = json!(at["character"].as_u64().unwrap() + 9);
    let items = client.request("textDocument/completion", json!({"textDocument": {"uri": config_uri}, "position": at}));
    let labels: Vec<&str> = items.as_array().unwrap().iter().filter_map(|i| i["label"].as_str()).collect();
    assert!(labels.contains(&"bfloat16") && labels.contains(&"auto"), "{labels:?}");
    assert_eq!(items[0]["insertText"], items[0]["label"], "the quote is typed already");

    // An incremental change back to the original, by range.
    let line = position_of(&edited, "dtype = \"")["line"].clone();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": config_uri, "version": 3}, "contentChanges": [{
            "range": {"start": {"line": line, "character": 9}, "end": {"line": line, "character": 9}},
            "text": "auto\""}]}),
    );
    client.diagnostics_for(&config_uri);

    // The code action on CFG501 edits config.toml; applied, CFG501 goes from settings.json.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": settings_uri}, "range": cfg501["range"], "context": {"diagnostics": [cfg501]}}),
    );
    let action = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap_or_default().contains("CFG501"))
        .unwrap_or_else(|| panic!("{actions}"));
    assert_eq!(action["title"], "Raise max_model_len to 10240 (CFG501)");
    let edits = action["edit"]["changes"][&config_uri].as_array().unwrap_or_else(|| panic!("{action}"));
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0]["newText"], "10240");
    assert_eq!(edits[0]["range"]["start"], position_of(CONFIG, "8192"));
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": config_uri, "version": 4}, "contentChanges": [{"range": edits[0]["range"], "text": "10240"}]}),
    );
    // Both files of the pair are linted again: settings.json has no CFG501 now.
    let after = client.diagnostics_for(&settings_uri);
    assert!(!codes(&after).contains(&"CFG501".to_string()), "{after:?}");

    assert_eq!(client.request("shutdown", Value::Null), Value::Null);
    client.notify("exit", Value::Null);
    let status = client.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

#[test]
fn unknown_requests_get_an_error_and_a_broken_file_still_gets_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let mut client = Client::start();
    client.request(
        "initialize",
        json!({"processId": null, "capabilities": {"general": {"positionEncodings": ["utf-8"]}}}),
    );
    client.notify("initialized", json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&path), "languageId": "toml", "version": 1, "text": "[model\nname = 1"}}),
    );
    let diagnostics = client.diagnostics_for(&uri(&path));
    assert_eq!(codes(&diagnostics), vec!["CFG001"], "{diagnostics:?}");
    client.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "textDocument/definition", "params": {}}));
    let answer = loop {
        let m = client.next();
        if m["id"] == 99 {
            break m;
        }
    };
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    client.request("shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert!(client.child.wait().unwrap().success());
}

#[test]
fn a_fix_for_a_partner_that_changed_since_the_lint_is_withheld_and_other_files_are_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (config_path, settings_path) = (dir.path().join("config.toml"), dir.path().join("settings.json"));
    std::fs::write(&config_path, CONFIG).unwrap();
    std::fs::write(&settings_path, SETTINGS).unwrap();
    let settings_uri = uri(&settings_path);
    let mut client = Client::start();
    client.request("initialize", json!({"processId": null, "capabilities": {}}));
    client.notify("initialized", json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": settings_uri, "languageId": "json", "version": 1, "text": SETTINGS}}),
    );
    let diagnostics = client.diagnostics_for(&settings_uri);
    let cfg501 =
        diagnostics.iter().find(|d| d["code"] == "CFG501").unwrap_or_else(|| panic!("{diagnostics:?}")).clone();
    let ask = |client: &mut Client| {
        client.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": settings_uri}, "range": cfg501["range"], "context": {"diagnostics": [cfg501]}}),
        )
    };
    assert_eq!(ask(&mut client).as_array().unwrap().len(), 1);

    // config.toml changes on disk (two lines on top): the lint's offsets into it are stale.
    let moved = format!("# a\n# b\n{CONFIG}");
    std::fs::write(&config_path, &moved).unwrap();
    assert_eq!(ask(&mut client), json!([]), "a fix with stale offsets must not be offered");

    // The next lint reads it again, and the fix lands on the value where it now is.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": settings_uri, "version": 2}, "contentChanges": [{"text": SETTINGS}]}),
    );
    client.diagnostics_for(&settings_uri);
    let actions = ask(&mut client);
    let edits = actions[0]["edit"]["changes"][uri(&config_path)].as_array().unwrap_or_else(|| panic!("{actions}"));
    assert_eq!(edits[0]["range"]["start"], position_of(&moved, "8192"));

    // Cargo.toml is not a vLLM config: no diagnostics, no completion.
    let cargo = dir.path().join("Cargo.toml");
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&cargo), "languageId": "toml", "version": 1, "text": "[package]\nname = \"x\"\n"}}),
    );
    assert_eq!(client.diagnostics_for(&uri(&cargo)), Vec::<Value>::new());
    let items = client.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri(&cargo)}, "position": {"line": 2, "character": 0}}),
    );
    assert_eq!(items, Value::Null, "{items}");
    client.request("shutdown", Value::Null);
    client.notify("exit", Value::Null);
    assert!(client.child.wait().unwrap().success());
}
