//! ONNX Runtime session options, construction, and the session pool the model types share.
use std::path::Path;

use crate::error::{Error, Result};

/// Graph optimisation level (ONNX Runtime `GraphOptimizationLevel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OptimizationLevel {
    /// No optimisation (`ORT_DISABLE_ALL`).
    Disable,
    /// Constant folding, redundant-node elimination (`ORT_ENABLE_BASIC`).
    Basic,
    /// Plus complex fusions such as attention / layer-norm (`ORT_ENABLE_EXTENDED`).
    Extended,
    /// Everything, like Python's `ORT_ENABLE_ALL` (the default). Note `ort`'s `Level3` is *not*
    /// this; factpico maps to `ort`'s `All`.
    #[default]
    All,
}

/// Where the graph runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ExecutionProvider {
    /// ONNX Runtime's default CPU provider (the default).
    #[default]
    Cpu,
    /// NVIDIA CUDA on the given device. Needs the `cuda` cargo feature and a CUDA build of
    /// ONNX Runtime (`onnxruntime-gpu`); otherwise session creation fails with
    /// [`Error::ExecutionProvider`](crate::Error::ExecutionProvider) saying which is missing
    /// (that path is tested; no GPU was available to run a model on CUDA).
    Cuda {
        /// CUDA device ordinal.
        device_id: i32,
    },
}

/// How sessions are created. Builder style:
/// `SessionOptions::default().intra_threads(2).optimization(OptimizationLevel::All)`.
///
/// Threading model: a [`crate::PairClassifier`] owns `sessions` ONNX Runtime sessions, each
/// behind a mutex (`Session::run` needs `&mut`); concurrent callers (e.g. rayon workers) take
/// a free one or wait. On CPU one session with `intra_threads` = cores is usually fastest;
/// several sessions × several threads oversubscribe the cores. Each extra session costs
/// about the model's size in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionOptions {
    /// Threads used inside one operator; 0 = ONNX Runtime's default (one per physical core).
    pub intra_threads: usize,
    /// Threads across independent graph nodes (sequential execution uses 1); 0 = default.
    pub inter_threads: usize,
    /// Graph optimisation level.
    pub optimization: OptimizationLevel,
    /// Execution provider.
    pub execution_provider: ExecutionProvider,
    /// Let idle ONNX Runtime worker threads busy-wait for work. Off by default: spinning
    /// burns the cores that other work (tokenisation, other processes) shares; turn it on only
    /// on a dedicated machine for slightly lower latency.
    pub allow_spinning: bool,
    /// Number of sessions in the pool (>= 1; default 1).
    pub sessions: usize,
    /// ONNX Runtime's CPU memory arena (on by default, as in ONNX Runtime). The arena keeps
    /// the largest activations it has seen (for a cross-encoder: batch × heads × length²
    /// attention scores) allocated for the session's lifetime; off, each run allocates and
    /// frees through the system allocator (lower peak memory, slightly more allocation work).
    pub cpu_mem_arena: bool,
    /// ONNX Runtime's memory-pattern planning (`enable_mem_pattern`; on by default, as in
    /// ONNX Runtime). A switch for memory investigations (issue 26 item 3): on the full-size
    /// MiniCheck-RoBERTa-L replica neither setting of this or of
    /// [`SessionOptions::device_allocator_for_initializers`] changed peak RSS beyond its
    /// run-to-run spread (BENCHMARKS.md, MiniCheck, "peak RSS").
    pub memory_pattern: bool,
    /// Allocate each initializer (weight) on its own through the device allocator
    /// (`session.use_device_allocator_for_initializers`) instead of one planned block; off by
    /// default, as in ONNX Runtime. A switch for memory investigations, like
    /// [`SessionOptions::memory_pattern`].
    pub device_allocator_for_initializers: bool,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            intra_threads: 0,
            inter_threads: 0,
            optimization: OptimizationLevel::All,
            execution_provider: ExecutionProvider::Cpu,
            allow_spinning: false,
            sessions: 1,
            cpu_mem_arena: true,
            memory_pattern: true,
            device_allocator_for_initializers: false,
        }
    }
}

