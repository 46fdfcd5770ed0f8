//! `cfg-lint`: validates vLLM `config.toml` and load-test `settings.json`
//! before anyone deploys, renders the real `vllm serve` launch, prints the GPU
//! memory picture and emits the JSON Schemas. All checking lives in
//! `cfg-core`; this crate reads files, picks an output format and sets the
//! exit code (0 clean, 1 errors, 2 usage or I/O problems).

pub mod human;
pub mod machine;
mod memory_view;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cfg_core::rules::{self, RULES};
use cfg_core::schema::{FileKind, schema_text};
use cfg_core::{Diagnostic, Input, Options, Severity, SourceFile};
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(name = "cfg-lint", version, about = "Validate vLLM config.toml and load-test settings.json before anyone deploys", long_about = None)]
pub struct Cli {
    /// When to colour output: auto follows the terminal and NO_COLOR.
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum RenderFormat {
    /// A `vllm serve ...` command line.
    Shell,
    /// The YAML file `vllm serve --config` reads.
    Yaml,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SchemaKind {
    Config,
    Settings,
    Result,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check config.toml and/or settings.json; both together enable the cross-file rules.
    Check {
        /// Files to check (kind from the extension, then the content).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long, short = 'f', value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Treat warnings as errors for the exit code.
        #[arg(long)]
        deny_warnings: bool,
        /// Hide info diagnostics in human output.
        #[arg(long, short = 'q')]
        quiet: bool,
        /// A local Hugging Face config.json describing the model.
        #[arg(long, value_name = "PATH")]
        model_config: Option<PathBuf>,
    },
    /// Render config.toml as the real vLLM launch (command line or YAML).
    Render {
        config: PathBuf,
        #[arg(long, short = 'f', value_enum, default_value_t = RenderFormat::Shell)]
        format: RenderFormat,
        /// Write to this file instead of standard output.
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
        /// Render even if the config has errors.
        #[arg(long)]
        force: bool,
    },
    /// Print the per-GPU memory breakdown of config.toml.
    Memory {
        config: Option<PathBuf>,
        /// A local Hugging Face config.json describing the model.
        #[arg(long, value_name = "PATH")]
        model_config: Option<PathBuf>,
        #[arg(long, short = 'f', value_enum, default_value_t = Format::Human)]
        format: Format,
        /// List the GPU catalog.
        #[arg(long)]
        list_gpus: bool,
        /// List the model catalog.
        #[arg(long)]
        list_models: bool,
    },
    /// Print a JSON Schema, or write/check all of them in a directory.
    Schema {
        #[arg(value_enum)]
        kind: Option<SchemaKind>,
        /// Write every schema into this directory.
        #[arg(long, value_name = "DIR", conflicts_with = "check")]
        write: Option<PathBuf>,
        /// Fail if the schemas in this directory differ from the generated ones.
        #[arg(long, value_name = "DIR")]
        check: Option<PathBuf>,
    },
    /// Write starter config.toml and settings.json (with their schemas) into a directory.
    Init {
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Overwrite existing files.
        #[arg(long)]
        force: bool,
    },
    /// List every rule.
    Rules {
        #[arg(long, short = 'f', value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Print a rule's documentation.
    Explain {
        /// Rule code (CFG501) or name (request-class-exceeds-max-model-len).
        rule: String,
    },
}

/// Output streams and colour, injected so tests can capture them.
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub color: bool,
}

/// Runs the CLI on the process's arguments.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let color = match cli.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let code = run(cli.command, &mut Io { out: &mut out, err: &mut err, color });
    let _ = out.flush();
    ExitCode::from(code)
}

/// Runs one command; returns the exit code.
pub fn run(command: Command, io: &mut Io<'_>) -> u8 {
    let result = match command {
        Command::Check { files, format, deny_warnings, quiet, model_config } => {
            check(&files, format, deny_warnings, quiet, model_config.as_deref(), io)
        }
        Command::Render { config, format, output, force } => render(&config, format, output.as_deref(), force, io),
        Command::Memory { config, model_config, format, list_gpus, list_models } => {
            memory_view::run(config.as_deref(), model_config.as_deref(), format, list_gpus, list_models, io)
        }
        Command::Schema { kind, write, check } => schema(kind, write.as_deref(), check.as_deref(), io),
        Command::Init { dir, force } => init(&dir, force, io),
        Command::Rules { format } => list_rules(format, io),
        Command::Explain { rule } => explain(&rule, io),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            let styles = human::Styles::new(io.color);
            let _ = writeln!(io.err, "{}", human::paint(styles.error, &format!("error: {message}")));
            2
        }
    }
}

