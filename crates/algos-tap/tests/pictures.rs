//! Node coordinates and pictures on the bundled Sioux Falls network: every link drawn once, the chart
//! holds every iteration, the GeoJSON carries the exact flows; bad `_node` files name file and line.

use std::path::PathBuf;

use algos_tap::nodes::read_node_tntp;
use algos_tap::picture::{convergence_svg, flow_map_svg, links_geojson};
use algos_tap::{AssignOptions, CostFactors, Demand, Network, Stop, assign};

fn bundled(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/data").join(name)
}

#[test]
fn sioux_falls_map_chart_and_geojson() {
    let net = Network::read_tntp(bundled("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(bundled("SiouxFalls_trips.tntp"), &net).unwrap();
    let coords = read_node_tntp(bundled("SiouxFalls_node.tntp"), &net).unwrap();
    assert_eq!(coords.xy.len(), 24);
    assert!(coords.xy.iter().all(Option::is_some));
    assert_eq!(coords.unknown_nodes, 0);
    assert_eq!(coords.xy[0], Some((-96.77041974, 43.61282792)));
    let opts =
        AssignOptions { stop: Stop { relative_gap: 1e-4, ..Stop::default() }, ..AssignOptions::default() };
    let result = assign(&net, &demand, &opts).unwrap();

    let map = flow_map_svg(&net, &coords, &result.flows, "Sioux Falls");
    assert!(map.starts_with("<svg") && map.trim_end().ends_with("</svg>"));
    assert_eq!(map.matches("class=\"link\"").count(), 76);
    assert!(!map.contains("NaN") && !map.contains("inf"));
    assert!(map.contains("volume / capacity") && map.contains("&lt; 0.5"));

    let chart = convergence_svg(&result.history, "Sioux Falls");
    let points = chart.split("points=\"").nth(1).unwrap().split('"').next().unwrap();
    let positive = result.history.iter().filter(|h| h.relative_gap > 0.0).count();
    assert_eq!(points.split_whitespace().count(), positive);

    let text = links_geojson(&net, &coords, &result.flows, &result.costs);
    let geo: serde_json::Value = serde_json::from_str(&text).unwrap();
    let features = geo["features"].as_array().unwrap();
    assert_eq!(features.len(), 76);
    for (a, f) in features.iter().enumerate() {
        let p = &f["properties"];
        // Written in Rust's shortest round-trip form (serde_json's default parser may differ in the
        // last bit, so the exact check is on the text).
        assert!(text.contains(&format!("\"link\":{},", a + 1)));
        assert!(text.contains(&format!("\"flow\":{},\"cost\":{},", result.flows[a], result.costs[a])));
        assert!((p["flow"].as_f64().unwrap() - result.flows[a]).abs() <= 1e-9 * result.flows[a].abs());
        assert_eq!(p["from"].as_u64().unwrap(), net.node_id(net.links()[a].from));
        let vc = result.flows[a] / net.links()[a].capacity;
        assert!((p["vc"].as_f64().unwrap() - vc).abs() <= 1e-12 * vc.abs().max(1.0));
    }
}

#[test]
fn node_file_errors_name_file_and_line() {
    let net = Network::read_tntp(bundled("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let dir = std::env::temp_dir().join(format!("urbanflow-nodes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("Node X Y ;\n1 0.5 0.5 ;\n2 x 0.5 ;\n", "bad.tntp:3: field `x`: found `x`"),
        ("Node X Y ;\n1 0.5 0.5 ;\n1 0.6 0.5 ;\n", "bad.tntp:3: vertex 1 is given twice"),
        ("Node X Y ;\n1 0.5 ;\n", "bad.tntp:2: field `y`: found ``"),
        ("Node X Y ;\n1 0.5 0.5 ;\nabc 1 2\n", "bad.tntp:3: field `node`: found `abc`"),
    ];
    for (text, want) in cases {
        let path = dir.join("bad.tntp");
        std::fs::write(&path, text).unwrap();
        let err = read_node_tntp(&path, &net).unwrap_err().to_string();
        assert!(err.contains(want), "got `{err}`, want `{want}`");
    }
    // A node the network does not have is counted, not an error; a missing node stays None.
    let path = dir.join("extra.tntp");
    std::fs::write(&path, "node x y\n1 1 2 ;\n999 3 4 ;\n").unwrap();
    let c = read_node_tntp(&path, &net).unwrap();
    assert_eq!((c.unknown_nodes, c.xy[0], c.xy[1]), (1, Some((1.0, 2.0)), None));
    std::fs::remove_dir_all(&dir).ok();
}

/// PNG pictures: a valid PNG at twice the SVG's pixel size, with more than one colour drawn.
#[cfg(feature = "png")]
#[test]
fn png_pictures() {
    use algos_tap::picture::svg_to_png;
    let net = Network::read_tntp(bundled("SiouxFalls_net.tntp"), CostFactors::default()).unwrap();
    let demand = Demand::read_tntp(bundled("SiouxFalls_trips.tntp"), &net).unwrap();
    let coords = read_node_tntp(bundled("SiouxFalls_node.tntp"), &net).unwrap();
    let result = assign(&net, &demand, &AssignOptions::default()).unwrap();
    let svg = flow_map_svg(&net, &coords, &result.flows, "Sioux Falls");
    let png = svg_to_png(&svg, 2.0).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // IHDR: width and height, big-endian, right after the chunk header.
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert_eq!(width, 1800);
    assert!(png.len() > 20_000, "a drawn map compresses to more than a blank page");
    assert!(svg_to_png("<svg", 1.0).is_err());
}
