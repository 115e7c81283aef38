//! The checkpoint reader: dtypes / strides / offsets against torch's own values
//! (`fixtures/checkpoints/dtypes.{pt,json}`), hostile pickles assembled byte by byte here
//! (nothing they name is ever called), and corrupt / truncated / mismatched inputs (clear
//! errors, no panic).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../tests/common/mod.rs"]
mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use factpico_convert::{convert_alignscore, convert_roberta_sequence_classification, Checkpoint, ConvertOptions, Error};

fn ckpts() -> PathBuf {
    common::workspace_root().join("fixtures/checkpoints")
}

#[test]
fn dtypes_strides_and_offsets_match_torch() {
    let ck = Checkpoint::open(&ckpts().join("dtypes.pt")).unwrap();
    assert!(ck.from_state_dict_key());
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ckpts().join("dtypes.json")).unwrap()).unwrap();
    let want = want.as_object().unwrap();
    assert_eq!(ck.tensors().len(), want.len());
    for (name, w) in want {
        let shape: Vec<usize> = w["shape"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
        assert_eq!(ck.tensors()[name].shape, shape, "{name}");
        let got = ck.tensor_f32(name).unwrap();
        let exp: Vec<f32> = w["values"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
        assert_eq!(got, exp, "{name}");
    }
    // the transposed views really are transposes of the contiguous tensor
    let (a, t) = (ck.tensor_f32("f32").unwrap(), ck.tensor_f32("f32_t").unwrap());
    assert_eq!(a[1], t[4]); // a[0][1] == t[1][0]  (a: 4x6, t: 6x4)
}

/// A `torch.save`-style zip: `archive/data.pkl` = `pickle`, `archive/data/0` = `storage`.
fn torch_zip(path: &Path, pickle: &[u8], storage: &[u8]) {
    let f = std::fs::File::create(path).unwrap();
    let mut z = zip::ZipWriter::new(f);
    let o: zip::write::SimpleFileOptions =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    z.start_file("archive/data.pkl", o).unwrap();
    z.write_all(pickle).unwrap();
    z.start_file("archive/byteorder", o).unwrap();
    z.write_all(b"little").unwrap();
    z.start_file("archive/data/0", o).unwrap();
    z.write_all(storage).unwrap();
    z.finish().unwrap();
}

fn short_str(s: &str) -> Vec<u8> {
    let mut v = vec![0x8c, s.len() as u8];
    v.extend_from_slice(s.as_bytes());
    v
}

fn binunicode(s: &str) -> Vec<u8> {
    let mut v = vec![b'X'];
    v.extend_from_slice(&(s.len() as u32).to_le_bytes());
    v.extend_from_slice(s.as_bytes());
    v
}

/// `{'w': _rebuild_tensor_v2(storage('0', FloatStorage, numel), offset, shape, stride, False, OrderedDict()), extra_key: extra}`
fn state_dict_pickle(numel: u8, offset: u8, shape: &[u8], stride: &[u8], extra: Option<(&str, Vec<u8>)>) -> Vec<u8> {
    let mut p = vec![0x80, 2, b'}', b'('];
    p.extend(binunicode("w"));
    p.extend(b"ctorch._utils\n_rebuild_tensor_v2\n(");
    // persistent id ('storage', torch.FloatStorage, '0', 'cpu', numel)
    p.push(b'(');
    p.extend(binunicode("storage"));
    p.extend(b"ctorch\nFloatStorage\n");
    p.extend(binunicode("0"));
    p.extend(binunicode("cpu"));
    p.extend([b'K', numel, b't', b'Q']);
    p.extend([b'K', offset]);
    p.push(b'(');
    for d in shape {
        p.extend([b'K', *d]);
    }
    p.push(b't');
    p.push(b'(');
    for s in stride {
        p.extend([b'K', *s]);
    }
    p.push(b't');
    p.push(0x89);
    p.extend(b"ccollections\nOrderedDict\n)R");
    p.extend([b't', b'R']);
    if let Some((k, v)) = extra {
        p.extend(binunicode(k));
        p.extend(v);
    }
    p.extend([b'u', b'.']);
    p
}

fn floats(n: usize) -> Vec<u8> {
    (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect()
}

/// `module.name(command)` via GLOBAL (`stack == false`) or STACK_GLOBAL, then REDUCE.
fn call(module: &str, name: &str, arg: &str, stack: bool) -> Vec<u8> {
    let mut v = Vec::new();
    if stack {
        v.extend(short_str(module));
        v.extend(short_str(name));
        v.push(0x93);
    } else {
        v.extend(format!("c{module}\n{name}\n").bytes());
    }
    v.extend(binunicode(arg));
    v.extend([0x85, b'R']);
    v
}

#[test]
fn handwritten_tensor_pickle_is_read_with_its_view() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("ok.pt");
    // storage 0..12, view offset 2, shape (2, 3), stride (1, 2): [[2,4,6],[3,5,7]]
    torch_zip(&p, &state_dict_pickle(12, 2, &[2, 3], &[1, 2], None), &floats(12));
    let ck = Checkpoint::open(&p).unwrap();
    assert!(!ck.from_state_dict_key());
    assert_eq!(ck.tensor_f32("w").unwrap(), vec![2.0, 4.0, 6.0, 3.0, 5.0, 7.0]);
}

#[test]
fn code_execution_globals_are_never_called() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("marker");
    let m = marker.display().to_string();
    let attempts: Vec<(&str, &str, String)> = vec![
        ("os", "system", format!("touch {m}")),
        ("posix", "system", format!("touch {m}")),
        ("builtins", "eval", format!("open({m:?}, 'w')")),
        ("__builtin__", "eval", format!("open({m:?}, 'w')")),
        ("builtins", "exec", format!("open({m:?}, 'w')")),
        ("subprocess", "Popen", format!("touch {m}")),
    ];
    for (module, name, arg) in &attempts {
        for stack in [false, true] {
            // 1. the call is the whole pickle: no state dict, a clear error
            let p = tmp.path().join("root.pt");
            let mut pk = vec![0x80, 4];
            pk.extend(call(module, name, arg, stack));
            pk.push(b'.');
            torch_zip(&p, &pk, &floats(4));
            let e = Checkpoint::open(&p).unwrap_err();
            assert!(matches!(e, Error::Format { .. }), "{e}");
            assert!(e.to_string().contains("not a dict of tensors"), "{e}");
            // 2. the call is a value beside a real tensor: the tensor is read, the call ignored
            let p = tmp.path().join("beside.pt");
            torch_zip(&p, &state_dict_pickle(4, 0, &[4], &[1], Some(("evil", call(module, name, arg, stack)))), &floats(4));
            let e = Checkpoint::open(&p).unwrap_err();
            assert!(e.to_string().contains("`evil`") && e.to_string().contains("never called"), "{e}");
            // 3. inside a Lightning-style checkpoint next to `state_dict`: converted data, call ignored
            let p = tmp.path().join("lightning.pt");
            let mut pk = vec![0x80, 2, b'}', b'('];
            pk.extend(binunicode("hyper_parameters"));
            pk.extend(call(module, name, arg, stack));
            pk.extend(binunicode("state_dict"));
            let inner = state_dict_pickle(4, 0, &[4], &[1], None);
            pk.extend(&inner[2..inner.len() - 1]); // the dict without PROTO and STOP
            pk.extend([b'u', b'.']);
            torch_zip(&p, &pk, &floats(4));
            let ck = Checkpoint::open(&p).unwrap();
            assert_eq!(ck.tensor_f32("w").unwrap(), vec![0.0, 1.0, 2.0, 3.0]);
            assert!(ck.ignored_globals().contains(&format!("{module}.{name}")), "{:?}", ck.ignored_globals());
            assert!(!marker.exists(), "{module}.{name} was executed");
        }
    }
    // BUILD / NEWOBJ / INST / OBJ on a hostile class: opaque, nothing constructed
    let p = tmp.path().join("newobj.pt");
    let mut evil = b"cos\nsystem\n".to_vec();
    evil.extend(binunicode(&format!("touch {m}")));
    evil.extend([0x85, 0x81]); // NEWOBJ
    evil.extend(b"}b"); // BUILD with an empty state
    evil.extend(b"(");
    evil.extend(binunicode(&format!("touch {m}")));
    evil.extend(b"ios\nsystem\n"); // INST
    evil.push(b'0');
    torch_zip(&p, &state_dict_pickle(4, 0, &[4], &[1], Some(("x", evil))), &floats(4));
    let e = Checkpoint::open(&p).unwrap_err();
    assert!(e.to_string().contains("never"), "{e}");
    assert!(!marker.exists());
}

