//! Checkpoint reader: `torch.save` zip archives (`pytorch_model.bin`, Lightning `.ckpt`) and
//! safetensors files, read without executing code.
//!
//! * **zip** (`torch.save` since PyTorch 1.6): `<archive>/data.pkl` is interpreted by the
//!   code-free [`crate::pickle`] VM; tensors are descriptions pointing at
//!   `<archive>/data/<key>` storage entries, which are read one at a time
//!   ([`Checkpoint::tensor_f32`]). A Lightning checkpoint's `state_dict` is used; its
//!   hyper-parameters, optimizer / scheduler / loop / callback states are interpreted as plain
//!   or opaque data and never used. `<archive>/byteorder` other than `little` is refused.
//! * **safetensors**: the JSON header is parsed by the `safetensors` crate's `Metadata`
//!   (which validates offsets); tensor bytes are read with a seek per tensor.
//! * Anything else (the legacy non-zip `torch.save` format, a zip without `data.pkl`, ...) is
//!   refused with a clear error.
//!
//! Floating storages (fp32, fp16, bf16, fp64) are converted to f32; strides and storage offsets
//! are honoured (a transposed or sliced view is gathered), and every tensor is checked to fit
//! inside its storage before any element is read.
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::pickle::{self, DType, TensorRef, Value};

/// Largest tensor or storage accepted, in elements (2^32 = 4 Gi: far above any encoder's
/// embedding matrix; bounds what a lying header can make the reader allocate).
pub const MAX_TENSOR_ELEMENTS: usize = 1 << 32;

/// Where a tensor's bytes are.
#[derive(Debug, Clone)]
enum Source {
    Zip(TensorRef),
    Safetensors { dtype: DType, shape: Vec<usize>, start: u64, len: u64 },
}

/// A tensor of the state dict, described (shape, dtype), not yet read.
#[derive(Debug, Clone)]
pub struct TensorInfo {
    /// Shape.
    pub shape: Vec<usize>,
    /// Stored element type.
    pub dtype: DType,
    source: Source,
}

impl TensorInfo {
    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
}

/// The container kind a checkpoint was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `torch.save` zip archive (incl. Lightning `.ckpt`).
    TorchZip,
    /// safetensors.
    Safetensors,
}

/// An opened checkpoint: its state dict's tensors, by name.
#[derive(Debug)]
pub struct Checkpoint {
    path: PathBuf,
    format: Format,
    prefix: String,
    tensors: BTreeMap<String, TensorInfo>,
    ignored_globals: Vec<String>,
    /// Whether the state dict came from a `state_dict` key (Lightning) or was the top-level dict.
    from_state_dict_key: bool,
}

const ZIP_MAGIC: &[u8; 4] = b"PK\x03\x04";

impl Checkpoint {
    /// Opens `path`, detecting the format from its first bytes (zip magic, else safetensors
    /// header), and describes the state dict's tensors. Reads only the pickle / header.
    ///
    /// # Errors
    /// [`Error::Io`], [`Error::Format`] (unknown / legacy / truncated container, no
    /// `data.pkl`, big-endian archive, no state dict), [`Error::Zip`], [`Error::Pickle`],
    /// [`Error::Tensor`] (unsupported dtype, absurd shape, tensor outside its storage).
    pub fn open(path: &Path) -> Result<Self> {
        let mut f = File::open(path).map_err(|e| Error::io("read", path, e))?;
        let mut head = [0u8; 8];
        let n = read_up_to(&mut f, &mut head).map_err(|e| Error::io("read", path, e))?;
        if n >= 4 && &head[..4] == ZIP_MAGIC {
            return Self::open_zip(path, f);
        }
        if n == 8 {
            return Self::open_safetensors(path, f, u64::from_le_bytes(head));
        }
        Err(format_err(path, "file too short to be a checkpoint"))
    }

    /// The checkpoint file.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The container format.
    pub fn format(&self) -> Format {
        self.format
    }
    /// Tensors of the state dict, by name (sorted).
    pub fn tensors(&self) -> &BTreeMap<String, TensorInfo> {
        &self.tensors
    }
    /// Globals named by the pickle outside the tensor-rebuild table (e.g.
    /// `pytorch_lightning.utilities.parsing.AttributeDict`, `posix.system`): never called.
    pub fn ignored_globals(&self) -> &[String] {
        &self.ignored_globals
    }
    /// True when the tensors came from the `state_dict` entry of a (Lightning) checkpoint.
    pub fn from_state_dict_key(&self) -> bool {
        self.from_state_dict_key
    }

