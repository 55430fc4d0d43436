fn subgroup_combine(x: T) -> T { return subgroupAdd(x); }
