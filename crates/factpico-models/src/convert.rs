//! The built-in converter of `rust` routes: the torch-free `factpico-convert` (a checkpoint
//! reader that never runs pickled code, and an ONNX graph written from the model's config).
//!
//! Which entries it converts, by the entry's metric and architecture:
//! * `alignscore`: the Lightning `.ckpt` of [`Entry::place`] and the backbone folder that holds
//!   `config.json`, `vocab.json`, `merges.txt` ([`factpico_convert::convert_alignscore`]).
//! * `minicheck` on RoBERTa (`minicheck-roberta-large`): `config.json`, `model.safetensors` or
//!   `pytorch_model.bin`, `vocab.json`, `merges.txt`
//!   ([`factpico_convert::convert_roberta_sequence_classification`]).
//!
//! Any other entry with route `rust` is an error naming it (nothing is installed).
use std::path::{Path, PathBuf};

use crate::catalogue::{Entry, Source};
use crate::store::Converter;

/// The converter [`crate::ModelStore::pull`] and [`crate::ModelStore::import`] use for `rust`
/// routes when the caller gives none.
#[derive(Debug, Clone, Copy, Default)]
pub struct BuiltinConverter;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// `repo/file@revision` of the hub file `path` of `e` (what the manifest records as the
/// checkpoint's name; no endpoint, so no test or mirror host is written into a model).
fn hub_name(e: &Entry, path: &str) -> Option<String> {
    e.sources.iter().find_map(|s| match s {
        Source::Hub { repo, revision, files, .. } if files.iter().any(|f| f.path.ends_with(path)) => {
            Some(format!("{repo}/{path}@{revision}"))
        }
        _ => None,
    })
}

impl Converter for BuiltinConverter {
    fn convert(&self, e: &Entry, from: &Path, out: &Path) -> Result<(), BoxError> {
        let mut opts = factpico_convert::ConvertOptions::default();
        if e.metric.starts_with("alignscore") {
            let ckpt = e
                .place
                .iter()
                .find(|p| p.ends_with(".ckpt"))
                .ok_or_else(|| format!("{}: the catalogue places no .ckpt file", e.name))?;
            let backbone: PathBuf = e
                .place
                .iter()
                .find_map(|p| p.strip_suffix("/config.json").map(|d| from.join(d)))
                .unwrap_or_else(|| from.to_path_buf());
            opts.checkpoint_name = hub_name(e, ckpt);
            factpico_convert::convert_alignscore(&from.join(ckpt), &backbone, out, &opts)?;
            return Ok(());
        }
        if e.metric.starts_with("minicheck") && e.architecture.to_ascii_lowercase().contains("roberta") {
            opts.checkpoint_name = e.sources.iter().find_map(|s| match s {
                Source::Hub { repo, revision, .. } => Some(format!("{repo}@{revision}")),
                _ => None,
            });
            factpico_convert::convert_roberta_sequence_classification(from, None, out, &opts)?;
            return Ok(());
        }
        Err(format!(
            "{}: no torch-free converter for this model (metric {}, {}); only AlignScore and MiniCheck-RoBERTa are converted in Rust",
            e.name, e.metric, e.architecture
        )
        .into())
    }
}
