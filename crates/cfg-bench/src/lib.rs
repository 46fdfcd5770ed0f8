//! `cfg-bench`: runs `settings.json` against an OpenAI-compatible endpoint,
//! writes `result.json`, judges it against the SLA and plans capacity;
//! `cfg-bench sim` is the built-in simulated vLLM every test can target.

pub mod archive;
pub mod client;
pub mod prompt;
pub mod report;
pub mod runner;
pub mod rx_stamp;
pub mod scrape;
pub mod serve;
pub mod shard;
pub mod sim_server;
pub mod stats;

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use cfg_core::model::{BenchResult, LoadTestSettings, ServerConfig};
use clap::{Parser, Subcommand};

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
    Run {
        /// The load-test settings.
        #[arg(long, short = 'c')]
        config: PathBuf,
        /// The server's config.toml (enables the cross-file checks and labels the result).
        #[arg(long, short = 's')]
        server: Option<PathBuf>,
        #[arg(long, short = 'o', default_value = "result.json")]
        output: PathBuf,
        /// Start the built-in simulator from --server and test it instead of the endpoint.
        #[arg(long, requires = "server")]
        sim: bool,
        /// Override duration_seconds.
        #[arg(long)]
        duration: Option<u32>,
        /// Also write a self-contained HTML report.
        #[arg(long)]
        html: Option<PathBuf>,
        /// Archive directory (config, settings, result per run).
        #[arg(long, default_value = "runs")]
        runs_dir: PathBuf,
        /// Do not archive this run.
        #[arg(long)]
        no_archive: bool,
        /// Exit 1 when the SLA does not hold (for CI gating).
        #[arg(long)]
        sla_exit: bool,
        /// Skip the single-request check before the warm-up.
        #[arg(long)]
        skip_smoke: bool,
        /// Run shard I of N (from 0): its share of concurrency, rate and warm-up, its
        /// own seed stream, and histograms in the result for `cfg-bench merge`.
        #[arg(long, value_name = "I/N")]
        shard: Option<shard::Shard>,
        /// Runner threads (default: one per core). Use 1 when the server shares this
        /// machine's CPU: each extra thread's wake-ups steal time from it (a CPU vLLM
        /// served 1.5x more with one runner thread than with two, in tests/e2e-vllm).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
        /// `auto`: cfg-bench's own HTTP/1.1 client for http:// endpoints, timing each
        /// chunk by the kernel's receive timestamp, and reqwest for https:// or behind a
        /// proxy; `reqwest`: reqwest everywhere, chunks timed when it hands them over.
        #[arg(long, value_enum, default_value = "auto")]
        transport: client::Transport,
    },
    /// Combine the results of `run --shard I/N` into one result with exact percentiles.
    Merge {
        /// The shard results (all N of them).
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// The settings every shard ran (for the percentiles and the verdict).
        #[arg(long, short = 'c')]
        config: PathBuf,
        /// The server's config.toml (for the verdict's advice).
        #[arg(long, short = 's')]
        server: Option<PathBuf>,
        #[arg(long, short = 'o', default_value = "result.json")]
        output: PathBuf,
        /// Also write a self-contained HTML report.
        #[arg(long)]
        html: Option<PathBuf>,
    },
    /// One streamed request, printed as it arrives, with failures diagnosed.
    Smoke {
        #[arg(long, short = 'c')]
        config: PathBuf,
    },
    /// Serve a simulated vLLM instance configured by config.toml, or sweep it in virtual time.
    Sim {
        #[arg(long, short = 'c')]
        config: PathBuf,
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Port (default: server.port of the config).
        #[arg(long)]
        port: Option<u16>,
        /// Write what the server did for each request (JSON lines).
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Virtual-time what-if sweep, e.g. `max_num_seqs=32,64,128,256`.
        #[arg(long)]
        sweep: Option<String>,
        /// Traffic mix and concurrency for --sweep.
        #[arg(long)]
        settings: Option<PathBuf>,
    },
    /// List archived runs.
    Runs {
        #[arg(long, default_value = "runs")]
        runs_dir: PathBuf,
    },
    /// Compare two results (files or run ids) metric by metric.
    Compare {
        baseline: String,
        candidate: String,
        #[arg(long, default_value = "runs")]
        runs_dir: PathBuf,
        /// Exit 1 if latency rises or throughput falls by more than this percentage.
        #[arg(long)]
        fail_over: Option<f64>,
    },
    /// Serve the web app and its local API on 127.0.0.1 (prints the URL with a one-time token).
    Serve {
        #[arg(long, default_value_t = 8765)]
        port: u16,
        /// Address to bind; anything but loopback needs --allow-remote.
        #[arg(long, default_value = "127.0.0.1")]
        host: std::net::IpAddr,
        /// Allow binding to a non-loopback address (anyone who reaches it and has the token can start load tests).
        #[arg(long)]
        allow_remote: bool,
        #[arg(long, default_value = "runs")]
        runs_dir: PathBuf,
        /// The built web app (default: web/dist if it exists).
        #[arg(long)]
        web_dir: Option<PathBuf>,
    },
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
    if let Command::Run { threads: Some(n), .. } = &cli.command {
        builder.worker_threads(usize::from(*n));
    }
    let rt = builder.enable_all().build().expect("tokio runtime");
    let code = rt.block_on(async {
        match dispatch(cli.command).await {
            Ok(code) => code,
            Err(message) => {
                eprintln!("error: {message}");
                2
            }
        }
    });
    rt.shutdown_timeout(Duration::from_secs(1));
    ExitCode::from(code)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Settings, their text, and the server config with its text.