impl SessionOptions {
    /// Sets [`SessionOptions::intra_threads`].
    #[must_use]
    pub fn intra_threads(mut self, n: usize) -> Self {
        self.intra_threads = n;
        self
    }
    /// Sets [`SessionOptions::cpu_mem_arena`].
    #[must_use]
    pub fn cpu_mem_arena(mut self, on: bool) -> Self {
        self.cpu_mem_arena = on;
        self
    }
    /// Sets [`SessionOptions::memory_pattern`].
    #[must_use]
    pub fn memory_pattern(mut self, on: bool) -> Self {
        self.memory_pattern = on;
        self
    }
    /// Sets [`SessionOptions::device_allocator_for_initializers`].
    #[must_use]
    pub fn device_allocator_for_initializers(mut self, on: bool) -> Self {
        self.device_allocator_for_initializers = on;
        self
    }
    /// Sets [`SessionOptions::inter_threads`].
    #[must_use]
    pub fn inter_threads(mut self, n: usize) -> Self {
        self.inter_threads = n;
        self
    }
    /// Sets [`SessionOptions::optimization`].
    #[must_use]
    pub fn optimization(mut self, level: OptimizationLevel) -> Self {
        self.optimization = level;
        self
    }
    /// Sets [`SessionOptions::execution_provider`].
    #[must_use]
    pub fn execution_provider(mut self, ep: ExecutionProvider) -> Self {
        self.execution_provider = ep;
        self
    }
    /// Sets [`SessionOptions::allow_spinning`].
    #[must_use]
    pub fn allow_spinning(mut self, on: bool) -> Self {
        self.allow_spinning = on;
        self
    }
    /// Sets [`SessionOptions::sessions`].
    #[must_use]
    pub fn sessions(mut self, n: usize) -> Self {
        self.sessions = n;
        self
    }
}

fn b<T, R>(r: std::result::Result<T, ort::Error<R>>, what: &str) -> Result<T> {
    r.map_err(|e| Error::ort(format!("session option {what}"), e.message()))
}

/// Builds one session for `model` (an `.onnx` file).
pub(crate) fn build_session(model: &Path, opts: &SessionOptions) -> Result<ort::session::Session> {
    let env = crate::ort_lib::environment()?;
    let mut builder = ort::session::Session::builder(&env).map_err(|e| Error::ort("creating a session builder", e))?;
    let level = match opts.optimization {
        OptimizationLevel::Disable => ort::session::builder::GraphOptimizationLevel::Disable,
        OptimizationLevel::Basic => ort::session::builder::GraphOptimizationLevel::Level1,
        OptimizationLevel::Extended => ort::session::builder::GraphOptimizationLevel::Level2,
        OptimizationLevel::All => ort::session::builder::GraphOptimizationLevel::All,
    };
    builder = b(builder.with_optimization_level(level), "optimization level")?;
    if opts.intra_threads > 0 {
        builder = b(builder.with_intra_threads(opts.intra_threads), "intra_threads")?;
    }
    if opts.inter_threads > 0 {
        builder = b(builder.with_inter_threads(opts.inter_threads), "inter_threads")?;
    }
    builder = b(builder.with_intra_op_spinning(opts.allow_spinning), "allow_spinning")?;
    builder = b(builder.with_inter_op_spinning(opts.allow_spinning), "allow_spinning")?;
    match opts.execution_provider {
        ExecutionProvider::Cpu => {
            if !opts.cpu_mem_arena {
                builder = b(
                    builder.with_execution_providers([ort::ep::CPU::default().with_arena_allocator(false).build()]),
                    "cpu_mem_arena",
                )?;
            }
        }
        #[cfg(feature = "cuda")]
        ExecutionProvider::Cuda { device_id } => {
            use ort::ep::ExecutionProvider as _;
            let lib = crate::ort_lib::loaded_ort().map_or_else(|| "?".to_owned(), |i| i.path.display().to_string());
            if !ort::ep::CUDA::is_available().unwrap_or(false) {
                return Err(Error::ExecutionProvider {
                    provider: "CUDA",
                    reason: format!(
                        "the ONNX Runtime library {lib} was built without it (the PyPI `onnxruntime` wheel that \
                         `factpico setup ort` installs is CPU-only). Install `onnxruntime-gpu` and set \
                         ORT_DYLIB_PATH to its libonnxruntime.so (with the CUDA and cuDNN libraries it needs on \
                         LD_LIBRARY_PATH), or use --device cpu"
                    ),
                });
            }
            builder = builder
                .with_execution_providers([ort::ep::CUDA::default().with_device_id(device_id).build().error_on_failure()])
                .map_err(|e| Error::ExecutionProvider {
                    provider: "CUDA",
                    reason: format!(
                        "device {device_id} failed to start with {lib}: {}. Check that the device exists \
                         (nvidia-smi) and that the CUDA and cuDNN libraries onnxruntime-gpu needs are on \
                         LD_LIBRARY_PATH, or use --device cpu",
                        e.message()
                    ),
                })?;
        }
        #[cfg(not(feature = "cuda"))]
        ExecutionProvider::Cuda { .. } => {
            return Err(Error::ExecutionProvider {
                provider: "CUDA",
                reason: "this build has no CUDA support: rebuild with the cargo feature `cuda` (of factpico-runtime, \
                         or of factpico / factpico-cli), or use --device cpu"
                    .into(),
            })
        }
    }
    // Memory switches: see the two fields' docs.
    if opts.device_allocator_for_initializers {
        builder = b(builder.with_device_allocated_initializers(), "device_allocator_for_initializers")?;
    }
    builder = b(builder.with_memory_pattern(opts.memory_pattern), "memory_pattern")?;
    builder.commit_from_file(model).map_err(|e| Error::InvalidModel {
        path: model.to_path_buf(),
        reason: format!(
            "ONNX Runtime cannot load it ({}). The file is probably truncated or not an ONNX model: \
             re-export or re-download it",
            e.message()
        ),
    })
}

