//! # memdir core
//!
//! Every rule of memdir — index truncation, the scan, the manifest, the side-query request,
//! the answer parser, freshness, injection, paths and cost — written once in pure Rust.
//! Hosts (Node, browsers, VS Code) read files and call models; this crate decides.
//!
//! Nothing here knows about JavaScript: the `wasm` module, compiled only for
//! `wasm32`, decodes JS values, calls these functions and encodes the results.
//! Time is always passed in (`now_ms`); the core never reads a clock or a file.

pub mod codes;
pub mod cost;
pub mod diff;
pub mod doctor;
pub mod error;
pub mod freshness;
pub mod frontmatter;
pub mod frontmatter_simple;
pub mod history;
pub mod index;
pub mod instructions;
pub mod keep;
pub mod lexical;
pub mod limits;
pub mod manifest;
pub mod merge_index;
pub mod packed;
pub mod paths;
pub mod provider;
pub mod render;
pub mod scan;
pub mod scan_session;
pub mod scopes;
pub mod secrets;
pub mod side_query;
pub mod sort;
pub mod temp;
pub mod text;
pub mod tool;
#[cfg(test)]
mod ts_types;
pub mod words;
pub mod write;
pub mod yaml_engine;

pub use error::Error;
pub use limits::Limits;

#[cfg(target_arch = "wasm32")]
mod wasm;
