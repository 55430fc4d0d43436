//! Turn restrictions and costs of OpenStreetMap routes.

use crate::outcome::Error;

/// `--no-turns` and the profile: whether an OSM route obeys turn restrictions and pays turn costs.
/// On by default for cars and bicycles; pedestrians have no restrictions, U-turn anywhere and pay
/// nothing for turning, so their turn graph would give the node graph's answers at twice the size.
pub fn turns_wanted(profile: urbanflow::graph::osm::Profile, no_turns: bool) -> bool {
    !no_turns && profile != urbanflow::graph::osm::Profile::Walk
}

/// The turn graph of an OSM import with the profile's defaults, and one line saying what it obeys.
pub fn turn_graph(
    g: &urbanflow::graph::osm::OsmGraph,
) -> Result<(urbanflow::graph::turns::TurnGraph, String), Error> {
    use urbanflow::graph::turns::{TurnGraph, TurnOptions};
    let t = std::time::Instant::now();
    let tg = TurnGraph::from_osm(g, &TurnOptions::for_profile(g.profile))?;
    let r = &g.turn_rules.report;
    let skipped: Vec<String> = r.skipped.iter().map(|(why, n)| format!("{n} {}", why.name())).collect();
    let line = format!(
        "on ({} profile): {} of {} restriction relations applied ({} via node no_*, {} only_*, {} via way), \
         skipped: {}; {} turns banned, U-turns only at dead ends, turn costs after OSRM's {} profile; \
         turn graph {} vertices, {} arcs in {:.2} s (--no-turns ignores turns)",
        g.profile,
        r.applied(),
        r.relations,
        r.via_node_no,
        r.via_node_only,
        r.via_way,
        if skipped.is_empty() { "none".to_string() } else { skipped.join(", ") },
        tg.report.banned_by_restrictions,
        g.profile,
        tg.graph.num_vertices(),
        tg.graph.num_arcs(),
        t.elapsed().as_secs_f64()
    );
    Ok((tg, line))
}
