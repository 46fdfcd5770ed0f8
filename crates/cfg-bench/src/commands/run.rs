//! `cfg-bench run`: lint the inputs, start the simulator if asked, check one
//! request, run the load test, then write the result, the report and the
//! archive entry.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use cfg_core::model::{LoadTestSettings, ServerConfig};

use crate::args::RunArgs;
use crate::start::StartGate;
use crate::{archive, inputs, report, runner, sim_server};

pub async fn run(args: RunArgs) -> Result<u8, String> {
    let (settings_path, server_path) = args.files.resolve()?;
    let inputs::Linted { mut settings, settings_text, config } =
        match inputs::lint(&settings_path, server_path.as_deref()) {
            Ok(v) => v,
            Err(refused) => {
                eprintln!("{}", refused.message);
                return Ok(refused.code);
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
        let (cfg, _) = config.as_ref().ok_or("--sim needs --server-config config.toml")?;
        let (handle, key) = start_simulator(cfg, &mut settings).await?;
        _sim = Some(handle);
        key
    } else {
        inputs::read_key(&settings)?
    };
    // From here on Ctrl-C and SIGTERM (what Kubernetes sends a pod) stop the run
    // the same way: a result is written with what was measured.
    let stop = Arc::new(AtomicBool::new(false));
    let stop_reason = Arc::new(Mutex::new(None));
    let signal = watch_signals(stop.clone(), stop_reason.clone());
    if !args.skip_smoke {
        let passed = tokio::select! {
            passed = super::smoke::check(&settings, key.as_deref(), false, args.transport) => passed,
            _ = wait_for(&stop) => true,
        };
        if !passed {
            eprintln!("the single-request check failed: not starting the load test");
            return Ok(1);
        }
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
        stop_reason,
        show_progress: true,
        shard: args.shard.map(|s| (s, base_seed)),
        start_gate: match (args.start_at, &args.barrier, args.shard) {
            (Some(at), _, _) => Some(StartGate::At(at)),
            (None, Some(dir), Some(shard)) => Some(StartGate::Barrier {
                dir: dir.clone(),
                shard,
                run: runner::sha256(&settings_text)[..12].to_string(),
            }),
            _ => None,
        },
        transport: args.transport,
    };
    let result = runner::run(input, live).await;
    let text = serde_json::to_string_pretty(&result).map_err(|e| e.to_string())? + "\n";
    let output = &args.out.output;
    std::fs::write(output, &text).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    print!("{}", report::summary(&result));
    println!("wrote {}", output.display());
    if let Some(html) = &args.out.html {
        std::fs::write(html, report::html(&result)).map_err(|e| format!("cannot write {}: {e}", html.display()))?;
        println!("wrote {}", html.display());
    }
    if !args.no_archive {
        let dir = &args.runs_dir;
        let config_text = config.as_ref().map(|(_, t)| t.as_str());
        match archive::store(dir, &result, &settings_text, config_text) {
            Ok(id) => println!("archived as {id} in {}", dir.display()),
            Err(e) => eprintln!("warning: not archived: {e}"),
        }
    }
    let sla_met = result.verdict.as_ref().is_some_and(|v| v.sla_met);
    // An interrupted run ends as the signal would have ended it (130 after Ctrl-C,
    // 143 after SIGTERM), once its result is written; a tripped breaker, with 1.
    if !result.complete {
        return Ok(signal.exit_code().unwrap_or(1));
    }
    Ok(if args.sla_exit && !sla_met { 1 } else { 0 })
}

/// Which signal stopped the run, if one did.
struct Signals(Arc<Mutex<Option<u8>>>);

impl Signals {
    /// The exit code of the signal that stopped the run.
    fn exit_code(&self) -> Option<u8> {
        *self.0.lock().expect("not poisoned")
    }
}

/// Sets `stop` on Ctrl-C or SIGTERM, saying which.
fn watch_signals(stop: Arc<AtomicBool>, reason: Arc<Mutex<Option<String>>>) -> Signals {
    let code = Arc::new(Mutex::new(None));
    let seen = code.clone();
    tokio::spawn(async move {
        #[cfg(unix)]
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        #[cfg(unix)]
        let terminated = async {
            match term.as_mut() {
                Some(t) => t.recv().await,
                None => std::future::pending().await,
            }
        };
        #[cfg(not(unix))]
        let terminated = std::future::pending::<Option<()>>();
        let (name, exit) = tokio::select! {
            _ = tokio::signal::ctrl_c() => ("Ctrl-C", 130),
            _ = terminated => ("SIGTERM", 143),
        };
        eprintln!("\n{name}: stopping new requests, giving in-flight ones 5 s, then writing what was measured");
        *reason.lock().expect("not poisoned") = Some(format!("stopped by {name}"));
        *seen.lock().expect("not poisoned") = Some(exit);
        stop.store(true, Ordering::SeqCst);
    });
    Signals(code)
}

/// Resolves once `stop` is set.
async fn wait_for(stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The built-in simulator for `cfg`, with the run pointed at it. The simulator
/// and the runner share one key: the configured one if its variable is set,
/// else a throw-away one (never written anywhere).
async fn start_simulator(
    cfg: &ServerConfig,
    settings: &mut LoadTestSettings,
) -> Result<(sim_server::SimHandle, Option<String>), String> {
    let var = cfg.server().api_key.as_deref().and_then(cfg_core::secrets::env_reference).map(str::to_string);
    let key = var.as_ref().map(|v| match std::env::var(v) {
        Ok(k) if !k.is_empty() => k,
        _ => {
            eprintln!("note: ${v} is not set; the simulator and the runner share a throw-away key");
            crate::serve::new_token()
        }
    });
    let (handle, notes) = sim_server::start_for(cfg, settings, key.clone()).await?;
    for n in notes {
        eprintln!("note: {n}");
    }
    Ok((handle, key))
}
