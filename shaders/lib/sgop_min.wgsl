fn subgroup_combine(x: T) -> T { return subgroupMin(x); }
