// Monoid: sum (integers wrap around; f32 NaN propagates).
alias T = Elem;
fn identity() -> T { return elem_from_bits(0u); }
fn combine(a: T, b: T) -> T { return a + b; }
fn lift(b: u32, i: u32) -> T { return elem_from_bits(b); }
