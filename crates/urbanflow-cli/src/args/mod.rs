//! Argument groups several commands share, and the inputs they read.

pub mod files;
pub mod graph;
pub mod matrices;
pub mod model;
pub mod osm;
