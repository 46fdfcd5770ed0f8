//! SVG pictures: the per-GPU memory bar and simple line charts.

use cfg_core::memory::{GIB, MemoryReport};
use cfg_core::output::chart;

use crate::fmt;
use yew::prelude::*;
use yew::virtual_dom::AttrValue;

/// One GPU's memory as a labelled stacked bar: weights, activations,
/// non-torch, CUDA graphs, KV cache, unused, on a GiB scale, with the
/// gpu_memory_utilization line. The KV part turns red when nothing is left for it.
pub fn memory_bar(r: &MemoryReport) -> Html {
    let total = r.gpu_total_bytes.max(1.0);
    let parts = [
        ("weights", r.weights_bytes, "#4878d0"),
        ("activations", r.activation_bytes, "#ee854a"),
        ("non-torch", r.non_torch_bytes, "#8c613c"),
        ("CUDA graphs", r.cuda_graph_bytes, "#956cb4"),
        ("KV cache", r.kv_cache_bytes.max(0.0), if r.fits() { "#3a9b48" } else { "#d65f5f" }),
        ("unused", r.unused_bytes, "#c8c8c8"),
    ];
    let (width, left, bar_h) = (640.0, 4.0, 34.0);
    let scale = (width - 2.0 * left) / total;
    let mut x = left;
    let mut rects = Vec::new();
    for (name, bytes, color) in parts {
        let w = (bytes.max(0.0) * scale).min(width - left - x).max(0.0);
        let label = format!("{name} {}", fmt::gib(bytes));
        // The name inside the segment when it has room, else only on hover and in the legend.
        let inside = (w > 7.0 * label.len() as f64).then(|| {
            html! {
                <text x={format!("{:.1}", x + 5.0)} y="22" font-size="12" fill="#fff">{label.clone()}</text>
            }
        });
        rects.push(html! { <g>
            <rect x={format!("{x:.1}")} y="4" width={format!("{w:.1}")} height={bar_h.to_string()} fill={color}><title>{label}</title></rect>
            { inside.unwrap_or_default() }
        </g> });
        x += w;
    }
    let gib_total = total / GIB;
    let step =
        [1.0, 2.0, 5.0, 10.0, 20.0, 40.0, 50.0, 100.0].into_iter().find(|s| gib_total / s <= 8.0).unwrap_or(200.0);
    let ticks = (0..=(gib_total / step) as u32).map(|i| {
        let g = f64::from(i) * step;
        let tx = left + g * GIB * scale;
        html! { <g>
            <line x1={format!("{tx:.1}")} x2={format!("{tx:.1}")} y1="40" y2="45" stroke="currentColor"/>
            <text x={format!("{tx:.1}")} y="57" font-size="11" text-anchor="middle" fill="currentColor">{format!("{g:.0}")}</text>
        </g> }
    });
    let util_x = left + r.gpu_memory_utilization * total * scale;
    let legend = parts.iter().map(|(name, bytes, color)| html! {
        <span class="legend"><span class="swatch" style={format!("background:{color}")}></span>{format!("{name} {}", fmt::gib(*bytes))}</span>
    });
    let tp = r.tensor_parallel_size * r.pipeline_parallel_size;
    let each = if tp > 1 { format!("each of {tp} GPUs") } else { "one GPU".to_string() };
    html! {
        <div class={classes!("memory", (!r.fits()).then_some("bad"))} data-fits={r.fits().to_string()}>
            <svg viewBox={format!("0 0 {width} 62")} width="100%" role="img" aria-label={format!("memory of {each}: {}", parts.iter().map(|(n, b, _)| format!("{n} {}", fmt::gib(*b))).collect::<Vec<_>>().join(", "))}>
                { for rects }
                { for ticks }
                <text x={format!("{:.1}", width - left)} y="57" font-size="11" text-anchor="end" fill="currentColor">{"GiB"}</text>
                <line x1={format!("{util_x:.1}")} x2={format!("{util_x:.1}")} y1="0" y2="42" stroke="currentColor" stroke-width="2" stroke-dasharray="4 3"/>
            </svg>
            <div class="legends">{ for legend }</div>
            <p>{format!(
                "{} ({each}): {} of KV cache, {} tokens; {}× requests of max_model_len {} at once. Dashed: gpu_memory_utilization {}.",
                r.gpu, fmt::gib(r.kv_cache_bytes.max(0.0)), fmt::thousands(r.kv_capacity_tokens), fmt::figure(r.max_concurrency), fmt::thousands(u64::from(r.max_model_len)), r.gpu_memory_utilization
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
