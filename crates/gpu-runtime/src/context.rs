//! Choosing an adapter and creating the device every algorithm runs on.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::GpuError;
use crate::features::OptionalFeatures;
use crate::pipeline::{PipelineCache, PipelineKey};

/// How to choose and set up the device.
#[derive(Debug, Clone, Default)]
pub struct GpuOptions {
    /// Only adapters whose name contains this (case-insensitive); default: `$WGPU_ADAPTER_NAME`.
    pub adapter_name: Option<String>,
    /// Optional features to request (intersected with the adapter's); default: all, or none when
    /// `URBANFLOW_GPU_FEATURES=baseline`.
    pub features: Option<OptionalFeatures>,
}

/// A device and queue with what is known about them; pass it to every GPU algorithm.
///
/// ```no_run
/// let ctx = urbanflow::gpu::GpuContext::new().expect("a GPU adapter");
/// println!("{}", ctx.describe());
/// ```
pub struct GpuContext {
    /// The wgpu device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Adapter name, backend, driver, subgroup sizes.
    pub info: wgpu::AdapterInfo,
    /// The limits the device was created with (the adapter's own, not the WebGPU defaults).
    pub limits: wgpu::Limits,
    features: OptionalFeatures,
    lost: Arc<AtomicBool>,
    lost_reason: Arc<Mutex<String>>,
    pipelines: PipelineCache,
    staging: Mutex<Vec<wgpu::Buffer>>,
    created_in: std::time::Duration,
    /// Nanoseconds spent compiling shaders and pipelines on this context, all threads together.
    compiling_ns: std::sync::atomic::AtomicU64,
}

impl fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.info.name)
            .field("backend", &self.info.backend)
            .field("features", &self.features)
            .finish_non_exhaustive()
    }
}

static SHARED: OnceLock<Option<GpuContext>> = OnceLock::new();

/// The instance, built once per process from the environment (`WGPU_BACKEND`).
fn instance() -> &'static wgpu::Instance {
    static INSTANCE: OnceLock<wgpu::Instance> = OnceLock::new();
    INSTANCE
        .get_or_init(|| wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env()))
}

fn env_features() -> Option<OptionalFeatures> {
    match std::env::var("URBANFLOW_GPU_FEATURES").ok()?.trim() {
        "baseline" | "none" => Some(OptionalFeatures::NONE),
        _ => None,
    }
}

fn name_filter(opts: &GpuOptions) -> Option<String> {
    opts.adapter_name
        .clone()
        .or_else(|| std::env::var("WGPU_ADAPTER_NAME").ok())
        .filter(|s| !s.is_empty())
        .map(|s| s.to_lowercase())
}

/// Every adapter the instance sees (all backends allowed by `WGPU_BACKEND`), best first: discrete GPUs,
/// then integrated, virtual, other, and CPU (software) adapters last.
pub fn adapters(opts: &GpuOptions) -> Vec<wgpu::Adapter> {
    // One enumeration at a time: wgpu's GL backend makes its EGL context current on the enumerating
    // thread and panics (EGL BadAccess) when two threads enumerate at once, as parallel tests do.
    static ENUMERATE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let mut all = {
        let _one_at_a_time = ENUMERATE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        pollster::block_on(instance().enumerate_adapters(wgpu::Backends::all()))
    };
    if let Some(name) = name_filter(opts) {
        all.retain(|a| a.get_info().name.to_lowercase().contains(&name));
    }
    let rank = |a: &wgpu::Adapter| match a.get_info().device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    };
    let low_power = matches!(wgpu::PowerPreference::from_env(), Some(wgpu::PowerPreference::LowPower));
    all.sort_by_key(|a| if low_power { (rank(a) + 4) % 5 } else { rank(a) });
    all
}

/// One adapter as the process sees it, for reports and for the automatic choice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterSummary {
    /// The adapter's name.
    pub name: String,
    /// Vulkan, Metal, Dx12, Gl, ...
    pub backend: String,
    /// Discrete GPU, integrated GPU, virtual, other or CPU (software).
    pub device_type: wgpu::DeviceType,
    /// Driver name and version.
    pub driver: String,
}

