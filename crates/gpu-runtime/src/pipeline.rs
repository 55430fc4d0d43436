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
    /// Override constants (`override WG: u32` ...), by name.
    pub constants: Vec<(&'static str, f64)>,
}

impl PipelineKey {
    /// A key with no override constants.
    pub fn new(shader: Shader, entry: &'static str) -> Self {
        Self { shader, entry, constants: Vec::new() }
    }

    /// Adds an override constant.
    pub fn with(mut self, name: &'static str, value: impl Into<f64>) -> Self {
        self.constants.push((name, value.into()));
        self
    }

    fn hash_key(&self) -> (String, &'static str, Vec<(&'static str, u64)>) {
        let mut c: Vec<_> = self.constants.iter().map(|&(n, v)| (n, v.to_bits())).collect();
        c.sort_unstable();
        (self.shader.name.to_string(), self.entry, c)
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
        let need = shader.requirements()?;
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
        let module = self.module(ctx, shader)?;
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

    fn module(&self, ctx: &GpuContext, shader: Shader) -> Result<Arc<wgpu::ShaderModule>, GpuError> {
        if let Some(m) = self.modules.lock().unwrap_or_else(|e| e.into_inner()).get(shader.name) {
            return Ok(m.clone());
        }
        let source = shader.resolve()?;
        let module = ctx
            .scoped(&format!("compiling shader {}", shader.name), || {
                ctx.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(shader.name),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                })
            })
            .map_err(|e| GpuError::Shader { shader: shader.name.into(), message: e.to_string() })?;
        let module = Arc::new(module);
        self.modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(shader.name.to_string(), module.clone());
        Ok(module)
    }
}
