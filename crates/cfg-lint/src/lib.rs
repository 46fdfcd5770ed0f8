//! `cfg-lint`: validates vLLM `config.toml` and load-test `settings.json`
//! before anyone deploys, renders the real `vllm serve` launch, prints the GPU
//! memory picture and emits the JSON Schemas. All checking and every output
//! format live in `cfg-core`; this crate reads files, parses the command line,
//! writes fixes, serves editors (`cfg-lint server`) and sets the exit code (0
//! clean, 1 errors, 2 usage or I/O problems).

mod args;
mod cli;
mod commands;
mod files;
mod server;

pub use cli::main;
