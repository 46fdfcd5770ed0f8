//! Line charts as inline SVG text: one function draws the charts of the HTML
//! report and of the web app, so both show the same thing the same way.

use std::fmt::Write;

/// One line: its name in the legend, its colour and its (x, y) points.
pub struct Series<'a> {
    pub name: &'a str,
    pub color: &'a str,
    pub points: Vec<(f64, f64)>,
}

/// A shaded span of x with a name: a phase of a run.
pub struct Band<'a> {
    pub label: &'a str,
    pub start: f64,
    pub end: f64,
    pub color: &'a str,
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
    /// Shaded spans behind the lines, labelled at the top.
    pub bands: Vec<Band<'a>>,
}

/// Text made safe inside XML/HTML.
pub fn escape_xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Tick marks for `lo..hi`: about five steps of 1, 2 or 5 times a power of ten.
fn ticks(lo: f64, hi: f64) -> (f64, f64, f64) {
    let span = (hi - lo).max(1e-9);
    let raw = span / 5.0;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * power).find(|&s| s >= raw).unwrap_or(10.0 * power);
    ((lo / step).floor() * step, (hi / step).ceil() * step, step)
}

/// A number as a tick label: as many decimals as the step needs, thousands as `k`.
pub fn short_number(v: f64, step: f64) -> String {
    if v.abs() < step.abs() * 1e-6 {
        return "0".into();
    }
    let a = v.abs();
    if a >= 10_000.0 && step >= 1000.0 {
        format!("{:.0}k", v / 1000.0)
    } else if a >= 1000.0 && step >= 100.0 {
        format!("{:.1}k", v / 1000.0).replace(".0k", "k")
    } else {
        let decimals = if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize };
        format!("{v:.decimals$}")
    }
}

/// Points per line that get a hover tooltip.
const MAX_HOVER_POINTS: usize = 300;

