//! SVG pictures: the per-GPU memory bar and simple line charts.

use cfg_core::memory::{GIB, MemoryReport};
use yew::prelude::*;

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

/// A line chart of named series over x.
pub fn lines(title: &str, unit: &str, series: &[Series<'_>], id: &str) -> Html {
    let (w, h, pad) = (560.0, 160.0, 36.0);
    let xmax = series.iter().flat_map(|s| s.2.iter().map(|p| p.0)).fold(1e-9_f64, f64::max);
    let ymax = series.iter().flat_map(|s| s.2.iter().map(|p| p.1)).fold(1e-9_f64, f64::max) * 1.1;
    let polylines = series.iter().map(|(name, color, pts)| {
        let points: Vec<String> = pts
            .iter()
            .map(|(x, y)| format!("{:.1},{:.1}", pad + x / xmax * (w - pad - 8.0), h - pad / 2.0 - y / ymax * (h - pad)))
            .collect();
        html! { <polyline fill="none" stroke={color.to_string()} stroke-width="1.5" points={points.join(" ")} data-series={name.to_string()} data-points={pts.len().to_string()}/> }
    });
    let legend: Vec<Html> = series.iter().map(|(name, color, _)| html! { <span class="legend" style={format!("color:{color}")}>{format!("{name} ")}</span> }).collect();
    html! {
        <figure class="chart" id={id.to_string()}>
            <figcaption>{title}{" "}{ for legend }</figcaption>
            <svg viewBox={format!("0 0 {w} {h}")} width={w.to_string()} height={h.to_string()} role="img" aria-label={title.to_string()}>
                <line x1={pad.to_string()} y1={(h - pad / 2.0).to_string()} x2={(w - 4.0).to_string()} y2={(h - pad / 2.0).to_string()} stroke="#999"/>
                <text x="2" y="12" font-size="10">{format!("{ymax:.0} {unit}")}</text>
                { for polylines }
            </svg>
        </figure>
    }
}
