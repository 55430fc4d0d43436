//! Reader error cases: every malformed input gives a typed error naming the line, never a panic.

use std::io::Write;

use graph_core::io::{
    self, ParseIssue, ReadOptions, parse_dimacs_coordinates, parse_dimacs_sp, parse_dimacs_sp_zero_based,
    parse_edge_list, parse_pace,
};
use graph_core::{Csr, GraphError, WeightIssue};

fn sp(text: &str) -> Result<Csr<u32>, GraphError> {
    parse_dimacs_sp(text.as_bytes(), "t.gr", ReadOptions::default())
}

fn sp_f32(text: &str) -> Result<Csr<f32>, GraphError> {
    parse_dimacs_sp(text.as_bytes(), "t.gr", ReadOptions::default())
}

fn at(r: Result<impl std::fmt::Debug, GraphError>) -> (u64, ParseIssue) {
    let e = r.expect_err("must fail");
    assert!(e.to_string().starts_with("t.gr:"), "message names the file: {e}");
    (e.line().unwrap(), e.kind().unwrap().clone())
}

#[test]
fn dimacs_sp_good_file() {
    let g = sp("c hello\n\np sp 3 3\na 1 2 5\r\na 2 3 0\na 2 3 4\n").unwrap();
    assert_eq!(g.num_vertices(), 3);
    assert_eq!(g.out_arcs(1).collect::<Vec<_>>(), vec![(2, 0), (2, 4)], "parallel arcs kept");
}

#[test]
fn dimacs_sp_errors_name_kind_and_line() {
    assert!(matches!(at(sp("")), (1, ParseIssue::Empty { .. })));
    assert!(matches!(at(sp("c only\n")), (1, ParseIssue::Empty { .. })));
    assert!(matches!(at(sp("a 1 2 3\n")), (1, ParseIssue::MissingProblemLine { .. })));
    assert!(matches!(at(sp("p sp 2\n")), (1, ParseIssue::BadProblemLine { .. })));
    assert!(matches!(at(sp("p tw 2 1\n")), (1, ParseIssue::BadProblemLine { .. })));
    assert!(matches!(at(sp("p sp 2 1\np sp 2 1\n")), (2, ParseIssue::DuplicateProblemLine)));
    // Truncated: the header promises more arcs than the file holds (error at the last line).
    assert!(matches!(
        at(sp("p sp 2 3\na 1 2 1\na 2 1 1\n")),
        (3, ParseIssue::CountMismatch { header: 3, found: 2, .. })
    ));
    // Too many arcs: caught at the first extra line.
    assert!(matches!(
        at(sp("p sp 2 1\na 1 2 1\na 2 1 1\n")),
        (3, ParseIssue::CountMismatch { header: 1, found: 2, .. })
    ));
    // A line cut in the middle.
    assert!(matches!(at(sp("p sp 2 1\na 1 2\n")), (2, ParseIssue::BadField { field: "weight", .. })));
    assert!(matches!(
        at(sp("p sp 2 1\na 1 3 1\n")),
        (2, ParseIssue::VertexOutOfRange { id: 3, first: 1, last: 2 })
    ));
    assert!(matches!(at(sp("p sp 2 1\na 0 1 1\n")), (2, ParseIssue::VertexOutOfRange { id: 0, .. })));
    assert!(matches!(
        at(sp("p sp 2 1\na 1 2 -4\n")),
        (2, ParseIssue::BadWeight { issue: WeightIssue::Negative, .. })
    ));
    assert!(matches!(
        at(sp_f32("p sp 2 1\na 1 2 NaN\n")),
        (2, ParseIssue::BadWeight { issue: WeightIssue::NotFinite, .. })
    ));
    assert!(matches!(
        at(sp("p sp 2 1\na 1 2 99999999999\n")),
        (2, ParseIssue::BadWeight { issue: WeightIssue::OutOfRange, .. })
    ));
    assert!(matches!(at(sp("p sp 2 1\na 1 x 1\n")), (2, ParseIssue::BadField { field: "v", .. })));
    assert!(matches!(at(sp("p sp 2 1\na 1 2 1 7\n")), (2, ParseIssue::UnexpectedLine { .. })));
    assert!(matches!(at(sp("p sp 2 1\nq 1 2 1\n")), (2, ParseIssue::UnexpectedLine { .. })));
    // Garbage bytes (not UTF-8).
    let garbage =
        parse_dimacs_sp::<u32>(&b"p sp 2 1\n\xff\xfe\x00\x01\n"[..], "t.gr", ReadOptions::default());
    assert!(matches!(at(garbage), (2, ParseIssue::NotText)));
}

