//! The shared core of the toolkit: typed models of `config.toml`,
//! `settings.json` and `result.json`, span-keeping parsers, the generated JSON
//! Schemas, the rule registry, the GPU memory model, the catalogs and the
//! rendering of a config into a real `vllm serve` launch.
//!
//! It does no file, network or process I/O, so the same code runs in the CLI,
//! in the runner and in the browser (wasm32-unknown-unknown).

pub mod arch;
pub mod catalog;
pub mod diagnostic;
pub mod fix;
pub mod hf;
pub mod kind;
pub mod lint;
pub mod memory;
pub mod model;
pub mod output;
pub mod parse;
pub mod plan;
pub mod render;
pub mod resolve;
pub mod rules;
pub mod schema;
pub mod secrets;
pub mod sim;
pub mod source;
pub mod starter;
pub mod suggest;
pub mod tree;
pub mod url;
pub mod verdict;
pub mod vllm;

pub use diagnostic::{Diagnostic, Severity};
pub use kind::{FileKind, detect_kind};
pub use lint::{Input, Options, Report, lint};
pub use source::SourceFile;

/// The vLLM release every rule targets.
pub const VLLM_VERSION: &str = "0.33";
