// Subgroup arg-max: largest key, then the smallest index among the lanes holding it.
fn subgroup_combine(x: T) -> T {
    let k = subgroupMax(x.x);
    return vec2<u32>(k, subgroupMin(select(0xFFFFFFFFu, x.y, x.x == k)));
}
