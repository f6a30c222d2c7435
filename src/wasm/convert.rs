//! Decoding JS values into core types and encoding results back, and the one mapping of
//! [`crate::Error`] to a JS `Error` with a stable `code`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

use crate::Error;

/// The JS `Error` thrown for a core error: `name` is `MemdirError`, `code` is stable.
pub(crate) fn to_js_error(error: &Error) -> JsValue {
    let js = js_sys::Error::new(&error.to_string());
    js.set_name("MemdirError");
    // Reflect.set only fails on frozen objects; a fresh Error is not frozen.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(error.code()),
    );
    js.unchecked_into()
}

/// Decodes argument `name`; a wrong shape becomes `INVALID_ARGUMENT` naming the argument.
///
/// serde-wasm-bindgen reads only the fields a struct declares, so `deny_unknown_fields`
/// never fires through it; for an object argument the keys are checked here instead, so a
/// misspelt option (`maxIndexBytes`) is an error rather than silently ignored.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue, name: &str) -> Result<T, JsValue> {
    if let (Some(fields), Some(object)) = (struct_fields::<T>(), plain_object(&value)) {
        for key in js_sys::Object::keys(object)
            .iter()
            .filter_map(|k| k.as_string())
        {
            if !fields.contains(&key.as_str()) {
                let known = fields.join(", ");
                let message = format!("{name}: unknown field `{key}`, expected one of {known}");
                return Err(to_js_error(&Error::invalid(message)));
            }
        }
    }
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| to_js_error(&Error::invalid(format!("{name}: {e}"))))
}

fn plain_object(value: &JsValue) -> Option<&js_sys::Object> {
    if js_sys::Array::is_array(value) {
        return None;
    }
    value.dyn_ref::<js_sys::Object>()
}

/// The field names serde expects for `T`, when `T` is a struct: a deserializer that only
/// records what `deserialize_struct` is asked for.
fn struct_fields<T: DeserializeOwned>() -> Option<&'static [&'static str]> {
    use serde::de::{self, Visitor};
    struct Probe(Option<&'static [&'static str]>);
    impl<'de> de::Deserializer<'de> for &mut Probe {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("probe"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = Some(fields);
            Err(de::Error::custom("probe"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let mut probe = Probe(None);
    let _ = T::deserialize(&mut probe);
    probe.0
}

/// Decodes an optional argument: `undefined` and `null` give `None`.
pub(crate) fn from_js_opt<T: DeserializeOwned>(
    value: JsValue,
    name: &str,
) -> Result<Option<T>, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(None)
    } else {
        from_js(value, name).map(Some)
    }
}

/// Decodes a string argument without coercing other types.
pub(crate) fn string_arg(value: &JsValue, name: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| {
        to_js_error(&Error::invalid(format!(
            "{name} must be a string, got {}",
            type_name(value)
        )))
    })
}

/// Decodes a finite number argument.
pub(crate) fn number_arg(value: &JsValue, name: &str) -> Result<f64, JsValue> {
    match value.as_f64() {
        Some(n) if n.is_finite() => Ok(n),
        _ => Err(to_js_error(&Error::invalid(format!(
            "{name} must be a finite number, got {}",
            type_name(value)
        )))),
    }
}

fn type_name(value: &JsValue) -> String {
    if value.is_null() {
        "null".to_owned()
    } else {
        value
            .js_typeof()
            .as_string()
            .unwrap_or_else(|| "unknown".to_owned())
    }
}

/// Encodes a result as plain JS objects (maps as objects, `None` as `null`).
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| to_js_error(&Error::invalid(format!("could not encode the result: {e}"))))
}