pub type Linted = (LoadTestSettings, String, Option<(ServerConfig, String)>);

/// Lints the inputs through the core exactly as cfg-lint does; refuses on errors.
pub fn lint_inputs(settings: &Path, server: Option<&Path>) -> Result<Linted, (u8, String)> {
    let mut files = vec![settings.to_path_buf()];
    files.extend(server.map(Path::to_path_buf));
    let (inputs, report) = cfg_lint::lint_paths(&files, None).map_err(|e| (2, e))?;
    let shown = cfg_lint::format_report(&inputs, &report, cfg_lint::Format::Human, true, false);
    if report.has_errors() {
        return Err((1, format!("{shown}refusing to run: fix the errors above first")));
    }
    if report.count(cfg_core::Severity::Warning) > 0 {
        eprint!("{shown}");
    }
    // The texts as linted: each file is read once.
    let settings_text = inputs[0].source.text.clone();
    let settings = report.settings.clone().ok_or((2, format!("{} is not a settings file", settings.display())))?;
    let config = match (server, report.config.clone()) {
        (Some(_), Some(c)) => Some((c, inputs[1].source.text.clone())),
        (Some(p), None) => return Err((2, format!("{} is not a config.toml", p.display()))),
        _ => None,
    };
    Ok((settings, settings_text, config))
}

/// The key from the variable `api_key_env` names: missing or empty is an error
/// before any request is sent.
pub fn read_key(settings: &LoadTestSettings) -> Result<Option<String>, String> {
    let Some(var) = &settings.api_key_env else { return Ok(None) };
    match std::env::var(var) {
        // A line break would end the Authorization header and send the rest as
        // headers of its own; the value is never echoed.
        Ok(v) if v.bytes().any(|b| !(b == b'\t' || (0x20..0x7f).contains(&b))) => Err(format!(
            "${var} holds a line break or another character a header cannot carry (a key copied \
             from a file with Windows line endings?); export the key alone"
        )),
        Ok(v) if !v.trim().is_empty() => Ok(Some(v)),
        Ok(_) => {
            Err(format!("${var} is empty; export the API key in it (settings.json names the variable, never the key)"))
        }
        Err(_) => Err(format!(
            "${var} is not set; export the API key in it before running (settings.json names the variable, never the key)"
        )),
    }
}

