//! Every run archived with its inputs and labels, so the next tuning starts
//! from a baseline; and metric-by-metric comparison of two runs.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use cfg_core::model::BenchResult;
use serde_json::json;

fn label(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' }).collect()
}

/// Stores result.json, settings.json, config.toml and labels.json under
/// `dir/<time>-<model>-<gpu>-<quantization>/`; returns the run id.
pub fn store(dir: &Path, r: &BenchResult, settings: &str, config: Option<&str>) -> Result<String, String> {
    let meta = r.metadata.clone().unwrap_or_default();
    let stamp: String = meta.started_at.chars().filter(|c| c.is_ascii_digit()).take(14).collect();
    let id = format!(
        "{stamp}-{}-{}-{}{}",
        label(meta.model.rsplit('/').next().unwrap_or("model")),
        label(meta.gpu.as_deref().unwrap_or("gpu-unknown")),
        label(meta.quantization.as_deref().unwrap_or("unquantized")),
        if r.simulated { "-sim" } else { "" }
    );
    let run = dir.join(&id);
    std::fs::create_dir_all(&run).map_err(|e| format!("cannot create {}: {e}", run.display()))?;
    let write =
        |name: &str, text: &str| std::fs::write(run.join(name), text).map_err(|e| format!("cannot write {name}: {e}"));
    write("result.json", &(serde_json::to_string_pretty(r).map_err(|e| e.to_string())? + "\n"))?;
    write("settings.json", settings)?;
    if let Some(c) = config {
        write("config.toml", c)?;
    }
    let labels = json!({
        "model": meta.model, "gpu": meta.gpu, "quantization": meta.quantization,
        "started_at": meta.started_at, "simulated": r.simulated, "complete": r.complete,
    });
    write("labels.json", &(serde_json::to_string_pretty(&labels).map_err(|e| e.to_string())? + "\n"))?;
    Ok(id)
}

fn runs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("result.json").exists())
        .collect();
    v.sort();
    v
}

/// Every readable archived run: its id and its result, oldest first.
fn loaded(dir: &Path) -> Vec<(String, BenchResult)> {
    runs(dir)
        .iter()
        .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), load_file(&p.join("result.json")).ok()?)))
        .collect()
}

pub fn list(dir: &Path) -> Result<String, String> {
    let mut out = String::new();
    let all = loaded(dir);
    if all.is_empty() {
        return Ok(format!("no runs in {}\n", dir.display()));
    }
    let _ = writeln!(out, "{:<64} {:>10} {:>10} {:>8} {:>4}", "run", "TTFT p99", "tok/s", "errors", "SLA");
    // An interrupted run's figures cover only what ran: it is marked, not hidden.
    for (id, r) in all {
        let sla = match (&r.verdict, r.complete) {
            (_, false) => "INCOMPLETE",
            (Some(v), true) => {
                if v.sla_met {
                    "ok"
                } else {
                    "FAIL"
                }
            }
            (None, true) => "-",
        };
        let _ = writeln!(
            out,
            "{:<64} {:>10} {:>10.0} {:>7.2}% {:>4}",
            id,
            r.ttft_ms.get("p99").map_or("-".into(), |v| format!("{v:.0} ms")),
            r.throughput_tokens_per_sec,
            r.error_rate * 100.0,
            sla
        );
    }
    Ok(out)
}

/// Why a file is not a result.json, by position only: the parser's own message
/// can quote the file's contents, and a file may hold anything.
pub fn not_a_result(path: &Path, e: &serde_json::Error) -> String {
    let what = match e.classify() {
        serde_json::error::Category::Io => "cannot be read",
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "is not valid JSON",
        serde_json::error::Category::Data => "is JSON but not a result.json",
    };
    format!("{} {what} (line {}, column {})", path.display(), e.line(), e.column())
}

fn load_file(path: &Path) -> Result<BenchResult, String> {
    let text = crate::inputs::read(path)?;
    serde_json::from_str(&text).map_err(|e| not_a_result(path, &e))
}

/// A result by file path, or by run id (or unique prefix) in the archive: what a
/// person at the command line may name.
pub fn load(dir: &Path, what: &str) -> Result<BenchResult, String> {
    let path = Path::new(what);
    if path.is_file() {
        return load_file(path);
    }
    if path.is_dir() && path.join("result.json").is_file() {
        return load_file(&path.join("result.json"));
    }
    load_run(dir, what)
}

/// A run of the archive by its id (or a unique prefix of it), and nothing else:
/// what a caller of the local API may name. An id is a single folder name in
/// `dir`, so no path, `..` or absolute name can reach a file outside it.
pub fn load_run(dir: &Path, id: &str) -> Result<BenchResult, String> {
    let plain = !id.is_empty()
        && id.len() <= 200
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !id.starts_with('.');
    if !plain {
        return Err("a run id is a folder name from `cfg-bench runs` (letters, digits, '-', '_', '.')".into());
    }
    let matches: Vec<PathBuf> =
        runs(dir).into_iter().filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(id))).collect();
    match matches.as_slice() {
        [one] => load_file(&one.join("result.json")),
        [] => Err(format!("no result file or run `{id}` (see `cfg-bench runs`)")),
        _ => Err(format!("`{id}` matches {} runs; give more of the id", matches.len())),
    }
}

