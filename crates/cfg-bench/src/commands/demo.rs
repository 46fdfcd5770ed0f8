//! `cfg-bench demo`: the main job on the built-in example pair, from any folder.

use std::path::Path;

use crate::args::{LoadTestFiles, ResultFiles, RunArgs, SettingsFile};

/// The example pair the README describes, built into the binary so the demo runs
/// from any folder, without the repository.
const EXAMPLE_CONFIG: &str = include_str!("../../../../examples/config.toml");
const EXAMPLE_SETTINGS: &str = include_str!("../../../../examples/settings.json");

/// The example files as the demo writes them: without the `$schema` references,
/// which point into the repository.
pub fn example_pair() -> (String, String) {
    let config = EXAMPLE_CONFIG.lines().filter(|l| !l.starts_with("#:schema")).collect::<Vec<_>>().join("\n") + "\n";
    let settings =
        EXAMPLE_SETTINGS.lines().filter(|l| !l.trim_start().starts_with("\"$schema\"")).collect::<Vec<_>>().join("\n")
            + "\n";
    (config, settings)
}

pub async fn run(dir: &Path, duration: u32) -> Result<u8, String> {
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
    let code = super::run::run(RunArgs {
        files: LoadTestFiles {
            settings: SettingsFile { settings: Some(settings.clone()), old_settings: None },
            server_config: Some(config.clone()),
            old_server: None,
        },
        out: ResultFiles { output: dir.join("result.json"), html: Some(dir.join("report.html")) },
        sim: true,
        duration: Some(duration),
        runs_dir: dir.join("runs"),
        no_archive: true,
        sla_exit: false,
        skip_smoke: false,
        shard: None,
        start_at: None,
        barrier: None,
        threads: None,
        transport: crate::client::Transport::Auto,
    })
    .await?;
    println!(
        "next: edit the pair and run it again with `cfg-bench run --settings {} --server-config {} --sim`, \
         or drop --sim to test the endpoint in settings.json",
        settings.display(),
        config.display()
    );
    Ok(code)
}
