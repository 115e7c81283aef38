//! ONNX graph of a RoBERTa encoder (Hugging Face `RobertaModel`, eager attention, inference)
//! plus a head, built from `config.json` and written with weights as ONNX external data.
//!
//! The graph computes, for int64 `input_ids` / `attention_mask` `[batch, sequence]`:
//!
//! * position ids `cumsum(ids != pad, 1) * (ids != pad) + pad` (`create_position_ids_from_input_ids`);
//! * embeddings `(word[ids] + token_type[zeros like ids]) + position[pos]`, then LayerNorm (eps from config);
//! * per layer: `q, k, v = x W^T + b`, scores `q k^T / sqrt(head_dim) + (1 - mask) * f32::MIN`,
//!   softmax, context, output dense + residual + LayerNorm, intermediate dense, exact (erf)
//!   GELU, output dense + residual + LayerNorm (dropout inactive);
//! * the head ([`Head`]) on the hidden state of token 0.
//!
//! Weights are read from the checkpoint one tensor at a time, linear weights transposed to
//! `[in, out]`, and appended to `model.onnx.data`; `model.onnx` holds the graph and small
//! constants only. Peak memory is about twice the largest tensor (the word embeddings).
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use prost::Message;

use crate::checkpoint::Checkpoint;
use crate::error::{Error, Result};
use crate::onnx::*;

/// ONNX opset written (LayerNormalization exists since 17).
pub const OPSET: i64 = 17;
/// ONNX IR version matching opset 17.
pub const IR_VERSION: i64 = 8;
/// File name of the external weights beside `model.onnx`.
pub const DATA_FILE: &str = "model.onnx.data";

/// The encoder hyper-parameters read from `config.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct RobertaConfig {
    /// `vocab_size`.
    pub vocab_size: usize,
    /// `hidden_size`.
    pub hidden_size: usize,
    /// `num_hidden_layers`.
    pub num_hidden_layers: usize,
    /// `num_attention_heads` (divides `hidden_size`).
    pub num_attention_heads: usize,
    /// `intermediate_size`.
    pub intermediate_size: usize,
    /// `max_position_embeddings`.
    pub max_position_embeddings: usize,
    /// `type_vocab_size` (>= 1; row 0 is used).
    pub type_vocab_size: usize,
    /// `layer_norm_eps`.
    pub layer_norm_eps: f32,
    /// `pad_token_id`.
    pub pad_token_id: i64,
}

impl RobertaConfig {
    /// Reads and checks `config.json`: `model_type` `roberta`, `hidden_act` `gelu`,
    /// `position_embedding_type` `absolute` (when present), heads dividing the hidden size.
    ///
    /// # Errors
    /// [`Error::Io`], [`Error::Config`] naming the missing / unsupported field.
    pub fn from_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("read", path, e))?;
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| Error::Config { path: path.into(), reason: format!("not JSON: {e}") })?;
        let cerr = |reason: String| Error::Config { path: path.into(), reason };
        let str_field = |k: &str| v.get(k).and_then(|x| x.as_str());
        match str_field("model_type") {
            Some("roberta") => {}
            other => return Err(cerr(format!("model_type is {other:?}; only \"roberta\" encoders are supported"))),
        }
        if let Some(act) = str_field("hidden_act") {
            if act != "gelu" {
                return Err(cerr(format!("hidden_act {act:?} is not supported (only \"gelu\")")));
            }
        }
        if let Some(p) = str_field("position_embedding_type") {
            if p != "absolute" {
                return Err(cerr(format!("position_embedding_type {p:?} is not supported (only \"absolute\")")));
            }
        }
        let us = |k: &str| -> Result<usize> {
            match v.get(k).and_then(|x| x.as_u64()) {
                Some(n) if n > 0 && n < (1 << 31) => Ok(n as usize),
                _ => Err(cerr(format!("`{k}` is missing or not a positive integer"))),
            }
        };
        let c = RobertaConfig {
            vocab_size: us("vocab_size")?,
            hidden_size: us("hidden_size")?,
            num_hidden_layers: us("num_hidden_layers")?,
            num_attention_heads: us("num_attention_heads")?,
            intermediate_size: us("intermediate_size")?,
            max_position_embeddings: us("max_position_embeddings")?,
            type_vocab_size: us("type_vocab_size")?,
            layer_norm_eps: v.get("layer_norm_eps").and_then(|x| x.as_f64()).unwrap_or(1e-12) as f32,
            pad_token_id: v.get("pad_token_id").and_then(|x| x.as_i64()).unwrap_or(1),
        };
        if !c.hidden_size.is_multiple_of(c.num_attention_heads) {
            return Err(cerr(format!(
                "hidden_size {} is not a multiple of num_attention_heads {}",
                c.hidden_size, c.num_attention_heads
            )));
        }
        if c.pad_token_id < 0 || c.pad_token_id as usize >= c.vocab_size {
            return Err(cerr(format!("pad_token_id {} is outside the vocabulary", c.pad_token_id)));
        }
        if c.max_position_embeddings < c.pad_token_id as usize + 2 {
            return Err(cerr("max_position_embeddings leaves no room after the padding offset".into()));
        }
        Ok(c)
    }
}

