//! The compute-pipeline cache: each (shader, entry point, override constants) compiles once per device.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::context::GpuContext;
use crate::error::GpuError;
use crate::shader::Shader;

/// What identifies a compute pipeline.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineKey {
    /// The shader.
    pub shader: Shader,
    /// Its entry point.
    pub entry: &'static str,
    /// Template parameters (`//!param`), by name.
    pub params: Vec<(&'static str, &'static str)>,
    /// Override constants (`override WG: u32` ...), by name.
    pub constants: Vec<(&'static str, f64)>,
}

impl PipelineKey {
    /// A key with no override constants.
    pub fn new(shader: Shader, entry: &'static str) -> Self {
        Self { shader, entry, params: Vec::new(), constants: Vec::new() }
    }

    /// Sets a template parameter.
    pub fn param(mut self, name: &'static str, value: &'static str) -> Self {
        self.params.push((name, value));
        self
    }

    /// Adds an override constant.
    pub fn with(mut self, name: &'static str, value: impl Into<f64>) -> Self {
        self.constants.push((name, value.into()));
        self
    }

    fn module_key(&self) -> String {
        let mut p = self.params.clone();
        p.sort_unstable();
        let p: Vec<String> = p.iter().map(|(n, v)| format!("{n}={v}")).collect();
        format!("{}[{}]", self.shader.name, p.join(","))
    }

    fn hash_key(&self) -> Key {
        let mut c: Vec<_> = self.constants.iter().map(|&(n, v)| (n, v.to_bits())).collect();
        c.sort_unstable();
        (self.module_key(), self.entry, c)
    }
}

type Key = (String, &'static str, Vec<(&'static str, u64)>);

/// Compiled modules and pipelines of one device.
#[derive(Default)]
pub(crate) struct PipelineCache {
    modules: Mutex<HashMap<String, Arc<wgpu::ShaderModule>>>,
    pipelines: Mutex<HashMap<Key, Arc<wgpu::ComputePipeline>>>,
}

impl PipelineCache {
    pub(crate) fn len(&self) -> usize {
        self.pipelines.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub(crate) fn get_or_create(
        &self,
        ctx: &GpuContext,
        key: &PipelineKey,
    ) -> Result<Arc<wgpu::ComputePipeline>, GpuError> {
        let hk = key.hash_key();
        if let Some(p) = self.pipelines.lock().unwrap_or_else(|e| e.into_inner()).get(&hk) {
            return Ok(p.clone());
        }
        let shader = key.shader;
        let source = shader.resolve(&key.params)?;
        let need = crate::shader::requirements(shader.name, &source)?;
        let have = ctx.features();
        for (needed, on, name) in [
            (need.subgroup, have.subgroup, "SUBGROUP"),
            (need.int64, have.int64, "SHADER_INT64"),
            (need.int64_atomic_min_max, have.int64_atomic_min_max, "SHADER_INT64_ATOMIC_MIN_MAX"),
            (need.f64, have.f64, "SHADER_F64"),
        ] {
            if needed {
                ctx.require(on, name, &format!("shader `{}`", shader.name))?;
            }
        }
        let module = self.module(ctx, key, source)?;
        let pipeline = ctx
            .scoped(&format!("creating pipeline {}::{}", shader.name, key.entry), || {
                ctx.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(shader.name),
                    layout: None,
                    module: &module,
                    entry_point: Some(key.entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &key.constants,
                        zero_initialize_workgroup_memory: true,
                    },
                    cache: None,
                })
            })
            .map_err(|e| GpuError::Shader { shader: shader.name.into(), message: e.to_string() })?;
        let pipeline = Arc::new(pipeline);
        self.pipelines.lock().unwrap_or_else(|e| e.into_inner()).insert(hk, pipeline.clone());
        Ok(pipeline)
    }

    fn module(
        &self,
        ctx: &GpuContext,
        key: &PipelineKey,
        source: String,
    ) -> Result<Arc<wgpu::ShaderModule>, GpuError> {
        let mk = key.module_key();
        if let Some(m) = self.modules.lock().unwrap_or_else(|e| e.into_inner()).get(&mk) {
            return Ok(m.clone());
        }
        let name = key.shader.name;
        let module = ctx
            .scoped(&format!("compiling shader {mk}"), || {
                ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(name),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                })
            })
            .map_err(|e| GpuError::Shader { shader: mk.clone(), message: e.to_string() })?;
        let module = Arc::new(module);
        self.modules.lock().unwrap_or_else(|e| e.into_inner()).insert(mk, module.clone());
        Ok(module)
    }
}