#[test]
fn zero_based_variant_with_and_without_header() {
    let g: Csr<u32> =
        parse_dimacs_sp_zero_based("a 0 1 5\na 1 2 1\n".as_bytes(), "t.gr", ReadOptions::default()).unwrap();
    assert_eq!((g.num_vertices(), g.num_arcs()), (3, 2));
    let g: Csr<u32> =
        parse_dimacs_sp_zero_based("p sp 5 1\na 0 4 5\n".as_bytes(), "t.gr", ReadOptions::default()).unwrap();
    assert_eq!(g.num_vertices(), 5);
    let e =
        parse_dimacs_sp_zero_based::<u32>("p sp 2 1\na 0 2 5\n".as_bytes(), "t.gr", ReadOptions::default());
    assert!(matches!(at(e), (2, ParseIssue::VertexOutOfRange { id: 2, first: 0, last: 1 })));
}

#[test]
fn pace_files() {
    let g: Csr<u32> =
        parse_pace("c x\np tw 3 2\n1 2\n2 3\n".as_bytes(), "t.gr", ReadOptions::default()).unwrap();
    assert_eq!(g.num_arcs(), 4, "undirected edges become two arcs");
    assert_eq!(g.targets_of(1), &[0, 2]);
    let e = parse_pace::<u32>("p tw 3 3\n1 2\n2 3\n".as_bytes(), "t.gr", ReadOptions::default());
    assert!(matches!(at(e), (3, ParseIssue::CountMismatch { what: "edges", .. })));
    let e = parse_pace::<u32>("1 2\n".as_bytes(), "t.gr", ReadOptions::default());
    assert!(matches!(at(e), (1, ParseIssue::MissingProblemLine { .. })));
    let e = parse_pace::<u32>("p tw 3 1\n1 4\n".as_bytes(), "t.gr", ReadOptions::default());
    assert!(matches!(at(e), (2, ParseIssue::VertexOutOfRange { id: 4, .. })));
}

#[test]
fn edge_lists() {
    let g: Csr<f32> =
        parse_edge_list("# c\n0 1 2.5\n\n1 2 1\n".as_bytes(), "t.gr", ReadOptions::default()).unwrap();
    assert_eq!(g.weights(), &[2.5, 1.0]);
    let e = parse_edge_list::<u32>("0 1 2\n1 2\n".as_bytes(), "t.gr", ReadOptions::default());
    assert!(matches!(at(e), (2, ParseIssue::UnexpectedLine { .. })));
    let e = parse_edge_list::<f32>("0 1 inf\n".as_bytes(), "t.gr", ReadOptions::default());
    assert!(matches!(at(e), (1, ParseIssue::BadWeight { .. })));
}

#[test]
fn coordinates() {
    let c = parse_dimacs_coordinates("p aux sp co 2\nv 2 -5 7\nv 1 3 4\n".as_bytes(), "t.gr").unwrap();
    assert_eq!(c, vec![[3, 4], [-5, 7]]);
    let e = parse_dimacs_coordinates("p aux sp co 2\nv 1 3 4\n".as_bytes(), "t.gr");
    assert!(matches!(at(e), (2, ParseIssue::CountMismatch { what: "vertices", .. })));
    let e = parse_dimacs_coordinates("p aux sp co 2\nv 1 3 4\nv 1 3 4\n".as_bytes(), "t.gr");
    assert!(matches!(at(e), (3, ParseIssue::DuplicateVertex { id: 1 })));
}

