fn subgroup_combine(x: T) -> T { return subgroupMax(x); }
