//! `memdir-wasm-bindgen <input.wasm> <out-dir> <out-name>`: what `wasm-bindgen --target web
//! --experimental-reset-state-function --out-dir <out-dir> --out-name <out-name> <input.wasm>`
//! does, every other setting at the CLI's default (scripts/build.mjs runs it).

use std::process::ExitCode;
use wasm_bindgen_cli_support::Bindgen;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir, out_name] = args.as_slice() else {
        eprintln!("usage: memdir-wasm-bindgen <input.wasm> <out-dir> <out-name>");
        return ExitCode::from(2);
    };
    match bindgen(input, out_dir, out_name) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:?}");
            ExitCode::FAILURE
        }
    }
}

#[allow(deprecated)] // reference_types: the CLI sets it (to its default, off) so an env var cannot
fn bindgen(input: &str, out_dir: &str, out_name: &str) -> Result<(), anyhow::Error> {
    let mut b = Bindgen::new();
    b.web(true)?;
    b.input_path(input)
        .out_name(out_name)
        .debug(false)
        .demangle(true)
        .keep_lld_exports(false)
        .keep_debug(false)
        .split_debug_info(false)
        .remove_name_section(false)
        .remove_producers_section(false)
        .typescript(true)
        .omit_imports(false)
        .omit_default_module_path(false)
        .split_linked_modules(false)
        .js_string_builtins(false)
        .ts_typed_array_buffers(false)
        .reference_types(false)
        .reset_state_function(true)
        .force_enable_abort_handler(false);
    b.generate(out_dir)
}