#[test]
fn compressed_files_round_trip_and_truncation_is_an_error() {
    let dir = std::env::temp_dir().join(format!("urbanflow-readers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let g =
        graph_core::generators::random_weights(&graph_core::generators::grid_2d(30, 40), 1, 100, 5).unwrap();
    for ext in ["gr", "gr.gz", "gr.xz"] {
        let path = dir.join(format!("grid.{ext}"));
        let mut w = io::create_text(&path).unwrap();
        io::write_dimacs_sp(&g, &mut w, &["round trip"]).unwrap();
        drop(w);
        let back: Csr<u32> = io::read_graph(&path, ReadOptions::default()).unwrap();
        assert_eq!(back, g, "{ext}");
        // Cut the file in half: a typed error, never a panic or a silently smaller graph.
        let bytes = std::fs::read(&path).unwrap();
        let cut = dir.join(format!("cut.{ext}"));
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let err = io::read_graph::<u32>(&cut, ReadOptions::default()).unwrap_err();
        assert!(err.line().is_some(), "{ext}: {err}");
    }
    let missing = io::read_graph::<u32>(dir.join("nope.gr"), ReadOptions::default()).unwrap_err();
    assert!(matches!(missing, GraphError::Open { .. }));
    let mut f = std::fs::File::create(dir.join("pace.gr")).unwrap();
    writeln!(f, "p tw 2 1\n1 2").unwrap();
    let pace: Csr<u32> = io::read_graph(dir.join("pace.gr"), ReadOptions::default()).unwrap();
    assert_eq!(pace.num_arcs(), 2);
    std::fs::remove_dir_all(&dir).ok();
}

/// Format detection never guesses: a `.gr` file without its `p sp` line is an error at the first arc,
/// an `a u v w` file under another name is refused as ambiguous with both readings named, and naming
/// the format reads it.
#[test]
fn format_detection_refuses_what_it_cannot_know() {
    use graph_core::io::{GraphFormat, LoadOptions, detect_format, load_graph, read_graph_as};
    let dir = std::env::temp_dir().join(format!("urbanflow-formats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let headless = "c only a comment\na 1 2 3\n";
    for name in ["headless.gr", "headless.gr.gz"] {
        let path = dir.join(name);
        let mut w = io::create_text(&path).unwrap();
        w.write_all(headless.as_bytes()).unwrap();
        drop(w);
        let err = io::read_graph::<u32>(&path, ReadOptions::default()).unwrap_err();
        assert_eq!(err.line(), Some(2), "{err}");
        assert!(matches!(err.kind(), Some(ParseIssue::MissingProblemLine { .. })), "{err}");
        assert!(err.to_string().contains(name) && err.to_string().contains(":2:"), "{err}");
    }
    let txt = dir.join("arcs.txt");
    std::fs::write(&txt, headless).unwrap();
    let err = io::read_graph::<u32>(&txt, ReadOptions::default()).unwrap_err();
    assert!(matches!(err.kind(), Some(ParseIssue::Ambiguous { .. })), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("1-based") && msg.contains("0-based") && msg.contains("dimacs0"), "{msg}");
    // Named formats: the 0-based reading has 4 vertices (ids 0..=3), DIMACS refuses the missing header.
    let g: Csr<u32> = read_graph_as(&txt, GraphFormat::DimacsZeroBased, ReadOptions::default()).unwrap();
    assert_eq!((g.num_vertices(), g.out_arcs(1).collect::<Vec<_>>()), (3, vec![(2, 3)]));
    assert!(read_graph_as::<u32>(&txt, GraphFormat::Dimacs, ReadOptions::default()).is_err());
    // Clean files are detected.
    std::fs::write(dir.join("ok.gr"), "c x\np sp 2 1\na 1 2 3\n").unwrap();
    std::fs::write(dir.join("pace.gr"), "c x\np tw 2 1\n1 2\n").unwrap();
    std::fs::write(dir.join("edges.txt"), "# x\n0 1 5\n1 2 6\n").unwrap();
    assert_eq!(detect_format(dir.join("ok.gr")).unwrap(), GraphFormat::Dimacs);
    assert_eq!(detect_format(dir.join("pace.gr")).unwrap(), GraphFormat::Pace);
    assert_eq!(detect_format(dir.join("edges.txt")).unwrap(), GraphFormat::EdgeList);
    // A TNTP network: detected, read with its own ids and zones; refused by the plain reader.
    let sioux =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/data/SiouxFalls_net.tntp");
    assert_eq!(detect_format(&sioux).unwrap(), GraphFormat::Tntp);
    let loaded = load_graph(&sioux, &LoadOptions::default()).unwrap();
    assert_eq!((loaded.graph.num_vertices(), loaded.graph.num_arcs()), (24, 76));
    assert_eq!((loaded.ids[0], loaded.vertex(24)), (1, Some(23)));
    assert_eq!(loaded.zones.as_ref().map(Vec::len), Some(24));
    assert!(read_graph_as::<u32>(&sioux, GraphFormat::Auto, ReadOptions::default()).is_err());
    // Names on the command line.
    assert_eq!("DIMACS0".parse::<GraphFormat>(), Ok(GraphFormat::DimacsZeroBased));
    assert!("gr".parse::<GraphFormat>().unwrap_err().contains("dimacs, dimacs0, pace, edges, tntp"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A loaded graph survives its bytes (what the examples' parsed-file cache keeps), and bytes that do
/// not add up are refused without a panic.
#[test]
fn loaded_graphs_round_trip_through_bytes() {
    use graph_core::io::{LoadOptions, LoadedGraph, load_graph};
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/data/");
    for file in ["SiouxFalls_net.tntp", "small-road.gr.gz"] {
        let loaded = load_graph(format!("{data}{file}"), &LoadOptions::default()).unwrap();
        let bytes = loaded.to_bytes();
        let back = LoadedGraph::from_bytes(&bytes).unwrap();
        assert_eq!(back.graph, loaded.graph, "{file}");
        assert_eq!(
            (&back.ids, &back.zones, back.format),
            (&loaded.ids, &loaded.zones, loaded.format),
            "{file}"
        );
        for len in [0, 1, 2, 25, 26, bytes.len() / 2, bytes.len() - 1] {
            assert!(LoadedGraph::from_bytes(&bytes[..len]).is_none(), "{file}: {len} bytes");
        }
        for at in [2, 10, 18] {
            let mut huge = bytes.clone();
            huge[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
            assert!(LoadedGraph::from_bytes(&huge).is_none(), "{file}: count at {at}");
        }
        let mut bad_format = bytes.clone();
        bad_format[0] = 0;
        assert!(LoadedGraph::from_bytes(&bad_format).is_none());
    }
}
