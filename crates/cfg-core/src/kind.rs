//! The three files the toolkit reads and writes, and how a file's kind is told
//! from its name and content.

/// The three file kinds the toolkit reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// The server's `config.toml`.
    Config,
    /// The load test's `settings.json`.
    Settings,
    /// A load test's `result.json`.
    Result,
}

impl FileKind {
    pub const ALL: [FileKind; 3] = [FileKind::Config, FileKind::Settings, FileKind::Result];

    /// File name of the committed schema under `schemas/`.
    pub fn schema_file_name(self) -> &'static str {
        match self {
            FileKind::Config => "config.schema.json",
            FileKind::Settings => "settings.schema.json",
            FileKind::Result => "result.schema.json",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FileKind::Config => "config",
            FileKind::Settings => "settings",
            FileKind::Result => "result",
        }
    }

    /// Whether the file is JSON (settings and results) rather than TOML.
    pub fn is_json(self) -> bool {
        self != FileKind::Config
    }
}

/// Guesses a file's kind from its name, then its content: `.toml` is a server
/// config; JSON with `ttft_ms` is a result, any other JSON load-test settings.
pub fn detect_kind(name: &str, text: &str) -> Option<FileKind> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".toml") {
        return Some(FileKind::Config);
    }
    if lower.ends_with(".json") || text.trim_start().starts_with('{') {
        // A result may embed its settings; only its own top-level keys count.
        // (Parsed only when the key appears at all: settings files skip the extra parse.)
        let top_level_ttft = text.contains("\"ttft_ms\"")
            && crate::parse::parse_json(text).ok().is_some_and(|root| root.get("ttft_ms").is_some());
        let is_result = top_level_ttft || (lower.contains("result") && !text.contains("\"request_distribution\""));
        return Some(if is_result { FileKind::Result } else { FileKind::Settings });
    }
    if text.lines().any(|l| l.trim_start().starts_with('[')) {
        return Some(FileKind::Config);
    }
    None
}