async fn dispatch(command: Command) -> Result<u8, String> {
    match command {
        Command::Demo { dir, duration } => demo(&dir, duration).await,
        Command::Run {
            config,
            server,
            output,
            sim,
            duration,
            html,
            runs_dir,
            no_archive,
            sla_exit,
            skip_smoke,
            shard,
            threads: _,
            transport,
        } => {
            run(RunArgs {
                config,
                server,
                output,
                sim,
                duration,
                html,
                runs_dir: (!no_archive).then_some(runs_dir),
                sla_exit,
                skip_smoke,
                shard,
                transport,
            })
            .await
        }
        Command::Merge { shards, config, server, output, html } => {
            merge(&shards, &config, server.as_deref(), &output, html.as_deref())
        }
        Command::Smoke { config } => {
            let (settings, _, _) = match lint_inputs(&config, None) {
                Ok(v) => v,
                Err((code, msg)) => {
                    eprintln!("{msg}");
                    return Ok(code);
                }
            };
            let key = read_key(&settings)?;
            Ok(if smoke(&settings, key.as_deref(), true, client::Transport::Auto).await { 0 } else { 1 })
        }
        Command::Sim { config, host, port, trace, sweep, settings } => {
            sim(&config, &host, port, trace, sweep, settings.as_deref()).await
        }
        Command::Runs { runs_dir } => {
            print!("{}", archive::list(&runs_dir)?);
            Ok(0)
        }
        Command::Compare { baseline, candidate, runs_dir, fail_over } => {
            let a = archive::load(&runs_dir, &baseline)?;
            let b = archive::load(&runs_dir, &candidate)?;
            let (text, regressed) = archive::compare(&a, &b, fail_over);
            print!("{text}");
            Ok(u8::from(regressed))
        }
        Command::Serve { port, host, allow_remote, runs_dir, web_dir } => {
            if !host.is_loopback() {
                if !allow_remote {
                    return Err(format!(
                        "{host} is not a loopback address: pass --allow-remote to expose the runner beyond this machine"
                    ));
                }
                eprintln!(
                    "warning: listening on {host}: anyone who can reach it and has the token can start load tests from this machine"
                );
            }
            let web_dir = web_dir.or_else(|| Some(PathBuf::from("web/dist")).filter(|p| p.join("index.html").exists()));
            serve::serve(serve::ServeOptions { bind: SocketAddr::new(host, port), runs_dir, web_dir }).await?;
            Ok(0)
        }
        Command::Report { result, html } => {
            let r: BenchResult =
                serde_json::from_str(&read(&result)?).map_err(|e| format!("{}: {e}", result.display()))?;
            std::fs::write(&html, report::html(&r)).map_err(|e| format!("cannot write {}: {e}", html.display()))?;
            println!("wrote {}", html.display());
            Ok(0)
        }
    }
}

/// The example pair the README describes, built into the binary so the demo runs
/// from any folder, without the repository.
const EXAMPLE_CONFIG: &str = include_str!("../../../examples/config.toml");
const EXAMPLE_SETTINGS: &str = include_str!("../../../examples/settings.json");

/// The example files as the demo writes them: without the `$schema` references,
/// which point into the repository.
pub fn example_pair() -> (String, String) {
    let config = EXAMPLE_CONFIG.lines().filter(|l| !l.starts_with("#:schema")).collect::<Vec<_>>().join("\n") + "\n";
    let settings =
        EXAMPLE_SETTINGS.lines().filter(|l| !l.trim_start().starts_with("\"$schema\"")).collect::<Vec<_>>().join("\n")
            + "\n";
    (config, settings)
}

async fn demo(dir: &Path, duration: u32) -> Result<u8, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (config_text, settings_text) = example_pair();
    let config = dir.join("config.toml");
    let settings = dir.join("settings.json");
    for (path, text) in [(&config, &config_text), (&settings, &settings_text)] {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    eprintln!(
        "demo: the built-in example pair, {} (Llama-3.1-8B, fp8, one H100) and {} (the SPEC's short/long/tail mix), \
         against the built-in simulated vLLM for {duration} s",
        config.display(),
        settings.display()
    );
    let code = run(RunArgs {
        config: settings.clone(),
        server: Some(config.clone()),
        output: dir.join("result.json"),
        sim: true,
        duration: Some(duration),
        html: Some(dir.join("report.html")),
        runs_dir: None,
        sla_exit: false,
        skip_smoke: false,
        shard: None,
        transport: client::Transport::Auto,
    })
    .await?;
    println!(
        "next: edit the pair and run it again with `cfg-bench run --config {} --server {} --sim`, \
         or drop --sim to test the endpoint in settings.json",
        settings.display(),
        config.display()
    );
    Ok(code)
}

