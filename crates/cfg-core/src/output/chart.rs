//! Line charts as inline SVG text: one function draws the charts of the HTML
//! report and of the web app, so both show the same thing the same way.

use std::fmt::Write;

/// One line: its name in the legend, its colour and its (x, y) points.
pub struct Series<'a> {
    pub name: &'a str,
    pub color: &'a str,
    pub points: Vec<(f64, f64)>,
}

/// A chart of one or more series over a shared x axis.
pub struct LineChart<'a> {
    pub title: &'a str,
    /// Unit of the y axis ("tok/s", "ms"; empty for counts).
    pub y_unit: &'a str,
    /// Unit of the x axis ("s"; empty for a plain number such as max_num_seqs).
    pub x_unit: &'a str,
    pub series: Vec<Series<'a>>,
    /// The figure's element id, for pages that find it.
    pub id: &'a str,
}

/// Text made safe inside XML/HTML.
pub fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The chart as a `<figure>` with its title and an inline `<svg>`. Each line is a
/// `<polyline>` carrying `data-series` (its name) and `data-points` (how many).
pub fn line_chart(chart: &LineChart<'_>) -> String {
    let (w, h, pad) = (640.0, 200.0, 40.0);
    let finite = || chart.series.iter().flat_map(|s| s.points.iter()).filter(|(x, y)| x.is_finite() && y.is_finite());
    let xmax = finite().map(|p| p.0).fold(1e-9_f64, f64::max);
    let ymax = finite().map(|p| p.1).fold(0.0_f64, f64::max).max(1e-9) * 1.1;
    let title = escape_xml(chart.title);
    let mut svg = format!(
        "<figure class=\"chart\" id=\"{}\"><figcaption>{title}</figcaption><svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{title}\">",
        escape_xml(chart.id)
    );
    let _ =
        write!(svg, "<line x1=\"{pad}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>", h - pad, w - 10.0, h - pad);
    let _ = write!(svg, "<line x1=\"{pad}\" y1=\"10\" x2=\"{pad}\" y2=\"{}\" stroke=\"#888\"/>", h - pad);
    let _ = write!(
        svg,
        "<text x=\"2\" y=\"14\" font-size=\"10\">{ymax:.0} {}</text><text x=\"{}\" y=\"{}\" font-size=\"10\">{xmax:.0} {}</text>",
        escape_xml(chart.y_unit),
        w - 40.0,
        h - 25.0,
        escape_xml(chart.x_unit)
    );
    for (i, s) in chart.series.iter().enumerate() {
        let path: Vec<String> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|(x, y)| {
                format!("{:.1},{:.1}", pad + x / xmax * (w - pad - 10.0), h - pad - y / ymax * (h - pad - 10.0))
            })
            .collect();
        let _ = write!(
            svg,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\" data-series=\"{}\" data-points=\"{}\"/>",
            escape_xml(s.color),
            path.join(" "),
            escape_xml(s.name),
            path.len()
        );
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"{}\">{}</text>",
            pad + 10.0 + 120.0 * i as f64,
            h - 8.0,
            escape_xml(s.color),
            escape_xml(s.name)
        );
    }
    svg.push_str("</svg></figure>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_series_is_a_polyline_scaled_into_the_box_and_text_is_escaped() {
        let svg = line_chart(&LineChart {
            title: "a < b",
            y_unit: "tok/s",
            x_unit: "s",
            series: vec![
                Series { name: "out", color: "#123456", points: vec![(0.0, 0.0), (10.0, 100.0), (20.0, f64::NAN)] },
                Series { name: "empty", color: "#000", points: Vec::new() },
            ],
            id: "chart-x",
        });
        assert!(svg.contains("<figcaption>a &lt; b</figcaption>") && svg.contains("id=\"chart-x\""));
        assert!(svg.contains("data-series=\"out\" data-points=\"2\""), "the NaN point is left out: {svg}");
        assert!(svg.contains("data-series=\"empty\" data-points=\"0\""));
        assert!(!svg.contains("NaN"));
        assert!(svg.contains("points=\"40.0,160.0 630.0,"), "{svg}");
    }
}
