//! The crate's error type. No message ever contains the API key: server replies quoted in
//! errors pass through [`crate::client::redact`] first.

use std::path::PathBuf;

/// Errors of the LLM evaluators, the client and the cache.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An option is invalid (message says which and what is allowed).
    #[error("invalid LLM option: {0}")]
    Options(String),

    /// The environment variable named by `api_key_env` was required but is not set.
    #[error("the environment variable {name} (named by `llm.api_key_env`) is not set; export it with the API key, or leave `llm.api_key_env` unset for a server without authentication")]
    MissingApiKey {
        /// Name of the variable (never its value).
        name: String,
    },

    /// The server could not be reached at start (connection refused, DNS, timeout).
    #[error("cannot reach the LLM server at {url}: {reason}. Start the server (or check `llm.base_url`); nothing was sent")]
    Unreachable {
        /// The URL that was tried.
        url: String,
        /// What failed (connection refused, timeout after N s, ...).
        reason: String,
        /// The transport error.
        #[cfg(feature = "client")]
        #[source]
        source: Option<reqwest::Error>,
    },

    /// The server refused our credentials (HTTP 401 / 403).
    #[error("the LLM server at {url} refused the request (HTTP {status}): {message}. Check the API key in the variable named by `llm.api_key_env`")]
    Unauthorized {
        /// The URL.
        url: String,
        /// HTTP status.
        status: u16,
        /// The server's message (API key redacted).
        message: String,
    },

    /// The server does not serve the requested model.
    #[error("the LLM server at {url} does not serve the model {model:?}; it serves: {served}. Pass one of these as `llm.model`")]
    ModelNotServed {
        /// The URL.
        url: String,
        /// The model asked for.
        model: String,
        /// Comma-separated ids the server lists.
        served: String,
    },

    /// The server answered the model list with something unexpected.
    #[error("the LLM server at {url} answered {what}")]
    Protocol {
        /// The URL.
        url: String,
        /// What was wrong.
        what: String,
    },

    /// The request cache file is corrupt or not a factpico cache.
    #[error("the LLM request cache {} is unreadable ({reason}). Move it away or delete it (its answers will be requested again on the next run), or set `llm.runtime.cache` to another path", path.display())]
    CacheCorrupt {
        /// The cache file.
        path: PathBuf,
        /// What SQLite reported.
        reason: String,
        /// SQLite's error.
        #[cfg(feature = "client")]
        #[source]
        source: Option<rusqlite::Error>,
    },

    /// Any other cache failure (permissions, disk full, lock timeout).
    #[cfg(feature = "client")]
    #[error("LLM request cache {}: {what}", path.display())]
    Cache {
        /// The cache file.
        path: PathBuf,
        /// What was being done.
        what: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },

    /// The async runtime could not be built.
    #[cfg(feature = "client")]
    #[error("cannot start the async runtime for LLM requests")]
    Runtime(#[source] std::io::Error),

    /// A batch file (`factpico llm batch export` / `import`) that cannot be used: the message
    /// names the file and the line.
    #[error("{0}")]
    Batch(String),

    /// The HTTP client could not be built.
    #[cfg(feature = "client")]
    #[error("cannot build the HTTP client")]
    Http(#[source] reqwest::Error),
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
