//! `factpico report` in a real headless Chromium (Debian `chromium` + `chromium-driver`, driven
//! through WebDriver): the pages of the fixtures (scored with the AlignScore, DAE and QA
//! fixture models), of hostile summaries and of the real InfoLossQA documents are loaded and
//! their rendered DOM is checked against the score rows; click and keyboard navigation are
//! exercised; the browser log must stay free of errors. Skips with a visible message without a
//! browser (fails under FACTPICO_REQUIRE_BROWSER=1, set by `.ci/run`) and, for InfoLossQA,
//! without ../shared (fails under FACTPICO_REQUIRE_SHARED=1).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../../tests/common/mod.rs"]
mod common;

mod browser;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use browser::Browser;
use fantoccini::Locator;
use serde_json::{json, Value};

fn root() -> PathBuf {
    common::workspace_root()
}

fn factpico(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_factpico")).args(args).current_dir(cwd).output().unwrap()
}

fn ok(o: &Output, what: &str) -> String {
    assert!(o.status.success(), "{what} failed:\n{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn model(name: &str) -> String {
    root().join("fixtures/models").join(name).display().to_string()
}

/// Byte slice of a text (spans in the score rows are byte offsets).
fn slice<'a>(text: &'a str, span: &Value) -> &'a str {
    let (a, b) = match span {
        Value::Array(v) => (v[0].as_u64().unwrap() as usize, v[1].as_u64().unwrap() as usize),
        v => (v["start"].as_u64().unwrap() as usize, v["end"].as_u64().unwrap() as usize),
    };
    &text[a..b]
}

/// The spaCy sidecar that parses the summaries for DAE (`cargo xtask sidecar`), or `None`
/// after a visible SKIP line (a panic under FACTPICO_REQUIRE_SHARED=1, as the DAE tests do).
fn require_sidecar(test: &str) -> Option<PathBuf> {
    use factpico_nlp::sidecar::{default_venv_python, PYTHON_ENV};
    let p = std::env::var_os(PYTHON_ENV).map(PathBuf::from).or_else(|| default_venv_python().filter(|p| p.exists()));
    if p.is_none() {
        if common::shared_required() {
            panic!("{test}: no sidecar Python ({PYTHON_ENV} unset, no `cargo xtask sidecar` venv) and FACTPICO_REQUIRE_SHARED=1");
        }
        eprintln!("SKIP {test}: no spaCy sidecar for DAE's parses; run `cargo xtask sidecar` or set {PYTHON_ENV}");
    }
    p
}