/// How far the error rate may rise, in absolute terms, before it is a regression:
/// one percentage point (a 0% baseline makes any relative limit meaningless).
pub const ERROR_RATE_RISE: f64 = 0.01;

/// Deltas per metric and class. Latencies and throughput compare by percentage
/// (`fail_over` percent makes a regression fail); the error rate by absolute
/// percentage points, with its own limit ([`ERROR_RATE_RISE`]), flagged always.
pub fn compare(a: &BenchResult, b: &BenchResult, fail_over: Option<f64>) -> (String, bool) {
    let mut out = String::new();
    let mut regressed = false;
    for (which, r) in [("baseline", a), ("candidate", b)] {
        if !r.complete {
            let why = r.stopped_reason.as_deref().unwrap_or("stopped early");
            let _ = writeln!(out, "note: the {which} run is INCOMPLETE ({why}): its figures cover only what ran");
        }
    }
    let _ = writeln!(out, "{:<34} {:>12} {:>12} {:>9}", "metric", "baseline", "candidate", "change");
    let mut row = |name: &str, x: Option<f64>, y: Option<f64>, higher_is_better: bool| {
        let (Some(x), Some(y)) = (x, y) else {
            let _ = writeln!(out, "{name:<34} {:>12} {:>12} {:>9}", fmt(x), fmt(y), "-");
            return;
        };
        let pct = if x != 0.0 { (y - x) / x * 100.0 } else { 0.0 };
        let worse = if higher_is_better { -pct } else { pct };
        let flag = match fail_over {
            Some(limit) if worse > limit => {
                regressed = true;
                "  REGRESSION"
            }
            _ => "",
        };
        let _ = writeln!(out, "{name:<34} {:>12} {:>12} {:>+8.1}%{flag}", fmt(Some(x)), fmt(Some(y)), pct);
    };
    for p in ["p50", "p95", "p99"] {
        row(&format!("ttft_ms {p}"), a.ttft_ms.get(p), b.ttft_ms.get(p), false);
        row(&format!("tpot_ms {p}"), a.tpot_ms.get(p), b.tpot_ms.get(p), false);
    }
    row("throughput_tokens_per_sec", Some(a.throughput_tokens_per_sec), Some(b.throughput_tokens_per_sec), true);
    row("requests_per_sec", Some(a.throughput.requests_per_sec), Some(b.throughput.requests_per_sec), true);
    for (name, ca) in &a.per_class {
        if let Some(cb) = b.per_class.get(name) {
            row(&format!("class {name} ttft_ms p99"), ca.ttft_ms.get("p99"), cb.ttft_ms.get("p99"), false);
        }
    }
    let rise = b.error_rate - a.error_rate;
    let flag = if rise > ERROR_RATE_RISE {
        regressed = true;
        "  REGRESSION"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "{:<34} {:>12} {:>12} {:>+6.1} pp{flag}",
        "error_rate",
        fmt(Some(a.error_rate)),
        fmt(Some(b.error_rate)),
        rise * 100.0
    );
    (out, regressed)
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| if v.abs() >= 100.0 { format!("{v:.0}") } else { format!("{v:.3}") })
}

/// Run ids with their headline figures, newest last.
pub fn ids(dir: &Path) -> Vec<serde_json::Value> {
    loaded(dir)
        .into_iter()
        .map(|(id, r)| {
            json!({
                "id": id,
                "ttft_p99_ms": r.ttft_ms.get("p99"),
                "throughput_tokens_per_sec": r.throughput_tokens_per_sec,
                "error_rate": r.error_rate,
                "sla_met": r.verdict.as_ref().map(|v| v.sla_met),
                "simulated": r.simulated,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(error_rate: f64, complete: bool) -> BenchResult {
        BenchResult { error_rate, complete, throughput_tokens_per_sec: 100.0, ..BenchResult::default() }
    }

    #[test]
    fn an_error_rate_rise_is_a_regression_by_percentage_points() {
        let (text, regressed) = compare(&result(0.0, true), &result(1.0, true), None);
        assert!(regressed, "{text}");
        let line = text.lines().find(|l| l.starts_with("error_rate")).unwrap();
        assert!(line.contains("+100.0 pp") && line.contains("REGRESSION"), "{line}");
        let (text, regressed) = compare(&result(0.002, true), &result(0.008, true), Some(5.0));
        assert!(!regressed, "0.6 points is within the limit: {text}");
    }

    #[test]
    fn an_incomplete_run_is_named_in_a_comparison() {
        let mut stopped = result(0.0, false);
        stopped.stopped_reason = Some("stopped by Ctrl-C, 4.0 s into the measured phase".into());
        let (text, _) = compare(&result(0.0, true), &stopped, None);
        assert!(text.starts_with("note: the candidate run is INCOMPLETE (stopped by Ctrl-C"), "{text}");
    }
}
