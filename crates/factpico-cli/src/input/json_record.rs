//! One JSON input record read without a nesting limit on the fields factpico does not use.
//!
//! `serde_json::Value` stops at 128 levels of nesting, which made a valid record with a deep
//! field that no metric reads an error (and, inside a JSON array, made the rest of the file
//! unreadable). A record is read here as an object whose unused fields are skipped by
//! serde_json's iterative skipper (no depth limit; their names are kept, with a null value,
//! for messages), and whose used fields (id, source, summary, system, the id-derivation
//! field, the per-row side inputs) are built as values up to [`MAX_DEPTH`] levels: a used
//! field nested deeper is skipped the same way and reported as that row's error, so the
//! reader's position stays valid and the next record is read. A used field given twice in
//! one object is that row's error too ([`Parsed::repeated`]): JSON readers differ on which
//! value counts, so none is guessed; unused fields may repeat.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::FieldMap;

/// Levels of nesting kept in a field factpico reads (a used field nested deeper makes its
/// row an error naming it); below serde_json's own limit of 128.
pub const MAX_DEPTH: usize = 100;

/// A record as read: the object (unused fields as nulls) and the first used field that was
/// nested deeper than [`MAX_DEPTH`], if any.
#[derive(Debug)]
pub struct Parsed {
    /// The record (any JSON value; objects with their unused fields' values as null).
    pub value: Value,
    /// A used field nested deeper than [`MAX_DEPTH`] (its value was skipped).
    pub too_deep: Option<String>,
    /// A used field given more than once in the object (JSON readers differ on which value
    /// counts: the record is refused rather than read with a guess).
    pub repeated: Option<String>,
}

impl Parsed {
    /// The record's id when its id field is a string or an integer (for a row error), and
    /// given once.
    pub fn id(&self, fields: &FieldMap) -> Option<String> {
        if self.repeated.as_deref() == Some(fields.id.as_str()) {
            return None;
        }
        match self.value.get(&fields.id)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
            _ => None,
        }
    }

    /// The row error of a record whose used field was too deep or given twice.
    pub fn error(&self) -> Option<String> {
        if let Some(k) = &self.repeated {
            return Some(format!(
                "field `{k}` appears twice in the record; give it once (factpico does not guess which value is meant: most JSON readers take the last)"
            ));
        }
        self.too_deep.as_ref().map(|k| {
            format!("field `{k}` is nested more than {MAX_DEPTH} levels deep (factpico reads at most {MAX_DEPTH} levels in the fields it uses)")
        })
    }
}

fn used(fields: &FieldMap, key: &str) -> bool {
    key == fields.id
        || key == fields.source
        || key == fields.summary
        || key == fields.system
        || fields.derive_id.as_ref().is_some_and(|d| d.field == key)
        || fields.extras.iter().any(|x| x.field == key)
}

/// Reads one record (see the module documentation).
pub struct RecordSeed<'a>(pub &'a FieldMap);

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = Parsed;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Parsed, D::Error> {
        d.deserialize_any(RecordVisitor(self.0))
    }
}

struct RecordVisitor<'a>(&'a FieldMap);

impl<'de> Visitor<'de> for RecordVisitor<'_> {
    type Value = Parsed;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let mut obj = Map::new();
        let mut too_deep = None;
        let mut repeated = None;
        while let Some(key) = map.next_key::<String>()? {
            if used(self.0, &key) {
                if obj.contains_key(&key) {
                    repeated.get_or_insert_with(|| key.clone());
                }
                match map.next_value_seed(Bounded(1))? {
                    Some(v) => {
                        obj.insert(key, v);
                    }
                    None => {
                        too_deep.get_or_insert_with(|| key.clone());
                        obj.insert(key, Value::Null);
                    }
                }
            } else {
                map.next_value::<IgnoredAny>()?;
                obj.insert(key, Value::Null);
            }
        }
        Ok(Parsed { value: Value::Object(obj), too_deep, repeated })
    }
    // Not an object: only its kind matters (the row is an error naming it).
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Parsed { value: Value::Array(Vec::new()), too_deep: None, repeated: None })
    }
    fn visit_bool<E>(self, v: bool) -> Result<Parsed, E> {
        Ok(Parsed { value: Value::Bool(v), too_deep: None, repeated: None })
    }
    fn visit_i64<E>(self, v: i64) -> Result<Parsed, E> {
        Ok(Parsed { value: Value::from(v), too_deep: None, repeated: None })
    }
    fn visit_u64<E>(self, v: u64) -> Result<Parsed, E> {
        Ok(Parsed { value: Value::from(v), too_deep: None, repeated: None })
    }
    fn visit_f64<E>(self, v: f64) -> Result<Parsed, E> {
        Ok(Parsed { value: Value::from(v), too_deep: None, repeated: None })
    }
    fn visit_str<E>(self, v: &str) -> Result<Parsed, E> {
        Ok(Parsed { value: Value::String(v.to_owned()), too_deep: None, repeated: None })
    }
    fn visit_unit<E>(self) -> Result<Parsed, E> {
        Ok(Parsed { value: Value::Null, too_deep: None, repeated: None })
    }
}

/// A value built up to [`MAX_DEPTH`] levels; `None` when deeper (the rest is skipped).
struct Bounded(usize);

impl<'de> DeserializeSeed<'de> for Bounded {
    type Value = Option<Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        d.deserialize_any(BoundedVisitor(self.0))
    }
}

