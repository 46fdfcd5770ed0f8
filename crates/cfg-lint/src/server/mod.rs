//! `cfg-lint server`: a language server over stdio (LSP, through rust-analyzer's
//! `lsp-server` and `lsp-types`). It lints with the same core as `cfg-lint
//! check` on every open and change, pairing a file with its partner the way
//! `check` does (an open document first, else the file on disk), so a change to
//! either file of a pair re-lints both; it answers hover (a key's schema
//! documentation, a diagnostic's rule documentation), completion (keys and
//! values from the schemas and the catalogs) and code actions (the core's
//! fixes, the same ones `check --fix` writes).
//!
//! Linting a pair takes tens of microseconds, so every change is linted at
//! once and in order; a model's own files (a Hugging Face cache) are read once
//! per model name and kept, so typing never waits on the disk twice.

mod cursor;
mod text;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cfg_core::resolve::Arch;
use cfg_core::rules;
use cfg_core::schema::{self, KeyDoc};
use cfg_core::{FileKind, Input, Severity};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionProviderCapability, CompletionItem,
    CompletionItemKind, CompletionOptions, CompletionParams, DiagnosticSeverity, DidChangeTextDocumentParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, Documentation, Hover, HoverContents, HoverParams,
    HoverProviderCapability, InitializeParams, MarkupContent, MarkupKind, NumberOrString, PositionEncodingKind,
    PublishDiagnosticsParams, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextEdit, Uri, WorkspaceEdit,
};

use text::Encoding;

/// Serves the protocol on standard input and output until the client says exit.
pub fn run() -> Result<(), String> {
    let (connection, io_threads) = Connection::stdio();
    serve(&connection)?;
    drop(connection);
    io_threads.join().map_err(|e| format!("language server I/O: {e}"))
}

