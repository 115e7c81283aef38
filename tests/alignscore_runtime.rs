//! factpico-runtime on real model directories: the inferred manifest of the shared MiniLM
//! NLI asset, pair encoding identical to `tokenizers`' own pair encoding (special tokens,
//! type ids), truncation reports, known predictions, provenance hash.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod alignscore_support;
mod common;

use factpico_runtime::{
    ModelTask, PairClassifier, SessionOptions, TruncationConfig, TruncationSide, TruncationStrategy,
};

fn tokenizers_pair_ids(clf: &PairClassifier, a: &str, b: &str) -> (Vec<i64>, Vec<i64>) {
    let e = clf.tokenizer().encode((a, b), true).unwrap();
    (e.get_ids().iter().map(|&i| i64::from(i)).collect(), e.get_type_ids().iter().map(|&i| i64::from(i)).collect())
}

const TEXTS: &[(&str, &str)] = &[
    ("Metformin reduced HbA1c by 1.2% in 300 adults with type 2 diabetes compared with placebo.", "Metformin raised HbA1c in adults with diabetes."),
    ("", "Empty premise."),
    ("Dr. Smith et al. reported β-agonist ≥ 5 µg/kg — “quoted” didn’t.", ""),
];

#[test]
fn minilm_inferred_manifest_encoding_and_predictions() {
    let Some(model) = common::require_shared("minilm_inferred_manifest_encoding_and_predictions", "models/minilm-nli/model.onnx") else {
        return;
    };
    if !alignscore_support::ort_or_skip("minilm_inferred_manifest_encoding_and_predictions") {
        return;
    }
    let dir = model.parent().unwrap();
    let clf = PairClassifier::load(dir, &SessionOptions::default().intra_threads(2)).unwrap();
    let m = clf.manifest();
    assert!(clf.model_dir().manifest_is_inferred());
    assert_eq!(m.task, ModelTask::Nli);
    assert_eq!(m.architecture, "bert");
    assert_eq!(m.inputs, ["input_ids", "attention_mask", "token_type_ids"]);
    assert_eq!(m.outputs, ["logits"]);
    assert_eq!(m.labels_of("logits").unwrap(), ["entailment", "neutral", "contradiction"]);
    assert_eq!((m.max_length, m.pad_token_id), (512, 0));
    assert_eq!(clf.special_tokens_in_pair(), 3);
    // README of the asset: sha256 of model.onnx.
    assert_eq!(clf.model_dir().model_sha256().unwrap(), "bff977bbb3749457231a83b1da298a6ec000dadcb9d650c0fc7f7c85134141bd");

    // Our (segment, truncate, post-process) path = tokenizers' own pair encoding.
    for (a, b) in TEXTS {
        let enc = clf.encode_pairs(&[(a, b)]).unwrap();
        assert_eq!((enc[0].input_ids.clone(), enc[0].token_type_ids.clone()), tokenizers_pair_ids(&clf, a, b), "{a:?} / {b:?}");
        assert_eq!(enc[0].truncation.dropped(), 0);
    }
    // longest_first to 16 tokens: 3 specials + 13 text tokens, longer side cut first.
    let (pa, pb) = (clf.segment(TEXTS[0].0).unwrap(), clf.segment(TEXTS[0].1).unwrap());
    let lf = TruncationConfig { strategy: TruncationStrategy::LongestFirst, side: TruncationSide::Right, fallback: None };
    let e = clf.encode_group(&[(&pa, &pb)], 16, &lf).unwrap();
    assert_eq!(e[0].len(), 16);
    assert_eq!(e[0].truncation.dropped(), pa.len() + pb.len() - 13);
    // only_first impossible (hypothesis alone too long) -> error without fallback, fallback flagged with it.
    let of = TruncationConfig { strategy: TruncationStrategy::OnlyFirst, side: TruncationSide::Right, fallback: None };
    assert!(clf.encode_group(&[(&pa, &pb)], 8, &of).is_err());
    let of_fb = TruncationConfig { fallback: Some(TruncationStrategy::LongestFirst), ..of };
    let e = clf.encode_group(&[(&pa, &pa), (&pa, &pb)], 12, &of_fb).unwrap();
    assert!(e.iter().all(|x| x.truncation.fell_back && x.len() == 12));

    // Known predictions (asset README, fp32): contradiction 0.980 / entailment 0.9815.
    let out = clf
        .classify(&[(TEXTS[0].0, TEXTS[0].1), (TEXTS[0].0, "Metformin lowered HbA1c in adults with diabetes.")], 4)
        .unwrap();
    let p0 = factpico_runtime::softmax(out[0].0.get("logits").unwrap());
    let p1 = factpico_runtime::softmax(out[1].0.get("logits").unwrap());
    assert!((p0[2] - 0.980).abs() < 0.005, "{p0:?}");
    assert!((p1[0] - 0.9815).abs() < 0.005, "{p1:?}");
    eprintln!("minilm_inferred_manifest_encoding_and_predictions: {} encodings compared, 2 predictions", TEXTS.len());
}

