// Element type u32 (see algos-reduce): storage bits -> value, and a u32 key whose unsigned order is the
// value's order (arg-min / arg-max). Integers have no NaN.
alias Elem = u32;
fn elem_from_bits(b: u32) -> Elem { return b; }
fn elem_to_bits(x: Elem) -> u32 { return x; }
fn elem_is_nan(b: u32) -> bool { return false; }
fn elem_order_key(b: u32) -> u32 { return b; }
fn elem_lowest() -> Elem { return 0u; }
fn elem_highest() -> Elem { return 0xFFFFFFFFu; }
