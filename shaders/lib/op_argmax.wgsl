// Monoid: arg-max on (order key, index): larger key wins, then the lower index. NaN inputs are skipped.
// The identity (0, MAX) loses to every element, even one of key 0, through the index.
alias T = vec2<u32>;
fn identity() -> T { return vec2<u32>(0u, 0xFFFFFFFFu); }
fn combine(a: T, b: T) -> T {
    return select(b, a, a.x > b.x || (a.x == b.x && a.y <= b.y));
}
fn lift(b: u32, i: u32) -> T { return select(vec2<u32>(elem_order_key(b), i), identity(), elem_is_nan(b)); }
