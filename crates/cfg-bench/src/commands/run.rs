//! `cfg-bench run`: lint the inputs, start the simulator if asked, check one
//! request, run the load test, then write the result, the report and the
//! archive entry.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use cfg_core::model::{LoadTestSettings, ServerConfig};

use crate::args::RunArgs;
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
    if !args.skip_smoke && !super::smoke::check(&settings, key.as_deref(), false, args.transport).await {
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
    Ok(if args.sla_exit && !sla_met { 1 } else { 0 })
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