/// `Mutex::lock` that ignores poisoning: a panic while holding a session or counters leaves
/// nothing half-written that a later caller could misread.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// [`SessionOptions::sessions`] ONNX Runtime sessions of one graph, each behind a mutex
/// (`Session::run` needs `&mut`), handed out round-robin: a caller takes the first free one
/// from its starting point, or waits for that one.
#[derive(Debug)]
pub(crate) struct SessionPool {
    sessions: Vec<std::sync::Mutex<ort::session::Session>>,
    next: std::sync::atomic::AtomicUsize,
}

impl SessionPool {
    /// Builds the sessions (at least one).
    pub(crate) fn load(model: &Path, opts: &SessionOptions) -> Result<Self> {
        let n = opts.sessions.max(1);
        let mut sessions = Vec::with_capacity(n);
        for _ in 0..n {
            sessions.push(std::sync::Mutex::new(build_session(model, opts)?));
        }
        Ok(Self { sessions, next: std::sync::atomic::AtomicUsize::new(0) })
    }

    /// A session, free if one is.
    pub(crate) fn take(&self) -> std::sync::MutexGuard<'_, ort::session::Session> {
        let n = self.sessions.len();
        let start = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % n;
        for k in 0..n {
            if let Ok(g) = self.sessions[(start + k) % n].try_lock() {
                return g;
            }
        }
        lock(&self.sessions[start])
    }

    /// The first session, to read the graph's inputs and outputs.
    pub(crate) fn first(&self) -> std::sync::MutexGuard<'_, ort::session::Session> {
        lock(&self.sessions[0])
    }
}

/// What a graph input of a Hugging Face encoder carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputRole {
    /// `input_ids`.
    Ids,
    /// `attention_mask`.
    Mask,
    /// `token_type_ids` (segment ids).
    TypeIds,
}

/// The roles of an encoder graph's inputs, in graph order: every input must be `input_ids`,
/// `attention_mask` or `token_type_ids` of int64 elements, and `input_ids` must be present.
pub(crate) fn encoder_inputs(session: &ort::session::Session, model: &Path) -> Result<Vec<(String, InputRole)>> {
    let mut inputs = Vec::new();
    for o in session.inputs() {
        let role = match o.name() {
            "input_ids" => InputRole::Ids,
            "attention_mask" => InputRole::Mask,
            "token_type_ids" => InputRole::TypeIds,
            other => {
                return Err(Error::InvalidModel {
                    path: model.to_path_buf(),
                    reason: format!(
                        "graph input {other:?} is not supported (expected input_ids, attention_mask, \
                         token_type_ids); export the model with the onnx/ scripts"
                    ),
                })
            }
        };
        if let ort::value::ValueType::Tensor { ty, .. } = o.dtype() {
            if *ty != ort::value::TensorElementType::Int64 {
                return Err(Error::InvalidModel {
                    path: model.to_path_buf(),
                    reason: format!("graph input {:?} has element type {ty:?}; int64 is required", o.name()),
                });
            }
        }
        inputs.push((o.name().to_owned(), role));
    }
    if !inputs.iter().any(|(_, r)| *r == InputRole::Ids) {
        return Err(Error::InvalidModel { path: model.to_path_buf(), reason: "the graph has no input_ids input".into() });
    }
    Ok(inputs)
}