#[test]
fn corrupt_and_truncated_inputs_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let ckpt = ckpts().join("alignscore-tiny/AlignScore-tiny.ckpt");
    let bytes = std::fs::read(&ckpt).unwrap();

    // truncated zip (central directory gone)
    let p = tmp.path().join("trunc.ckpt");
    std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
    let e = Checkpoint::open(&p).unwrap_err();
    assert!(matches!(e, Error::Zip { .. }), "{e}");

    // truncated pickle
    let p = tmp.path().join("pkl.pt");
    let full = state_dict_pickle(4, 0, &[4], &[1], None);
    torch_zip(&p, &full[..full.len() - 9], &floats(4));
    let e = Checkpoint::open(&p).unwrap_err();
    assert!(matches!(e, Error::Pickle { .. }) && e.to_string().contains("truncated"), "{e}");

    // storage file shorter than the pickle says
    let p = tmp.path().join("short.pt");
    torch_zip(&p, &state_dict_pickle(12, 0, &[12], &[1], None), &floats(3));
    let e = Checkpoint::open(&p).unwrap_err();
    assert!(e.to_string().contains("holds 12 bytes"), "{e}");

    // a view reaching past its storage
    let p = tmp.path().join("view.pt");
    torch_zip(&p, &state_dict_pickle(4, 2, &[2, 2], &[2, 1], None), &floats(4));
    let e = Checkpoint::open(&p).unwrap_err();
    assert!(matches!(e, Error::Tensor { .. }) && e.to_string().contains("reaches element"), "{e}");

    // a zip that is not a torch.save archive
    let p = tmp.path().join("other.zip");
    {
        let mut z = zip::ZipWriter::new(std::fs::File::create(&p).unwrap());
        z.start_file("readme.txt", zip::write::SimpleFileOptions::default()).unwrap();
        z.write_all(b"hello").unwrap();
        z.finish().unwrap();
    }
    let e = Checkpoint::open(&p).unwrap_err();
    assert!(e.to_string().contains("not a torch.save checkpoint"), "{e}");

    // random bytes, empty file, a legacy (protocol-2 raw pickle) torch.save file
    for (name, data) in [("rand.bin", vec![7u8; 100]), ("empty.bin", vec![]), ("legacy.pt", vec![0x80, 2, 0x8a, 10, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, b'.'])] {
        let p = tmp.path().join(name);
        std::fs::write(&p, data).unwrap();
        let e = Checkpoint::open(&p).unwrap_err();
        assert!(matches!(e, Error::Format { .. }), "{name}: {e}");
    }

    // truncated safetensors
    let st = std::fs::read(ckpts().join("minicheck-roberta-tiny/model.safetensors")).unwrap();
    let p = tmp.path().join("trunc.safetensors");
    std::fs::write(&p, &st[..st.len() - 100]).unwrap();
    let e = Checkpoint::open(&p).unwrap_err();
    assert!(e.to_string().contains("does not match bytes") || e.to_string().contains("header"), "{e}");
}

