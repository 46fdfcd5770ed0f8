//! The charts of a load test's result, over time with its phases shaded: the
//! HTML report and the web app draw these same figures from result.json.

use super::chart::{Band, LineChart, Series, line_chart};
use crate::model::{BenchResult, PhaseName, RunPhase};

/// A phase's shading.
pub fn phase_color(name: PhaseName) -> &'static str {
    match name {
        PhaseName::Warmup => "#999999",
        PhaseName::Measured => "#6acc64",
        PhaseName::Drain => "#ee854a",
        PhaseName::Stopped => "#d65f5f",
    }
}

/// The bands of `phases`, labelled (a stop with its reason's first words).
pub fn phase_bands(phases: &[RunPhase]) -> Vec<Band<'_>> {
    phases
        .iter()
        .map(|p| Band {
            label: match (p.name, p.reason.as_deref()) {
                (PhaseName::Stopped, Some(why)) if why.len() <= 24 => why,
                (name, _) => name.as_str(),
            },
            start: p.start,
            end: p.end,
            color: phase_color(p.name),
        })
        .collect()
}

/// Every chart of a result, one after the other: output throughput, requests
/// (sent, finished, failed, in flight), TTFT of the first tokens each second,
/// and the server's queue and KV cache when its metrics were scraped.
pub fn result_charts(r: &BenchResult) -> String {
    let ts = &r.timeseries;
    // A point is the second that ends at `t`: drawn at the middle of its second.
    let at = |t: f64| t - 0.5;
    let series = |name, color, pick: &dyn Fn(&crate::model::TimePoint) -> Option<f64>| Series {
        name,
        color,
        points: ts.iter().filter_map(|p| Some((at(p.t), pick(p)?))).collect(),
    };
    let chart = |title, y_unit, id, series| {
        line_chart(&LineChart {
            title,
            y_unit,
            x_unit: "seconds since the measured phase began",
            series,
            id,
            bands: phase_bands(&r.phases),
        })
    };
    let mut out = String::new();
    out.push_str(&chart(
        "Output tokens streamed per second",
        "tok/s",
        "chart-throughput",
        vec![series("output tok/s", "#4878d0", &|p| Some(p.output_tokens_per_sec))],
    ));
    out.push_str(&chart(
        "Requests per second, and in flight",
        "requests",
        "chart-requests",
        vec![
            series("sent", "#4878d0", &|p| Some(p.started as f64)),
            series("finished", "#6acc64", &|p| Some(p.completed as f64)),
            series("failed", "#d65f5f", &|p| Some(p.errors as f64)),
            series("in flight", "#956cb4", &|p| Some(p.in_flight as f64)),
        ],
    ));
    out.push_str(&chart(
        "TTFT of the first tokens that arrived each second",
        "ms",
        "chart-ttft",
        vec![series("p50", "#6acc64", &|p| p.ttft_p50_ms), series("p99", "#d65f5f", &|p| p.ttft_p99_ms)],
    ));
    if let Some(s) = &r.server {
        let server = |name, color, pick: &dyn Fn(&crate::model::ServerPoint) -> Option<f64>| Series {
            name,
            color,
            points: s.points.iter().filter_map(|p| Some((p.t, pick(p)?))).collect(),
        };
        out.push_str(&chart(
            "Server: requests waiting and running (vllm:num_requests_*)",
            "requests",
            "chart-server",
            vec![server("waiting", "#d65f5f", &|p| p.waiting), server("running", "#4878d0", &|p| p.running)],
        ));
        out.push_str(&chart(
            "Server: KV cache usage",
            "%",
            "chart-kv",
            vec![server("KV cache", "#956cb4", &|p| Some(p.kv_cache_usage? * 100.0))],
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{TimePoint, run_phases};

    #[test]
    fn the_phases_are_shaded_in_every_chart() {
        let r = BenchResult {
            timeseries: (1..=10)
                .map(|t| TimePoint {
                    t: f64::from(t),
                    output_tokens_per_sec: 1000.0,
                    started: 4,
                    ..TimePoint::default()
                })
                .collect(),
            phases: run_phases(2.0, 8.0, 10.0, None),
            ..BenchResult::default()
        };
        let html = result_charts(&r);
        assert_eq!(html.matches("<figure").count(), 3, "no server series: three charts");
        for phase in ["warm-up", "measured", "drain"] {
            assert_eq!(html.matches(&format!("data-band=\"{phase}\"")).count(), 3, "{phase}");
        }
        assert!(html.contains("data-series=\"output tok/s\" data-points=\"10\""));
        let stopped = BenchResult { phases: run_phases(0.0, 3.0, 5.0, Some("Ctrl-C")), ..r };
        assert!(result_charts(&stopped).contains("data-band=\"Ctrl-C\""));
    }
}