/// The flags of `factpico score` for every fixture model (`docs/metrics.md`'s commands; DAE parses the
/// summaries with the spaCy sidecar).
fn model_flags() -> Vec<String> {
    [
        "--metrics", "rougeL,fkgl,alignscore,dae,questeval,qafacteval",
        "--alignscore-model", &model("alignscore-tiny"),
        "--dae-model", &model("dae-tiny"),
        "--questeval-qg-model", &model("t5-tiny-qg"), "--questeval-qa-model", &model("t5-tiny-qa"),
        "--qafacteval-qg-model", &model("bart-tiny"), "--extractive-qa-model", &model("qa-tiny"),
        "--answers", "rules",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

/// Scores `input` with `flags` and writes its report; returns (score rows, report path, the
/// per-system table `factpico score` printed).
fn score_and_report(dir: &Path, input: &Path, flags: &[String], report_flags: &[&str]) -> (Vec<Value>, PathBuf, String) {
    score_edit_report(dir, input, flags, report_flags, &|_| {})
}

/// [`score_and_report`] with the score rows edited by `edit` before the report is written.
fn score_edit_report(dir: &Path, input: &Path, flags: &[String], report_flags: &[&str], edit: &dyn Fn(&mut Vec<Value>)) -> (Vec<Value>, PathBuf, String) {
    let scores = dir.join("scores.jsonl");
    let mut args: Vec<&str> = vec!["score", input.to_str().unwrap(), "-o", scores.to_str().unwrap(), "-q"];
    args.extend(flags.iter().map(String::as_str));
    let table = ok(&factpico(&args, dir), "factpico score");
    let mut rs = rows(&scores);
    edit(&mut rs);
    std::fs::write(&scores, rs.iter().map(|r| r.to_string() + "\n").collect::<String>()).unwrap();
    let html = dir.join("report.html");
    let mut args = vec!["report", scores.to_str().unwrap(), "--input", input.to_str().unwrap(), "-o", html.to_str().unwrap(), "-q"];
    args.extend_from_slice(report_flags);
    ok(&factpico(&args, dir), "factpico report");
    (rows(&scores), html, table)
}

/// Errors and warnings of the browser log (console errors, CSP violations, script errors).
async fn assert_clean_log(b: &Browser, what: &str) {
    let bad: Vec<(String, String)> = b.log().await.into_iter().filter(|(level, _)| level == "SEVERE" || level == "WARNING").collect();
    assert!(bad.is_empty(), "{what}: the browser log has errors: {bad:#?}");
}

/// What a row view shows, read from the DOM.
async fn view_state(b: &Browser) -> Value {
    b.js(
        r#"
        const v = document.getElementById('fp-view');
        const segs = Array.from(document.querySelectorAll('#fp-summary .fp-seg'));
        const sup = {};
        segs.filter(s => s.dataset.support !== undefined).forEach(s => {
            const k = s.dataset.support;
            sup[k] = sup[k] || { score: Number(s.dataset.score), text: '' };
            sup[k].text += s.textContent;
        });
        return {
            hidden: v.hidden,
            i: v.hidden ? null : Number(v.dataset.i),
            summary: (document.querySelector('#fp-summary .fp-body') || {}).textContent,
            source: (document.querySelector('#fp-source .fp-body') || {}).textContent,
            support: sup,
            lowest: Array.from(document.querySelectorAll('#fp-summary .fp-mark-lowest')).map(s => [s.textContent, Number(s.dataset.mark)]),
            marked: document.querySelectorAll('#fp-summary .fp-mark').length,
            sections: Array.from(document.querySelectorAll('.fp-metric[data-metric]')).map(s => [s.dataset.metric, s.querySelectorAll('tbody tr').length]),
            notes: Array.from(document.querySelectorAll('.fp-notes tbody tr')).map(tr => Array.from(tr.cells).map(c => c.textContent)),
            chips: Object.fromEntries(Array.from(document.querySelectorAll('.fp-chip')).map(c => [c.dataset.col, c.dataset.value === undefined ? null : Number(c.dataset.value)])),
        };
        "#,
        vec![],
    )
    .await
}

/// Checks a row view against its score row and texts.
fn check_view(st: &Value, r: &Value, source: &str, summary: &str) -> (usize, usize) {
    let id = r["id"].as_str().unwrap();
    assert_eq!(st["summary"].as_str().unwrap(), summary, "{id}: summary text");
    assert_eq!(st["source"].as_str().unwrap(), source, "{id}: abstract text");
    // Scores as chips: equal to the JSONL values.
    for (col, v) in r["scores"].as_object().unwrap() {
        let shown = &st["chips"][col];
        match v.as_f64() {
            Some(x) => assert_eq!(shown.as_f64(), Some(x), "{id}: {col}"),
            None => assert!(shown.is_null(), "{id}: {col} should be null, shows {shown}"),
        }
    }
    // Every summary sentence that AlignScore scored is shaded with its score.
    let mut shaded = 0;
    if let Some(sents) = r["details"]["alignscore"]["sentences"].as_array() {
        for (k, s) in sents.iter().enumerate() {
            let got = &st["support"][k.to_string()];
            assert_eq!(got["score"].as_f64(), s["score"].as_f64(), "{id}: alignscore of sentence {k}");
            assert_eq!(got["text"].as_str().unwrap(), slice(summary, &s["span"]), "{id}: text of sentence {k}");
            shaded += 1;
        }
        assert_eq!(st["support"].as_object().unwrap().len(), sents.len(), "{id}: shaded sentences");
    }
    // DAE: the words of the lowest-probability arc are marked with its probability.
    let mut arcs = 0;
    if let Some(a) = r["details"]["dae"]["arcs"].as_array().filter(|a| !a.is_empty()) {
        let min = r["details"]["dae"]["min"].as_f64().unwrap();
        let lowest = st["lowest"].as_array().unwrap();
        assert!(!lowest.is_empty(), "{id}: no word marked as the lowest arc");
        let words: Vec<&str> = a
            .iter()
            .filter(|x| x["probability"].as_f64() == Some(min))
            .flat_map(|x| [slice(summary, &x["head_span"]), slice(summary, &x["child_span"])])
            .collect();
        for l in lowest {
            assert_eq!(l[1].as_f64(), Some(min), "{id}: lowest mark");
            assert!(words.contains(&l[0].as_str().unwrap()), "{id}: {} is not a word of the lowest arc {words:?}", l[0]);
        }
        arcs = a.len();
        let shown = st["sections"].as_array().unwrap().iter().find(|s| s[0] == "dae").unwrap()[1].as_u64().unwrap() as usize;
        assert_eq!(shown, arcs, "{id}: arcs listed");
    }
    // QA: one table row per question.
    for m in ["questeval", "qafacteval"] {
        if let Some(d) = r["details"].get(m) {
            let n: usize = ["questions", "precision_questions", "recall_questions"].iter().filter_map(|k| d[k].as_array()).map(Vec::len).sum();
            let shown = st["sections"].as_array().unwrap().iter().find(|s| s[0] == m).map_or(0, |s| s[1].as_u64().unwrap() as usize);
            assert_eq!(shown, n, "{id}: {m} questions listed");
        }
    }
    // Every null with its reason, every warning.
    let notes = st["notes"].as_array().unwrap();
    for (col, why) in r["nulls"].as_object().into_iter().flatten() {
        assert!(notes.iter().any(|n| n[0] == "null" && n[1] == col.as_str() && n[2] == *why), "{id}: null {col} ({why}) not shown");
    }
    for w in r["warnings"].as_array().into_iter().flatten() {
        assert!(notes.iter().any(|n| n[0] == "warning" && n[1] == w["metric"] && n[2] == w["message"]), "{id}: warning {w} not shown");
    }
    (shaded, arcs)
}

fn input_texts(path: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["source"].as_str().unwrap().to_owned(), v["summary"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn fixtures_report_in_chromium() {
    let Some((chromium, driver)) = browser::require("fixtures_report_in_chromium") else { return };
    let Some(_) = require_sidecar("fixtures_report_in_chromium") else { return };
    let dir = tempfile::tempdir().unwrap();
    let input = root().join("fixtures/pairs.jsonl");
    let ratings = root().join("fixtures/pairs.ratings.csv");
    let aspects = "population,intervention,comparator,outcome,evidence,avg_pico";
    let (rs, html, table) = score_and_report(
        dir.path(),
        &input,
        &model_flags(),
        &["--ratings", ratings.to_str().unwrap(), "--aspects", aspects, "--title", "fixtures"],
    );
    let texts = input_texts(&input);
    let b = Browser::start(&chromium, &driver, 1400, 1000).await;
    b.open(&html).await;

    // Overview: the per-system table holds the cells `factpico score` printed.
    let cells = b.js("return Array.from(document.querySelectorAll('#fp-summary-table tr')).map(tr => Array.from(tr.cells).map(c => c.textContent.trim()))", vec![]).await;
    let printed: Vec<Vec<String>> = table
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---"))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_owned()).collect())
        .collect();
    assert_eq!(cells, json!(printed), "per-system table");
    assert!(printed.len() == 4, "header, faithful, unfaithful, (all): {printed:?}");
    // One histogram per primary column.
    let hist = b.js("return Array.from(document.querySelectorAll('.fp-dist svg')).map(s => s.dataset.col)", vec![]).await;
    assert_eq!(hist, json!(["rougeL", "delta_fkgl", "alignscore", "dae", "questeval_f1", "qafacteval_f1"]));
    // The meta-evaluation tables are those of `factpico meta-eval` on the same files.
    let me = ok(
        &factpico(
            &[
                "meta-eval", "--scores", dir.path().join("scores.jsonl").to_str().unwrap(), "--ratings", ratings.to_str().unwrap(),
                "--aspects", aspects, "--metrics", "rougeL,delta_fkgl,alignscore,dae,questeval_f1,qafacteval_f1",
            ],
            dir.path(),
        ),
        "factpico meta-eval",
    );
    let md_rows: Vec<Vec<String>> = me
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("|---") && !l.starts_with("| ---"))
        .map(|l| l.trim().trim_matches('|').split('|').map(|c| c.trim().replace('`', "").replace("**", "")).collect())
        .collect();
    let html_rows = b.js("return Array.from(document.querySelectorAll('.fp-md tr')).map(tr => Array.from(tr.cells).map(c => c.textContent.trim()))", vec![]).await;
    assert_eq!(html_rows, json!(md_rows), "meta-eval tables");
    assert!(md_rows.len() > 10, "{me}");
    let plots = b.js("return Array.from(document.querySelectorAll('#fp-metaeval img.fp-plot')).map(i => [i.naturalWidth > 0, i.src.slice(0, 26)])", vec![]).await;
    assert_eq!(plots.as_array().unwrap().len(), 6, "one scatter plot per aspect");
    for p in plots.as_array().unwrap() {
        assert_eq!(p, &json!([true, "data:image/svg+xml;base64,"]), "scatter plot decoded");
    }

    // The list: one entry per row; sort by alignscore (click the header twice: descending).
    let count = b.js("return document.getElementById('fp-count').textContent", vec![]).await;
    assert_eq!(count, json!(format!("{} of {} rows", rs.len(), rs.len())));
    let head = b.client.find(Locator::Css(".fp-h[data-col]:nth-child(6)")).await.unwrap();
    assert_eq!(head.text().await.unwrap(), "alignscore");
    head.click().await.unwrap();
    head.click().await.unwrap();
    let order: Vec<usize> = serde_json::from_value(
        b.js("return Array.from(document.querySelectorAll('.fp-lrow')).sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top)).map(a => Number(a.dataset.i))", vec![]).await,
    )
    .unwrap();
    let mut want: Vec<usize> = (0..rs.len()).collect();
    want.sort_by(|&a, &b| rs[b]["scores"]["alignscore"].as_f64().unwrap().total_cmp(&rs[a]["scores"]["alignscore"].as_f64().unwrap()).then(a.cmp(&b)));
    assert_eq!(order, want, "sorted by alignscore, descending");
    // Filter by system.
    b.js("const s = document.getElementById('fp-f-system'); s.value = Array.from(s.options).find(o => o.text === 'unfaithful').value; s.dispatchEvent(new Event('change'))", vec![]).await;
    let n_unfaithful = rs.iter().filter(|r| r["system"] == "unfaithful").count();
    assert_eq!(b.js("return document.getElementById('fp-count').textContent", vec![]).await, json!(format!("{n_unfaithful} of {} rows", rs.len())));
    b.client.find(Locator::Id("fp-f-reset")).await.unwrap().click().await.unwrap();
    let bref = &b;
    let count = move || async move { bref.js("return document.getElementById('fp-count').textContent", vec![]).await };
    let shown = |n: usize| json!(format!("{n} of {} rows", rs.len()));
    assert_eq!(count().await, shown(rs.len()), "reset");
    // Filter by a column's range: alignscore at least its median (nulls drop out of a range).
    let mut al: Vec<f64> = rs.iter().filter_map(|r| r["scores"]["alignscore"].as_f64()).collect();
    al.sort_by(f64::total_cmp);
    let median = al[al.len() / 2];
    b.js(&format!("const c = document.getElementById('fp-f-col'); c.value = Array.from(c.options).find(o => o.text === 'alignscore').value; c.dispatchEvent(new Event('change')); const m = document.getElementById('fp-f-min'); m.value = '{median}'; m.dispatchEvent(new Event('input'))"), vec![]).await;
    let n_high = rs.iter().filter(|r| r["scores"]["alignscore"].as_f64().is_some_and(|x| x >= median)).count();
    assert!(n_high > 0 && n_high < rs.len(), "{n_high}");
    assert_eq!(count().await, shown(n_high), "alignscore >= {median}");
    b.client.find(Locator::Id("fp-f-reset")).await.unwrap().click().await.unwrap();
    // "has nulls" and "has warnings/errors".
    let nonempty = |r: &Value, k: &str| match &r[k] {
        Value::Object(o) => !o.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    };
    b.js("const c = document.getElementById('fp-f-nulls'); c.checked = true; c.dispatchEvent(new Event('change'))", vec![]).await;
    assert_eq!(count().await, shown(rs.iter().filter(|r| nonempty(r, "nulls")).count()), "has nulls");
    b.client.find(Locator::Id("fp-f-reset")).await.unwrap().click().await.unwrap();
    b.js("const c = document.getElementById('fp-f-warn'); c.checked = true; c.dispatchEvent(new Event('change'))", vec![]).await;
    let n_warn = rs.iter().filter(|r| nonempty(r, "warnings") || nonempty(r, "errors")).count();
    assert_eq!(count().await, shown(n_warn), "has warnings/errors");
    b.client.find(Locator::Id("fp-f-reset")).await.unwrap().click().await.unwrap();
    eprintln!("fixtures report filters: alignscore >= {median}: {n_high}, has warnings/errors: {n_warn} of {} rows", rs.len());

    // Open the first row with a click, then walk every row with the keyboard.
    b.client.find(Locator::Css(".fp-lrow[data-i='0']")).await.unwrap().click().await.unwrap();
    b.wait_for("return !document.getElementById('fp-view').hidden", Duration::from_secs(10)).await;
    let (mut shaded, mut arcs) = (0, 0);
    for (i, r) in rs.iter().enumerate() {
        let st = view_state(&b).await;
        assert_eq!(st["i"], json!(i), "row view {i}");
        let (s, a) = check_view(&st, r, &texts[i].0, &texts[i].1);
        shaded += s;
        arcs += a;
        if i + 1 < rs.len() {
            b.key('j').await;
            b.wait_for(&format!("return document.getElementById('fp-view').dataset.i === '{}'", i + 1), Duration::from_secs(10)).await;
        }
    }
    assert!(shaded >= rs.len() && arcs > 0, "shaded {shaded} sentences, {arcs} arcs");
    // k goes back; Esc returns to the list.
    b.key('k').await;
    b.wait_for(&format!("return document.getElementById('fp-view').dataset.i === '{}'", rs.len() - 2), Duration::from_secs(10)).await;

    // Clicking a summary sentence highlights its best-supporting abstract chunk (fx07: a
    // sectioned summary of several sentences).
    let i = 6;
    b.js(&format!("location.hash = '#row={}'", i + 1), vec![]).await; // #row=N is the page's row number N (1-based)
    b.wait_for(&format!("return document.getElementById('fp-view').dataset.i === '{i}'"), Duration::from_secs(10)).await;
    let d = &rs[i]["details"]["alignscore"];
    let k = 2;
    let best = d["sentences"][k]["best_chunk"].as_u64().unwrap() as usize;
    let chunk = slice(&texts[i].0, &d["chunks"][best]["span"]);
    b.client.find(Locator::Css(&format!("#fp-summary .fp-seg[data-support='{k}']"))).await.unwrap().click().await.unwrap();
    let hl = b.js("return Array.from(document.querySelectorAll('#fp-source .fp-hl')).map(s => s.textContent).join('')", vec![]).await;
    assert_eq!(hl.as_str().unwrap(), chunk, "highlighted chunk");
    let info = b.js("return document.getElementById('fp-sentinfo').textContent", vec![]).await;
    assert!(info.as_str().unwrap().contains("best evidence"), "{info}");
    std::fs::create_dir_all(root().join("target/report-screenshots")).unwrap();
    let update = std::env::var("FACTPICO_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1");
    b.js("window.scrollTo(0, 0)", vec![]).await;
    let png = b.screenshot().await;
    assert_eq!(&png[1..4], b"PNG");
    std::fs::write(root().join("target/report-screenshots/fixtures-row.png"), &png).unwrap();
    if update {
        std::fs::write(root().join("docs/img/report-row.png"), &png).unwrap();
    }
    // Clicking a QA question highlights its answers.
    let q = b.client.find(Locator::Css(".fp-metric[data-metric='questeval'] tr.fp-clickable")).await.unwrap();
    q.click().await.unwrap();
    let n = b.js("return document.querySelectorAll('.fp-qhl').length", vec![]).await;
    assert!(n.as_u64().unwrap() > 0, "question answers highlighted");
    b.key(fantoccini::key::Key::Escape).await;
    b.wait_for("return document.getElementById('fp-view').hidden && !document.getElementById('fp-listview').hidden", Duration::from_secs(10)).await;
    b.js("window.scrollTo(0, 0)", vec![]).await;
    let png = b.screenshot().await;
    std::fs::write(root().join("target/report-screenshots/fixtures-overview.png"), &png).unwrap();
    if update {
        std::fs::write(root().join("docs/img/report-overview.png"), &png).unwrap();
    }
    // Self-contained: the page fetched nothing (its plots are data: images).
    let fetched = b.js("return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith('data:'))", vec![]).await;
    assert_eq!(fetched, json!([]), "resources fetched by the page");
    assert_clean_log(&b, "fixtures report").await;
    eprintln!("fixtures report: {} rows checked in Chromium ({shaded} shaded sentences, {arcs} DAE arcs), sort, filter, click and keyboard navigation, meta-eval tables", rs.len());
    b.close().await;
}

/// Summaries, ids and systems that try to run code: each shows as text and nothing runs.
#[tokio::test(flavor = "current_thread")]
async fn hostile_texts_show_as_text_and_run_nothing() {
    let Some((chromium, driver)) = browser::require("hostile_texts_show_as_text_and_run_nothing") else { return };
    let dir = tempfile::tempdir().unwrap();
    let source = "Patients with <b>asthma</b> received a drug & placebo; symptoms improved (p < 0.05).";
    let hostile = [
        ("<i>x1</i>", "<script>", "<script>window.__pwned = 1</script> The drug helped."),
        ("x2", "</script>", "Results </script><script>window.__pwned = 2</script> were good."),
        ("x3", "a\"b'c", "<img src=x onerror=\"window.__pwned = 3\"> Patients improved."),
        ("x4", "<!--", "<!-- <svg onload=\"window.__pwned = 4\"> --> ]]> \u{2028} symptoms & \\u003c improved."),
    ];
    let mut input = String::new();
    for (id, sys, summary) in hostile {
        input.push_str(&json!({ "id": id, "system": sys, "source": source, "summary": summary }).to_string());
        input.push('\n');
    }
    let path = dir.path().join("hostile.jsonl");
    std::fs::write(&path, &input).unwrap();
    let flags: Vec<String> = [
        "--metrics", "rougeL,fkgl,alignscore,qafacteval", "--alignscore-model", &model("alignscore-tiny"),
        "--qafacteval-qg-model", &model("bart-tiny"), "--extractive-qa-model", &model("qa-tiny"), "--answers", "rules",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    // Details from elsewhere are untrusted too: DAE arcs (drawn from the unit's explanation)
    // and a metric outside the registry (the generic explanation) carry hostile strings.
    let arc = json!({
        "relation": "<script>window.__pwned = 6</script>", "head": "<img src=x onerror=\"window.__pwned = 7\">",
        "child": "</script>", "head_span": {"start": 0, "end": 7}, "child_span": null,
        "probability": 0.1, "entailed": false, "sentence": 0, "hypothesis": "<b onmouseover=\"window.__pwned = 8\">x</b>",
    });
    let inject = |rs: &mut Vec<Value>| {
        for r in rs.iter_mut() {
            r["details"]["dae"] = json!({ "arcs": [arc.clone()], "n_arcs_skipped": 0, "truncated_wordpieces": 0 });
            r["details"]["evaluator"] = json!({ "rationale": "</script><script>window.__pwned = 9</script>", "rating": 2, "<img src=x onerror=\"window.__pwned = 10\">": 1 });
            // The LLM evaluators' detail (rationale, raw reply, evidence span and null reason
            // are model output): per-element ratings once the `llm` unit is in the registry,
            // the generic explanation before.
            r["details"]["llm"] = json!({
                "elements": { "population": {
                    "rating": 2, "score": 3.0, "rationale": "<script>window.__pwned = 11</script> vague",
                    "reply": "{\"rating\": 2, \"rationale\": \"</script><img src=x onerror=window.__pwned=12>\"}",
                    "null_reason": null, "cached": false, "error": null, "span": null,
                } },
                "evidence": [ {
                    "rating": null, "score": null, "rationale": null, "null_reason": "<svg onload=\"window.__pwned = 13\">",
                    "reply": null, "cached": false, "error": null, "span": "<!-- </script> -->",
                } ],
            });
        }
        // A hostile warning on rows 0 and 2, a null with a hostile reason on row 1 (also what
        // the "has warnings" and "has nulls" filters count).
        for i in [0, 2] {
            if !rs[i]["warnings"].is_array() {
                rs[i]["warnings"] = json!([]);
            }
            rs[i]["warnings"].as_array_mut().unwrap().push(json!({ "metric": "<b>llm</b>", "message": "</script><script>window.__pwned = 14</script>" }));
        }
        // Rows 1 and 3 without warnings, row 3 without nulls (its null columns dropped), so
        // that the filters tell rows apart.
        rs[1]["warnings"] = json!([]);
        rs[3]["warnings"] = json!([]);
        rs[3]["scores"].as_object_mut().unwrap().retain(|_, v| !v.is_null());
        rs[3]["nulls"] = json!({});
        rs[1]["scores"]["rougeL"] = Value::Null;
        rs[1]["nulls"] = json!({ "rougeL": "<img src=x onerror=\"window.__pwned = 15\"> no tokens" });
    };
    let llm_registered = factpico::registry().into_iter().any(|i| i.name == "llm");
    let (rs, html, _) = score_edit_report(dir.path(), &path, &flags, &["--title", "<script>window.__pwned = 5</script>"], &inject);
    let page = std::fs::read_to_string(&html).unwrap();
    // Exactly our script blocks: the index, one abstract, one per row, the page script.
    assert_eq!(page.matches("<script").count(), 1 + 1 + rs.len() + 1, "script elements in the file");
    assert_eq!(page.matches("</script>").count(), 1 + 1 + rs.len() + 1);
    let b = Browser::start(&chromium, &driver, 1200, 900).await;
    b.open(&html).await;
    let pwned = "return [window.__pwned === undefined, document.querySelectorAll('script').length, document.querySelectorAll('img:not(.fp-plot), svg[onload], [onerror]').length]";
    assert_eq!(b.js(pwned, vec![]).await, json!([true, 1 + 1 + rs.len() + 1, 0]));
    assert_eq!(b.js("return document.title", vec![]).await, json!("<script>window.__pwned = 5</script> — factpico report"));
    let ids = b.js("return Array.from(document.querySelectorAll('.fp-lrow .fp-id')).map(e => e.textContent)", vec![]).await;
    assert_eq!(ids, json!(hostile.iter().map(|h| h.0).collect::<Vec<_>>()));
    let systems = b.js("return Array.from(document.querySelectorAll('#fp-f-system option')).map(o => o.textContent)", vec![]).await;
    let mut want: Vec<&str> = hostile.iter().map(|h| h.1).collect();
    want.sort_unstable();
    want.insert(0, "all");
    assert_eq!(systems, json!(want));
    let table = b.js("return Array.from(document.querySelectorAll('#fp-summary-table tbody tr')).map(tr => tr.cells[0].textContent)", vec![]).await;
    assert!(table.as_array().unwrap().iter().any(|c| c == "</script>"), "{table}");
    for (i, (_, _, summary)) in hostile.iter().enumerate() {
        b.js(&format!("location.hash = '#row={}'", i + 1), vec![]).await; // #row=N is the page's row number N (1-based)
        b.wait_for(&format!("return document.getElementById('fp-view').dataset.i === '{i}'"), Duration::from_secs(10)).await;
        let st = view_state(&b).await;
        assert_eq!(st["summary"].as_str().unwrap(), *summary, "row {i} summary shown as text");
        assert_eq!(st["source"].as_str().unwrap(), source);
        let id = b.js("return document.querySelector('.fp-rowtitle .fp-id').textContent", vec![]).await;
        assert_eq!(id, json!(hostile[i].0));
        // QA answers and questions are text too.
        let cells = b.js("return Array.from(document.querySelectorAll('.fp-metric td')).map(t => t.textContent).join(' ')", vec![]).await;
        assert!(!cells.as_str().unwrap().is_empty());
        let dae = b.js("return Array.from(document.querySelectorAll(\".fp-metric[data-metric='dae'] tbody td\")).map(t => t.textContent)", vec![]).await;
        assert_eq!(dae.as_array().unwrap()[..3], [arc["relation"].clone(), arc["head"].clone(), arc["child"].clone()], "row {i}: arc shown as text");
        assert!(dae.as_array().unwrap().contains(&arc["hypothesis"]), "row {i}: {dae}");
        let ev = b.js("return document.querySelector(\".fp-metric[data-metric='evaluator'] .fp-kv\").textContent", vec![]).await;
        assert!(ev.as_str().unwrap().contains("</script><script>window.__pwned = 9</script>"), "row {i}: {ev}");
        assert!(ev.as_str().unwrap().contains("<img src=x onerror=\"window.__pwned = 10\">"), "row {i}: a hostile key is text: {ev}");
        let llm = b.js("return Array.from(document.querySelectorAll(\".fp-metric[data-metric='llm'] td, .fp-metric[data-metric='llm'] th\")).map(t => t.textContent)", vec![]).await;
        let llm: Vec<&str> = llm.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        if llm_registered {
            let d = &rs[i]["details"]["llm"];
            for want in [&d["elements"]["population"]["rationale"], &d["elements"]["population"]["reply"]] {
                assert!(llm.contains(&want.as_str().unwrap()), "row {i}: LLM rating text {want} shown as a cell: {llm:?}");
            }
            // the evidence span's note: the gold span, then the null reason, both as text
            let why = d["evidence"][0]["null_reason"].as_str().unwrap();
            assert!(llm.iter().any(|c| c.starts_with("gold evidence span: ") && c.ends_with(why)), "row {i}: null reason {why:?} shown as text: {llm:?}");
            assert!(llm.iter().any(|c| c.contains("<!-- </script> -->")), "row {i}: evidence span quoted: {llm:?}");
        } else {
            assert!(llm.contains(&"elements"), "row {i}: the generic explanation of llm's detail: {llm:?}");
        }
        let st = view_state(&b).await;
        let notes = st["notes"].as_array().unwrap();
        let warned = notes.iter().any(|n| n == &json!(["warning", "<b>llm</b>", "</script><script>window.__pwned = 14</script>"]));
        assert_eq!(warned, i % 2 == 0, "row {i}: hostile warning shown as text: {}", st["notes"]);
        let nulled = notes.iter().any(|n| n == &json!(["null", "rougeL", "<img src=x onerror=\"window.__pwned = 15\"> no tokens"]));
        assert_eq!(nulled, i == 1, "row {i}: hostile null reason shown as text: {}", st["notes"]);
        if i == 1 {
            let chip = b.js("return document.querySelector(\".fp-chip[data-col='rougeL']\").title + ' ' + document.querySelector(\".fp-chip[data-col='rougeL']\").textContent", vec![]).await;
            assert!(chip.as_str().unwrap().contains("<img src=x onerror="), "row 1: the null chip shows its reason as text: {chip}");
        }
        assert_eq!(b.js(pwned, vec![]).await, json!([true, 1 + 1 + rs.len() + 1, 0]), "row {i}");
    }
    // The list's "has nulls" / "has warnings/errors" filters count the edited rows.
    b.js("location.hash = '#list'", vec![]).await;
    b.wait_for("return !document.getElementById('fp-listview').hidden", Duration::from_secs(10)).await;
    let nonempty = |r: &Value, k: &str| r[k].as_object().is_some_and(|o| !o.is_empty()) || r[k].as_array().is_some_and(|a| !a.is_empty());
    for (check, want) in [
        ("fp-f-nulls", rs.iter().filter(|r| nonempty(r, "nulls")).count()),
        ("fp-f-warn", rs.iter().filter(|r| nonempty(r, "warnings") || nonempty(r, "errors")).count()),
    ] {
        b.js(&format!("const c = document.getElementById('{check}'); c.checked = true; c.dispatchEvent(new Event('change'))"), vec![]).await;
        assert_eq!(b.js("return document.getElementById('fp-count').textContent", vec![]).await, json!(format!("{want} of {} rows", rs.len())), "{check}");
        assert!(want > 0 && want < rs.len(), "{check}: {want}");
        b.client.find(Locator::Id("fp-f-reset")).await.unwrap().click().await.unwrap();
    }
    assert_clean_log(&b, "hostile report").await;
    eprintln!(
        "hostile texts: {} rows shown as text (DAE arcs, a generic detail, LLM {}, warnings), no script ran, no element injected, clean browser log",
        rs.len(),
        if llm_registered { "ratings" } else { "detail (generic: no `llm` unit in this build's registry)" }
    );
    b.close().await;
}

/// The real InfoLossQA documents (104 GPT-4 simplifications of RCT abstracts).
#[tokio::test(flavor = "current_thread")]
async fn infolossqa_report_in_chromium() {
    let Some(docs) = common::require_shared("infolossqa_report_in_chromium", "data/infolossqa/documents.json") else { return };
    let Some((chromium, driver)) = browser::require("infolossqa_report_in_chromium") else { return };
    let dir = tempfile::tempdir().unwrap();
    let flags: Vec<String> = [
        "--id-field", "PMCID", "--source-field", "abstract", "--summary-field", "simplification",
        "--metrics", "rougeL,fkgl,alignscore", "--alignscore-model", &model("alignscore-tiny"),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let (rs, html, _) =
        score_and_report(dir.path(), &docs, &flags, &["--id-field", "PMCID", "--source-field", "abstract", "--summary-field", "simplification"]);
    let src: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&docs).unwrap()).unwrap();
    assert_eq!(rs.len(), 104);
    let b = Browser::start(&chromium, &driver, 1400, 1000).await;
    b.open(&html).await;
    assert_eq!(b.js("return document.getElementById('fp-count').textContent", vec![]).await, json!("104 of 104 rows"));
    // Every row view: texts, scores and shaded sentences equal to the JSONL.
    let mut shaded = 0;
    for (i, r) in rs.iter().enumerate() {
        b.js(&format!("location.hash = '#row={}'", i + 1), vec![]).await; // #row=N is the page's row number N (1-based)
        b.wait_for(&format!("return document.getElementById('fp-view').dataset.i === '{i}'"), Duration::from_secs(10)).await;
        let st = view_state(&b).await;
        shaded += check_view(&st, r, src[i]["abstract"].as_str().unwrap(), src[i]["simplification"].as_str().unwrap()).0;
    }
    assert!(shaded > 104 * 3, "{shaded} shaded sentences");
    b.key('k').await;
    b.wait_for("return document.getElementById('fp-view').dataset.i === '102'", Duration::from_secs(10)).await;
    assert_clean_log(&b, "InfoLossQA report").await;
    eprintln!("InfoLossQA report: 104 real rows checked in Chromium ({shaded} shaded summary sentences)");
    b.close().await;
}
