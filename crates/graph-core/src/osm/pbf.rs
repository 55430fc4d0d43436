//! Reads OSM PBF files into the import's [`Collector`] (decoding by the `osmpbf` crate).

use std::path::Path;

use super::{Collector, Member, MemberKind};
use crate::GraphError;

/// Feeds every node, way and relation of a PBF file to `collector`, in file order.
pub(crate) fn read(path: &Path, collector: &mut Collector<'_>) -> Result<(), GraphError> {
    let reader = osmpbf::ElementReader::from_path(path).map_err(|e| match e.kind() {
        osmpbf::ErrorKind::Io(_) => {
            GraphError::Open { path: path.to_path_buf(), source: std::io::Error::other(e.to_string()) }
        }
        _ => GraphError::OsmMalformed { path: path.to_path_buf(), message: e.to_string() },
    })?;
    let mut bad_role = None;
    reader
        .for_each(|element| match element {
            osmpbf::Element::Node(n) => collector.node(n.id(), n.lat(), n.lon()),
            osmpbf::Element::DenseNode(n) => collector.node(n.id(), n.lat(), n.lon()),
            osmpbf::Element::Way(w) => collector.way(w.id(), w.tags(), w.refs()),
            osmpbf::Element::Relation(r) => {
                let mut members = Vec::new();
                for m in r.members() {
                    let kind = match m.member_type {
                        osmpbf::RelMemberType::Node => MemberKind::Node,
                        osmpbf::RelMemberType::Way => MemberKind::Way,
                        osmpbf::RelMemberType::Relation => MemberKind::Relation,
                    };
                    match m.role() {
                        Ok(role) => members.push(Member { kind, id: m.member_id, role: role.to_string() }),
                        Err(e) => bad_role = Some(format!("relation {}: member role: {e}", r.id())),
                    }
                }
                collector.relation(r.id(), r.tags(), members);
            }
        })
        .map_err(|e| GraphError::OsmMalformed { path: path.to_path_buf(), message: e.to_string() })?;
    match bad_role {
        Some(message) => Err(GraphError::OsmMalformed { path: path.to_path_buf(), message }),
        None => Ok(()),
    }
}
