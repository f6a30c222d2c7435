// `npm run lint`: the gates CI holds — rustfmt, clippy with -D warnings natively and for
// wasm32, and the TypeScript type check of js/ against the generated bindings (and of playground/,
// and of the VS Code extension in examples/vscode against @types/vscode).
import { build } from "./build.mjs";
import { ensureExtensionDeps, root, run, step } from "./toolchain.mjs";
import { join } from "node:path";

try {
  step("cargo fmt --check", () => run("cargo", ["fmt", "--all", "--", "--check"]));
  // fuzz/ is its own workspace (nightly, `npm run fuzz`): formatting is checked here, cheaply
  step("cargo fmt --check (fuzz/)", () => run("cargo", ["fmt", "--manifest-path", "fuzz/Cargo.toml", "--", "--check"]));
  step("cargo fmt --check (tools/wasm-bindgen/)", () => run("cargo", ["fmt", "--manifest-path", "tools/wasm-bindgen/Cargo.toml", "--", "--check"]));
  step("cargo clippy (native)", () => run("cargo", ["clippy", "--quiet", "--all-targets", "--", "-D", "warnings"]));
  step("cargo clippy (wasm32)", () =>
    run("cargo", ["clippy", "--quiet", "--lib", "--target", "wasm32-unknown-unknown", "--", "-D", "warnings"]),
  );
  await build();
  step("tsc --noEmit", () => run(join(root, "node_modules/typescript/bin/tsc"), ["-p", "tsconfig.json", "--noEmit"]));
  // the playground (playground/src/, bundled by esbuild) against the built declarations
  step("tsc playground", () => run(join(root, "node_modules/typescript/bin/tsc"), ["-p", "playground/tsconfig.json"]));
  // the published declarations against the SDK's memory-tool types, as a user's code sees them
  step("tsc tests/types", () => run(join(root, "node_modules/typescript/bin/tsc"), ["-p", "tests/types/tsconfig.json"]));
  // the VS Code extension against its pinned @types/vscode and memdir's published declarations
  ensureExtensionDeps();
  step("tsc examples/vscode", () => run(join(root, "node_modules/typescript/bin/tsc"), ["-p", "examples/vscode/tsconfig.json"]));
} catch (error) {
  console.error(`\nlint failed: ${error.message}`);
  process.exit(1);
}