/// The head on top of the encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// AlignScore's `BERTAlignModel`: pooler (dense + tanh on token 0) → `tri_layer` (3),
    /// `bin_layer` (2), `reg_layer` (1); outputs `tri_logits`, `bin_logits`, `reg`.
    AlignScore,
    /// `RobertaForSequenceClassification`'s `RobertaClassificationHead` (dense + tanh on
    /// token 0 → `out_proj`); output `logits` `[batch, num_labels]`.
    SequenceClassification {
        /// Number of labels (rows of `classifier.out_proj.weight`).
        num_labels: usize,
    },
}

impl Head {
    /// Graph output names.
    pub fn outputs(self) -> Vec<&'static str> {
        match self {
            Head::AlignScore => vec!["tri_logits", "bin_logits", "reg"],
            Head::SequenceClassification { .. } => vec!["logits"],
        }
    }
}

/// How checkpoint keys map onto the graph: the encoder prefix (`base_model.` / `roberta.`),
/// and key prefixes / suffixes that are present in published checkpoints but not used.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Prefix of the encoder's keys (`base_model.` for AlignScore, `roberta.` for HF classifiers).
    pub encoder_prefix: &'static str,
    /// Keys starting with any of these are ignored (e.g. `mlm_head.`).
    pub ignore_prefixes: Vec<String>,
    /// Keys ending with any of these are ignored (e.g. `embeddings.position_ids`).
    pub ignore_suffixes: Vec<&'static str>,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct GraphReport {
    /// Number of weights taken from the checkpoint.
    pub weights: usize,
    /// Number of parameters (f32 values) written to `model.onnx.data`.
    pub parameters: usize,
    /// Checkpoint keys that were ignored by the layout (e.g. `mlm_head.*`).
    pub ignored_keys: Vec<String>,
}

struct Builder<'a> {
    ckpt: &'a Checkpoint,
    nodes: Vec<NodeProto>,
    inits: Vec<TensorProto>,
    data: std::io::BufWriter<std::fs::File>,
    data_path: PathBuf,
    offset: u64,
    counter: usize,
    used: BTreeMap<String, ()>,
    parameters: usize,
}

