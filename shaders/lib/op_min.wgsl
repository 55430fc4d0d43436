// Monoid: minimum. NaN inputs are skipped (lifted to the identity), like Rust's f32::min.
alias T = Elem;
fn identity() -> T { return elem_highest(); }
fn combine(a: T, b: T) -> T { return min(a, b); }
fn lift(b: u32, i: u32) -> T { return select(elem_from_bits(b), identity(), elem_is_nan(b)); }