struct BoundedVisitor(usize);

impl<'de> Visitor<'de> for BoundedVisitor {
    type Value = Option<Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        if self.0 >= MAX_DEPTH {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(None);
        }
        let mut out = Vec::new();
        let mut deep = false;
        while let Some(v) = seq.next_element_seed(Bounded(self.0 + 1))? {
            match v {
                Some(v) if !deep => out.push(v),
                _ => deep = true,
            }
        }
        Ok((!deep).then_some(Value::Array(out)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        if self.0 >= MAX_DEPTH {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(None);
        }
        let mut out = Map::new();
        let mut deep = false;
        while let Some(k) = map.next_key::<String>()? {
            match map.next_value_seed(Bounded(self.0 + 1))? {
                Some(v) if !deep => {
                    out.insert(k, v);
                }
                _ => deep = true,
            }
        }
        Ok((!deep).then_some(Value::Object(out)))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Option<Value>, E> {
        Ok(Some(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Option<Value>, E> {
        Ok(Some(Value::from(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<Value>, E> {
        Ok(Some(Value::String(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Option<Value>, E> {
        Ok(Some(Value::String(v)))
    }
    fn visit_unit<E>(self) -> Result<Option<Value>, E> {
        Ok(Some(Value::Null))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn fields() -> FieldMap {
        FieldMap {
            id: "id".into(),
            id_explicit: false,
            source: "source".into(),
            summary: "summary".into(),
            system: "system".into(),
            derive_id: None,
            tsv_quotes: false,
            delimiter: None,
            extras: Vec::new(),
        }
    }

    fn parse(text: &str) -> Result<Parsed, serde_json::Error> {
        let f = fields();
        let mut de = serde_json::Deserializer::from_str(text);
        let p = RecordSeed(&f).deserialize(&mut de)?;
        de.end()?;
        Ok(p)
    }

    #[test]
    fn used_fields_are_the_values_serde_json_reads_and_unused_ones_are_skipped_at_any_depth() {
        let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
        let text = format!(r#"{{"id":7,"source":"A é\n","summary":"S","x":{deep},"system":null,"n":1.5e300,"big":18446744073709551615}}"#);
        let p = parse(&text).unwrap();
        assert!(p.too_deep.is_none());
        let want: Value = serde_json::json!({"id": 7, "source": "A é\n", "summary": "S", "x": null, "system": null, "n": null, "big": null});
        assert_eq!(p.value, want);
        // The same record through serde_json::Value fails on the depth.
        assert!(serde_json::from_str::<Value>(&text).unwrap_err().to_string().contains("recursion limit"));
    }

    #[test]
    fn a_used_field_deeper_than_the_limit_is_named_and_the_reader_stays_in_place() {
        let ok = format!(r#"{{"id":"a","source":{}"s"{},"summary":"x"}}"#, "[".repeat(MAX_DEPTH - 1), "]".repeat(MAX_DEPTH - 1));
        let p = parse(&ok).unwrap();
        assert!(p.too_deep.is_none(), "{MAX_DEPTH} levels in all are read");
        let deep = format!(r#"{{"id":"a","source":{}"s"{},"summary":"x"}}"#, "[".repeat(MAX_DEPTH + 500), "]".repeat(MAX_DEPTH + 500));
        let p = parse(&deep).unwrap();
        assert_eq!(p.too_deep.as_deref(), Some("source"));
        assert!(p.error().unwrap().contains("field `source` is nested more than 100 levels deep"));
        // Inside an array, the element after it is read.
        let text = format!(r#"[{deep},{{"id":"b","source":"s","summary":"t"}}]"#);
        let f = fields();
        let mut de = serde_json::Deserializer::from_str(&text);
        struct Elements<'a>(&'a FieldMap);
        impl<'de> Visitor<'de> for Elements<'_> {
            type Value = Vec<Parsed>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Parsed>, A::Error> {
                let mut out = Vec::new();
                while let Some(p) = seq.next_element_seed(RecordSeed(self.0))? {
                    out.push(p);
                }
                Ok(out)
            }
        }
        let all = de.deserialize_seq(Elements(&f)).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].value["id"], "b");
    }

    #[test]
    fn a_used_field_given_twice_is_named_and_unused_ones_may_repeat() {
        let p = parse(r#"{"id":"a","source":"s","summary":"x","summary":"y","note":1,"note":2}"#).unwrap();
        assert_eq!(p.repeated.as_deref(), Some("summary"));
        assert!(p.error().unwrap().starts_with("field `summary` appears twice in the record"));
        assert_eq!(p.id(&fields()).as_deref(), Some("a"));
        let p = parse(r#"{"id":"a","id":"b","source":"s","summary":"x"}"#).unwrap();
        assert_eq!(p.id(&fields()), None, "a repeated id is not guessed");
        let p = parse(r#"{"id":"a","source":"s","summary":"x","note":1,"note":2}"#).unwrap();
        assert!(p.error().is_none());
    }

    #[test]
    fn malformed_json_is_still_an_error_and_other_kinds_are_kept() {
        assert!(parse(r#"{"id":"a","source":}"#).is_err());
        assert!(parse(r#"{"id":"a"} x"#).is_err());
        assert_eq!(parse("[1,[2]]").unwrap().value, Value::Array(Vec::new()));
        assert_eq!(parse("\"s\"").unwrap().value, Value::String("s".into()));
        assert_eq!(parse("null").unwrap().value, Value::Null);
    }
}