    fn open_zip(path: &Path, f: File) -> Result<Self> {
        let zerr = |what: &str, source| Error::Zip { path: path.to_path_buf(), what: what.to_owned(), source };
        let mut zip = zip::ZipArchive::new(f).map_err(|e| zerr("central directory", e))?;
        let pkl: Vec<String> = zip
            .file_names()
            .filter(|n| n.ends_with("/data.pkl") && n.matches('/').count() == 1)
            .map(str::to_owned)
            .collect();
        let name = match pkl.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(format_err(
                    path,
                    "zip archive without <archive>/data.pkl: not a torch.save checkpoint",
                ))
            }
            _ => return Err(format_err(path, "zip archive with several <archive>/data.pkl entries")),
        };
        let prefix = name.trim_end_matches("data.pkl").to_owned();
        if let Ok(mut bo) = zip.by_name(&format!("{prefix}byteorder")) {
            let mut s = String::new();
            bo.by_ref().take(16).read_to_string(&mut s).map_err(|e| Error::io("read", path, e))?;
            if s.trim() != "little" {
                return Err(format_err(path, format!("byte order {:?} is not supported (little-endian only)", s.trim())));
            }
        }
        let data = {
            let entry = zip.by_name(&name).map_err(|e| zerr("data.pkl", e))?;
            let size = entry.size();
            if size > pickle::MAX_PICKLE_BYTES as u64 {
                return Err(format_err(
                    path,
                    format!("data.pkl is {size} bytes (limit {})", pickle::MAX_PICKLE_BYTES),
                ));
            }
            let mut buf = Vec::with_capacity(size as usize);
            entry
                .take(pickle::MAX_PICKLE_BYTES as u64 + 1)
                .read_to_end(&mut buf)
                .map_err(|e| format_err(path, format!("data.pkl cannot be read ({e}); the file is truncated or corrupt")))?;
            buf
        };
        let up = pickle::unpickle(&data).map_err(|e| Error::Pickle {
            path: path.to_path_buf(),
            offset: e.offset,
            reason: e.reason,
        })?;
        let (sd, from_key) = find_state_dict(&up, path)?;
        let mut tensors = BTreeMap::new();
        let items = up.dict_items(sd).unwrap_or_default();
        for (k, v) in items {
            let Some(name) = k.as_str() else {
                return Err(format_err(path, format!("state dict key is a {}, not a str", up.kind(k))));
            };
            let t = match v {
                Value::Tensor(t) => (**t).clone(),
                other => {
                    return Err(Error::Tensor {
                        path: path.to_path_buf(),
                        name: name.to_owned(),
                        reason: format!("state dict value is a {}, not a tensor", up.kind(other)),
                    })
                }
            };
            check_ref(path, name, &t)?;
            let entry = format!("{prefix}data/{}", t.storage.key);
            let stored = match zip.by_name(&entry) {
                Ok(e) => e.size(),
                Err(e) => return Err(zerr(&format!("storage {entry} of tensor `{name}`"), e)),
            };
            let need = (t.storage.numel as u64).saturating_mul(t.storage.dtype.size() as u64);
            if stored < need {
                return Err(Error::Tensor {
                    path: path.to_path_buf(),
                    name: name.to_owned(),
                    reason: format!("storage {entry} holds {stored} bytes, the pickle says {need}"),
                });
            }
            tensors.insert(
                name.to_owned(),
                TensorInfo { shape: t.shape.clone(), dtype: t.storage.dtype, source: Source::Zip(t) },
            );
        }
        Ok(Checkpoint {
            path: path.to_path_buf(),
            format: Format::TorchZip,
            prefix,
            tensors,
            ignored_globals: up.ignored_globals,
            from_state_dict_key: from_key,
        })
    }

    fn open_safetensors(path: &Path, mut f: File, header_len: u64) -> Result<Self> {
        let file_len = f.metadata().map_err(|e| Error::io("read", path, e))?.len();
        if header_len > 100_000_000 || header_len.saturating_add(8) > file_len {
            return Err(format_err(
                path,
                "neither a torch.save zip archive nor a safetensors file (bad header length); legacy \
                 (pre-1.6, non-zip) torch.save files are not supported: re-save with torch.save",
            ));
        }
        let mut header = vec![0u8; header_len as usize];
        f.seek(SeekFrom::Start(8)).map_err(|e| Error::io("read", path, e))?;
        f.read_exact(&mut header).map_err(|e| Error::io("read", path, e))?;
        if header.first() != Some(&b'{') {
            return Err(format_err(path, "neither a torch.save zip archive nor a safetensors file"));
        }
        let meta: safetensors::tensor::Metadata = serde_json::from_slice(&header)
            .map_err(|e| format_err(path, format!("invalid safetensors header: {e}")))?;
        let data_start = 8 + header_len;
        let data_len = file_len - data_start;
        let mut tensors = BTreeMap::new();
        for (name, info) in meta.tensors() {
            let dtype = match info.dtype {
                safetensors::Dtype::F32 => DType::F32,
                safetensors::Dtype::F16 => DType::F16,
                safetensors::Dtype::BF16 => DType::BF16,
                safetensors::Dtype::F64 => DType::F64,
                safetensors::Dtype::I64 => DType::I64,
                safetensors::Dtype::I32 => DType::I32,
                safetensors::Dtype::I16 => DType::I16,
                safetensors::Dtype::I8 => DType::I8,
                safetensors::Dtype::U8 => DType::U8,
                safetensors::Dtype::BOOL => DType::Bool,
                other => {
                    return Err(Error::Tensor {
                        path: path.to_path_buf(),
                        name,
                        reason: format!("unsupported dtype {other:?}"),
                    })
                }
            };
            let (s, e) = info.data_offsets;
            let numel = checked_numel(&info.shape).filter(|n| *n <= MAX_TENSOR_ELEMENTS);
            let ok = numel.is_some_and(|n| (e - s) as u64 == n as u64 * dtype.size() as u64) && e as u64 <= data_len;
            if !ok {
                return Err(Error::Tensor {
                    path: path.to_path_buf(),
                    name,
                    reason: format!(
                        "shape {:?} of {dtype:?} does not match bytes {s}..{e} (data section {data_len} bytes)",
                        info.shape
                    ),
                });
            }
            tensors.insert(
                name,
                TensorInfo {
                    shape: info.shape.clone(),
                    dtype,
                    source: Source::Safetensors {
                        dtype,
                        shape: info.shape.clone(),
                        start: data_start + s as u64,
                        len: (e - s) as u64,
                    },
                },
            );
        }
        Ok(Checkpoint {
            path: path.to_path_buf(),
            format: Format::Safetensors,
            prefix: String::new(),
            tensors,
            ignored_globals: Vec::new(),
            from_state_dict_key: false,
        })
    }

    /// Reads tensor `name` as f32 values in row-major (C) order of its shape. Floating dtypes
    /// are converted (fp16 / bf16 exactly, fp64 rounded); integer and bool tensors are refused.
    ///
    /// # Errors
    /// [`Error::Tensor`] for an unknown name, a non-float dtype or a short storage;
    /// [`Error::Zip`] / [`Error::Io`] when the bytes cannot be read.
    pub fn tensor_f32(&self, name: &str) -> Result<Vec<f32>> {
        let info = self.tensors.get(name).ok_or_else(|| self.terr(name, "not in the state dict"))?;
        if !matches!(info.dtype, DType::F32 | DType::F16 | DType::BF16 | DType::F64) {
            return Err(self.terr(name, format!("dtype {:?} is not a floating type", info.dtype)));
        }
        match &info.source {
            Source::Safetensors { dtype, shape, start, len } => {
                let mut f = File::open(&self.path).map_err(|e| Error::io("read", &self.path, e))?;
                f.seek(SeekFrom::Start(*start)).map_err(|e| Error::io("read", &self.path, e))?;
                let mut buf = vec![0u8; *len as usize];
                f.read_exact(&mut buf).map_err(|e| Error::io("read", &self.path, e))?;
                let n: usize = shape.iter().product();
                Ok(decode(*dtype, &buf, 0, n))
            }
            Source::Zip(t) => {
                let f = File::open(&self.path).map_err(|e| Error::io("read", &self.path, e))?;
                let mut zip = zip::ZipArchive::new(f).map_err(|e| Error::Zip {
                    path: self.path.clone(),
                    what: "central directory".into(),
                    source: e,
                })?;
                let entry = format!("{}data/{}", self.prefix, t.storage.key);
                let need = t.storage.numel * t.storage.dtype.size();
                // grows with the bytes actually read (a zip entry may claim more than it holds)
                let mut buf = Vec::with_capacity(need.min(256 << 20));
                let e = zip.by_name(&entry).map_err(|e| Error::Zip {
                    path: self.path.clone(),
                    what: format!("storage {entry}"),
                    source: e,
                })?;
                e.take(need as u64).read_to_end(&mut buf).map_err(|e| {
                    self.terr(name, format!("storage {entry} cannot be read ({e}); the file is truncated or corrupt"))
                })?;
                if buf.len() < need {
                    return Err(self.terr(name, format!("storage {entry} holds {} bytes, needs {need}", buf.len())));
                }
                Ok(gather(t, &buf))
            }
        }
    }

    fn terr(&self, name: &str, reason: impl Into<String>) -> Error {
        Error::Tensor { path: self.path.clone(), name: name.to_owned(), reason: reason.into() }
    }
}

