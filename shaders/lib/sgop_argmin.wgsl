// Subgroup arg-min: smallest key, then the smallest index among the lanes holding it.
fn subgroup_combine(x: T) -> T {
    let k = subgroupMin(x.x);
    return vec2<u32>(k, subgroupMin(select(0xFFFFFFFFu, x.y, x.x == k)));
}
