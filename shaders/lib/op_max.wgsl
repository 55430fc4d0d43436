// Monoid: maximum. NaN inputs are skipped (lifted to the identity), like Rust's f32::max.
alias T = Elem;
fn identity() -> T { return elem_lowest(); }
fn combine(a: T, b: T) -> T { return max(a, b); }
fn lift(b: u32, i: u32) -> T { return select(elem_from_bits(b), identity(), elem_is_nan(b)); }
