//! # algos-dp
//!
//! Dynamic programmes on CPU and GPU: unconstrained 2-D guillotine cutting and CVRP pricing relaxations
//! (q-routes, through-q-routes, ng-routes). Not implemented yet:
//! this crate holds no API yet.
