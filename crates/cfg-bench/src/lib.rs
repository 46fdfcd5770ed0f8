//! `cfg-bench`: runs `settings.json` against an OpenAI-compatible endpoint,
//! writes `result.json`, judges it against the SLA and plans capacity;
//! `cfg-bench sim` is the built-in simulated vLLM every test can target.
//!
//! `cli` parses the command line and hands each subcommand to its module in
//! `commands/`; the runner (`runner/`), the HTTP client (`client/`), the
//! simulator (`sim_server/`) and the local API (`serve`) are what they use.

pub mod archive;
mod args;
mod cli;
pub mod client;
mod commands;
pub mod inputs;
pub mod prompt;
pub mod report;
pub mod runner;
pub mod rx_stamp;
pub mod schedule;
pub mod scrape;
pub mod serve;
pub mod shard;
pub mod sim_server;
pub mod start;
pub mod stats;

pub use cli::main;
