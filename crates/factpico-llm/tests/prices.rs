//! Token prices (`llm.runtime.price_input_per_mtok`, `price_output_per_mtok`): runtime options
//! that only turn token counts into a cost. They are validated by field name, never
//! serialised, and change no request body and no cache key.
#![allow(clippy::unwrap_used, missing_docs)]

use factpico_llm::{request_bodies, LlmOptions, LlmRuntime, Prices, Protocol, RowInput};

fn priced(input: Option<f64>, output: Option<f64>) -> LlmOptions {
    let mut o = LlmOptions { model: Some("m".into()), base_url: Some("http://h/v1".into()), ..LlmOptions::default() };
    o.runtime.price_input_per_mtok = input;
    o.runtime.price_output_per_mtok = output;
    o
}

#[test]
fn prices_are_read_from_json_and_an_unset_one_is_zero() {
    let o: LlmOptions = serde_json::from_str(r#"{"runtime": {"price_input_per_mtok": 2.5, "price_output_per_mtok": 10}}"#).unwrap();
    let p = o.runtime.prices().unwrap().unwrap();
    assert_eq!(p, Prices { input_per_mtok: 2.5, output_per_mtok: 10.0 });
    assert!((p.cost(1_000_000, 0) - 2.5).abs() < 1e-12);
    assert!((p.cost(400, 30) - (400.0 * 2.5 + 30.0 * 10.0) / 1e6).abs() < 1e-15);
    assert_eq!(priced(None, Some(1.0)).runtime.prices().unwrap(), Some(Prices { input_per_mtok: 0.0, output_per_mtok: 1.0 }));
    assert_eq!(LlmRuntime::default().prices().unwrap(), None, "no prices, no cost");
}

#[test]
fn a_bad_price_is_refused_by_field_name() {
    for (o, field) in [
        (priced(Some(-1.0), None), "`llm.runtime.price_input_per_mtok`"),
        (priced(None, Some(f64::NAN)), "`llm.runtime.price_output_per_mtok`"),
        (priced(Some(f64::INFINITY), Some(1.0)), "`llm.runtime.price_input_per_mtok`"),
    ] {
        let e = o.runtime.prices().unwrap_err().to_string();
        assert!(e.contains(field) && e.contains("must be a non-negative number"), "{e}");
    }
    assert!(priced(Some(0.0), Some(0.0)).runtime.prices().unwrap().is_some());
}

#[test]
fn prices_are_never_serialised_and_change_no_request_or_cache_key() {
    let (plain, p) = (priced(None, None), priced(Some(2.5), Some(10.0)));
    assert_ne!(plain, p);
    let (a, b) = (serde_json::to_string(&plain).unwrap(), serde_json::to_string(&p).unwrap());
    assert_eq!(a, b);
    assert!(!b.contains("price"), "{b}");
    let spans = vec!["fewer exacerbations".to_owned()];
    let rows = [RowInput { source: "abstract", summary: "summary", evidence: Some(&spans) }];
    for protocol in [Protocol::FullText, Protocol::Pipeline] {
        let x = request_bodies(protocol, &plain, &rows).unwrap();
        let y = request_bodies(protocol, &p, &rows).unwrap();
        assert!(!x.is_empty());
        assert_eq!(x, y);
        let key = |v: &serde_json::Value| factpico_llm::cache::request_key("http://h/v1", &serde_json::json!({"id": "m"}), "t", v);
        assert_eq!(x.iter().map(key).collect::<Vec<_>>(), y.iter().map(key).collect::<Vec<_>>());
        assert_eq!(factpico_llm::plan(protocol, &plain, &rows).unwrap(), factpico_llm::plan(protocol, &p, &rows).unwrap());
    }
}
