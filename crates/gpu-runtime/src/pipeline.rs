//! What identifies a compute pipeline, and the store that keeps each compiled once per device
//! (`GpuContext::pipeline` compiles).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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

    /// The shader and its template parameters, as a name (`shader[a=1,b=2]`).
    pub(crate) fn module_key(&self) -> String {
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

    /// The pipeline of `key`, when compiled before.
    pub(crate) fn pipeline(&self, key: &PipelineKey) -> Option<Arc<wgpu::ComputePipeline>> {
        self.pipelines.lock().unwrap_or_else(|e| e.into_inner()).get(&key.hash_key()).cloned()
    }

    /// Keeps a compiled pipeline for `key`.
    pub(crate) fn keep_pipeline(&self, key: &PipelineKey, pipeline: Arc<wgpu::ComputePipeline>) {
        self.pipelines.lock().unwrap_or_else(|e| e.into_inner()).insert(key.hash_key(), pipeline);
    }

    /// The shader module of `key` (its shader with its template parameters), when compiled before.
    pub(crate) fn module(&self, key: &PipelineKey) -> Option<Arc<wgpu::ShaderModule>> {
        self.modules.lock().unwrap_or_else(|e| e.into_inner()).get(&key.module_key()).cloned()
    }

    /// Keeps a compiled module for `key`'s shader and template parameters.
    pub(crate) fn keep_module(&self, key: &PipelineKey, module: Arc<wgpu::ShaderModule>) {
        self.modules.lock().unwrap_or_else(|e| e.into_inner()).insert(key.module_key(), module);
    }
}
