//! A deserializer over a JS value that hands a struct *every* key of its object, at any depth.
//!
//! serde-wasm-bindgen asks a JS object only for the fields a struct declares, so serde's
//! `deny_unknown_fields` never fires through it and a misspelt option (`maxIndexBytes`) in a
//! nested `limits` would be silently ignored, where the native core refuses it. [`Strict`]
//! walks objects, arrays and options itself (so nested values stay strict) and leaves every
//! leaf — strings, numbers, bytes, enums — to serde-wasm-bindgen. The JS facade has already
//! bounded the value's depth and size (`js/edge.ts`), so the recursion here is shallow.

use js_sys::{Array, Object};
use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, IntoDeserializer, Visitor};
use serde_wasm_bindgen::{Deserializer as Leaf, Error};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

#[wasm_bindgen(inline_js = "export function shape(v) { \
    if (typeof v !== 'object' || v === null) return 0; \
    if (Array.isArray(v)) return 1; \
    if (v instanceof Uint8Array || v instanceof ArrayBuffer) return 0; \
    return 2; }")]
extern "C" {
    /// What a value is to the decoder, in one call: 1 an array, 2 a record (an object that is
    /// neither an array nor bytes), 0 anything else (a leaf).
    fn shape(value: &JsValue) -> u8;
}

const ARRAY: u8 = 1;
const RECORD: u8 = 2;

pub(crate) struct Strict(pub(crate) JsValue);

impl Strict {
    /// An object whose own keys are its fields: not an array or byte array. (The facade
    /// hands the core plain copies: a `Map` arrives as a plain object, a `Set` as an array.)
    fn as_record(&self) -> Option<&Object> {
        (shape(&self.0) == RECORD).then(|| self.0.unchecked_ref())
    }

    /// serde's "invalid type" error for a value that is not the container asked for.
    fn invalid<'de, V: Visitor<'de>>(&self, visitor: &V) -> Error {
        de::Error::invalid_type(unexpected(&self.0), visitor)
    }

    fn visit_record<'de, V: Visitor<'de>>(object: &Object, visitor: V) -> Result<V::Value, Error> {
        let entries = Object::entries(object).into_iter().map(|pair| {
            let pair: Array = pair.unchecked_into();
            (Strict(pair.get(0)), Strict(pair.get(1)))
        });
        visitor.visit_map(MapDeserializer::new(entries))
    }

    fn leaf(self) -> Leaf {
        Leaf::from(self.0)
    }
}

impl<'de> IntoDeserializer<'de, Error> for Strict {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

/// Methods a leaf answers: forwarded to serde-wasm-bindgen unchanged.
macro_rules! leaf {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.leaf().$method(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Strict {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match shape(&self.0) {
            ARRAY => self.deserialize_seq(visitor),
            RECORD => Self::visit_record(self.0.unchecked_ref(), visitor),
            _ => self.leaf().deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.0.is_undefined() || self.0.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0.dyn_ref::<Array>() {
            Some(array) => visitor.visit_seq(SeqDeserializer::new(array.iter().map(Strict))),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.as_record() {
            Some(object) => Self::visit_record(object, visitor),
            None => Err(self.invalid(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.leaf().deserialize_unit_struct(name, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.leaf().deserialize_tuple_struct(name, len, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.leaf().deserialize_enum(name, variants, visitor)
    }

    leaf! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

/// What a JS value is, for an error message.
fn unexpected(value: &JsValue) -> de::Unexpected<'static> {
    if value.is_undefined() || value.is_null() {
        de::Unexpected::Unit
    } else if let Some(b) = value.as_bool() {
        de::Unexpected::Bool(b)
    } else if let Some(n) = value.as_f64() {
        de::Unexpected::Float(n)
    } else if value.is_string() {
        de::Unexpected::Other("a string")
    } else if Array::is_array(value) {
        de::Unexpected::Seq
    } else if value.is_object() {
        de::Unexpected::Other("an object")
    } else {
        de::Unexpected::Other("a value of another type")
    }
}