/// Serves one client on `connection` (stdio, or an in-memory pair in tests).
pub fn serve(connection: &Connection) -> Result<(), String> {
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let params: InitializeParams = serde_json::from_value(params).map_err(|e| format!("initialize: {e}"))?;
    let utf8 = params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|encodings| encodings.contains(&PositionEncodingKind::UTF8));
    let encoding = if utf8 { Encoding::Utf8 } else { Encoding::Utf16 };
    let capabilities = ServerCapabilities {
        position_encoding: Some(if utf8 { PositionEncodingKind::UTF8 } else { PositionEncodingKind::UTF16 }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            ..TextDocumentSyncOptions::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(["\"", "[", "=", " "].map(String::from).to_vec()),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    };
    let result = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "cfg-lint", "version": env!("CARGO_PKG_VERSION") },
    });
    connection.initialize_finish(id, result).map_err(|e| e.to_string())?;
    let mut server =
        Server { encoding, docs: HashMap::new(), linted: HashMap::new(), models: HashMap::new(), out: Vec::new() };
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request).map_err(|e| e.to_string())? {
                    return Ok(());
                }
                let response = server.request(request);
                connection.sender.send(Message::Response(response)).map_err(|e| e.to_string())?;
            }
            Message::Notification(notification) => server.notification(notification),
            Message::Response(_) => {}
        }
        for message in server.out.drain(..) {
            connection.sender.send(message).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

struct Document {
    /// The file on disk it is (None for an unsaved buffer).
    path: Option<PathBuf>,
    text: String,
}

/// What the last lint said about a file, kept for hover and code actions.
struct Linted {
    text: String,
    diagnostics: Vec<cfg_core::Diagnostic>,
    /// Every file the lint read (this one and its partner), by name, with the
    /// text it read: a fix's byte offsets hold only while the file still says that.
    read: Vec<(String, String)>,
}

struct Server {
    encoding: Encoding,
    /// Open documents by URI.
    docs: HashMap<String, Document>,
    /// The last lint of each open document, by URI.
    linted: HashMap<String, Linted>,
    /// Models read from their own files, by the name a config gives (None: not on this machine).
    models: HashMap<String, Option<Arch>>,
    /// Notifications to send after the current message.
    out: Vec<Message>,
}

impl Server {
    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            lsp_types::notification::DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else { return };
                let uri = p.text_document.uri.as_str().to_string();
                self.docs.insert(uri.clone(), Document { path: uri_to_path(&uri), text: p.text_document.text });
                self.lint(&uri);
            }
            lsp_types::notification::DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else { return };
                let uri = p.text_document.uri.as_str().to_string();
                let Some(doc) = self.docs.get_mut(&uri) else { return };
                for change in p.content_changes {
                    text::apply_change(&mut doc.text, change, self.encoding);
                }
                self.lint(&uri);
            }
            lsp_types::notification::DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else { return };
                let uri = p.text_document.uri.as_str().to_string();
                let folder =
                    self.docs.remove(&uri).and_then(|d| d.path).and_then(|p| p.parent().map(Path::to_path_buf));
                self.linted.remove(&uri);
                self.publish(&uri, Vec::new());
                // Its partner now pairs with the file on disk (or with nothing).
                let neighbours: Vec<String> = self
                    .docs
                    .iter()
                    .filter(|(_, d)| folder.is_some() && d.path.as_deref().and_then(Path::parent) == folder.as_deref())
                    .map(|(u, _)| u.clone())
                    .collect();
                for neighbour in neighbours {
                    self.lint(&neighbour);
                }
            }
            _ => {}
        }
    }

    fn request(&mut self, r: Request) -> Response {
        let result = match r.method.as_str() {
            lsp_types::request::HoverRequest::METHOD => {
                serde_json::from_value::<HoverParams>(r.params).map(|p| serde_json::to_value(self.hover(&p)))
            }
            lsp_types::request::Completion::METHOD => {
                serde_json::from_value::<CompletionParams>(r.params).map(|p| serde_json::to_value(self.complete(&p)))
            }
            lsp_types::request::CodeActionRequest::METHOD => serde_json::from_value::<CodeActionParams>(r.params)
                .map(|p| serde_json::to_value(self.code_actions(&p))),
            _ => {
                return Response::new_err(
                    r.id,
                    ErrorCode::MethodNotFound as i32,
                    format!("{} is not served", r.method),
                );
            }
        };
        match result {
            Ok(Ok(value)) => Response::new_ok(r.id, value),
            Ok(Err(e)) | Err(e) => Response::new_err(r.id, ErrorCode::InvalidParams as i32, e.to_string()),
        }
    }

    /// Lints an open document with its partner and publishes the diagnostics of
    /// every open document the lint covered.
    fn lint(&mut self, uri: &str) {
        let Some(doc) = self.docs.get(uri) else { return };
        let name = doc.path.as_ref().map_or_else(|| uri.to_string(), |p| p.to_string_lossy().into_owned());
        let kind = cfg_core::detect_kind(&name, &doc.text).filter(|k| *k != FileKind::Result);
        let Some(kind) = kind.filter(|_| served(&name)) else {
            self.linted.remove(uri);
            self.publish(uri, Vec::new());
            return;
        };
        let mut inputs = vec![(uri.to_string(), Input::new(kind, name, doc.text.clone()))];
        if let Some(partner) = doc.path.as_deref().and_then(|p| self.partner(p, kind)) {
            inputs.push(partner);
        }
        let options = cfg_core::Options { models: self.models_for(&inputs), ..cfg_core::Options::default() };
        let files: Vec<Input> = inputs.iter().map(|(_, i)| i.clone()).collect();
        let report = cfg_core::lint(&files, &options);
        for note in &report.notes {
            self.out.push(Message::Notification(Notification::new(
                lsp_types::notification::LogMessage::METHOD.into(),
                serde_json::json!({ "type": 3, "message": format!("cfg-lint: {note}") }),
            )));
        }
        let read: Vec<(String, String)> =
            inputs.iter().map(|(_, i)| (i.source.name.clone(), i.source.text.clone())).collect();
        for (file_uri, input) in inputs {
            if !self.docs.contains_key(&file_uri) {
                continue;
            }
            let diagnostics: Vec<cfg_core::Diagnostic> =
                report.diagnostics.iter().filter(|d| d.file == input.source.name).cloned().collect();
            let lsp = diagnostics.iter().map(|d| to_lsp(d, &input.source.text, self.encoding)).collect();
            self.linted.insert(file_uri.clone(), Linted { text: input.source.text, diagnostics, read: read.clone() });
            self.publish(&file_uri, lsp);
        }
    }

    fn publish(&mut self, uri: &str, diagnostics: Vec<lsp_types::Diagnostic>) {
        let Ok(uri) = uri.parse::<Uri>() else { return };
        let params = PublishDiagnosticsParams { uri, diagnostics, version: None };
        self.out.push(Message::Notification(Notification::new(
            lsp_types::notification::PublishDiagnostics::METHOD.into(),
            params,
        )));
    }

    /// The other file of the pair `path` belongs to: an open document in its
    /// folder, else a file on disk there, chosen as `check` pairs files.
    fn partner(&self, path: &Path, kind: FileKind) -> Option<(String, Input)> {
        let folder = path.parent()?;
        let mut candidates: Vec<(FileKind, String, Option<String>)> = Vec::new();
        for (uri, doc) in &self.docs {
            let Some(p) = doc.path.as_deref().filter(|p| p.parent() == Some(folder) && *p != path) else { continue };
            let name = p.to_string_lossy().into_owned();
            if !served(&name) {
                continue;
            }
            if let Some(k) = cfg_core::detect_kind(&name, &doc.text).filter(|k| *k != kind && *k != FileKind::Result) {
                candidates.push((k, name, Some(uri.clone())));
            }
        }
        for entry in std::fs::read_dir(folder).ok()?.flatten() {
            let p = entry.path();
            let name = p.to_string_lossy().into_owned();
            let file = entry.file_name().to_string_lossy().into_owned();
            if !served(&file) {
                continue;
            }
            let k = if file.ends_with(".toml") { FileKind::Config } else { FileKind::Settings };
            if k != kind && p.is_file() && !candidates.iter().any(|(_, n, _)| *n == name) {
                candidates.push((k, name, None));
            }
        }
        candidates.sort_by(|a, b| a.1.cmp(&b.1));
        let own = path.to_string_lossy().into_owned();
        let mut files: Vec<(FileKind, &str)> = vec![(kind, own.as_str())];
        files.extend(candidates.iter().map(|(k, n, _)| (*k, n.as_str())));
        let j = cfg_core::lint::pair_files(&files, &[]).into_iter().find_map(|(c, s)| match (c, s) {
            (0, other) | (other, 0) => Some(other),
            _ => None,
        })?;
        let (k, name, open) = &candidates[j - 1];
        let (uri, text) = match open {
            Some(uri) => (uri.clone(), self.docs[uri].text.clone()),
            None => (path_to_uri(Path::new(name)), crate::files::read(Path::new(name)).ok()?),
        };
        Some((uri, Input::new(*k, name.clone(), text)))
    }

    /// The models the configs among `inputs` name, from their own files where
    /// this machine has them (read once per name).
    fn models_for(&mut self, inputs: &[(String, Input)]) -> Vec<(String, Arch)> {
        let mut found = Vec::new();
        for name in inputs.iter().filter_map(|(_, input)| crate::files::model_name(input)) {
            let arch = self.models.entry(name.clone()).or_insert_with(|| {
                // Never the Hub: typing must not wait on the network.
                let lookup = crate::files::ModelLookup::default();
                crate::files::read_named_model(&name, &lookup, &cfg_models::Env::from_process()).ok().flatten()
            });
            if let Some(arch) = arch {
                found.push((name, arch.clone()));
            }
        }
        found
    }

    fn hover(&self, p: &HoverParams) -> Option<Hover> {
        let uri = p.text_document_position_params.text_document.uri.as_str();
        let doc = self.docs.get(uri)?;
        let offset = text::offset(&doc.text, p.text_document_position_params.position, self.encoding);
        let mut sections = Vec::new();
        if let Some(linted) = self.linted.get(uri).filter(|l| l.text == doc.text) {
            for d in linted.diagnostics.iter().filter(|d| d.span.start <= offset && offset <= d.span.end) {
                if let Some(rule) = rules::find(d.code) {
                    sections.push(format!("**{}** `{}`\n\n{}", rule.code, rule.name, rule.documentation()));
                }
            }
        }
        let kind = self.kind_of(uri)?;
        let tree = match kind {
            FileKind::Config => cfg_core::parse::parse_toml(&doc.text).ok(),
            _ => cfg_core::parse::parse_json(&doc.text).ok(),
        };
        if let Some(doc) = tree.and_then(|t| cursor::pointer_at(&t, offset)).and_then(|ptr| schema::key_doc(kind, &ptr))
        {
            sections.insert(0, key_markdown(&doc));
        }
        (!sections.is_empty()).then(|| Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: sections.join("\n\n---\n\n"),
            }),
            range: None,
        })
    }

    fn kind_of(&self, uri: &str) -> Option<FileKind> {
        let doc = self.docs.get(uri)?;
        let name = doc.path.as_ref().map_or_else(|| uri.to_string(), |p| p.to_string_lossy().into_owned());
        cfg_core::detect_kind(&name, &doc.text).filter(|_| served(&name))
    }

    fn complete(&self, p: &CompletionParams) -> Option<Vec<CompletionItem>> {
        let uri = p.text_document_position.text_document.uri.as_str();
        let doc = self.docs.get(uri)?;
        let kind = self.kind_of(uri).filter(|k| *k != FileKind::Result)?;
        let offset = text::offset(&doc.text, p.text_document_position.position, self.encoding);
        let items = match cursor::spot(&doc.text, offset, kind)? {
            cursor::Spot::Header => section_names()
                .into_iter()
                .map(|(name, doc)| item(name.clone(), CompletionItemKind::MODULE, &doc, format!("{name}]")))
                .collect(),
            cursor::Spot::Key { section, quoted } => {
                let present = present_keys(&doc.text, kind, &section);
                schema::keys_at(kind, &section)
                    .into_iter()
                    .filter(|k| !present.contains(&k.name))
                    .filter(|k| !(kind == FileKind::Config && k.is_section))
                    .map(|k| {
                        let insert = match (kind, quoted) {
                            (FileKind::Config, _) => format!("{} = ", k.name),
                            (_, true) => k.name.clone(),
                            (_, false) => format!("\"{}\": ", k.name),
                        };
                        item(k.name.clone(), CompletionItemKind::PROPERTY, &k, insert)
                    })
                    .collect()
            }
            cursor::Spot::Value { pointer, quoted } => {
                let key = schema::key_doc(kind, &pointer)?;
                value_choices(&pointer, &key)
                    .into_iter()
                    .map(|(value, is_string)| {
                        let insert = if is_string && !quoted { format!("\"{value}\"") } else { value.clone() };
                        item(value, CompletionItemKind::VALUE, &key, insert)
                    })
                    .collect()
            }
        };
        Some(items)
    }

    fn code_actions(&self, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let uri = p.text_document.uri.as_str();
        let Some(linted) = self.linted.get(uri) else { return Vec::new() };
        // Offsets from an older text would edit the wrong bytes.
        if self.docs.get(uri).is_none_or(|doc| doc.text != linted.text) {
            return Vec::new();
        }
        let (start, end) = (
            text::offset(&linted.text, p.range.start, self.encoding),
            text::offset(&linted.text, p.range.end, self.encoding),
        );
        let mut actions = Vec::new();
        for d in &linted.diagnostics {
            let Some(fix) = &d.fix else { continue };
            if d.span.end < start || d.span.start > end {
                continue;
            }
            // WorkspaceEdit keys its changes by Uri, whose parse cache is a Cell
            // that hashing never reads.
            #[allow(clippy::mutable_key_type)]
            let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
            let mut stale = false;
            for edit in &fix.edits {
                let (file_uri, text) = if edit.file == d.file {
                    (uri.to_string(), linted.text.clone())
                } else {
                    // The other file of the pair: open in the editor, or on disk.
                    let path = Path::new(&edit.file);
                    match self.docs.iter().find(|(_, doc)| doc.path.as_deref() == Some(path)) {
                        Some((open, doc)) => (open.clone(), doc.text.clone()),
                        None => match crate::files::read(path) {
                            Ok(text) => (path_to_uri(path), text),
                            Err(_) => continue,
                        },
                    }
                };
                // The partner changed since the lint (edited, closed, changed on disk).
                if !linted.read.iter().any(|(name, read)| *name == edit.file && *read == text) {
                    stale = true;
                    break;
                }
                let Ok(file_uri) = file_uri.parse::<Uri>() else { continue };
                changes.entry(file_uri).or_default().push(TextEdit {
                    range: text::range(&text, &edit.span, self.encoding),
                    new_text: edit.replacement.clone(),
                });
            }
            if stale {
                continue;
            }
            let safe = fix.applicability == cfg_core::fix::Applicability::Safe;
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("{} ({})", fix.title, d.code),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![to_lsp(d, &linted.text, self.encoding)]),
                edit: Some(WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() }),
                is_preferred: Some(safe),
                ..CodeAction::default()
            }));
        }
        actions
    }
}

