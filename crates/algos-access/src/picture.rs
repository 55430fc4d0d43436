//! A map of a per-vertex result (accessibility, closeness, betweenness) as self-contained SVG: every
//! arc drawn between its vertices' coordinates, coloured by the value at its tail in six quantile
//! classes (a sequential viridis scale), with a legend of the class bounds.

use std::fmt::Write as _;

use graph_core::Csr;

/// Vertices whose value is 0, and those without a value.
const ZERO: &str = "#d9d9d9";
const NONE: &str = "#f0f0f0";

/// Viridis, dark (low) to yellow (high).
const COLOURS: [&str; 6] = ["#440154", "#414487", "#2a788e", "#22a884", "#7ad151", "#fde725"];

/// The map of `values` (by vertex; NaN: no value, drawn grey) on `graph` with `coords` (latitude,
/// longitude by vertex), titled `title`, the legend naming `what`.
///
/// ```
/// let g = urbanflow::graph::generators::grid_2d(2, 2);
/// let coords = [(41.15, -8.61), (41.15, -8.60), (41.16, -8.61), (41.16, -8.60)];
/// let svg = urbanflow::access::picture::map_svg(&g, &coords, &[1.0, 2.0, 3.0, f64::NAN], "jobs", "within 30 min");
/// assert!(svg.starts_with("<svg") && svg.contains("#fde725") && svg.contains("within 30 min"));
/// ```
pub fn map_svg(graph: &Csr<u32>, coords: &[(f64, f64)], values: &[f64], title: &str, what: &str) -> String {
    let (w, h, legend) = (1000.0, 800.0, 190.0);
    // Classes over the positive values (a city's outskirts often reach nothing: zeros are a class of
    // their own, drawn light, so that they do not flatten the scale).
    let finite: Vec<f64> = {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite() && *x > 0.0).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    // Class bounds at the quantiles 1/6 .. 5/6 (six classes of about as many vertices each).
    let bounds: Vec<f64> = (1..COLOURS.len())
        .map(|i| finite.get(i * finite.len() / COLOURS.len()).copied().unwrap_or(0.0))
        .collect();
    let class = |x: f64| bounds.iter().position(|&b| x < b).unwrap_or(COLOURS.len() - 1);
    let (mut lat0, mut lat1, mut lon0, mut lon1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(la, lo) in coords {
        lat0 = lat0.min(la);
        lat1 = lat1.max(la);
        lon0 = lon0.min(lo);
        lon1 = lon1.max(lo);
    }
    // Equirectangular at the mean latitude: metres east and north keep their proportions.
    let kx = ((lat0 + lat1) / 2.0).to_radians().cos();
    let (span_x, span_y) = (((lon1 - lon0) * kx).max(1e-9), (lat1 - lat0).max(1e-9));
    let scale = ((w - legend - 20.0) / span_x).min((h - 60.0) / span_y);
    let px = |lo: f64| 10.0 + (lo - lon0) * kx * scale;
    let py = |la: f64| 40.0 + (lat1 - la) * scale;
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="10" y="24" font-size="16">{}</text>
"##,
        escape(title)
    );
    // One path per class: small files, and the legend's colours are the map's.
    let mut paths = vec![String::new(); COLOURS.len() + 2];
    for u in 0..graph.num_vertices() {
        let (la, lo) = coords[u as usize];
        let value = values[u as usize];
        let c = match value {
            x if x.is_finite() && x > 0.0 => class(x),
            x if x.is_finite() => COLOURS.len(),
            _ => COLOURS.len() + 1,
        };
        for &v in graph.targets_of(u) {
            let (lb, lob) = coords[v as usize];
            let _ = write!(paths[c], "M{:.1} {:.1}L{:.1} {:.1}", px(lo), py(la), px(lob), py(lb));
        }
    }
    let order = [COLOURS.len() + 1, COLOURS.len(), 0, 1, 2, 3, 4, 5];
    for (c, d) in order.iter().map(|&c| (c, &paths[c])).filter(|(_, d)| !d.is_empty()) {
        let colour = COLOURS.get(c).copied().unwrap_or(if c == COLOURS.len() { ZERO } else { NONE });
        let _ = writeln!(s, r#"<path d="{d}" stroke="{colour}" stroke-width="1.2" fill="none"/>"#);
    }
    let lx = w - legend + 10.0;
    let _ = writeln!(s, r#"<text x="{lx}" y="60">{}</text>"#, escape(what));
    let lo = finite.first().copied().unwrap_or(0.0);
    for (i, colour) in COLOURS.iter().enumerate().rev() {
        let y = 80.0 + 22.0 * (COLOURS.len() - 1 - i) as f64;
        let from = if i == 0 { lo } else { bounds[i - 1] };
        let label = match bounds.get(i) {
            Some(&to) => format!("{} – {}", short(from), short(to)),
            None => format!("≥ {}", short(from)),
        };
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="{y}" width="18" height="12" fill="{colour}"/><text x="{}" y="{}">{label}</text>"#,
            lx + 26.0,
            y + 11.0
        );
    }
    let y = 80.0 + 22.0 * COLOURS.len() as f64;
    let _ = writeln!(
        s,
        r#"<rect x="{lx}" y="{y}" width="18" height="12" fill="{ZERO}"/><text x="{}" y="{}">0</text>"#,
        lx + 26.0,
        y + 11.0
    );
    s.push_str("</svg>\n");
    s
}

fn short(x: f64) -> String {
    if x.abs() >= 100.0 || x == x.round() { format!("{x:.0}") } else { format!("{x:.3}") }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
