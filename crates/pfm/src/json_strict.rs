//! JSON read as a `serde_json::Value`, but refusing an object that names a
//! key twice: serde_json keeps the last of them silently, and a request
//! whose meaning hangs on which one wins is better refused.

use serde::de::{Deserialize, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Parses `text` as JSON; an object with a repeated key is an error naming
/// the key (with serde_json's line and column).
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    serde_json::from_str::<Strict>(text).map(|s| s.0)
}

/// A value whose objects have no repeated key.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Strict, E> {
        Ok(Strict(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Strict, E> {
        Ok(Strict(Value::Number(n.into())))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Strict, E> {
        Ok(Strict(Value::Number(n.into())))
    }
    fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<Strict, E> {
        Number::from_f64(x)
            .map(|n| Strict(Value::Number(n)))
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Strict, E> {
        Ok(Strict(Value::String(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Strict, E> {
        Ok(Strict(Value::String(s)))
    }
    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Strict(Value::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut m = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(v) = map.next_value()?;
            if m.contains_key(&key) {
                return Err(A::Error::custom(format!("key {key:?} given twice")));
            }
            m.insert(key, v);
        }
        Ok(Strict(Value::Object(m)))
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn values_as_serde_json_reads_them() {
        let text = r#"{"a":[1,-2,3.5,"x",null,true,{"b":{}}],"c":18446744073709551615}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<serde_json::Value>(text).unwrap()
        );
    }

    #[test]
    fn repeated_keys_are_refused_at_any_depth() {
        let e = parse(r#"{"pmu":"nhm","pmu":"wsm"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("key \"pmu\" given twice"), "{e}");
        let e = parse(r#"{"events":[{"event":"A","event":"B"}]}"#).unwrap_err();
        assert!(e.to_string().contains("\"event\" given twice"), "{e}");
        assert!(parse(r#"[{"a":1},{"a":2}]"#).is_ok());
    }
}
