//! `cfg-bench sim`: serve a simulated vLLM instance configured by config.toml,
//! or sweep it in virtual time (`--sweep max_num_seqs=...`).

use std::net::SocketAddr;
use std::path::PathBuf;

use crate::args::{SettingsFile, SimArgs, pick};
use crate::{inputs, sim_server};
use cfg_core::model::{LoadTestSettings, ServerConfig};

pub async fn run(args: SimArgs) -> Result<u8, String> {
    let path = pick("--server-config", args.server_config, "--config", args.old_config)?
        .ok_or("name the server's config.toml with --server-config PATH")?;
    let cfg = match inputs::lint_config(&path) {
        Ok(c) => c,
        Err(refused) => {
            eprintln!("{}", refused.message);
            return Ok(refused.code);
        }
    };
    if let Some(spec) = args.sweep {
        return sweep(&cfg, &spec, args.settings);
    }
    let port = args.port.or(cfg.server().port).unwrap_or(8000);
    let host = &args.host;
    let addr: SocketAddr = format!("{host}:{port}").parse().map_err(|e| format!("bad address {host}:{port}: {e}"))?;
    let (handle, notes) = sim_server::start(&cfg, addr, args.trace, None).await?;
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

fn sweep(cfg: &ServerConfig, spec: &str, settings: Option<PathBuf>) -> Result<u8, String> {
    let (param, values) = spec.split_once('=').ok_or("--sweep takes max_num_seqs=32,64,...")?;
    if param != "max_num_seqs" {
        return Err(format!("only max_num_seqs can be swept, not {param}"));
    }
    let values: Vec<u32> = values
        .split(',')
        .map(|v| v.trim().parse().map_err(|_| format!("not a number: {v}")))
        .collect::<Result<_, _>>()?;
    let settings = SettingsFile { settings, old_settings: None }
        .resolve()
        .map_err(|_| "--sweep needs --settings settings.json for the traffic mix and concurrency".to_string())?;
    let settings = settings.as_path();
    let settings: LoadTestSettings = serde_json::from_str(&inputs::read(settings)?).map_err(|e| {
        format!("{}: not a settings.json (line {}, column {})", settings.display(), e.line(), e.column())
    })?;
    let points = cfg_core::sim::sweep_max_num_seqs(cfg, &settings, &values, 120.0)?;
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
    Ok(0)
}
