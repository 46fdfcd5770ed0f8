//! The text summary printed after a run, and the self-contained HTML report
//! (inline SVG, no scripts or network: it opens offline in any browser).

use std::fmt::Write;

use cfg_core::model::BenchResult;
use cfg_core::output::chart::escape_xml as esc;

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.1} ms"))
}

/// The closing summary: the seed's figures, per class, errors, the verdict.
pub fn summary(r: &BenchResult) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\n{}{}",
        if r.simulated { "SIMULATED target. " } else { "" },
        if r.complete { "Run complete." } else { "Run INTERRUPTED: figures cover what ran." }
    );
    if let Some(m) = &r.metadata {
        let _ = writeln!(
            o,
            "measured window {:.1} s{}",
            m.duration_seconds,
            m.drain_seconds.map_or(String::new(), |d| format!(", then {d:.1} s for the last requests to finish"))
        );
    }
    let _ = writeln!(
        o,
        "requests {} ok / {} failed ({} warm-up excluded{}); error rate {:.2}%",
        r.requests.succeeded,
        r.requests.failed,
        r.requests.warmup,
        if r.requests.abandoned > 0 {
            format!(", {} abandoned unfinished", r.requests.abandoned)
        } else {
            String::new()
        },
        r.error_rate * 100.0
    );
    let _ = writeln!(
        o,
        "TTFT p50 {} p95 {} p99 {} | TPOT p50 {} p99 {} | throughput {:.0} tok/s, {:.2} req/s",
        ms(r.ttft_ms.get("p50")),
        ms(r.ttft_ms.get("p95")),
        ms(r.ttft_ms.get("p99")),
        ms(r.tpot_ms.get("p50")),
        ms(r.tpot_ms.get("p99")),
        r.throughput_tokens_per_sec,
        r.throughput.requests_per_sec
    );
    for (name, c) in &r.per_class {
        let _ = writeln!(
            o,
            "  class {name:<10} {:>6} req  TTFT p99 {:>10}  TPOT p99 {:>9}",
            c.requests,
            ms(c.ttft_ms.get("p99")),
            ms(c.tpot_ms.get("p99"))
        );
    }
    for e in &r.errors {
        let _ = writeln!(o, "  error {} x{}: {}", e.kind, e.count, e.sample);
    }
    if let Some(v) = &r.verdict {
        for c in &v.sla {
            let _ = writeln!(
                o,
                "SLA {:<12} limit {:>9.3} actual {:>9} {}",
                c.name,
                c.limit,
                c.actual.map_or("-".into(), |a| format!("{a:.3}")),
                if c.pass { "ok" } else { "FAIL" }
            );
        }
        for f in &v.findings {
            let _ = writeln!(o, "{}: {} ({})", f.severity, f.title, f.evidence);
            for a in &f.advice {
                let _ = writeln!(o, "    - {a}");
            }
        }
        if let Some(cap) = &v.capacity {
            let _ = writeln!(o, "capacity: {} instance(s): {}", cap.instances, cap.explanation);
        }
        let verdict = match (r.complete, v.sla_met) {
            (false, _) => "run INCOMPLETE: SLA not judged, no capacity plan",
            (true, true) => "SLA met",
            (true, false) => "SLA NOT met",
        };
        let _ = writeln!(o, "verdict: {verdict}");
    }
    o
}

/// Percentile bars per class for one metric.
fn class_bars(
    title: &str,
    r: &BenchResult,
    pick: impl Fn(&cfg_core::model::ClassResult) -> &cfg_core::model::Percentiles,
) -> String {
    let mut rows = String::new();
    let max = r.per_class.values().flat_map(|c| pick(c).0.values().flatten().copied()).fold(1e-9_f64, f64::max);
    for (name, c) in &r.per_class {
        for (p, v) in &pick(c).0 {
            let Some(v) = v else { continue };
            let width = 400.0 * v / max;
            let _ = write!(
                rows,
                "<tr><td>{}</td><td>{}</td><td><svg width=\"410\" height=\"12\"><rect width=\"{width:.1}\" height=\"12\" fill=\"#4878d0\"/></svg></td><td>{v:.1} ms</td></tr>",
                esc(name),
                esc(p)
            );
        }
    }
    format!("<h3>{}</h3><table>{rows}</table>", esc(title))
}

pub fn html(r: &BenchResult) -> String {
    let mut body = String::new();
    let meta = r.metadata.clone().unwrap_or_default();
    let _ = write!(
        body,
        "<h1>Load test: {}</h1><p>{} &middot; {} &middot; {} to {}{}</p>",
        esc(&meta.model),
        esc(&meta.endpoint),
        esc(&meta.arrival),
        esc(&meta.started_at),
        esc(&meta.ended_at),
        if r.simulated { " &middot; <b>SIMULATED target</b>" } else { "" }
    );
    let _ = write!(body, "<pre>{}</pre>", esc(&summary(r)));
    body.push_str(&cfg_core::output::run_charts::result_charts(r));
    if let Some(s) = &r.server {
        let _ = write!(body, "<p>metrics source: {}</p>", esc(&s.source));
    }
    if let Some(p) = r.phases.iter().find(|p| p.name == cfg_core::model::PhaseName::Warmup) {
        let _ = write!(
            body,
            "<p class=\"note\">The warm-up ({:.1} s, {} requests) is shaded before 0 and is in no figure.</p>",
            p.end - p.start,
            r.requests.warmup
        );
    }
    body.push_str(&class_bars("TTFT by class", r, |c| &c.ttft_ms));
    body.push_str(&class_bars("TPOT by class", r, |c| &c.tpot_ms));
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>cfg-bench report</title>\
         <style>body{{font-family:sans-serif;max-width:900px;margin:2em auto;color:#222}}pre{{background:#f4f4f4;padding:1em;white-space:pre-wrap;overflow-wrap:anywhere}}figure{{margin:1.5em 0}}figcaption{{font-weight:bold;margin-bottom:4px}}.note{{color:#555;font-size:13px}}td{{padding:1px 6px;font-size:12px}}</style>\
         </head><body>{body}</body></html>\n"
    )
}