pub struct RunArgs {
    pub config: PathBuf,
    pub server: Option<PathBuf>,
    pub output: PathBuf,
    pub sim: bool,
    pub duration: Option<u32>,
    pub html: Option<PathBuf>,
    pub runs_dir: Option<PathBuf>,
    pub sla_exit: bool,
    pub skip_smoke: bool,
    pub shard: Option<shard::Shard>,
    pub transport: client::Transport,
}

async fn run(args: RunArgs) -> Result<u8, String> {
    let (mut settings, settings_text, config) = match lint_inputs(&args.config, args.server.as_deref()) {
        Ok(v) => v,
        Err((code, msg)) => {
            eprintln!("{msg}");
            return Ok(code);
        }
    };
    if let Some(d) = args.duration {
        settings.duration_seconds = d;
    }
    let base_seed = settings.seed.unwrap_or(0);
    if let Some(shard) = args.shard {
        settings = shard.settings(&settings)?;
        eprintln!(
            "shard {}/{}: concurrency {}, seed {}",
            shard.index,
            shard.count,
            settings.concurrency,
            settings.seed.unwrap_or(0)
        );
    }
    let mut _sim = None;
    let key = if args.sim {
        let (cfg, _) = config.as_ref().ok_or("--sim needs --server config.toml")?;
        // The simulator and the runner share one key: the configured one if its
        // variable is set, else a throw-away one (never written anywhere).
        let var =
            cfg.server().api_key.as_deref().and_then(cfg_core::rules::security::env_reference).map(str::to_string);
        let key = var.as_ref().map(|v| match std::env::var(v) {
            Ok(k) if !k.is_empty() => k,
            _ => {
                eprintln!("note: ${v} is not set; the simulator and the runner share a throw-away key");
                serve::new_token()
            }
        });
        let (handle, notes) = sim_server::start_for(cfg, &mut settings, key.clone()).await?;
        for n in notes {
            eprintln!("note: {n}");
        }
        _sim = Some(handle);
        key
    } else {
        read_key(&settings)?
    };
    if !args.skip_smoke && !smoke(&settings, key.as_deref(), false, args.transport).await {
        eprintln!("the single-request check failed: not starting the load test");
        return Ok(1);
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                eprintln!(
                    "\ninterrupted: stopping new requests, giving in-flight ones 5 s, then writing what was measured"
                );
                stop.store(true, Ordering::SeqCst);
            }
        });
    }
    eprintln!(
        "running: {} for {} s after {} warm-up requests, concurrency {}",
        settings.endpoint,
        settings.duration_seconds,
        settings.warmup_requests.unwrap_or(0),
        settings.concurrency
    );
    let live = Arc::new(runner::Live::default());
    let input = runner::RunInput {
        settings: settings.clone(),
        settings_text: settings_text.clone(),
        config: config.clone(),
        key,
        stop,
        show_progress: true,
        shard: args.shard.map(|s| (s, base_seed)),
        transport: args.transport,
    };
    let result = runner::run(input, live).await;
    let text = serde_json::to_string_pretty(&result).map_err(|e| e.to_string())? + "\n";
    std::fs::write(&args.output, &text).map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
    print!("{}", report::summary(&result));
    println!("wrote {}", args.output.display());
    if let Some(html) = &args.html {
        std::fs::write(html, report::html(&result)).map_err(|e| format!("cannot write {}: {e}", html.display()))?;
        println!("wrote {}", html.display());
    }
    if let Some(dir) = &args.runs_dir {
        let config_text = config.as_ref().map(|(_, t)| t.as_str());
        match archive::store(dir, &result, &settings_text, config_text) {
            Ok(id) => println!("archived as {id} in {}", dir.display()),
            Err(e) => eprintln!("warning: not archived: {e}"),
        }
    }
    let sla_met = result.verdict.as_ref().is_some_and(|v| v.sla_met);
    Ok(if args.sla_exit && !sla_met { 1 } else { 0 })
}