#[test]
fn roberta_fixture_pair_template() {
    if !alignscore_support::ort_or_skip("roberta_fixture_pair_template") {
        return;
    }
    let clf = PairClassifier::load(alignscore_support::tiny_model(), &SessionOptions::default().intra_threads(1)).unwrap();
    assert_eq!(clf.special_tokens_in_pair(), 4);
    assert_eq!(clf.manifest().task, ModelTask::Alignscore);
    for (a, b) in TEXTS {
        let enc = clf.encode_pairs(&[(a, b)]).unwrap();
        let (ids, _) = tokenizers_pair_ids(&clf, a, b);
        assert_eq!(enc[0].input_ids, ids, "{a:?} / {b:?}");
        // <s> A </s></s> B </s>
        assert_eq!(enc[0].input_ids[0], 0);
        assert_eq!(*enc[0].input_ids.last().unwrap(), 2);
    }
    let out = clf.classify(&[(TEXTS[0].0, TEXTS[0].1)], 1).unwrap();
    assert_eq!(out[0].0.names(), ["tri_logits", "bin_logits", "reg"]);
    assert_eq!((out[0].0.get("tri_logits").unwrap().len(), out[0].0.get("reg").unwrap().len()), (3, 1));
    let st = clf.stats();
    assert_eq!((st.batches, st.pairs), (1, 1));
    eprintln!("roberta_fixture_pair_template: {} encodings compared", TEXTS.len());
}

/// Issue 23 (class 17): another model's tokenizer, with more ids than the graph's embedding
/// table, is refused when the model loads (one clear error naming the tokenizer and both
/// sizes) instead of failing on every row with a raw ONNX Runtime message; for pair models
/// (AlignScore, SummaC, DAE), single-sequence models (MiniCheck, FactCG, HHEM, LERC), extractive
/// QA and seq2seq generators.
#[test]
fn a_tokenizer_larger_than_the_embedding_table_is_refused_at_load() {
    if !alignscore_support::ort_or_skip("a_tokenizer_larger_than_the_embedding_table_is_refused_at_load") {
        return;
    }
    let fixtures = alignscore_support::tiny_model().parent().unwrap().to_owned();
    let foreign = fixtures.join("dae-tiny/tokenizer.json"); // 6,000 ids; the graphs below embed 1,000
    // DAE's own tokenizer with 100 more WordPiece entries (no fixture tokenizer is larger).
    let grown = tempfile::tempdir().unwrap();
    let foreign_to_dae = grown.path().join("tokenizer.json");
    let mut tok: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(fixtures.join("dae-tiny/tokenizer.json")).unwrap()).unwrap();
    let vocab = tok["model"]["vocab"].as_object_mut().unwrap();
    let base = vocab.len();
    for k in 0..100 {
        vocab.insert(format!("grown{k}"), serde_json::json!(base + k));
    }
    std::fs::write(&foreign_to_dae, tok.to_string()).unwrap();
    let opts = SessionOptions::default().intra_threads(1);
    for name in ["alignscore-tiny", "minicheck-roberta-large-tiny"] {
        let dir = tempfile::tempdir().unwrap();
        for f in ["factpico.json", "model.onnx"] {
            std::fs::copy(fixtures.join(name).join(f), dir.path().join(f)).unwrap();
        }
        std::fs::copy(&foreign, dir.path().join("tokenizer.json")).unwrap();
        let e = if name == "alignscore-tiny" {
            PairClassifier::load(dir.path(), &opts).map(|_| ()).unwrap_err()
        } else {
            factpico_runtime::sequence::SequenceClassifier::load(dir.path(), &opts).map(|_| ()).unwrap_err()
        };
        let e = e.to_string();
        assert!(e.contains("has 6000 ids but the graph cannot embed id 5999") && e.contains("does not belong to this model"), "{name}: {e}");
        // With its own tokenizer the same graph loads.
        std::fs::copy(fixtures.join(name).join("tokenizer.json"), dir.path().join("tokenizer.json")).unwrap();
        if name == "alignscore-tiny" {
            PairClassifier::load(dir.path(), &opts).unwrap();
        } else {
            factpico_runtime::sequence::SequenceClassifier::load(dir.path(), &opts).unwrap();
        }
    }
    // Extractive QA (QAEval's answerer) and seq2seq (QuestEval's generators; the encoder and the
    // decoder's first step are probed).
    for (name, files) in [
        ("qa-tiny", &["factpico.json", "model.onnx"][..]),
        ("dae-tiny", &["factpico.json", "model.onnx"][..]),
        ("t5-tiny-qg", &["factpico.json", "config.json", "generation_config.json", "encoder_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx"][..]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        for f in files {
            std::fs::copy(fixtures.join(name).join(f), dir.path().join(f)).unwrap();
        }
        let load = || -> Result<(), String> {
            if name == "qa-tiny" {
                factpico_runtime::extractive_qa::ExtractiveQaModel::load(dir.path(), &opts).map(|_| ()).map_err(|e| e.to_string())
            } else if name == "dae-tiny" {
                factpico_runtime::dae::DaeArcModel::load(dir.path(), &opts).map(|_| ()).map_err(|e| e.to_string())
            } else {
                factpico_runtime::seq2seq::Seq2SeqModel::load(dir.path(), &opts).map(|_| ()).map_err(|e| e.to_string())
            }
        };
        let (other, ids) = if name == "dae-tiny" { (&foreign_to_dae, base + 100) } else { (&foreign, 6000) };
        std::fs::copy(other, dir.path().join("tokenizer.json")).unwrap();
        let e = load().unwrap_err();
        let want = format!("has {ids} ids but the graph cannot embed id {}", ids - 1);
        assert!(e.contains(&want) && e.contains("does not belong to this model"), "{name}: {e}");
        std::fs::copy(fixtures.join(name).join("tokenizer.json"), dir.path().join("tokenizer.json")).unwrap();
        load().unwrap();
    }
}
