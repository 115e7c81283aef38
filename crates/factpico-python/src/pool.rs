//! The per-process rayon pool every batch call runs in.
//!
//! rayon's global pool cannot be resized and its worker threads do not exist in a `fork`ed
//! child (a child that used the parent's pool would wait forever, the problem `tokenizers`
//! solves by going sequential after a fork). Here each process builds its own pool on first
//! use; a pool inherited through `fork` (recorded process id ≠ current one) is abandoned — not
//! dropped, since its threads are gone — and a new one is built in the child.

use std::sync::{Arc, Mutex, PoisonError};

use pyo3::prelude::*;

struct Pool {
    pid: u32,
    threads: usize,
    pool: Arc<rayon::ThreadPool>,
}

/// Requested size (0 = all cores) and the current pool.
static POOL: Mutex<(usize, Option<Pool>)> = Mutex::new((0, None));

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The pool of the current process, built on first use (and after a fork).
pub(crate) fn pool() -> PyResult<Arc<rayon::ThreadPool>> {
    let mut guard = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    let pid = std::process::id();
    let want = if guard.0 == 0 { default_threads() } else { guard.0 };
    if let Some(p) = &guard.1 {
        if p.pid == pid && p.threads == want {
            return Ok(p.pool.clone());
        }
    }
    if let Some(old) = guard.1.take() {
        if old.pid != pid {
            // Inherited through fork: its threads live only in the parent.
            std::mem::forget(old);
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(want)
        .thread_name(|i| format!("factpico-{i}"))
        .build()
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("cannot start {want} worker threads: {e}")))?;
    let pool = Arc::new(pool);
    guard.1 = Some(Pool { pid, threads: want, pool: pool.clone() });
    Ok(pool)
}

/// Sets the number of worker threads factpico uses in this process for its own parallel work
/// (pairs scored in parallel); `0` means all cores (the default). ONNX Runtime's threads are a
/// separate option (`models={"threads": n}` of `Scorer`, `threads=` of the drop-in classes).
#[pyfunction]
pub(crate) fn set_num_threads(n: usize) {
    let mut guard = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    guard.0 = n;
}

/// The number of worker threads factpico uses in this process (see `set_num_threads`).
#[pyfunction]
pub(crate) fn get_num_threads() -> usize {
    let guard = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    if guard.0 == 0 {
        default_threads()
    } else {
        guard.0
    }
}