fn attr_i(name: &str, i: i64) -> AttributeProto {
    AttributeProto { name: name.into(), i, r#type: ATTR_INT, ..Default::default() }
}
fn attr_f(name: &str, f: f32) -> AttributeProto {
    AttributeProto { name: name.into(), f, r#type: ATTR_FLOAT, ..Default::default() }
}
/// `value` attribute of ConstantOfShape: a one-element int64 zero tensor.
fn attr_t_i64_zero() -> AttributeProto {
    AttributeProto {
        name: "value".into(),
        t: Some(TensorProto { dims: vec![1], data_type: INT64, raw_data: 0i64.to_le_bytes().to_vec(), ..Default::default() }),
        r#type: ATTR_TENSOR,
        ..Default::default()
    }
}
fn attr_ints(name: &str, ints: &[i64]) -> AttributeProto {
    AttributeProto { name: name.into(), ints: ints.to_vec(), r#type: ATTR_INTS, ..Default::default() }
}

fn value_info(name: &str, elem: i32, dims: &[Result<i64, &str>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| match d {
            Ok(v) => Dimension { dim_value: Some(*v), dim_param: None },
            Err(p) => Dimension { dim_value: None, dim_param: Some((*p).to_owned()) },
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TypeProtoTensor { elem_type: elem, shape: Some(TensorShapeProto { dim }) }),
        }),
    }
}

impl<'a> Builder<'a> {
    fn node(&mut self, op: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> String {
        self.counter += 1;
        let out = format!("{}_{}", op.to_lowercase(), self.counter);
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|s| (*s).to_owned()).collect(),
            output: vec![out.clone()],
            name: format!("{op}_{}", self.counter),
            op_type: op.into(),
            attribute: attrs,
        });
        out
    }
    fn node_named(&mut self, op: &str, inputs: &[&str], attrs: Vec<AttributeProto>, out: &str) {
        self.counter += 1;
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|s| (*s).to_owned()).collect(),
            output: vec![out.to_owned()],
            name: format!("{op}_{}", self.counter),
            op_type: op.into(),
            attribute: attrs,
        });
    }
    /// A small constant embedded in model.onnx.
    fn const_i64(&mut self, name: &str, dims: &[i64], vals: &[i64]) -> String {
        self.inits.push(TensorProto {
            dims: dims.to_vec(),
            data_type: INT64,
            name: name.into(),
            raw_data: vals.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ..Default::default()
        });
        name.into()
    }
    fn const_f32(&mut self, name: &str, v: f32) -> String {
        self.inits.push(TensorProto {
            dims: vec![],
            data_type: FLOAT,
            name: name.into(),
            raw_data: v.to_le_bytes().to_vec(),
            ..Default::default()
        });
        name.into()
    }
    /// Writes `vals` (shape `dims`) to the external data file as initializer `name`.
    fn external(&mut self, name: &str, dims: &[usize], vals: &[f32]) -> Result<String> {
        let pad = (64 - self.offset % 64) % 64;
        let dp = self.data_path.clone();
        self.data.write_all(&vec![0u8; pad as usize]).map_err(|e| Error::io("write", dp, e))?;
        self.offset += pad;
        let mut bytes = Vec::with_capacity(vals.len() * 4);
        for v in vals {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        self.data.write_all(&bytes).map_err(|e| Error::io("write", self.data_path.clone(), e))?;
        let len = bytes.len() as u64;
        self.inits.push(TensorProto {
            dims: dims.iter().map(|d| *d as i64).collect(),
            data_type: FLOAT,
            name: name.into(),
            external_data: vec![
                StringStringEntryProto { key: "location".into(), value: DATA_FILE.into() },
                StringStringEntryProto { key: "offset".into(), value: self.offset.to_string() },
                StringStringEntryProto { key: "length".into(), value: len.to_string() },
            ],
            data_location: EXTERNAL,
            ..Default::default()
        });
        self.offset += len;
        self.parameters += vals.len();
        Ok(name.into())
    }
    /// Reads checkpoint tensor `key`, checks its shape, writes it (transposed for a 2-D linear
    /// weight when `transpose`).
    fn weight(&mut self, key: &str, shape: &[usize], transpose: bool) -> Result<String> {
        let info = self.ckpt.tensors().get(key).ok_or_else(|| Error::Mismatch {
            path: self.ckpt.path().into(),
            what: "the model architecture".into(),
            reason: format!("missing weight `{key}` (expected shape {shape:?})"),
        })?;
        if info.shape != shape {
            return Err(Error::Mismatch {
                path: self.ckpt.path().into(),
                what: "config.json".into(),
                reason: format!("`{key}` has shape {:?}, the config implies {shape:?}", info.shape),
            });
        }
        let vals = self.ckpt.tensor_f32(key)?;
        self.used.insert(key.to_owned(), ());
        if transpose && shape.len() == 2 {
            let (r, c) = (shape[0], shape[1]);
            let mut t = vec![0f32; vals.len()];
            for i in 0..r {
                for j in 0..c {
                    t[j * r + i] = vals[i * c + j];
                }
            }
            self.external(&format!("{key}.T"), &[c, r], &t)
        } else {
            self.external(key, shape, &vals)
        }
    }
    /// `x W^T + b` for checkpoint linear `prefix` (`prefix.weight` `[out, in]`, `prefix.bias`).
    fn linear(&mut self, x: &str, prefix: &str, inp: usize, out: usize) -> Result<String> {
        let w = self.weight(&format!("{prefix}.weight"), &[out, inp], true)?;
        let b = self.weight(&format!("{prefix}.bias"), &[out], false)?;
        let m = self.node("MatMul", &[x, &w], vec![]);
        Ok(self.node("Add", &[&b, &m], vec![]))
    }
    /// `Gemm(x, W, b, transB=1)` on a 2-D input, as torch exports `nn.Linear` on `[batch, in]`
    /// (weight kept `[out, in]`).
    fn gemm(&mut self, x: &str, prefix: &str, inp: usize, out: usize) -> Result<String> {
        let w = self.weight(&format!("{prefix}.weight"), &[out, inp], false)?;
        let b = self.weight(&format!("{prefix}.bias"), &[out], false)?;
        Ok(self.node("Gemm", &[x, &w, &b], vec![attr_f("alpha", 1.0), attr_f("beta", 1.0), attr_i("transB", 1)]))
    }
    /// `[dim0(x), dim1(x), tail...]` computed at run time (Shape → Gather → Unsqueeze →
    /// Concat), as torch exports `x.view(x.size()[:2] + tail)`. Deliberately not a constant
    /// `[0, 0, ...]`: ONNX Runtime then infers the same (partly unknown) shapes as for the torch
    /// export and applies the same fusions, so optimised sessions of both graphs agree.
    fn dyn_shape(&mut self, x: &str, tail: &str) -> String {
        let sh = self.node("Shape", &[x], vec![]);
        let d0 = self.node("Gather", &[&sh, "index_0"], vec![attr_i("axis", 0)]);
        let d1 = self.node("Gather", &[&sh, "index_1"], vec![attr_i("axis", 0)]);
        let u0 = self.node("Unsqueeze", &[&d0, "axes_0"], vec![]);
        let u1 = self.node("Unsqueeze", &[&d1, "axes_0"], vec![]);
        self.node("Concat", &[&u0, &u1, tail], vec![attr_i("axis", 0)])
    }
    fn layer_norm(&mut self, x: &str, prefix: &str, h: usize, eps: f32) -> Result<String> {
        let g = self.weight(&format!("{prefix}.weight"), &[h], false)?;
        let b = self.weight(&format!("{prefix}.bias"), &[h], false)?;
        Ok(self.node("LayerNormalization", &[x, &g, &b], vec![attr_i("axis", -1), attr_f("epsilon", eps)]))
    }
}

