//! The command line: the subcommands, their flags (groups in `args`) and the
//! dispatch to `commands/`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};

use crate::args::{Archive, LoadTestFiles, ResultFiles, RunArgs, ServeArgs, SettingsFile, SimArgs};
use crate::commands;

#[derive(Parser, Debug)]
#[command(
    name = "cfg-bench",
    version,
    about = "Load-test an OpenAI-compatible LLM endpoint and judge it against the SLA"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The main job on the built-in example pair: lint it, start the built-in simulated
    /// vLLM, load-test it, print the verdict and write result.json and an HTML report.
    Demo {
        /// Where the example pair, result.json and report.html go (rewritten each time).
        #[arg(long, default_value = "cfg-bench-demo")]
        dir: PathBuf,
        /// Length of the measured phase in seconds.
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=3600))]
        duration: u32,
    },
    /// Run the load test in settings.json and write result.json.
    Run(RunArgs),
    /// Combine the results of `run --shard I/N` into one result with exact percentiles.
    Merge {
        /// The shard results (all N of them).
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        #[command(flatten)]
        files: LoadTestFiles,
        #[command(flatten)]
        out: ResultFiles,
    },
    /// One streamed request, printed as it arrives, with failures diagnosed.
    Smoke {
        #[command(flatten)]
        settings: SettingsFile,
    },
    /// Serve a simulated vLLM instance configured by config.toml, or sweep it in virtual time.
    Sim(SimArgs),
    /// List archived runs.
    Runs {
        #[command(flatten)]
        archive: Archive,
    },
    /// Compare two results (files or run ids) metric by metric.
    Compare {
        baseline: String,
        candidate: String,
        #[command(flatten)]
        archive: Archive,
        /// Exit 1 if latency rises or throughput falls by more than this percentage.
        /// (An error rate rising by more than one percentage point always fails.)
        #[arg(long)]
        fail_over: Option<f64>,
    },
    /// Serve the web app and its local API on 127.0.0.1 (prints the URL with a one-time token).
    Serve(ServeArgs),
    /// Write a self-contained HTML report of a result.
    Report {
        result: PathBuf,
        #[arg(long)]
        html: PathBuf,
    },
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Command::Run(RunArgs { threads: Some(n), .. }) = &cli.command {
        builder.worker_threads(usize::from(*n));
    }
    let rt = builder.enable_all().build().expect("tokio runtime");
    let code = rt.block_on(async {
        match dispatch(cli.command).await {
            Ok(code) => code,
            Err(message) => {
                eprintln!("error: {}", cfg_core::output::escape_controls(&message));
                2
            }
        }
    });
    rt.shutdown_timeout(Duration::from_secs(1));
    ExitCode::from(code)
}

async fn dispatch(command: Command) -> Result<u8, String> {
    match command {
        Command::Demo { dir, duration } => commands::demo::run(&dir, duration).await,
        Command::Run(args) => commands::run::run(args).await,
        Command::Merge { shards, files, out } => commands::merge::run(&shards, files, &out),
        Command::Smoke { settings } => commands::smoke::run(settings).await,
        Command::Sim(args) => commands::sim::run(args).await,
        Command::Runs { archive } => commands::compare::list(&archive.runs_dir),
        Command::Compare { baseline, candidate, archive, fail_over } => {
            commands::compare::run(&baseline, &candidate, &archive.runs_dir, fail_over)
        }
        Command::Serve(args) => commands::serve::run(args).await,
        Command::Report { result, html } => commands::report::run(&result, &html),
    }
}
