// Monoid: count of elements satisfying the run-time predicate in `params`.
//!include predicate
alias T = u32;
fn identity() -> T { return 0u; }
fn combine(a: T, b: T) -> T { return a + b; }
fn lift(b: u32, i: u32) -> T { return select(0u, 1u, predicate(b, params.pred_op, params.pred_a, params.pred_b)); }