fn read_up_to(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        let k = f.read(&mut buf[n..])?;
        if k == 0 {
            break;
        }
        n += k;
    }
    Ok(n)
}

fn format_err(path: &Path, reason: impl Into<String>) -> Error {
    Error::Format { path: path.to_path_buf(), reason: reason.into() }
}

fn checked_numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))
}

/// Checks that a tensor view lies inside its storage (and is not absurdly large).
fn check_ref(path: &Path, name: &str, t: &TensorRef) -> Result<()> {
    let err = |reason: String| Error::Tensor { path: path.to_path_buf(), name: name.to_owned(), reason };
    let numel = checked_numel(&t.shape).filter(|n| *n <= MAX_TENSOR_ELEMENTS);
    let Some(numel) = numel else {
        return Err(err(format!("shape {:?} exceeds {MAX_TENSOR_ELEMENTS} elements", t.shape)));
    };
    if t.storage.numel > MAX_TENSOR_ELEMENTS {
        return Err(err(format!("storage of {} elements exceeds the limit", t.storage.numel)));
    }
    if numel == 0 {
        return Ok(());
    }
    let mut last = t.offset;
    for (&d, &s) in t.shape.iter().zip(&t.stride) {
        last = (d - 1).checked_mul(s).and_then(|x| x.checked_add(last)).ok_or_else(|| err("stride overflow".into()))?;
    }
    if last >= t.storage.numel {
        return Err(err(format!(
            "view (offset {}, shape {:?}, stride {:?}) reaches element {last} of a storage of {}",
            t.offset, t.shape, t.stride, t.storage.numel
        )));
    }
    Ok(())
}

