//! The TypeScript surface of the exports: the declarations generated from the core's Rust
//! types (`js/generated/types.ts`, kept in step by `cargo test`), so that the `unchecked_*_type`
//! names of the exports resolve in the glue's `.d.ts`. Nothing here reaches the `.wasm`:
//! wasm-bindgen moves custom sections into the JavaScript it writes.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = include_str!("../../js/generated/types.ts");