fn to_lsp(d: &cfg_core::Diagnostic, text: &str, encoding: Encoding) -> lsp_types::Diagnostic {
    let mut message = d.message.clone();
    if let Some(label) = &d.label {
        message.push_str(&format!("\n{label}"));
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    lsp_types::Diagnostic {
        range: text::range(text, &d.span, encoding),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("cfg-lint".into()),
        message,
        ..lsp_types::Diagnostic::default()
    }
}

fn key_markdown(doc: &KeyDoc) -> String {
    let mut text = format!("**{}**", doc.name);
    if let Some(expected) = &doc.expected {
        text.push_str(&format!(" — {expected}"));
    }
    if let Some(description) = &doc.description {
        text.push_str(&format!("\n\n{description}"));
    }
    if let Some(default) = &doc.default {
        text.push_str(&format!("\n\nDefault: `{default}`"));
    }
    if !doc.values.is_empty() {
        let values: Vec<String> = doc.values.iter().map(|v| format!("`{v}`")).collect();
        text.push_str(&format!("\n\nValues: {}", values.join(", ")));
    }
    text
}

fn item(label: String, kind: CompletionItemKind, doc: &KeyDoc, insert: String) -> CompletionItem {
    CompletionItem {
        label,
        kind: Some(kind),
        detail: doc.description.as_deref().map(schema::first_sentence),
        documentation: Some(Documentation::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: key_markdown(doc),
        })),
        insert_text: Some(insert),
        ..CompletionItem::default()
    }
}

