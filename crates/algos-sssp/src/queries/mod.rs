//! Answers built on the trees and the hierarchies: distance matrices through one API
//! ([`crate::matrix::distance_matrix`], the engine chosen inside), isochrones ([`crate::isochrone`])
//! and all pairs with next hops on small dense graphs ([`crate::floyd`]).

pub mod floyd;
pub mod isochrone;
pub mod matrix;