impl AdapterSummary {
    pub(crate) fn of(info: &wgpu::AdapterInfo) -> Self {
        Self {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: info.device_type,
            driver: format!("{} {}", info.driver, info.driver_info).trim().to_string(),
        }
    }

    /// True for adapters that run shaders on the CPU (Mesa's lavapipe / llvmpipe, WARP, SwiftShader).
    pub fn is_software(&self) -> bool {
        self.device_type == wgpu::DeviceType::Cpu
    }
}

impl fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.device_type {
            wgpu::DeviceType::DiscreteGpu => "discrete GPU",
            wgpu::DeviceType::IntegratedGpu => "integrated GPU",
            wgpu::DeviceType::VirtualGpu => "virtual GPU",
            wgpu::DeviceType::Other => "other",
            wgpu::DeviceType::Cpu => "software, runs on the CPU",
        };
        write!(f, "{} ({kind}; {}; driver {})", self.name, self.backend, self.driver)
    }
}

/// What [`crate::Backend::Auto`] uses in this process, and why.
#[derive(Debug, Clone)]
pub struct AutoAdapter {
    /// Every adapter found, best first (see [`adapters`]).
    pub found: Vec<AdapterSummary>,
    /// Index into `found` of the adapter `Auto` uses; `None` means the CPU.
    pub chosen: Option<usize>,
    /// One sentence saying why.
    pub reason: String,
    /// Seconds listing the adapters took (loading the drivers): what the first look costs a process.
    pub list_s: f64,
}

static AUTO: OnceLock<AutoAdapter> = OnceLock::new();

/// True once this process has listed the adapters ([`auto_adapter`]), so looking again costs nothing.
pub fn adapters_listed() -> bool {
    AUTO.get().is_some()
}

/// The automatic choice, decided once per process from the adapter list without creating a device.
pub fn auto_adapter() -> &'static AutoAdapter {
    AUTO.get_or_init(|| {
        let started = std::time::Instant::now();
        let opts = GpuOptions::default();
        let found: Vec<AdapterSummary> =
            adapters(&opts).iter().map(|a| AdapterSummary::of(&a.get_info())).collect();
        let named = name_filter(&opts);
        let (chosen, reason) = auto_rule(&found, named.as_deref());
        AutoAdapter { found, chosen, reason, list_s: started.elapsed().as_secs_f64() }
    })
}

/// The rule behind [`auto_adapter`]: the best adapter unless it is a software one, which is used only
/// when asked for by name (`WGPU_ADAPTER_NAME`); software adapters run every shader on the very cores
/// the CPU backend would use, hundreds of times slower.
///
/// ```
/// use urbanflow::gpu::context::{AdapterSummary, auto_rule};
/// use urbanflow::gpu::wgpu::DeviceType;
/// let lavapipe = AdapterSummary {
///     name: "llvmpipe (LLVM 19.1.7, 256 bits)".into(),
///     backend: "Vulkan".into(),
///     device_type: DeviceType::Cpu,
///     driver: "llvmpipe".into(),
/// };
/// assert_eq!(auto_rule(&[lavapipe.clone()], None).0, None);
/// assert_eq!(auto_rule(&[lavapipe], Some("llvmpipe")).0, Some(0));
/// ```
pub fn auto_rule(found: &[AdapterSummary], named: Option<&str>) -> (Option<usize>, String) {
    match found.first() {
        None => (
            None,
            "no GPU adapter found (on Linux a Vulkan driver is needed: the GPU vendor's, or \
             mesa-vulkan-drivers): the CPU backend is used"
                .into(),
        ),
        Some(a) if !a.is_software() => {
            (Some(0), format!("`{}` is the best adapter found: a hardware GPU", a.name))
        }
        Some(a) if named.is_some() => (
            Some(0),
            format!("`{}` is a software adapter, used because WGPU_ADAPTER_NAME asks for it", a.name),
        ),
        Some(a) => (
            None,
            format!(
                "only software adapters found (`{}` runs shaders on the CPU, slower than the CPU backend): \
                 the CPU backend is used; --backend gpu or WGPU_ADAPTER_NAME select it for testing",
                a.name
            ),
        ),
    }
}

