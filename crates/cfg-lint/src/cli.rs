//! The command line: every subcommand's flags, and the dispatch to
//! `commands/`. Output streams are injected ([`Io`]) so tests can capture them.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use cfg_core::output::human;
use clap::{Parser, Subcommand};

use crate::args::{CheckFormat, ColorWhen, Io, RenderFormat, SchemaKind, TableFormat};
use crate::commands;
use crate::files::{ModelLookup, Selection};

#[derive(Parser, Debug)]
#[command(name = "cfg-lint", version, about = "Validate vLLM config.toml and load-test settings.json before anyone deploys", long_about = None)]
pub struct Cli {
    /// When to colour output: auto follows the terminal and NO_COLOR.
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check config.toml and/or settings.json; both together enable the cross-file rules.
    Check {
        /// Files to check (kind from the extension, then the content). A config.toml
        /// and a settings.json in one folder are checked together (the cross-file rules).
        #[arg(required_unless_present = "pair")]
        files: Vec<PathBuf>,
        /// Check this config.toml with this settings.json, for layouts where the two
        /// do not share a folder: `--pair deploy/vllm.toml,loadtests/chat.json`.
        #[arg(long, value_name = "CONFIG,SETTINGS", value_parser = parse_pair)]
        pair: Vec<(PathBuf, PathBuf)>,
        /// Also check the partner on disk of a file given alone (the settings.json
        /// beside a config.toml, or the other way round): how the pre-commit hook
        /// checks a pair when only one of its files is committed.
        #[arg(long)]
        with_partners: bool,
        #[arg(long, short = 'f', value_enum, default_value_t = CheckFormat::Human)]
        format: CheckFormat,
        /// Treat warnings as errors for the exit code.
        #[arg(long)]
        deny_warnings: bool,
        /// Hide info diagnostics.
        #[arg(long, short = 'q')]
        quiet: bool,
        /// Apply the fixes the rules propose to the files (safe ones only, unless
        /// --unsafe-fixes), keeping comments, order and formatting; then report
        /// what is left.
        #[arg(long)]
        fix: bool,
        /// Also apply unsafe fixes: choices a person should confirm, such as a
        /// longer max_model_len (more KV cache per sequence).
        #[arg(long)]
        unsafe_fixes: bool,
        /// Print the fixes as a unified diff and change nothing (exit 1 if there are any).
        #[arg(long, conflicts_with = "fix")]
        diff: bool,
        #[command(flatten)]
        model: ModelArgs,
    },
    /// Run the language server (LSP over stdio): diagnostics, hover, completion
    /// and fixes in any editor; see the README for each editor's set-up.
    Server,
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
        #[command(flatten)]
        model: ModelArgs,
        #[arg(long, short = 'f', value_enum, default_value_t = TableFormat::Human)]
        format: TableFormat,
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
        #[arg(long, short = 'f', value_enum, default_value_t = TableFormat::Human)]
        format: TableFormat,
    },
    /// Print a rule's documentation.
    Explain {
        /// Rule code (CFG501) or name (request-class-exceeds-max-model-len).
        rule: String,
    },
}

/// Where the model's own files come from.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ModelArgs {
    /// The model's config.json, or its folder (with model.safetensors.index.json
    /// beside it for exact weight bytes). Without it: a local folder named by
    /// `[model] name`, then the Hugging Face cache, then the built-in catalog.
    #[arg(long, value_name = "PATH")]
    model_config: Option<PathBuf>,
    /// Fetch the model's config.json (and safetensors index) from the Hub when it is
    /// nowhere on this machine (HF_ENDPOINT and HF_TOKEN from the environment),
    /// into the Hugging Face cache. Nothing touches the network without it.
    #[arg(long)]
    fetch: bool,
}

impl ModelArgs {
    fn lookup(&self) -> ModelLookup {
        ModelLookup { explicit: self.model_config.clone(), fetch: self.fetch }
    }
}

/// `CONFIG,SETTINGS` for `--pair`.
fn parse_pair(text: &str) -> Result<(PathBuf, PathBuf), String> {
    let (config, settings) = text.split_once(',').ok_or("write --pair CONFIG,SETTINGS (two paths, a comma between)")?;
    Ok((PathBuf::from(config.trim()), PathBuf::from(settings.trim())))
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
    if let Command::Server = cli.command {
        // The protocol's writer thread owns stdout: it must not be locked here.
        return match crate::server::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        };
    }
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let code = run(cli.command, &mut Io { out: &mut out, err: &mut err, color });
    let _ = out.flush();
    ExitCode::from(code)
}

/// Runs one command; returns the exit code.
pub fn run(command: Command, io: &mut Io<'_>) -> u8 {
    let result = match command {
        Command::Check { files, pair, with_partners, format, deny_warnings, quiet, fix, unsafe_fixes, diff, model } => {
            let selection = Selection { files, pairs: pair, with_partners };
            let fix_mode = commands::check::FixMode { fix, unsafe_fixes, diff };
            commands::check::run(&selection, format.into(), deny_warnings, quiet, fix_mode, &model.lookup(), io)
        }
        Command::Server => Err("the language server runs from main(), which leaves stdout unlocked".into()),
        Command::Render { config, format, output, force } => {
            commands::render::run(&config, format, output.as_deref(), force, io)
        }
        Command::Memory { config, model, format, list_gpus, list_models } => {
            commands::memory::run(config.as_deref(), &model.lookup(), format, list_gpus, list_models, io)
        }
        Command::Schema { kind, write, check } => commands::schema::run(kind, write.as_deref(), check.as_deref(), io),
        Command::Init { dir, force } => commands::init::run(&dir, force, io),
        Command::Rules { format } => commands::rules::list(format, io),
        Command::Explain { rule } => commands::rules::explain(&rule, io),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            let styles = human::Styles::new(io.color);
            let _ = writeln!(
                io.err,
                "{}",
                human::paint(styles.error, &format!("error: {}", cfg_core::output::escape_controls(&message)))
            );
            2
        }
    }
}
