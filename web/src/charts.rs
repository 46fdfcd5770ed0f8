//! SVG pictures: the per-GPU memory bar and simple line charts.

use cfg_core::memory::{GIB, MemoryReport};
use cfg_core::output::chart;
use yew::prelude::*;
use yew::virtual_dom::AttrValue;

/// Per GPU: weights, activations, non-torch, CUDA graphs, KV cache, unused,
/// with the gpu_memory_utilization line. Red when nothing is left for KV.
pub fn memory_bar(r: &MemoryReport) -> Html {
    let total = r.gpu_total_bytes.max(1.0);
    let parts = [
        ("weights", r.weights_bytes, "#4878d0"),
        ("activations", r.activation_bytes, "#ee854a"),
        ("non-torch", r.non_torch_bytes, "#8c613c"),
        ("CUDA graphs", r.cuda_graph_bytes, "#956cb4"),
        ("KV cache", r.kv_cache_bytes.max(0.0), if r.fits() { "#6acc64" } else { "#d65f5f" }),
        ("unused", r.unused_bytes, "#dddddd"),
    ];
    let width = 600.0;
    let mut x = 0.0;
    let mut rects = Vec::new();
    for (name, bytes, color) in parts {
        let w = (bytes.max(0.0) / total * width).min(width - x);
        rects.push(html! {
            <rect x={format!("{x:.1}")} y="0" width={format!("{w:.1}")} height="28" fill={color}>
                <title>{format!("{name}: {:.2} GiB", bytes / GIB)}</title>
            </rect>
        });
        x += w;
    }
    let util_x = r.gpu_memory_utilization * width;
    let legend = parts.iter().map(|(name, bytes, color)| html! {
        <span class="legend"><span class="swatch" style={format!("background:{color}")}></span>{format!("{name} {:.1} GiB", bytes / GIB)}</span>
    });
    html! {
        <div class={classes!("memory", (!r.fits()).then_some("bad"))} data-fits={r.fits().to_string()}>
            <svg viewBox="0 0 600 40" width="600" height="40" role="img" aria-label="GPU memory">
                { for rects }
                <line x1={format!("{util_x:.1}")} x2={format!("{util_x:.1}")} y1="0" y2="36" stroke="#000" stroke-dasharray="3 2"/>
            </svg>
            <div>{ for legend }</div>
            <p>{format!(
                "per GPU ({}): KV cache {} tokens, maximum concurrency at max_model_len {}: {:.2}x; dashed line: gpu_memory_utilization {}",
                r.gpu, r.kv_capacity_tokens, r.max_model_len, r.max_concurrency, r.gpu_memory_utilization
            )}</p>
        </div>
    }
}

/// (name, colour, points) of one line.
pub type Series<'a> = (&'a str, &'a str, Vec<(f64, f64)>);

/// A line chart of named series over x: the core's chart, the same the HTML report draws.
pub fn lines(title: &str, unit: &str, x_unit: &str, series: &[Series<'_>], id: &str) -> Html {
    banded(title, unit, x_unit, series, id, Vec::new())
}

/// The same, with shaded spans (a run's phases) behind the lines.
pub fn banded(
    title: &str,
    unit: &str,
    x_unit: &str,
    series: &[Series<'_>],
    id: &str,
    bands: Vec<chart::Band<'_>>,
) -> Html {
    let series =
        series.iter().map(|(name, color, points)| chart::Series { name, color, points: points.clone() }).collect();
    let svg = chart::line_chart(&chart::LineChart { title, y_unit: unit, x_unit, series, id, bands });
    Html::from_html_unchecked(AttrValue::from(svg))
}

/// A finished run's charts: exactly the HTML report's, from its result.json.
pub fn result_charts(r: &cfg_core::model::BenchResult) -> Html {
    Html::from_html_unchecked(AttrValue::from(cfg_core::output::run_charts::result_charts(r)))
}