fn merge(
    shards: &[PathBuf],
    settings: &Path,
    server: Option<&Path>,
    output: &Path,
    html: Option<&Path>,
) -> Result<u8, String> {
    let (settings, settings_text, config) = match lint_inputs(settings, server) {
        Ok(v) => v,
        Err((code, msg)) => {
            eprintln!("{msg}");
            return Ok(code);
        }
    };
    let results = shards
        .iter()
        .map(|p| serde_json::from_str::<BenchResult>(&read(p)?).map_err(|e| format!("{}: {e}", p.display())))
        .collect::<Result<Vec<_>, _>>()?;
    let sha = runner::sha256(&settings_text);
    if results.iter().any(|r| r.metadata.as_ref().is_some_and(|m| m.settings_sha256 != sha)) {
        return Err("the shards ran another settings.json than --config: give the file they ran".into());
    }
    let merged =
        shard::merge(results, &settings, config.as_ref().map(|(c, _)| c), &runner::percentile_list(&settings))?;
    let text = serde_json::to_string_pretty(&merged).map_err(|e| e.to_string())? + "\n";
    std::fs::write(output, text).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    print!("{}", report::summary(&merged));
    println!("merged {} shards into {}", shards.len(), output.display());
    if let Some(h) = html {
        std::fs::write(h, report::html(&merged)).map_err(|e| format!("cannot write {}: {e}", h.display()))?;
        println!("wrote {}", h.display());
    }
    Ok(0)
}

/// The seed's single-request check: one streamed request, text printed as it
/// arrives, failures diagnosed in the seed's order.
pub async fn smoke(
    settings: &LoadTestSettings,
    key: Option<&str>,
    print_text: bool,
    transport: client::Transport,
) -> bool {
    let client = reqwest::Client::new();
    let http = client::Http::new(client.clone(), transport);
    let api = client::Api::from_endpoint(&settings.endpoint);
    let spec = client::RequestSpec {
        model: settings.model.clone(),
        prompt: "Say hello in one short sentence.".into(),
        max_tokens: 16,
        force_output_length: false,
    };
    let mut out = std::io::stdout();
    let r = client::send(&http, &settings.endpoint, api, key, &spec, Duration::from_secs(120), |t| {
        if print_text {
            let _ = write!(out, "{t}");
            let _ = out.flush();
        }
    })
    .await;
    match r {
        Ok(t) => {
            if print_text {
                println!();
            }
            eprintln!(
                "smoke test passed: first token after {:.0} ms, {} tokens in {:.0} ms{}",
                t.ttft * 1000.0,
                t.output_tokens,
                t.e2e * 1000.0,
                if t.simulated { " (simulated server)" } else { "" }
            );
            true
        }
        Err(f) => {
            eprintln!("smoke test failed: {}", f.message);
            for line in diagnose(settings, key, &f, &client).await {
                eprintln!("  - {line}");
            }
            false
        }
    }
}