/// A value in a tooltip: about three significant digits.
fn hover_number(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The chart as a `<figure>` with its title and an inline `<svg>`: gridlines at
/// round values with their labels, the units on the axes, the bands shaded
/// behind the lines, and a legend. Each line is a `<polyline>` carrying
/// `data-series` (its name) and `data-points` (how many).
pub fn line_chart(chart: &LineChart<'_>) -> String {
    let (w, h) = (720.0, 240.0);
    let (left, right, top, bottom) = (56.0, 12.0, 22.0, 44.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let finite = || chart.series.iter().flat_map(|s| s.points.iter()).filter(|(x, y)| x.is_finite() && y.is_finite());
    let band_edges = chart.bands.iter().flat_map(|b| [b.start, b.end]).filter(|v| v.is_finite());
    let xs: Vec<f64> = finite().map(|p| p.0).chain(band_edges).collect();
    let (xlo, xhi) = if xs.is_empty() {
        (0.0, 1.0)
    } else {
        (
            xs.iter().copied().fold(f64::INFINITY, f64::min).min(0.0),
            xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    };
    let (x0, x1, xstep) = ticks(xlo, xhi.max(xlo + 1e-9));
    let (x0, x1) = (xlo.max(x0), xhi.max(xlo + 1e-9).min(x1).max(xlo + 1e-9));
    let ymax_data = finite().map(|p| p.1).fold(0.0_f64, f64::max);
    let (_, y1, ystep) = ticks(0.0, if ymax_data > 0.0 { ymax_data * 1.05 } else { 1.0 });
    let sx = |x: f64| left + (x - x0) / (x1 - x0) * pw;
    let sy = |y: f64| top + ph - y / y1 * ph;
    let title = escape_xml(chart.title);
    let mut svg = format!(
        "<figure class=\"chart\" id=\"{}\"><figcaption>{title}</figcaption><svg viewBox=\"0 0 {w} {h}\" width=\"100%\" style=\"max-width:{w}px\" role=\"img\" aria-label=\"{title}\" font-family=\"sans-serif\" fill=\"currentColor\">",
        escape_xml(chart.id)
    );
    for b in &chart.bands {
        let (a, z) = (sx(b.start.max(x0)), sx(b.end.min(x1)));
        if z - a < 0.5 {
            continue;
        }
        let _ = write!(
            svg,
            "<rect class=\"band\" data-band=\"{}\" x=\"{a:.1}\" y=\"{top}\" width=\"{:.1}\" height=\"{ph}\" fill=\"{}\" fill-opacity=\"0.12\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#555\">{}</text>",
            escape_xml(b.label),
            z - a,
            escape_xml(b.color),
            a + 3.0,
            top - 6.0,
            escape_xml(b.label)
        );
    }
    let mut y = 0.0;
    while y <= y1 + ystep / 2.0 {
        let py = sy(y);
        let _ = write!(
            svg,
            "<line x1=\"{left}\" y1=\"{py:.1}\" x2=\"{:.1}\" y2=\"{py:.1}\" stroke=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{}</text>",
            w - right,
            if y == 0.0 { "#888" } else { "#e4e4e4" },
            left - 4.0,
            py + 3.5,
            short_number(y, ystep)
        );
        y += ystep;
    }
    let mut x = (x0 / xstep).ceil() * xstep;
    while x <= x1 + xstep / 1000.0 {
        let px = sx(x);
        let _ = write!(
            svg,
            "<line x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{:.1}\" stroke=\"#eeeeee\"/><text x=\"{px:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
            top + ph,
            top + ph + 13.0,
            short_number(x, xstep)
        );
        x += xstep;
    }
    let _ = write!(
        svg,
        "<text x=\"4\" y=\"12\" font-size=\"10\" fill=\"#555\">{}</text><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\" fill=\"#555\">{}</text>",
        escape_xml(chart.y_unit),
        w - right,
        top + ph + 26.0,
        escape_xml(chart.x_unit)
    );
    let mut legend_x = left;
    for s in &chart.series {
        let path: Vec<String> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = write!(
            svg,
            "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\" data-series=\"{}\" data-points=\"{}\"/>",
            escape_xml(s.color),
            path.join(" "),
            escape_xml(s.name),
            path.len()
        );
        // Each point's value on hover: a transparent dot with a tooltip, for
        // at most MAX_HOVER_POINTS points a line (a long run's series is thinned).
        let finite: Vec<(f64, f64)> =
            s.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
        let every = finite.len().div_ceil(MAX_HOVER_POINTS).max(1);
        svg.push_str("<g class=\"hover\">");
        for &(x, y) in finite.iter().step_by(every) {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"{}\" fill-opacity=\"0\"><title>{}: {} {} at {} {}</title></circle>",
                sx(x),
                sy(y),
                escape_xml(s.color),
                escape_xml(s.name),
                hover_number(y),
                escape_xml(chart.y_unit),
                hover_number(x),
                escape_xml(chart.x_unit)
            );
        }
        svg.push_str("</g>");
        let _ = write!(
            svg,
            "<rect x=\"{legend_x:.1}\" y=\"{:.1}\" width=\"10\" height=\"3\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
            h - 11.0,
            escape_xml(s.color),
            legend_x + 14.0,
            h - 7.0,
            escape_xml(s.name)
        );
        legend_x += 24.0 + 6.5 * s.name.chars().count() as f64;
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
            bands: vec![Band { label: "warm-up", start: -2.0, end: 0.0, color: "#999" }],
        });
        assert!(svg.contains("<figcaption>a &lt; b</figcaption>") && svg.contains("id=\"chart-x\""));
        assert!(svg.contains("data-series=\"out\" data-points=\"2\""), "the NaN point is left out: {svg}");
        assert!(svg.contains("data-series=\"empty\" data-points=\"0\""));
        assert!(!svg.contains("NaN"));
        // x runs from the warm-up band's start (-2) to the last finite point (10);
        // y from 0 to a round 150 above the highest point.
        assert!(svg.contains("points=\"164.7,196.0 708.0,80.0\""), "{svg}");
        assert!(svg.contains("data-band=\"warm-up\""));
        assert!(svg.contains("<title>out: 100 tok/s at 10.0 s</title>"), "a point's value on hover: {svg}");
        for label in [">0<", ">5<", ">10<", ">50<", ">150<", ">tok/s<", ">s<"] {
            assert!(svg.contains(label), "{label} is not a label: {svg}");
        }
    }

    #[test]
    fn ticks_are_round_and_labels_short() {
        assert_eq!(ticks(0.0, 1349.0), (0.0, 1500.0, 500.0));
        assert_eq!(ticks(0.0, 0.7), (0.0, 0.8, 0.2));
        assert_eq!(short_number(12_500.0, 2500.0), "12k");
        assert_eq!(short_number(1500.0, 500.0), "1.5k");
        assert_eq!(short_number(-0.0000001, 5.0), "0");
        assert_eq!(short_number(0.25, 0.05), "0.25");
        assert_eq!(short_number(2000.0, 500.0), "2k");
        assert_eq!(short_number(0.4, 0.2), "0.4");
    }
}
