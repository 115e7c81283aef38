//! # factpico-models
//!
//! The published models factpico metrics use, and how a user gets them by name:
//!
//! * [`Catalogue`]: one entry per model (`catalogue.json`, embedded): publisher's files (hub
//!   repository + file + revision, a direct archive URL, or a by-hand download), licence,
//!   size, architecture, sha256 pins, and the conversion [`Route`] (`onnx` = install as-is,
//!   `rust` = the torch-free converter given by the caller, `python-export` = the `onnx/*.py`
//!   scripts, `pip`, `refused`).
//! * [`ModelStore`]: `$FACTPICO_HOME/models/NAME` — [`ModelStore::pull`] (download, verify,
//!   convert, install atomically under a per-model lock), [`ModelStore::import`],
//!   [`ModelStore::rm`], [`ModelStore::path`], [`ModelStore::installed`], and
//!   [`resolve_model`] for metric options.
//! * [`HubClient`]: the Hugging Face resolve protocol with resume from the byte reached,
//!   sha256 checks against `X-Linked-Etag` and the catalogue pins, `HF_ENDPOINT`, `HF_TOKEN`,
//!   `HF_HUB_OFFLINE` and reuse of the user's HF cache.
//!
//! See `docs/models.md`.
mod catalogue;
mod convert;
mod error;
mod hub;
mod store;

pub use convert::BuiltinConverter;
pub use catalogue::{Catalogue, Entry, HubFile, Route, Source, BUILTIN_JSON};
pub use error::{Error, Result};
pub use hub::{env_flag, hf_cache_dir, partial_of, redact_url, sha256_file, HubClient, HubConfig, Progress, Resolved, Token};
pub use store::{
    disk_size, factpico_home, resolve_model, Converter, ExportConfig, ModelStore, PullOptions, Pulled, StoreLock, EXPORT_INSTALL_COMMAND,
};