#[test]
fn config_mismatches_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let src = ckpts().join("alignscore-tiny");
    let cfg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("roberta-tiny/config.json")).unwrap()).unwrap();
    let backbone = |name: &str, edit: &dyn Fn(&mut serde_json::Value)| -> PathBuf {
        let d = tmp.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        for f in ["vocab.json", "merges.txt"] {
            std::fs::copy(src.join("roberta-tiny").join(f), d.join(f)).unwrap();
        }
        let mut c = cfg.clone();
        edit(&mut c);
        std::fs::write(d.join("config.json"), c.to_string()).unwrap();
        d
    };
    let ckpt = src.join("AlignScore-tiny.ckpt");
    let opts = ConvertOptions::default();
    // a wider model than the checkpoint
    let b = backbone("wide", &|c| c["hidden_size"] = 128.into());
    let e = convert_alignscore(&ckpt, &b, &tmp.path().join("o1"), &opts).unwrap_err();
    assert!(matches!(e, Error::Mismatch { .. }) && e.to_string().contains("the config implies"), "{e}");
    // a checkpoint deeper than the config (large checkpoint, base config)
    let b = backbone("shallow", &|c| c["num_hidden_layers"] = 1.into());
    let e = convert_alignscore(&ckpt, &b, &tmp.path().join("o2"), &opts).unwrap_err();
    assert!(e.to_string().contains("unexpected weight") && e.to_string().contains("layer.1"), "{e}");
    // unsupported activation / model type
    let b = backbone("act", &|c| c["hidden_act"] = "relu".into());
    let e = convert_alignscore(&ckpt, &b, &tmp.path().join("o3"), &opts).unwrap_err();
    assert!(matches!(e, Error::Config { .. }) && e.to_string().contains("hidden_act"), "{e}");
    let b = backbone("bert", &|c| c["model_type"] = "bert".into());
    let e = convert_alignscore(&ckpt, &b, &tmp.path().join("o4"), &opts).unwrap_err();
    assert!(e.to_string().contains("model_type"), "{e}");
    // an AlignScore checkpoint given as a sequence classifier: missing classifier weights
    let d = tmp.path().join("seqcls");
    std::fs::create_dir_all(&d).unwrap();
    for f in ["vocab.json", "merges.txt", "config.json"] {
        std::fs::copy(src.join("roberta-tiny").join(f), d.join(f)).unwrap();
    }
    let e = convert_roberta_sequence_classification(&d, Some(&ckpt), &tmp.path().join("o5"), &opts).unwrap_err();
    assert!(e.to_string().contains("missing weight `roberta."), "{e}");
    // missing tokenizer files
    std::fs::remove_file(d.join("merges.txt")).unwrap();
    let e = convert_roberta_sequence_classification(&d, Some(&ckpt), &tmp.path().join("o6"), &opts).unwrap_err();
    assert!(matches!(e, Error::Tokenizer { .. }), "{e}");
    for o in ["o1", "o2", "o3", "o4", "o5", "o6"] {
        assert!(!tmp.path().join(o).exists(), "{o} left behind");
    }
}

/// Truncations and byte flips of a real Lightning pickle (with its hostile entries): the
/// interpreter returns a value or an error, never panics, never loops.
#[test]
fn pickle_mutations_never_panic() {
    let f = std::fs::File::open(ckpts().join("alignscore-tiny/AlignScore-tiny-hostile.ckpt")).unwrap();
    let mut z = zip::ZipArchive::new(f).unwrap();
    let mut pkl = Vec::new();
    std::io::Read::read_to_end(&mut z.by_name("AlignScore-tiny-hostile/data.pkl").unwrap(), &mut pkl).unwrap();
    assert!(factpico_convert::pickle::unpickle(&pkl).is_ok());
    let step = (pkl.len() / 200).max(1);
    let mut errors = 0;
    for cut in (0..pkl.len()).step_by(step) {
        errors += usize::from(factpico_convert::pickle::unpickle(&pkl[..cut]).is_err());
    }
    assert!(errors > 150, "truncated streams must fail: {errors}");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..500 {
        let mut m = pkl.clone();
        for _ in 0..(1 + next() % 4) {
            let i = (next() % m.len() as u64) as usize;
            m[i] = (next() & 0xff) as u8;
        }
        let _ = factpico_convert::pickle::unpickle(&m);
    }
}