/// The tables a config may have, nested ones as `a.b`.
fn section_names() -> Vec<(String, KeyDoc)> {
    let mut out = Vec::new();
    for top in schema::keys_at(FileKind::Config, "").into_iter().filter(|k| k.is_section) {
        let nested = schema::keys_at(FileKind::Config, &format!("/{}", top.name));
        for inner in nested.into_iter().filter(|k| k.is_section) {
            out.push((format!("{}.{}", top.name, inner.name), inner));
        }
        out.push((top.name.clone(), top));
    }
    out
}

/// The keys a section already has (when the file parses as it is).
fn present_keys(text: &str, kind: FileKind, section: &str) -> Vec<String> {
    let tree = match kind {
        FileKind::Config => cfg_core::parse::parse_toml(text).ok(),
        _ => cfg_core::parse::parse_json(text).ok(),
    };
    let Some(tree) = tree else { return Vec::new() };
    match tree.locate(section).map(|l| &l.node.value) {
        Some(cfg_core::tree::Value::Object(entries)) => entries.iter().map(|e| e.key.clone()).collect(),
        _ => Vec::new(),
    }
}

/// The values a key takes, and whether each is a string: its enum, the
/// catalogs for the GPU and the model, or true and false.
fn value_choices(pointer: &str, key: &KeyDoc) -> Vec<(String, bool)> {
    match pointer {
        "/hardware/gpu" => cfg_core::catalog::GPUS.iter().map(|g| (g.name.to_string(), true)).collect(),
        "/model/name" => cfg_core::catalog::ids().map(|id| (id.to_string(), true)).collect(),
        _ if key.expected.as_deref() == Some("true or false") => {
            vec![("true".to_string(), false), ("false".to_string(), false)]
        }
        _ => key.values.iter().map(|v| (v.clone(), true)).collect(),
    }
}

