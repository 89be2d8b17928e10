//! The browser's `JSON.parse` as the app's JSON reader (`crate::json`): the same serde_json
//! values without serde_json's parser in the wasm.

use js_sys::{Array, JsString, Object, Reflect, JSON};
use serde_json::{Map, Number, Value};
use wasm_bindgen::{JsCast, JsValue};

/// Deeper nesting than any `config.json` is refused instead of recursing without bound.
const MAX_DEPTH: usize = 64;

/// Installs [`read`] as the app's JSON reader.
pub fn install() {
    crate::json::install(read);
}

fn read(text: &str) -> Result<Value, crate::json::Syntax> {
    let parsed = JSON::parse(text).map_err(|e| syntax(text, &e))?;
    convert(&parsed, 0).ok_or(crate::json::Syntax { eof: false, at: None })
}

/// Where `JSON.parse` stopped: V8 says "… in JSON at position N …" or "Unexpected end of JSON
/// input"; other engines may say neither, and then no position is given.
fn syntax(text: &str, error: &JsValue) -> crate::json::Syntax {
    let message = Reflect::get(error, &JsValue::from_str("message")).ok().and_then(|m| m.as_string()).unwrap_or_default();
    let position = message.split("position ").nth(1).and_then(|rest| {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<usize>().ok()
    });
    let eof = message.contains("end of JSON") || position.is_some_and(|p| p >= text.encode_utf16().count());
    // V8's position counts UTF-16 units; config files are ASCII, where that is the character index.
    crate::json::Syntax { eof, at: position.map(|p| crate::json::line_column(text, p)) }
}

fn convert(v: &JsValue, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    if v.is_null() {
        return Some(Value::Null);
    }
    if let Some(b) = v.as_bool() {
        return Some(Value::Bool(b));
    }
    if let Some(n) = v.as_f64() {
        return Some(number(n));
    }
    if let Some(s) = v.dyn_ref::<JsString>() {
        return Some(Value::String(String::from(s)));
    }
    if let Some(a) = v.dyn_ref::<Array>() {
        return a.iter().map(|item| convert(&item, depth + 1)).collect::<Option<Vec<_>>>().map(Value::Array);
    }
    let mut map = Map::new();
    for entry in Object::entries(v.dyn_ref::<Object>()?).iter() {
        let pair: Array = entry.dyn_into().ok()?;
        map.insert(pair.get(0).as_string()?, convert(&pair.get(1), depth + 1)?);
    }
    Some(Value::Object(map))
}

/// Whole numbers within 2^53 read as integers (as serde_json reads `4096`); the rest as floats.
fn number(n: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() <= EXACT {
        if n >= 0.0 {
            return Value::Number(Number::from(n as u64));
        }
        return Value::Number(Number::from(n as i64));
    }
    Number::from_f64(n).map_or(Value::Null, Value::Number)
}