impl GpuContext {
    /// The best adapter (high-performance first; see [`adapters`]) with default options.
    pub fn new() -> Result<Self, GpuError> {
        Self::with_options(&GpuOptions::default())
    }

    /// The best adapter matching `opts`.
    pub fn with_options(opts: &GpuOptions) -> Result<Self, GpuError> {
        let adapter = adapters(opts).into_iter().next().ok_or_else(|| {
            GpuError::NoAdapter(match name_filter(opts) {
                Some(n) => format!(" whose name contains `{n}`"),
                None => " (is a Vulkan driver installed? on Linux: mesa-vulkan-drivers)".into(),
            })
        })?;
        Self::from_adapter(adapter, opts)
    }

    /// A context on a given adapter: the adapter's own limits and the requested optional features it
    /// has.
    pub fn from_adapter(adapter: wgpu::Adapter, opts: &GpuOptions) -> Result<Self, GpuError> {
        let started = std::time::Instant::now();
        let info = adapter.get_info();
        let wanted = opts.features.or_else(env_features).unwrap_or(OptionalFeatures::ALL);
        let features = wanted.to_wgpu() & adapter.features();
        let a = adapter.limits();
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: a.max_storage_buffer_binding_size,
            max_buffer_size: a.max_buffer_size,
            max_storage_buffers_per_shader_stage: a.max_storage_buffers_per_shader_stage,
            max_compute_workgroup_storage_size: a.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: a.max_compute_invocations_per_workgroup,
            max_compute_workgroup_size_x: a.max_compute_workgroup_size_x,
            max_compute_workgroup_size_y: a.max_compute_workgroup_size_y,
            max_compute_workgroup_size_z: a.max_compute_workgroup_size_z,
            max_compute_workgroups_per_dimension: a.max_compute_workgroups_per_dimension,
            max_bind_groups: a.max_bind_groups,
            max_bindings_per_bind_group: a.max_bindings_per_bind_group,
            ..wgpu::Limits::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("urbanflow"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| GpuError::RequestDevice { adapter: info.name.clone(), message: e.to_string() })?;
        let lost = Arc::new(AtomicBool::new(false));
        let lost_reason = Arc::new(Mutex::new(String::new()));
        {
            let (lost, reason) = (lost.clone(), lost_reason.clone());
            device.set_device_lost_callback(move |why, msg| {
                *reason.lock().unwrap_or_else(|e| e.into_inner()) = format!("{why:?}: {msg}");
                lost.store(true, Ordering::SeqCst);
            });
        }
        // Errors outside an error scope would otherwise panic inside wgpu; every operation that can
        // fail here runs in a scope, so anything reaching this handler is reported, not fatal.
        device.on_uncaptured_error(Arc::new(|e| eprintln!("urbanflow: uncaptured wgpu error: {e}")));
        Ok(Self {
            device,
            queue,
            info,
            limits,
            features: OptionalFeatures::from_wgpu(features),
            lost,
            lost_reason,
            pipelines: PipelineCache::default(),
            staging: Mutex::new(Vec::new()),
            created_in: started.elapsed(),
            compiling_ns: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// A process-wide context on the best adapter, software adapters included, created on first use;
    /// `None` when there is no adapter. This is what `--backend gpu` uses; [`crate::Backend::Auto`]
    /// uses [`GpuContext::auto`] instead.
    pub fn shared() -> Option<&'static GpuContext> {
        SHARED.get_or_init(|| GpuContext::new().ok()).as_ref()
    }

    /// The shared context if [`auto_adapter`] accepts the best adapter (a hardware GPU, or a software
    /// one asked for by name), else `None`: what [`crate::Backend::Auto`] runs on. No device is created
    /// when the answer is `None`.
    pub fn auto() -> Option<&'static GpuContext> {
        if auto_adapter().chosen.is_some() { GpuContext::shared() } else { None }
    }

    /// True once the process-wide context exists (so using it costs no device creation).
    pub fn shared_is_created() -> bool {
        SHARED.get().is_some_and(Option::is_some)
    }

    /// How long creating this context (device, queue) took.
    pub fn creation_time(&self) -> std::time::Duration {
        self.created_in
    }

    /// How long compiling shaders and pipelines on this context took so far (WGSL translation and the
    /// driver's compilation; every pipeline is compiled once per context, on first use). With
    /// [`GpuContext::creation_time`], the setup a run pays besides its work: what the examples report as
    /// `setup_s`.
    ///
    /// ```no_run
    /// let ctx = urbanflow::gpu::GpuContext::new()?;
    /// let before = ctx.compile_time();
    /// // ... build a solver on `ctx` ...
    /// println!("pipelines: {:.3} s", (ctx.compile_time() - before).as_secs_f64());
    /// # Ok::<(), urbanflow::gpu::GpuError>(())
    /// ```
    pub fn compile_time(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.compiling_ns.load(Ordering::Relaxed))
    }

