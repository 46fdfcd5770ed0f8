#![allow(dead_code)] // each fuzz target uses one of these
//! What every fuzz target asserts, shared with the regression test that replays the
//! corpus under `cargo test` (crates/cfg-core/tests/fuzz_corpus.rs): one source of truth.

use cfg_core::{FileKind, Input, Options};

/// The span-keeping TOML parser: a tree, or a syntax error whose span lies inside the text.
pub fn parse_toml(text: &str) {
    if let Err(e) = cfg_core::parse::parse_toml(text) {
        assert!(e.span.start <= e.span.end && e.span.end <= text.len(), "{:?} in {} bytes", e.span, text.len());
    }
}

/// The strict JSON parser: a tree, or a syntax error whose span lies inside the text.
pub fn parse_json(text: &str) {
    if let Err(e) = cfg_core::parse::parse_json(text) {
        assert!(e.span.start <= e.span.end && e.span.end <= text.len(), "{:?} in {} bytes", e.span, text.len());
    }
}

/// The whole lint of a config.toml and settings.json pair (split at the first NUL):
/// every diagnostic points at a line and column inside its file.
pub fn lint_pair(text: &str) {
    let (config, settings) = text.split_once('\0').unwrap_or((text, ""));
    let inputs = [
        Input::new(FileKind::Config, "config.toml", config),
        Input::new(FileKind::Settings, "settings.json", settings),
    ];
    let report = cfg_core::lint(&inputs, &Options::default());
    for d in &report.diagnostics {
        let file = if d.file == "config.toml" { config } else { settings };
        let lines: Vec<&str> = file.split('\n').collect();
        assert!(d.line >= 1 && d.line <= lines.len(), "{}:{} outside {} lines", d.line, d.column, lines.len());
        let width = lines[d.line - 1].chars().count();
        assert!(d.column >= 1 && d.column <= width + 1, "{}:{} outside a line of {width}", d.line, d.column);
    }
}

/// Rendering: any config the linter can read renders to a command line and a YAML file;
/// a clean one renders the max_model_len it set.
pub fn render(text: &str) {
    let report = cfg_core::lint(&[Input::new(FileKind::Config, "config.toml", text)], &Options::default());
    let clean = !report.has_errors();
    let Some(config) = report.config.as_ref().or(report.config_unchecked.as_ref()) else { return };
    let launch = cfg_core::render::launch(config);
    let shell = cfg_core::render::command_line(&launch);
    let yaml = cfg_core::render::yaml(&launch);
    if clean && let Some(len) = config.model.max_model_len {
        assert!(shell.contains(&format!("--max-model-len {len}")), "{shell}");
        assert!(yaml.contains(&format!("max-model-len: {len}")), "{yaml}");
    }
}

/// The memory model on any config that deserializes: an estimate or what is missing,
/// never a panic, an overflow or a NaN.
pub fn memory(text: &str) {
    let Ok(config) = toml::from_str::<cfg_core::model::ServerConfig>(text) else { return };
    if let Ok(report) = cfg_core::memory::estimate(&config) {
        let shown = format!("{report:?}");
        assert!(!shown.contains("NaN") && !shown.contains(": inf") && !shown.contains(": -inf"), "{shown}");
    }
}

/// A model's config.json, as read from wherever the user got it: reading it and
/// checking a config against it answers without a panic, and the memory picture
/// holds no NaN or infinity.
pub fn model_config(text: &str) {
    let Ok(arch) = cfg_core::hf::read_model(text, None, "fuzz") else { return };
    let config = "[model]\nname = \"fuzz/model\"\nmax_model_len = 4096\n[parallel]\ntensor_parallel_size = 2\n\
                  [hardware]\ngpu = \"A100-80GB\"\ngpu_count = 2\n";
    let inputs = [Input::new(FileKind::Config, "config.toml", config)];
    let report = cfg_core::lint(&inputs, &Options { models: vec![("fuzz/model".into(), arch)], ..Options::default() });
    if let Some(m) = &report.memory {
        let shown = format!("{m:?}");
        assert!(!shown.contains("NaN") && !shown.contains(": inf") && !shown.contains(": -inf"), "{shown}");
    }
}