async fn diagnose(
    settings: &LoadTestSettings,
    key: Option<&str>,
    f: &client::Failure,
    http: &reqwest::Client,
) -> Vec<String> {
    let var = settings.api_key_env.clone().unwrap_or_else(|| "(none)".into());
    match f.status {
        Some(401) | Some(403) => vec![
            format!("the key was rejected ({}). Check, in order:", f.kind),
            format!(
                "the key is read from the environment: ${var} is {}",
                if key.is_some() { "set" } else { "NOT set" }
            ),
            "the key is not revoked (try it with curl)".into(),
            "it is sent as `Authorization: Bearer <key>` (what this tool sends; some gateways want another header)"
                .into(),
            "the model name is mapped on the gateway side".into(),
        ],
        Some(404) => {
            let mut lines = vec![format!("404: the endpoint or the model \"{}\" is unknown", settings.model)];
            if let Some(u) = cfg_core::url::Url::parse(&settings.endpoint) {
                let models = format!("{}://{}/v1/models", u.scheme, u.authority);
                let mut req = http.get(&models);
                if let Some(k) = key {
                    req = req.bearer_auth(k);
                }
                if let Ok(resp) = req.send().await
                    && let Ok(v) = resp.json::<serde_json::Value>().await
                {
                    let names: Vec<String> = v["data"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m["id"].as_str().map(str::to_string))
                        .collect();
                    if !names.is_empty() {
                        lines.push(format!("{models} offers: {}", names.join(", ")));
                    }
                }
            }
            lines
        }
        Some(code) => vec![format!("HTTP {code} from the server: {}", f.message)],
        None => match f.kind.as_str() {
            "connection_refused" => {
                vec!["nothing listens at the endpoint's host and port: is the server (or gateway) running?".into()]
            }
            "dns" => vec!["the endpoint's host name does not resolve: check the spelling or the DNS".into()],
            "tls" => {
                vec!["TLS failed: the certificate is invalid for this host, or the endpoint speaks plain HTTP".into()]
            }
            "timeout" => {
                vec!["no answer in time: the server may be loading the model (cold start) or overloaded".into()]
            }
            _ => vec![format!("{}: {}", f.kind, f.message)],
        },
    }
}

async fn sim(
    config: &Path,
    host: &str,
    port: Option<u16>,
    trace: Option<PathBuf>,
    sweep: Option<String>,
    settings: Option<&Path>,
) -> Result<u8, String> {
    let (inputs, report) = cfg_lint::lint_paths(&[config.to_path_buf()], None)?;
    if report.has_errors() {
        eprint!("{}", cfg_lint::format_report(&inputs, &report, cfg_lint::Format::Human, true, false));
        return Ok(1);
    }
    let cfg = report.config.ok_or("not a config.toml")?;
    if let Some(spec) = sweep {
        let (param, values) = spec.split_once('=').ok_or("--sweep takes max_num_seqs=32,64,...")?;
        if param != "max_num_seqs" {
            return Err(format!("only max_num_seqs can be swept, not {param}"));
        }
        let values: Vec<u32> = values
            .split(',')
            .map(|v| v.trim().parse().map_err(|_| format!("not a number: {v}")))
            .collect::<Result<_, _>>()?;
        let settings: LoadTestSettings = match settings {
            Some(p) => serde_json::from_str(&read(p)?).map_err(|e| format!("{}: {e}", p.display()))?,
            None => return Err("--sweep needs --settings settings.json for the traffic mix and concurrency".into()),
        };
        let points = cfg_core::sim::sweep_max_num_seqs(&cfg, &settings, &values, 120.0)?;
        println!("simulated (virtual time, 120 s at concurrency {}):", settings.concurrency);
        println!(
            "{:>12} {:>12} {:>12} {:>12} {:>14}",
            "max_num_seqs", "TTFT p50 ms", "TTFT p99 ms", "TPOT p50 ms", "output tok/s"
        );
        for p in points {
            println!(
                "{:>12} {:>12.0} {:>12.0} {:>12.1} {:>14.0}",
                p.value, p.ttft_p50_ms, p.ttft_p99_ms, p.tpot_p50_ms, p.output_tokens_per_sec
            );
        }
        return Ok(0);
    }
    let port = port.or(cfg.server().port).unwrap_or(8000);
    let addr: SocketAddr = format!("{host}:{port}").parse().map_err(|e| format!("bad address {host}:{port}: {e}"))?;
    let (handle, notes) = sim_server::start(&cfg, addr, trace, None).await?;
    for n in notes {
        eprintln!("note: {n}");
    }
    eprintln!(
        "simulated vLLM ({}), serving {} on http://{} (Ctrl-C to stop)",
        cfg.model.name,
        cfg.served_names().join(", "),
        handle.addr
    );
    let _ = tokio::signal::ctrl_c().await;
    handle.task.abort();
    Ok(0)
}