type CmdResult = Result<u8, String>;

fn read(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        format!("{} is not UTF-8 text (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to())
    })
}

fn display_name(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Reads the files and lints them together.
pub fn lint_paths(files: &[PathBuf], model_config: Option<&Path>) -> Result<(Vec<Input>, cfg_core::Report), String> {
    let mut inputs = Vec::new();
    for path in files {
        let text = read(path)?;
        let name = display_name(path);
        let kind = cfg_core::detect_kind(&name, &text).ok_or_else(|| {
            format!("cannot tell whether {name} is a config.toml or a settings.json; name it *.toml or *.json")
        })?;
        inputs.push(Input::new(kind, name, text));
    }
    let mut options = Options::default();
    if let Some(path) = model_config {
        let text = read(path)?;
        options.model_config =
            Some(cfg_core::hf::architecture_from_config_json(&text).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let report = cfg_core::lint(&inputs, &options);
    Ok((inputs, report))
}

fn check(
    files: &[PathBuf],
    format: Format,
    deny_warnings: bool,
    quiet: bool,
    model_config: Option<&Path>,
    io: &mut Io<'_>,
) -> CmdResult {
    let (inputs, report) = lint_paths(files, model_config)?;
    let text = format_report(&inputs, &report, format, quiet, io.color);
    io.out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    let failing = report.has_errors() || (deny_warnings && report.count(Severity::Warning) > 0);
    Ok(u8::from(failing))
}

/// The text `cfg-lint check` prints for a report.
pub fn format_report(inputs: &[Input], report: &cfg_core::Report, format: Format, quiet: bool, color: bool) -> String {
    let shown: Vec<Diagnostic> =
        report.diagnostics.iter().filter(|d| !(quiet && d.severity == Severity::Info)).cloned().collect();
    match format {
        Format::Human => {
            let styles = human::Styles::new(color);
            let mut text = String::new();
            for d in &shown {
                text.push_str(&human::render(d, source_for(inputs, &d.file), &styles));
                text.push('\n');
            }
            text.push_str(&human::summary(&shown, inputs.len(), &styles));
            text
        }
        Format::Json => format!("{:#}\n", machine::json_report(&shown, inputs.len())),
        Format::Sarif => format!("{:#}\n", machine::sarif_report(&shown)),
        Format::Github => machine::github_annotations(&shown),
    }
}

fn render(config: &Path, format: RenderFormat, output: Option<&Path>, force: bool, io: &mut Io<'_>) -> CmdResult {
    let (inputs, report) = lint_paths(&[config.to_path_buf()], None)?;
    let styles = human::Styles::new(io.color);
    let errors: Vec<&Diagnostic> = report.diagnostics.iter().filter(|d| d.severity == Severity::Error).collect();
    let cfg = match &report.config {
        Some(cfg) => Some(cfg).filter(|_| force || errors.is_empty()),
        None => report.config_unchecked.as_ref().filter(|_| force),
    };
    let Some(cfg) = cfg else {
        for d in &errors {
            let _ = write!(io.err, "{}", human::render(d, Some(&inputs[0].source), &styles));
        }
        let _ = writeln!(
            io.err,
            "{} not rendering a config with errors (vLLM would refuse it); fix them or pass --force",
            human::paint(styles.error, "error:")
        );
        return Ok(1);
    };
    if !errors.is_empty() {
        let _ = writeln!(
            io.err,
            "{} rendering despite {} error(s) (--force): vLLM will refuse this launch",
            human::paint(styles.warning, "warning:"),
            errors.len()
        );
    }
    let launch = cfg_core::render::launch(cfg);
    let text = match format {
        RenderFormat::Shell => cfg_core::render::command_line(&launch),
        RenderFormat::Yaml => cfg_core::render::yaml(&launch),
    };
    match output {
        Some(path) => std::fs::write(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => io.out.write_all(text.as_bytes()).map_err(|e| e.to_string())?,
    }
    if format == RenderFormat::Shell {
        for u in &launch.unrendered {
            let _ = writeln!(io.err, "note: not rendered: {}: {}", u.key, u.reason);
        }
    }
    Ok(0)
}

fn kinds(kind: Option<SchemaKind>) -> Vec<FileKind> {
    match kind {
        None => FileKind::ALL.to_vec(),
        Some(SchemaKind::Config) => vec![FileKind::Config],
        Some(SchemaKind::Settings) => vec![FileKind::Settings],
        Some(SchemaKind::Result) => vec![FileKind::Result],
    }
}

fn schema(kind: Option<SchemaKind>, write: Option<&Path>, check: Option<&Path>, io: &mut Io<'_>) -> CmdResult {
    if let Some(dir) = write {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for k in kinds(kind) {
            let path = dir.join(k.schema_file_name());
            std::fs::write(&path, schema_text(k)).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let _ = writeln!(io.out, "wrote {}", path.display());
        }
        return Ok(0);
    }
    if let Some(dir) = check {
        let mut stale = Vec::new();
        for k in kinds(kind) {
            let path = dir.join(k.schema_file_name());
            if std::fs::read_to_string(&path).ok().as_deref() != Some(schema_text(k).as_str()) {
                stale.push(path.display().to_string());
            }
        }
        if stale.is_empty() {
            let _ = writeln!(io.out, "schemas in {} are up to date", dir.display());
            return Ok(0);
        }
        let _ = writeln!(
            io.err,
            "error: generated schemas differ from {}\nregenerate them with: cargo run -p cfg-lint -- schema --write {}",
            stale.join(", "),
            dir.display()
        );
        return Ok(1);
    }
    let ks = kinds(kind);
    if ks.len() > 1 {
        return Err("name a schema (config, settings or result), or use --write DIR".into());
    }
    io.out.write_all(schema_text(ks[0]).as_bytes()).map_err(|e| e.to_string())?;
    Ok(0)
}

fn init(dir: &Path, force: bool, io: &mut Io<'_>) -> CmdResult {
    let files = [
        (dir.join("config.toml"), cfg_core::starter::config_toml("./schemas/config.schema.json")),
        (dir.join("settings.json"), cfg_core::starter::settings_json("./schemas/settings.schema.json")),
        (dir.join("schemas").join(FileKind::Config.schema_file_name()), schema_text(FileKind::Config)),
        (dir.join("schemas").join(FileKind::Settings.schema_file_name()), schema_text(FileKind::Settings)),
    ];
    if !force && let Some((existing, _)) = files.iter().take(2).find(|(p, _)| p.exists()) {
        return Err(format!("{} already exists; pass --force to overwrite", existing.display()));
    }
    std::fs::create_dir_all(dir.join("schemas")).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (path, text) in &files {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        let _ = writeln!(io.out, "wrote {}", path.display());
    }
    let _ = writeln!(
        io.out,
        "next: edit them, then run `cfg-lint check {} {}`",
        files[0].0.display(),
        files[1].0.display()
    );
    Ok(0)
}

fn list_rules(format: Format, io: &mut Io<'_>) -> CmdResult {
    if format == Format::Json || format == Format::Sarif {
        let rules: Vec<serde_json::Value> = RULES.iter().map(|r| serde_json::json!({"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary(), "documentation": r.documentation()})).collect();
        let _ = writeln!(io.out, "{:#}", serde_json::Value::Array(rules));
        return Ok(0);
    }
    let styles = human::Styles::new(io.color);
    for r in RULES {
        let severity = human::paint(styles.severity(r.severity), &format!("{:<8}", r.severity.as_str()));
        let _ = writeln!(io.out, "{}  {severity} {:<38} {}", r.code, r.name, r.summary());
    }
    let _ = writeln!(io.out, "\n{} rules; `cfg-lint explain CODE` prints one in full", RULES.len());
    Ok(0)
}

fn explain(code: &str, io: &mut Io<'_>) -> CmdResult {
    let rule = rules::find(code).ok_or_else(|| {
        let names: Vec<String> = RULES.iter().flat_map(|r| [r.code.to_string(), r.name.to_string()]).collect();
        match cfg_core::schema::nearest(code, &names) {
            Some(best) => format!("no rule {code}; did you mean {best}? (`cfg-lint rules` lists them)"),
            None => format!("no rule {code} (`cfg-lint rules` lists them)"),
        }
    })?;
    let _ = writeln!(
        io.out,
        "{} {} (default severity: {})\n\n{}",
        rule.code,
        rule.name,
        rule.severity,
        rule.documentation()
    );
    Ok(0)
}

/// The input a diagnostic points into.
pub fn source_for<'a>(inputs: &'a [Input], name: &str) -> Option<&'a SourceFile> {
    inputs.iter().map(|i| &i.source).find(|s| s.name == name)
}
