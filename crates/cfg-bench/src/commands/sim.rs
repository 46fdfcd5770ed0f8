//! `cfg-bench sim`: serve a simulated vLLM instance configured by config.toml,
//! or sweep it in virtual time (`--sweep max_num_seqs=...`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::args::{SettingsFile, SimArgs, pick};
use crate::{inputs, sim_server};

pub async fn run(args: SimArgs) -> Result<u8, String> {
    let path = pick("--server-config", args.server_config, "--config", args.old_config)?
        .ok_or("name the server's config.toml with --server-config PATH")?;
    if let Some(spec) = args.sweep {
        return sweep(&path, &spec, args.settings);
    }
    let cfg = match inputs::lint_config(&path) {
        Ok(c) => c,
        Err(refused) => {
            eprintln!("{}", refused.message);
            return Ok(refused.code);
        }
    };
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

/// The what-if sweep: the pair is linted first, as `run` lints it (errors
/// refuse, warnings are shown), then each value is simulated in virtual time.
fn sweep(config: &Path, spec: &str, settings: Option<PathBuf>) -> Result<u8, String> {
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
    let linted = match inputs::lint(settings.as_path(), Some(config)) {
        Ok(l) => l,
        Err(refused) => {
            eprintln!("{}", refused.message);
            return Ok(refused.code);
        }
    };
    let (cfg, _) = linted.config.ok_or("the server config did not parse")?;
    let settings = linted.settings;
    let points = cfg_core::sim::sweep_max_num_seqs(&cfg, &settings, &values, 120.0)?;
    println!("simulated (virtual time, 120 s at {}):", cfg_core::sim::load_description(&settings));
    println!(
        "{:>12} {:>12} {:>12} {:>12} {:>14}",
        "max_num_seqs", "TTFT p50 ms", "TTFT p99 ms", "TPOT p50 ms", "output tok/s"
    );
    let ms = |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| format!("{v:.digits$}"));
    for p in points {
        println!(
            "{:>12} {:>12} {:>12} {:>12} {:>14.0}",
            p.value,
            ms(p.ttft_p50_ms, 0),
            ms(p.ttft_p99_ms, 0),
            ms(p.tpot_p50_ms, 1),
            p.output_tokens_per_sec.max(0.0)
        );
        if let Some(why) = p.note {
            println!("{:>12} no request finished: {why}", "");
        }
    }
    Ok(0)
}
