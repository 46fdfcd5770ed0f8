//! `cfg-bench merge`: the results of `run --shard I/N` added back into one,
//! with exact percentiles from their histograms, and judged again.

use std::path::PathBuf;

use cfg_core::model::BenchResult;

use crate::args::{LoadTestFiles, ResultFiles};
use crate::{inputs, report, runner, shard};

pub fn run(shards: &[PathBuf], files: LoadTestFiles, out: &ResultFiles) -> Result<u8, String> {
    let (settings_path, server_path) = files.resolve()?;
    let inputs::Linted { settings, settings_text, config } = match inputs::lint(&settings_path, server_path.as_deref())
    {
        Ok(v) => v,
        Err(refused) => {
            eprintln!("{}", refused.message);
            return Ok(refused.code);
        }
    };
    let results = shards
        .iter()
        .map(|p| {
            serde_json::from_str::<BenchResult>(&inputs::read(p)?).map_err(|e| crate::archive::not_a_result(p, &e))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let sha = runner::sha256(&settings_text);
    if results.iter().any(|r| r.metadata.as_ref().is_some_and(|m| m.settings_sha256 != sha)) {
        return Err("the shards ran another settings.json than --settings: give the file they ran".into());
    }
    let merged =
        shard::merge(results, &settings, config.as_ref().map(|(c, _)| c), &runner::percentile_list(&settings))?;
    let text = serde_json::to_string_pretty(&merged).map_err(|e| e.to_string())? + "\n";
    std::fs::write(&out.output, text).map_err(|e| format!("cannot write {}: {e}", out.output.display()))?;
    print!("{}", report::summary(&merged));
    println!("merged {} shards into {}", shards.len(), out.output.display());
    if let Some(h) = &out.html {
        std::fs::write(h, report::html(&merged)).map_err(|e| format!("cannot write {}: {e}", h.display()))?;
        println!("wrote {}", h.display());
    }
    Ok(0)
}