/// Builds the graph for `cfg` + `head` from `ckpt` and writes `model.onnx` + `model.onnx.data`
/// into `dir` (an existing directory).
///
/// # Errors
/// [`Error::Mismatch`] for a missing / unexpected / wrongly shaped weight; reader errors;
/// [`Error::Io`] when writing fails.
pub fn write_model(ckpt: &Checkpoint, cfg: &RobertaConfig, head: Head, layout: &Layout, dir: &Path) -> Result<GraphReport> {
    let data_path = dir.join(DATA_FILE);
    let file = std::fs::File::create(&data_path).map_err(|e| Error::io("create", &data_path, e))?;
    let mut b = Builder {
        ckpt,
        nodes: Vec::new(),
        inits: Vec::new(),
        data: std::io::BufWriter::with_capacity(1 << 20, file),
        data_path: data_path.clone(),
        offset: 0,
        counter: 0,
        used: BTreeMap::new(),
        parameters: 0,
    };
    let p = layout.encoder_prefix;
    let h = cfg.hidden_size;
    let nh = cfg.num_attention_heads as i64;
    let hd = (cfg.hidden_size / cfg.num_attention_heads) as i64;

    // --- embeddings
    let pad = b.const_i64("pad_token_id", &[], &[cfg.pad_token_id]);
    b.const_i64("index_0", &[], &[0]);
    b.const_i64("index_1", &[], &[1]);
    b.const_i64("axes_0", &[1], &[0]);
    let one_axis = b.const_i64("axis_1", &[], &[1]);
    let eq = b.node("Equal", &["input_ids", &pad], vec![]);
    let ne = b.node("Not", &[&eq], vec![]);
    let ne_i = b.node("Cast", &[&ne], vec![attr_i("to", INT64 as i64)]);
    let cs = b.node("CumSum", &[&ne_i, &one_axis], vec![]);
    let csm = b.node("Mul", &[&cs, &ne_i], vec![]);
    let pos = b.node("Add", &[&csm, &pad], vec![]);
    let we = b.weight(&format!("{p}embeddings.word_embeddings.weight"), &[cfg.vocab_size, h], false)?;
    let pe = b.weight(&format!("{p}embeddings.position_embeddings.weight"), &[cfg.max_position_embeddings, h], false)?;
    let tt_table =
        b.weight(&format!("{p}embeddings.token_type_embeddings.weight"), &[cfg.type_vocab_size, h], false)?;
    // token_type_ids default to zeros shaped like input_ids (HF's buffered zeros, expanded).
    let ids_shape = b.node("Shape", &["input_ids"], vec![]);
    let zeros = b.node("ConstantOfShape", &[&ids_shape], vec![attr_t_i64_zero()]);
    let tt = b.node("Gather", &[&tt_table, &zeros], vec![attr_i("axis", 0)]);
    let wg = b.node("Gather", &[&we, "input_ids"], vec![attr_i("axis", 0)]);
    let pg = b.node("Gather", &[&pe, &pos], vec![attr_i("axis", 0)]);
    let e1 = b.node("Add", &[&wg, &tt], vec![]);
    let e2 = b.node("Add", &[&e1, &pg], vec![]);
    let mut x = b.layer_norm(&e2, &format!("{p}embeddings.LayerNorm"), h, cfg.layer_norm_eps)?;

    // --- additive attention mask [B, 1, 1, S]: (1 - mask) * finfo(float32).min
    let axes12 = b.const_i64("axes_1_2", &[2], &[1, 2]);
    let mu = b.node("Unsqueeze", &["attention_mask", &axes12], vec![]);
    let mu = b.node("Cast", &[&mu], vec![attr_i("to", FLOAT as i64)]);
    let one = b.const_f32("one_f32", 1.0);
    let inv = b.node("Sub", &[&one, &mu], vec![]);
    let fmin = b.const_f32("f32_min", f32::MIN);
    let add_mask = b.node("Mul", &[&inv, &fmin], vec![]);

    let split_tail = b.const_i64("tail_nh_hd", &[2], &[nh, hd]);
    let merge_tail = b.const_i64("tail_h", &[1], &[h as i64]);
    let scale = b.const_f32("sqrt_head_dim", (hd as f32).sqrt());
    let sqrt2 = b.const_f32("sqrt_2", std::f32::consts::SQRT_2);
    let half = b.const_f32("half", 0.5);

    for l in 0..cfg.num_hidden_layers {
        let lp = format!("{p}encoder.layer.{l}");
        let q = b.linear(&x, &format!("{lp}.attention.self.query"), h, h)?;
        let k = b.linear(&x, &format!("{lp}.attention.self.key"), h, h)?;
        let v = b.linear(&x, &format!("{lp}.attention.self.value"), h, h)?;
        let ks = b.dyn_shape(&k, &split_tail);
        let k4 = b.node("Reshape", &[&k, &ks], vec![]);
        let vs = b.dyn_shape(&v, &split_tail);
        let v4 = b.node("Reshape", &[&v, &vs], vec![]);
        let qs = b.dyn_shape(&q, &split_tail);
        let q4 = b.node("Reshape", &[&q, &qs], vec![]);
        let qt = b.node("Transpose", &[&q4], vec![attr_ints("perm", &[0, 2, 1, 3])]);
        let kt = b.node("Transpose", &[&k4], vec![attr_ints("perm", &[0, 2, 3, 1])]);
        let vt = b.node("Transpose", &[&v4], vec![attr_ints("perm", &[0, 2, 1, 3])]);
        let s = b.node("MatMul", &[&qt, &kt], vec![]);
        let s = b.node("Div", &[&s, &scale], vec![]);
        let s = b.node("Add", &[&s, &add_mask], vec![]);
        let pr = b.node("Softmax", &[&s], vec![attr_i("axis", -1)]);
        let c = b.node("MatMul", &[&pr, &vt], vec![]);
        let c = b.node("Transpose", &[&c], vec![attr_ints("perm", &[0, 2, 1, 3])]);
        let cs = b.dyn_shape(&c, &merge_tail);
        let c = b.node("Reshape", &[&c, &cs], vec![]);
        let ao = b.linear(&c, &format!("{lp}.attention.output.dense"), h, h)?;
        let ar = b.node("Add", &[&ao, &x], vec![]);
        let a = b.layer_norm(&ar, &format!("{lp}.attention.output.LayerNorm"), h, cfg.layer_norm_eps)?;
        let i = b.linear(&a, &format!("{lp}.intermediate.dense"), h, cfg.intermediate_size)?;
        // exact GELU: (x * (1 + erf(x / sqrt 2))) * 0.5, in torch's export order (ONNX Runtime's
        // fusions match the same pattern, so optimised sessions agree too)
        let d = b.node("Div", &[&i, &sqrt2], vec![]);
        let e = b.node("Erf", &[&d], vec![]);
        let e1 = b.node("Add", &[&e, &one], vec![]);
        let xe = b.node("Mul", &[&i, &e1], vec![]);
        let g = b.node("Mul", &[&xe, &half], vec![]);
        let o = b.linear(&g, &format!("{lp}.output.dense"), cfg.intermediate_size, h)?;
        let or = b.node("Add", &[&o, &a], vec![]);
        x = b.layer_norm(&or, &format!("{lp}.output.LayerNorm"), h, cfg.layer_norm_eps)?;
    }

    // --- token 0 and the head
    let first = b.node("Gather", &[&x, "index_0"], vec![attr_i("axis", 1)]);
    let mut outputs = Vec::new();
    match head {
        Head::AlignScore => {
            let pd = b.gemm(&first, &format!("{p}pooler.dense"), h, h)?;
            let pooled = b.node("Tanh", &[&pd], vec![]);
            for (name, layer, n) in [("tri_logits", "tri_layer", 3), ("bin_logits", "bin_layer", 2), ("reg", "reg_layer", 1)] {
                let y = b.gemm(&pooled, layer, h, n)?;
                b.node_named("Identity", &[&y], vec![], name);
                outputs.push((name, n));
            }
        }
        Head::SequenceClassification { num_labels } => {
            let d = b.gemm(&first, "classifier.dense", h, h)?;
            let t = b.node("Tanh", &[&d], vec![]);
            let y = b.gemm(&t, "classifier.out_proj", h, num_labels)?;
            b.node_named("Identity", &[&y], vec![], "logits");
            outputs.push(("logits", num_labels));
        }
    }

    // --- every checkpoint key is used or explicitly ignored
    let mut ignored = Vec::new();
    let mut unexpected = Vec::new();
    for key in ckpt.tensors().keys() {
        if b.used.contains_key(key) {
            continue;
        }
        if layout.ignore_prefixes.iter().any(|p| key.starts_with(p.as_str()))
            || layout.ignore_suffixes.iter().any(|s| key.ends_with(s))
        {
            ignored.push(key.clone());
        } else {
            unexpected.push(key.clone());
        }
    }
    if !unexpected.is_empty() {
        let n = unexpected.len();
        unexpected.truncate(8);
        return Err(Error::Mismatch {
            path: ckpt.path().into(),
            what: "the model architecture".into(),
            reason: format!("{n} unexpected weight(s), e.g. {unexpected:?} (a larger model or a different head?)"),
        });
    }
    b.data.flush().map_err(|e| Error::io("write", &data_path, e))?;
    b.data.get_ref().sync_all().map_err(|e| Error::io("write", &data_path, e))?;

    let graph = GraphProto {
        node: std::mem::take(&mut b.nodes),
        name: "factpico_convert_roberta".into(),
        initializer: std::mem::take(&mut b.inits),
        input: vec![
            value_info("input_ids", INT64, &[Err("batch"), Err("sequence")]),
            value_info("attention_mask", INT64, &[Err("batch"), Err("sequence")]),
        ],
        output: outputs.iter().map(|(n, k)| value_info(n, FLOAT, &[Err("batch"), Ok(*k as i64)])).collect(),
    };
    let model = ModelProto {
        ir_version: IR_VERSION,
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: OPSET }],
        producer_name: "factpico-convert".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        doc_string: String::new(),
        graph: Some(graph),
    };
    let path = dir.join(crate::MODEL_FILE);
    std::fs::write(&path, model.encode_to_vec()).map_err(|e| Error::io("write", &path, e))?;
    Ok(GraphReport { weights: b.used.len(), parameters: b.parameters, ignored_keys: ignored })
}
