//! The flags the subcommands share, and the argument groups of the larger
//! ones. Flags name the file they take: `--settings` is a load test's
//! settings.json and `--server-config` a server's config.toml, in every
//! subcommand (the older `--config` / `--server` still work, with a note).

use std::net::IpAddr;
use std::path::PathBuf;

use clap::Args;

use crate::{client, shard};

/// A load test's settings.json.
#[derive(Args, Debug, Clone, Default)]
pub struct SettingsFile {
    /// The load test's settings.json.
    #[arg(long, value_name = "PATH")]
    pub settings: Option<PathBuf>,
    /// Old spelling of --settings.
    #[arg(long = "config", short = 'c', value_name = "PATH", hide = true)]
    pub old_settings: Option<PathBuf>,
}

impl SettingsFile {
    /// The settings file, whichever spelling named it.
    pub fn resolve(self) -> Result<PathBuf, String> {
        pick("--settings", self.settings, "--config", self.old_settings)?
            .ok_or_else(|| "name the load test's settings.json with --settings PATH".to_string())
    }
}

/// The two input files of a load test.
#[derive(Args, Debug, Clone, Default)]
pub struct LoadTestFiles {
    #[command(flatten)]
    pub settings: SettingsFile,
    /// The server's config.toml: enables the cross-file checks and labels the result.
    #[arg(long, value_name = "PATH")]
    pub server_config: Option<PathBuf>,
    /// Old spelling of --server-config.
    #[arg(long = "server", short = 's', value_name = "PATH", hide = true)]
    pub old_server: Option<PathBuf>,
}

impl LoadTestFiles {
    /// The settings (required) and the server config, whichever spelling named them.
    pub fn resolve(self) -> Result<(PathBuf, Option<PathBuf>), String> {
        let settings = self.settings.resolve()?;
        let server = pick("--server-config", self.server_config, "--server", self.old_server)?;
        Ok((settings, server))
    }
}

/// An RFC 3339 time for `--start-at`.
fn parse_time(text: &str) -> Result<std::time::SystemTime, String> {
    humantime::parse_rfc3339_weak(text).map_err(|e| format!("not an RFC 3339 time ({e}): e.g. 2026-12-01T10:00:00Z"))
}

/// The new spelling of a flag, or its old one with a deprecation note.
pub fn pick(
    new: &str,
    value: Option<PathBuf>,
    old: &str,
    old_value: Option<PathBuf>,
) -> Result<Option<PathBuf>, String> {
    match (value, old_value) {
        (Some(_), Some(_)) => Err(format!("{new} and {old} name the same file; give {new} only")),
        (None, Some(v)) => {
            eprintln!("note: {old} is deprecated here; it is now spelt {new}");
            Ok(Some(v))
        }
        (v, None) => Ok(v),
    }
}

/// Where a result goes.
#[derive(Args, Debug, Clone)]
pub struct ResultFiles {
    #[arg(long, short = 'o', default_value = "result.json")]
    pub output: PathBuf,
    /// Also write a self-contained HTML report.
    #[arg(long, value_name = "PATH")]
    pub html: Option<PathBuf>,
}

/// The archive of runs.
#[derive(Args, Debug, Clone)]
pub struct Archive {
    /// Archive directory (config, settings, result per run).
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub files: LoadTestFiles,
    #[command(flatten)]
    pub out: ResultFiles,
    /// Start the built-in simulator from --server-config and test it instead of the endpoint.
    #[arg(long)]
    pub sim: bool,
    /// Override duration_seconds.
    #[arg(long)]
    pub duration: Option<u32>,
    /// Archive directory (config, settings, result per run).
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
    /// Do not archive this run.
    #[arg(long)]
    pub no_archive: bool,
    /// Exit 1 when the SLA does not hold (for CI gating).
    #[arg(long)]
    pub sla_exit: bool,
    /// Skip the single-request check before the warm-up.
    #[arg(long)]
    pub skip_smoke: bool,
    /// Run shard I of N (from 0): its share of concurrency, rate and warm-up, its
    /// own seed stream, and histograms in the result for `cfg-bench merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<shard::Shard>,
    /// Begin the measured phase at this wall-clock time (RFC 3339, e.g.
    /// 2026-12-01T10:00:00Z), after the warm-up: shards started apart begin together.
    #[arg(long, value_name = "TIME", value_parser = parse_time, conflicts_with = "barrier")]
    pub start_at: Option<std::time::SystemTime>,
    /// A folder every shard of the run can see (a fresh one per run): each says it
    /// is ready there after its warm-up, and all begin the measured phase together.
    #[arg(long, value_name = "DIR", requires = "shard")]
    pub barrier: Option<PathBuf>,
    /// Runner threads (default: one per core). Use 1 when the server shares this
    /// machine's CPU: each extra thread's wake-ups steal time from it (a CPU vLLM
    /// served 1.5x more with one runner thread than with two, in tests/e2e-vllm).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// `auto`: cfg-bench's own HTTP/1.1 client for http:// endpoints, timing each
    /// chunk by the kernel's receive timestamp, and reqwest for https:// or behind a
    /// proxy; `reqwest`: reqwest everywhere, chunks timed when it hands them over.
    #[arg(long, value_enum, default_value = "auto")]
    pub transport: client::Transport,
}

#[derive(Args, Debug)]
pub struct SimArgs {
    /// The server's config.toml the simulator behaves like.
    #[arg(long, value_name = "PATH")]
    pub server_config: Option<PathBuf>,
    /// Old spelling of --server-config.
    #[arg(long = "config", short = 'c', value_name = "PATH", hide = true)]
    pub old_config: Option<PathBuf>,
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port (default: server.port of the config).
    #[arg(long)]
    pub port: Option<u16>,
    /// Write what the server did for each request (JSON lines).
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Virtual-time what-if sweep, e.g. `max_num_seqs=32,64,128,256`.
    #[arg(long)]
    pub sweep: Option<String>,
    /// Traffic mix and concurrency for --sweep: a load test's settings.json.
    #[arg(long, value_name = "PATH")]
    pub settings: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    #[arg(long, default_value_t = 8765)]
    pub port: u16,
    /// Address to bind; anything but loopback needs --allow-remote.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Allow binding to a non-loopback address (anyone who reaches it and has the token can start load tests).
    #[arg(long)]
    pub allow_remote: bool,
    #[arg(long, default_value = "runs")]
    pub runs_dir: PathBuf,
    /// The built web app (default: web/dist if it exists).
    #[arg(long)]
    pub web_dir: Option<PathBuf>,
    /// A variable runs started from the browser may read their key from
    /// (settings.json's `api_key_env`); repeat for more. A run that names any
    /// other variable is refused (403): a page must not choose which of this
    /// process's variables goes to which address.
    #[arg(long = "key-env", value_name = "VAR")]
    pub key_env: Vec<String>,
}