fn decode_one(dtype: DType, b: &[u8]) -> f32 {
    match dtype {
        DType::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        DType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f32(),
        DType::BF16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f32(),
        DType::F64 => f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32,
        _ => f32::NAN,
    }
}

/// `n` contiguous elements from element `start` of `buf`.
fn decode(dtype: DType, buf: &[u8], start: usize, n: usize) -> Vec<f32> {
    let sz = dtype.size();
    buf[start * sz..(start + n) * sz].chunks_exact(sz).map(|c| decode_one(dtype, c)).collect()
}

/// Gathers a strided view (checked by [`check_ref`]) in row-major order.
fn gather(t: &TensorRef, buf: &[u8]) -> Vec<f32> {
    let n: usize = t.shape.iter().product();
    if n == 0 {
        return Vec::new();
    }
    // contiguous?
    let mut expect = 1usize;
    let mut contiguous = true;
    for (&d, &s) in t.shape.iter().zip(&t.stride).rev() {
        if d != 1 && s != expect {
            contiguous = false;
            break;
        }
        expect *= d;
    }
    let dtype = t.storage.dtype;
    if contiguous {
        return decode(dtype, buf, t.offset, n);
    }
    let sz = dtype.size();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; t.shape.len()];
    for _ in 0..n {
        let at = t.offset + idx.iter().zip(&t.stride).map(|(i, s)| i * s).sum::<usize>();
        out.push(decode_one(dtype, &buf[at * sz..(at + 1) * sz]));
        for dim in (0..idx.len()).rev() {
            idx[dim] += 1;
            if idx[dim] < t.shape[dim] {
                break;
            }
            idx[dim] = 0;
        }
    }
    out
}

/// The state dict: `root["state_dict"]` (Lightning), else the root itself when it is a dict
/// whose values are all tensors (a `pytorch_model.bin`).
fn find_state_dict<'a>(up: &'a pickle::Unpickled, path: &Path) -> Result<(&'a Value, bool)> {
    let root = &up.root;
    if up.dict_items(root).is_none() {
        return Err(format_err(path, format!("the pickle holds a {}, not a dict of tensors", up.kind(root))));
    }
    if let Some(sd) = up.get(root, "state_dict") {
        if up.dict_items(sd).is_some() {
            return Ok((sd, true));
        }
        return Err(format_err(path, format!("`state_dict` is a {}, not a dict", up.kind(sd))));
    }
    let items = up.dict_items(root).unwrap_or_default();
    if !items.is_empty() && items.iter().all(|(_, v)| matches!(v, Value::Tensor(_))) {
        return Ok((root, false));
    }
    if let Some((k, v)) = items.iter().find(|(_, v)| !matches!(v, Value::Tensor(_))) {
        if items.iter().any(|(_, v)| matches!(v, Value::Tensor(_))) {
            let key = k.as_str().map_or_else(|| up.kind(k), |s| format!("`{s}`"));
            return Err(format_err(
                path,
                format!("no `state_dict` entry, and top-level entry {key} is a {}, not a tensor", up.kind(v)),
            ));
        }
    }
    Err(format_err(
        path,
        "no `state_dict` entry and the top-level dict is not a dict of tensors: not a model checkpoint",
    ))
}
