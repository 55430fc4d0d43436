//! [`OptionalFeatures`]: the optional device features the algorithms use, and their wgpu names.

/// Optional device features the algorithms use when the adapter has them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OptionalFeatures {
    /// Subgroup operations (`subgroupAdd`, ...).
    pub subgroup: bool,
    /// 64-bit integers in shaders.
    pub int64: bool,
    /// `atomicMin` / `atomicMax` on 64-bit integers (packed distance + predecessor).
    pub int64_atomic_min_max: bool,
    /// 64-bit floats in shaders.
    pub f64: bool,
    /// GPU timestamps on compute passes.
    pub timestamps: bool,
}

impl OptionalFeatures {
    /// Everything the algorithms can use.
    pub const ALL: Self =
        Self { subgroup: true, int64: true, int64_atomic_min_max: true, f64: true, timestamps: true };
    /// Nothing optional: the portable WebGPU baseline.
    pub const NONE: Self =
        Self { subgroup: false, int64: false, int64_atomic_min_max: false, f64: false, timestamps: false };

    pub(crate) fn to_wgpu(self) -> wgpu::Features {
        let mut f = wgpu::Features::empty();
        f.set(wgpu::Features::SUBGROUP, self.subgroup);
        f.set(wgpu::Features::SHADER_INT64, self.int64 || self.int64_atomic_min_max);
        f.set(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX, self.int64_atomic_min_max);
        f.set(wgpu::Features::SHADER_F64, self.f64);
        f.set(wgpu::Features::TIMESTAMP_QUERY, self.timestamps);
        f
    }

    pub(crate) fn from_wgpu(f: wgpu::Features) -> Self {
        Self {
            subgroup: f.contains(wgpu::Features::SUBGROUP),
            int64: f.contains(wgpu::Features::SHADER_INT64),
            int64_atomic_min_max: f
                .contains(wgpu::Features::SHADER_INT64 | wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX),
            f64: f.contains(wgpu::Features::SHADER_F64),
            timestamps: f.contains(wgpu::Features::TIMESTAMP_QUERY),
        }
    }

    /// Features named `subgroup`, `int64`, `int64_atomic_min_max`, `f64`, `timestamps` that are on.
    pub fn names(self) -> Vec<&'static str> {
        let all = [
            (self.subgroup, "subgroup"),
            (self.int64, "int64"),
            (self.int64_atomic_min_max, "int64_atomic_min_max"),
            (self.f64, "f64"),
            (self.timestamps, "timestamps"),
        ];
        all.into_iter().filter(|(on, _)| *on).map(|(_, n)| n).collect()
    }
}
