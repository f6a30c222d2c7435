//! Decoding JS values into core types and encoding results back, and the one mapping of
//! [`crate::Error`] to a JS `Error` with a stable `code`.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::{JsCast, JsValue};

use super::strict::Strict;
use crate::Error;

/// The JS `Error` thrown for a core error: `name` is `MemdirError`, `code` is stable.
pub(crate) fn to_js_error(error: &Error) -> JsValue {
    let js = js_sys::Error::new(&error.to_string());
    js.set_name("MemdirError");
    // Reflect.set only fails on frozen objects; a fresh Error is not frozen.
    let _ = js_sys::Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(error.code().as_str()),
    );
    js.unchecked_into()
}

/// Decodes argument `name`; a wrong shape becomes `INVALID_ARGUMENT` naming the argument.
///
/// Decoding goes through [`Strict`], so a struct's `deny_unknown_fields` holds at every
/// depth, as in the native core: a misspelt option (`maxIndexBytes`), even in a nested
/// `limits`, is an error rather than silently ignored.
pub(crate) fn from_js<T: DeserializeOwned>(value: JsValue, name: &str) -> Result<T, JsValue> {
    T::deserialize(Strict(value)).map_err(|e| {
        let error = JsValue::from(e);
        let message = match error.dyn_ref::<js_sys::Error>() {
            Some(js) => String::from(js.message()),
            None => format!("{error:?}"),
        };
        to_js_error(&Error::invalid(format!("{name}: {message}")))
    })
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

/// `INVALID_ARGUMENT` with `message`, as a JS error.
pub(crate) fn invalid(message: &str) -> JsValue {
    to_js_error(&Error::invalid(message))
}
