//! Pictures of an assignment, as self-contained SVG (no fonts or libraries needed to view them): the
//! convergence chart (relative gap per iteration, log scale) and the network map (links drawn from node
//! coordinates, width by flow, colour by volume/capacity ratio), plus the links as GeoJSON for GIS tools.
//! With the `png` feature, [`svg_to_png`] rasterises any of them (text in the system's sans-serif font;
//! without fonts the lines are drawn and the text is left out).

use std::fmt::Write as _;

use graph_core::geojson::{Feature, feature_collection};

use crate::network::Network;
use crate::nodes::NodeCoords;
use crate::output::link_results;
use crate::solve::IterationLog;

/// Colour classes of the volume/capacity ratio: upper bound and colour (a diverging blue–red scale).
const VC_CLASSES: [(f64, &str, &str); 5] = [
    (0.5, "#2c7bb6", "&lt; 0.5"),
    (0.75, "#abd9e9", "0.5 – 0.75"),
    (0.9, "#fee090", "0.75 – 0.9"),
    (1.0, "#fdae61", "0.9 – 1.0"),
    (f64::INFINITY, "#d7191c", "≥ 1.0"),
];

fn vc_colour(vc: f64) -> &'static str {
    VC_CLASSES.iter().find(|c| vc < c.0).map_or(VC_CLASSES[4].1, |c| c.1)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The relative gap of every iteration on a log scale, as an SVG document.
///
/// ```
/// use urbanflow::tap::{AssignOptions, CostFactors, Demand, Link, Network, assign, picture::convergence_svg};
/// let link = |from, to, t0| Link { from, to, capacity: 10.0, length: 1.0, free_flow_time: t0, b: 0.15, power: 4.0, toll: 0.0 };
/// let net = Network::new(3, &[link(0, 1, 1.0), link(1, 2, 1.0), link(0, 2, 2.5)], 0, CostFactors::default()).unwrap();
/// let demand = Demand::from_pairs(&net, [(0, 2, 30.0)]).unwrap();
/// let result = assign(&net, &demand, &AssignOptions::default()).unwrap();
/// let svg = convergence_svg(&result.history, "three links");
/// assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
/// ```
pub fn convergence_svg(history: &[IterationLog], title: &str) -> String {
    let (w, h) = (800.0, 450.0);
    let (left, right, top, bottom) = (80.0, 20.0, 40.0, 50.0);
    let points: Vec<(f64, f64)> = history
        .iter()
        .filter(|l| l.relative_gap.is_finite() && l.relative_gap > 0.0)
        .map(|l| (l.iteration as f64, l.relative_gap.log10()))
        .collect();
    let max_iter = points.iter().map(|p| p.0).fold(1.0, f64::max);
    let lo = points.iter().map(|p| p.1).fold(0.0, f64::min).floor().min(-1.0);
    let hi = points.iter().map(|p| p.1).fold(lo + 1.0, f64::max).ceil();
    let x = |i: f64| left + (w - left - right) * (i - 1.0).max(0.0) / (max_iter - 1.0).max(1.0);
    let y = |g: f64| top + (h - top - bottom) * (hi - g) / (hi - lo);
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>
"##,
        w / 2.0,
        escape(title)
    );
    // Decades on the gap axis, and about eight ticks on the iteration axis.
    for d in (lo as i32)..=(hi as i32) {
        let yy = y(d as f64);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{yy:.1}" x2="{}" y2="{yy:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">1e{d}</text>"##,
            w - right,
            left - 6.0,
            yy + 4.0
        );
    }
    // Iteration 1, then multiples of a round step (1, 2 or 5 × 10^k) giving at most about eight ticks.
    let raw = (max_iter / 8.0).max(1.0);
    let decade = 10f64.powf(raw.log10().floor());
    let step =
        [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * decade).find(|&s| s >= raw).unwrap_or(raw).max(1.0) as u32;
    let ticks = std::iter::once(1).chain((1..).map(|k| k * step).skip_while(|&t| t <= 1));
    for it in ticks.take_while(|&t| t as f64 <= max_iter) {
        let xx = x(it as f64);
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{}" x2="{xx:.1}" y2="{}" stroke="#999"/><text x="{xx:.1}" y="{}" text-anchor="middle">{it}</text>"##,
            h - bottom,
            h - bottom + 5.0,
            h - bottom + 18.0
        );
    }
    let _ = writeln!(
        s,
        r##"<rect x="{left}" y="{top}" width="{}" height="{}" fill="none" stroke="#333"/>
<text x="{}" y="{}" text-anchor="middle">iteration</text>
<text transform="translate(20 {}) rotate(-90)" text-anchor="middle">relative gap</text>"##,
        w - left - right,
        h - top - bottom,
        left + (w - left - right) / 2.0,
        h - 12.0,
        top + (h - top - bottom) / 2.0
    );
    let coords: Vec<String> = points.iter().map(|&(i, g)| format!("{:.1},{:.1}", x(i), y(g))).collect();
    let _ = writeln!(
        s,
        r##"<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{}"/>"##,
        coords.join(" ")
    );
    s.push_str("</svg>\n");
    s
}

