//! # algos-dp
//!
//! Dynamic programmes on CPU and GPU: unconstrained 2-D guillotine cutting and CVRP pricing relaxations
//! (q-routes, through-q-routes, ng-routes). Specifications: `shared/specs/guillotine.md`,
//! `shared/specs/vrp-relaxations.md`. Not implemented yet: this crate holds no API until its issue is
//! filed and done.
