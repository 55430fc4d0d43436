//! Reads OSM XML files (`.osm`, API 0.6) into the import's [`Collector`], through the `roxmltree`
//! crate (already in the dependency tree through the SVG renderer): the whole document is held in
//! memory, which suits the small hand-made or downloaded maps XML is used for; large extracts come
//! as PBF. Errors name the file and line.

use std::path::Path;

use super::{Collector, Member, MemberKind};
use crate::GraphError;

fn malformed(path: &Path, line: u32, what: String) -> GraphError {
    GraphError::OsmMalformed { path: path.to_path_buf(), message: format!("line {line}: {what}") }
}

/// Feeds every node, way and relation of an XML file to `collector`, in file order.
pub(crate) fn read(path: &Path, collector: &mut Collector<'_>) -> Result<(), GraphError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| GraphError::Open { path: path.to_path_buf(), source })?;
    let doc = roxmltree::Document::parse(&text)
        .map_err(|e| malformed(path, e.pos().row, format!("not well-formed XML: {e}")))?;
    let root = doc.root_element();
    if root.tag_name().name() != "osm" {
        return Err(malformed(
            path,
            1,
            format!("expected an <osm> document, found <{}>", root.tag_name().name()),
        ));
    }
    let line = |n: roxmltree::Node<'_, '_>| doc.text_pos_at(n.range().start).row;
    let id_of = |n: roxmltree::Node<'_, '_>, attr: &str| -> Result<i64, GraphError> {
        let v = n.attribute(attr).ok_or_else(|| {
            malformed(path, line(n), format!("<{}> without the `{attr}` attribute", n.tag_name().name()))
        })?;
        v.parse::<i64>()
            .map_err(|_| malformed(path, line(n), format!("`{attr}=\"{v}\"`: expected an integer OSM id")))
    };
    let tags = |n: roxmltree::Node<'_, '_>| -> Result<Vec<(String, String)>, GraphError> {
        n.children()
            .filter(|c| c.has_tag_name("tag"))
            .map(|t| match (t.attribute("k"), t.attribute("v")) {
                (Some(k), Some(v)) => Ok((k.to_string(), v.to_string())),
                _ => Err(malformed(path, line(t), "<tag> needs both `k` and `v`".into())),
            })
            .collect()
    };
    for n in root.children().filter(roxmltree::Node::is_element) {
        match n.tag_name().name() {
            "node" => {
                let id = id_of(n, "id")?;
                let coordinate = |attr: &str| {
                    n.attribute(attr).and_then(|v| v.parse::<f64>().ok()).ok_or_else(|| {
                        malformed(path, line(n), format!("node {id}: `{attr}` missing or not a number"))
                    })
                };
                let (lat, lon) = (coordinate("lat")?, coordinate("lon")?);
                if !((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon)) {
                    return Err(malformed(
                        path,
                        line(n),
                        format!(
                            "node {id}: ({lat}, {lon}) is not a latitude in -90..=90 and a longitude in -180..=180"
                        ),
                    ));
                }
                collector.node(id, lat, lon);
            }
            "way" => {
                let id = id_of(n, "id")?;
                let refs = n
                    .children()
                    .filter(|c| c.has_tag_name("nd"))
                    .map(|c| id_of(c, "ref"))
                    .collect::<Result<Vec<_>, _>>()?;
                let tags = tags(n)?;
                collector.way(id, tags.iter().map(|(k, v)| (k.as_str(), v.as_str())), refs.into_iter());
            }
            "relation" => {
                let id = id_of(n, "id")?;
                let mut members = Vec::new();
                for m in n.children().filter(|c| c.has_tag_name("member")) {
                    let kind = match m.attribute("type") {
                        Some("node") => MemberKind::Node,
                        Some("way") => MemberKind::Way,
                        Some("relation") => MemberKind::Relation,
                        other => {
                            return Err(malformed(
                                path,
                                line(m),
                                format!(
                                    "relation {id}: member type {other:?}, expected node, way or relation"
                                ),
                            ));
                        }
                    };
                    let role = m.attribute("role").unwrap_or("").to_string();
                    members.push(Member { kind, id: id_of(m, "ref")?, role });
                }
                let tags = tags(n)?;
                collector.relation(id, tags.iter().map(|(k, v)| (k.as_str(), v.as_str())), members);
            }
            // <bounds>, <changeset>, ... carry nothing routable.
            _ => {}
        }
    }
    Ok(())
}