/// Map projection of the file's coordinates onto the picture: longitude/latitude (when every value
/// fits) is scaled by the cosine of the mean latitude; other coordinates are taken as planar.
struct Frame {
    bounds: (f64, f64, f64, f64),
    x_scale: f64,
    scale: f64,
    margin: f64,
    height: f64,
}

impl Frame {
    fn new(coords: &NodeCoords, width: f64) -> Option<Self> {
        let bounds = coords.bounds()?;
        let geographic = bounds.0 >= -180.0 && bounds.2 <= 180.0 && bounds.1 >= -90.0 && bounds.3 <= 90.0;
        let x_scale = if geographic { ((bounds.1 + bounds.3) / 2.0).to_radians().cos() } else { 1.0 };
        let margin = 20.0;
        let span_x = ((bounds.2 - bounds.0) * x_scale).max(1e-12);
        let span_y = (bounds.3 - bounds.1).max(1e-12);
        let scale = (width - 2.0 * margin) / span_x;
        let height = (span_y * scale + 2.0 * margin).clamp(200.0, 4.0 * width);
        let scale = scale.min((height - 2.0 * margin) / span_y);
        Some(Self { bounds, x_scale, scale, margin, height })
    }

    fn project(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (
            self.margin + (x - self.bounds.0) * self.x_scale * self.scale,
            self.height - self.margin - (y - self.bounds.1) * self.scale,
        )
    }
}

