// Monoid: arg-min on (order key, index), lexicographic, so the lowest index wins ties whatever the launch
// shape. NaN inputs are skipped. The identity (MAX, MAX) means "no element".
alias T = vec2<u32>;
fn identity() -> T { return vec2<u32>(0xFFFFFFFFu, 0xFFFFFFFFu); }
fn combine(a: T, b: T) -> T {
    return select(b, a, a.x < b.x || (a.x == b.x && a.y <= b.y));
}
fn lift(b: u32, i: u32) -> T { return select(vec2<u32>(elem_order_key(b), i), identity(), elem_is_nan(b)); }