    /// The optional features that are on.
    pub fn features(&self) -> OptionalFeatures {
        self.features
    }

    /// Fails with [`GpuError::MissingFeature`] unless `on`.
    pub fn require(&self, on: bool, feature: &'static str, needed_by: &str) -> Result<(), GpuError> {
        if on { Ok(()) } else { Err(GpuError::MissingFeature { feature, needed_by: needed_by.into() }) }
    }

    /// True for software adapters such as lavapipe (timings mean nothing there).
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Fails with [`GpuError::DeviceLost`] once the device is gone.
    pub fn check_alive(&self) -> Result<(), GpuError> {
        if self.lost.load(Ordering::SeqCst) {
            let why = self.lost_reason.lock().unwrap_or_else(|e| e.into_inner()).clone();
            return Err(GpuError::DeviceLost(why));
        }
        Ok(())
    }

    /// One line naming the adapter, backend, driver, subgroup sizes and features.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?}, driver {} {}), subgroup {}..{}, features [{}], max storage binding {} MiB",
            self.info.name,
            self.info.backend,
            self.info.device_type,
            self.info.driver,
            self.info.driver_info,
            self.info.subgroup_min_size,
            self.info.subgroup_max_size,
            self.features.names().join(", "),
            self.limits.max_storage_buffer_binding_size >> 20,
        )
    }

    /// Blocks until all submitted work is done.
    pub fn wait(&self) -> Result<(), GpuError> {
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| GpuError::Validation {
            context: "waiting for the GPU".into(),
            message: e.to_string(),
        })?;
        self.check_alive()
    }

    /// Runs `f` inside validation and out-of-memory error scopes, turning captured errors into
    /// [`GpuError`]s.
    pub fn scoped<T>(&self, context: &str, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        self.check_alive()?;
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        if let Some(e) = o {
            return Err(GpuError::OutOfMemory(format!("{context}: {e}")));
        }
        if let Some(e) = v {
            let message = match &e {
                wgpu::Error::Validation { description, .. } => description.clone(),
                other => other.to_string(),
            };
            return Err(GpuError::Validation { context: context.into(), message });
        }
        Ok(out)
    }

    /// A bind group for `pipeline`'s group 0 with each `(binding, buffer)` bound whole (auto layouts
    /// hold only the bindings a kernel uses, so pass exactly those).
    pub fn bind_buffers(
        &self,
        pipeline: &wgpu::ComputePipeline,
        label: &str,
        entries: &[(u32, &wgpu::Buffer)],
    ) -> Result<wgpu::BindGroup, GpuError> {
        let layout = pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = entries
            .iter()
            .map(|&(binding, b)| wgpu::BindGroupEntry { binding, resource: b.as_entire_binding() })
            .collect();
        self.scoped(&format!("binding `{label}`"), || {
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &layout,
                entries: &entries,
            })
        })
    }

    /// A uniform buffer holding `words` (padded with zeros to a multiple of 16 bytes), rewritten later
    /// with [`Self::write_words`].
    pub fn uniform_words(&self, label: &str, words: &[u32]) -> wgpu::Buffer {
        let mut padded = words.to_vec();
        padded.resize(words.len().max(1).next_multiple_of(4), 0);
        let buf = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: (padded.len() * 4) as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&buf, 0, bytemuck::cast_slice(&padded));
        buf
    }

    /// Queues new `words` for a uniform (or any `COPY_DST`) buffer at word `offset`: they take effect
    /// for work submitted after this call, in submission order.
    pub fn write_words(&self, buffer: &wgpu::Buffer, offset: u64, words: &[u32]) {
        self.queue.write_buffer(buffer, 4 * offset, bytemuck::cast_slice(words));
    }

    /// A compute pipeline from the cache, compiled on first use.
    pub fn pipeline(&self, key: &PipelineKey) -> Result<Arc<wgpu::ComputePipeline>, GpuError> {
        if let Some(p) = self.pipelines.pipeline(key) {
            return Ok(p);
        }
        let started = std::time::Instant::now();
        let compiled = self.compile(key);
        self.compiling_ns.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        compiled
    }

    /// [`GpuContext::pipeline`]'s compilation of a key not in the cache.
    fn compile(&self, key: &PipelineKey) -> Result<Arc<wgpu::ComputePipeline>, GpuError> {
        let shader = key.shader;
        let source = shader.resolve(&key.params)?;
        let need = crate::shader::requirements(shader.name, &source)?;
        let have = self.features();
        for (needed, on, name) in [
            (need.subgroup, have.subgroup, "SUBGROUP"),
            (need.int64, have.int64, "SHADER_INT64"),
            (need.int64_atomic_min_max, have.int64_atomic_min_max, "SHADER_INT64_ATOMIC_MIN_MAX"),
            (need.f64, have.f64, "SHADER_F64"),
        ] {
            if needed {
                self.require(on, name, &format!("shader `{}`", shader.name))?;
            }
        }
        let module = match self.pipelines.module(key) {
            Some(m) => m,
            None => {
                let mk = key.module_key();
                let module = self
                    .scoped(&format!("compiling shader {mk}"), || {
                        self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                            label: Some(shader.name),
                            source: wgpu::ShaderSource::Wgsl(source.into()),
                        })
                    })
                    .map_err(|e| GpuError::Shader { shader: mk, message: e.to_string() })?;
                let module = Arc::new(module);
                self.pipelines.keep_module(key, module.clone());
                module
            }
        };
        let pipeline = self
            .scoped(&format!("creating pipeline {}::{}", shader.name, key.entry), || {
                self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
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
        self.pipelines.keep_pipeline(key, pipeline.clone());
        Ok(pipeline)
    }

    /// How many pipelines have been compiled so far (each key once per context).
    pub fn pipelines_compiled(&self) -> usize {
        self.pipelines.len()
    }

    /// Takes a mappable (`MAP_READ | COPY_DST`) staging buffer of at least `size` bytes from this
    /// context's pool (at most 4× larger), or makes one. Large readback buffers are pinned host memory
    /// that takes long to allocate: solvers made again and again on one device (a block at a time) give
    /// theirs back with [`GpuContext::give_staging`] and the next one takes them.
    pub fn take_staging(&self, size: u64) -> wgpu::Buffer {
        let mut pool = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = pool.iter().position(|b| b.size() >= size && b.size() <= size.max(1 << 16) * 4) {
            return pool.swap_remove(i);
        }
        drop(pool);
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("urbanflow staging"),
            size: size.max(4).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Returns a staging buffer to the pool (a few are kept). It must be unmapped, with no mapping
    /// pending: the next taker copies into it.
    pub fn give_staging(&self, buffer: wgpu::Buffer) {
        let mut pool = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < 8 {
            pool.push(buffer);
        }
    }
}