/// The network as an SVG map: every link with coordinates at both ends as a line offset to the right
/// of its direction (so the two directions of a road sit side by side), width by flow, colour by
/// volume/capacity ratio, with a legend; zone connectors thin and grey. Links missing a coordinate
/// are left out.
pub fn flow_map_svg(net: &Network, coords: &NodeCoords, flows: &[f64], title: &str) -> String {
    let width = 900.0;
    let Some(frame) = Frame::new(coords, width) else {
        return format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="60"><text x="10" y="30">{}: no node coordinates</text></svg>"#,
            escape(title)
        );
    };
    let height = frame.height + 40.0;
    // Zone connectors (a zone at either end) are not roads: thin and grey, whatever they carry.
    let connector = |a: usize| {
        let l = &net.links()[a];
        l.from < net.num_zones() || l.to < net.num_zones()
    };
    let max_flow = (0..net.num_links())
        .filter(|&a| !connector(a) && flows[a].is_finite())
        .map(|a| flows[a])
        .fold(0.0, f64::max)
        .max(1e-12);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:.0}" viewBox="0 0 {width} {height:.0}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="20" y="{:.0}" font-size="14">{}</text>"##,
        height - 14.0,
        escape(title)
    );
    // Thin links first, so the busy ones are drawn on top.
    let mut order: Vec<usize> = (0..net.num_links()).collect();
    order.sort_by(|&a, &b| flows[a].total_cmp(&flows[b]));
    for a in order {
        let link = &net.links()[a];
        let (Some(p), Some(q)) = (coords.xy[link.from as usize], coords.xy[link.to as usize]) else {
            continue;
        };
        let ((x1, y1), (x2, y2)) = (frame.project(p), frame.project(q));
        let stroke = if connector(a) { 0.5 } else { 0.4 + 7.0 * flows[a].max(0.0) / max_flow };
        let len = ((x2 - x1).powi(2) + (y2 - y1).powi(2)).sqrt().max(1e-9);
        // Right-hand offset in screen space (y points down).
        let off = if connector(a) { 0.0 } else { stroke / 2.0 + 0.6 };
        let (ox, oy) = (-(y2 - y1) / len * off, (x2 - x1) / len * off);
        let vc = if link.capacity > 0.0 { flows[a] / link.capacity } else { 0.0 };
        let colour = if connector(a) { "#bbbbbb" } else { vc_colour(vc) };
        let _ = writeln!(
            s,
            r##"<line class="link" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="{stroke:.2}" stroke-linecap="round"><title>{}→{}: flow {:.1}, V/C {vc:.2}</title></line>"##,
            x1 + ox,
            y1 + oy,
            x2 + ox,
            y2 + oy,
            colour,
            net.node_id(link.from),
            net.node_id(link.to),
            flows[a]
        );
    }
    // Legend.
    let lx = width - 150.0;
    let _ = writeln!(
        s,
        r##"<rect x="{}" y="10" width="150" height="{}" fill="white" fill-opacity="0.85" stroke="#999"/>"##,
        lx - 10.0,
        24.0 + 18.0 * VC_CLASSES.len() as f64 + 44.0
    );
    let _ = writeln!(s, r##"<text x="{lx}" y="28">volume / capacity</text>"##);
    for (k, (_, colour, label)) in VC_CLASSES.iter().enumerate() {
        let yy = 44.0 + 18.0 * k as f64;
        let _ = writeln!(
            s,
            r##"<line x1="{lx}" y1="{yy}" x2="{}" y2="{yy}" stroke="{colour}" stroke-width="5"/><text x="{}" y="{}">{label}</text>"##,
            lx + 30.0,
            lx + 38.0,
            yy + 4.0
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{lx}" y="{}">width: flow (max {max_flow:.0})</text><line x1="{lx}" y1="{}" x2="{}" y2="{}" stroke="#bbbbbb" stroke-width="1"/><text x="{}" y="{}">zone connector</text>"##,
        48.0 + 18.0 * VC_CLASSES.len() as f64,
        62.0 + 18.0 * VC_CLASSES.len() as f64,
        lx + 30.0,
        62.0 + 18.0 * VC_CLASSES.len() as f64,
        lx + 38.0,
        66.0 + 18.0 * VC_CLASSES.len() as f64
    );
    s.push_str("</svg>\n");
    s
}

/// Every link with coordinates at both ends as a GeoJSON `LineString` feature with its
/// [`crate::output::LinkResult`] as properties (`link`, `from`, `to` as the file numbers them, `flow`,
/// `cost`, `capacity`, `vc`, `free_flow_time`, `time`, `delay`). Coordinates are the `_node` file's own
/// (longitude/latitude where the file has them; GIS tools need the projection otherwise).
pub fn links_geojson(net: &Network, coords: &NodeCoords, flows: &[f64], costs: &[f64]) -> String {
    let mut features = Vec::with_capacity(net.num_links());
    for (link, r) in net.links().iter().zip(link_results(net, flows, costs)) {
        let (Some(p), Some(q)) = (coords.xy[link.from as usize], coords.xy[link.to as usize]) else {
            continue;
        };
        // Node files give (x, y) = (longitude, latitude) where they are geographic.
        features.push(
            Feature::line([(p.1, p.0), (q.1, q.0)])
                .integer("link", r.link as u64)
                .integer("from", r.from)
                .integer("to", r.to)
                .number("flow", r.flow)
                .number("cost", r.cost)
                .number("capacity", r.capacity)
                .number("vc", r.vc)
                .number("free_flow_time", r.free_flow_time)
                .number("time", r.time)
                .number("delay", r.delay),
        );
    }
    feature_collection(features)
}

/// Rasterises one of these SVG pictures to PNG bytes at `scale` (1 = the SVG's pixel size).
///
/// ```
/// let png = urbanflow::tap::picture::svg_to_png(
///     r#"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="red"/></svg>"#,
///     2.0,
/// )
/// .unwrap();
/// assert_eq!(&png[1..4], b"PNG");
/// ```
#[cfg(feature = "png")]
pub fn svg_to_png(svg: &str, scale: f32) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    let fonts = options.fontdb_mut();
    fonts.load_system_fonts();
    // The pictures ask for `sans-serif`, which fontdb maps to Arial: use a sans face this system has.
    let has = |family: &str| fonts.faces().any(|f| f.families.iter().any(|(n, _)| n == family));
    let sans = ["Arial", "Helvetica", "Liberation Sans", "DejaVu Sans", "Noto Sans", "FreeSans"]
        .into_iter()
        .find(|f| has(f))
        .map(str::to_string)
        .or_else(|| fonts.faces().next().and_then(|f| f.families.first().map(|(n, _)| n.clone())));
    if let Some(family) = sans {
        fonts.set_sans_serif_family(family);
    }
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| format!("not a valid SVG picture: {e}"))?;
    let size = tree.size();
    let (w, h) = ((size.width() * scale).ceil() as u32, (size.height() * scale).ceil() as u32);
    let mut pixmap = tiny_skia::Pixmap::new(w.max(1), h.max(1))
        .ok_or_else(|| format!("a {w} × {h} picture is too large"))?;
    resvg::render(&tree, tiny_skia::Transform::from_scale(scale, scale), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| format!("PNG encoding: {e}"))
}

/// PNG output in a build without the `png` feature (urbanflow's `pictures`): an error saying so, so
/// that a caller asking for a `.png` learns why instead of getting an SVG under that name.
#[cfg(not(feature = "png"))]
pub fn svg_to_png(_svg: &str, _scale: f32) -> Result<Vec<u8>, String> {
    Err("PNG pictures need urbanflow's `pictures` feature (resvg); this build writes SVG only: name the \
         file .svg"
        .into())
}