/// Whether a file's name is one cfg-lint serves, as the pre-commit hook picks
/// them: `config.toml`, `settings.json`, `*.vllm.toml`, `*.loadtest.json`. An
/// editor set up for every TOML and JSON file then leaves Cargo.toml and
/// package.json alone.
fn served(name: &str) -> bool {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    matches!(file, "config.toml" | "settings.json") || file.ends_with(".vllm.toml") || file.ends_with(".loadtest.json")
}

/// The local path of a `file:` URI (percent-decoded).
fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (bytes.get(i + 1).and_then(|&b| hex(b)), bytes.get(i + 2).and_then(|&b| hex(b)))
        {
            out.push(u8::try_from(h * 16 + l).ok()?);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    Some(PathBuf::from(String::from_utf8(out).ok()?))
}

/// The `file:` URI of a path, percent-encoding what a URI path cannot hold.
fn path_to_uri(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file://");
    for b in absolute.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_round_trip() {
        let path = Path::new("/tmp/a dir/ü/config.toml");
        let uri = path_to_uri(path);
        assert_eq!(uri, "file:///tmp/a%20dir/%C3%BC/config.toml");
        assert_eq!(uri_to_path(&uri).unwrap(), path);
        assert_eq!(uri_to_path("untitled:1"), None);
    }

    #[test]
    fn only_the_hooks_file_names_are_served() {
        for name in ["config.toml", "/a/settings.json", "/a/canary.vllm.toml", "b.loadtest.json"] {
            assert!(served(name), "{name}");
        }
        for name in ["/a/Cargo.toml", "package.json", "config.toml.bak", "/a/result.json"] {
            assert!(!served(name), "{name}");
        }
    }
}
