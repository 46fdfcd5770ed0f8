//! What the commands take besides their paths: output formats, the output
//! streams, and what they return. Shared by the command line and the commands.

use std::io::Write;

use clap::ValueEnum;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// How `check` prints its diagnostics.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum CheckFormat {
    Human,
    Json,
    Sarif,
    Github,
}

impl From<CheckFormat> for cfg_core::output::Format {
    fn from(f: CheckFormat) -> Self {
        match f {
            CheckFormat::Human => Self::Human,
            CheckFormat::Json => Self::Json,
            CheckFormat::Sarif => Self::Sarif,
            CheckFormat::Github => Self::Github,
        }
    }
}

/// How `memory` and `rules` print: a table, or JSON.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum TableFormat {
    Human,
    Json,
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

/// Output streams and colour, injected so tests can capture them.
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub color: bool,
}

/// What a command returns: its exit code, or a message for exit code 2.
pub type CmdResult = Result<u8, String>;
