// How small the wasm module gets, and what a split would leave in it: the module built whole, as
// `recall` (without the exports only upkeep calls: doctor, the keepers, undo/restore/log and
// pruning, the MEMORY.md merge driver) or as `read` (without the writers too: the memory tool,
// remember/forget, the journal every write records), at an opt-level, through wasm-bindgen and
// wasm-opt -O3, gzip -9 as the build measures it. Not part of `npm run bench` (each variant is a
// release build of its own, about a minute here):
//
//   node bench/wasm-size-floor.mjs [--opt 3|s|z] [--module whole|recall|read]
//
// What is built is a copy of the working tree's `src/`, `benches/`, `js/generated/` (the
// declarations the module carries), `Cargo.toml` and `Cargo.lock` in a temporary folder with its
// own target folder; the clone's `target/` and `pkg/` are left as they are. A module other than
// `whole` puts `#[cfg(any())]` (never true) on each export it leaves out, so LTO drops the code
// only those reach; a name below that is not an export is an error, never a silently different
// module.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { wasmModule } from "../scripts/build.mjs";
import { ensureNpmDeps, ensureWasmTarget, root, run, startWasmBindgen, step } from "../scripts/toolchain.mjs";

/** The exports that only upkeep calls: what a `recall` module leaves out. */
export const UPKEEP_EXPORTS = [
  // doctor and its diff
  "doctorReadPlan", "runDoctor", "planDoctorFixes", "unifiedDiff",
  // the keepers
  "buildExtractionRequest", "parseExtraction", "extractionReadPlan", "planExtraction",
  "touchReadPlan", "planTouch", "buildConsolidationRequest", "planConsolidation", "consolidationDue",
  // history: undo, restore, recovery, log, pruning (the journal that every write records stays)
  "planHistoryPrune", "historyRecoveryReadPlan", "planHistoryRecovery", "historyReverseReadPlan",
  "planHistoryReverse", "historyItems",
  // the MEMORY.md merge driver
  "mergeIndex",
];

/** The writers' exports: what a `read` module leaves out besides the upkeep ones. */
export const WRITER_EXPORTS = [
  "planToolCommand", "runToolCommand", "memoryToolInputSchema", "planRemember", "planForget",
  "rememberReadPlan", "forgetReadPlan", "outsideLinks", "findSecrets", "writeScope",
  "planHistoryRecord", "historyReadPlan", "historySegments", "contentHash", "tempFileName", "parseTempFile",
];

const LEFT_OUT = { whole: [], recall: UPKEEP_EXPORTS, read: [...UPKEEP_EXPORTS, ...WRITER_EXPORTS] };

const { values } = parseArgs({ options: { opt: { type: "string", default: "3" }, module: { type: "string", default: "whole" } } });
if (!["3", "s", "z"].includes(values.opt)) throw new Error(`--opt is 3, s or z, not ${values.opt}`);
const leftOut = Object.hasOwn(LEFT_OUT, values.module) ? LEFT_OUT[values.module] : null;
if (leftOut === null) throw new Error(`--module is whole, recall or read, not ${values.module}`);

ensureNpmDeps();
ensureWasmTarget();
const bindgen = startWasmBindgen();
const work = mkdtempSync(join(tmpdir(), "memdir-size-"));
try {
  for (const path of ["src", "benches", "js/generated", "Cargo.toml", "Cargo.lock"]) cpSync(join(root, path), join(work, path), { recursive: true });
  if (leftOut.length > 0) leaveOut(join(work, "src", "wasm"), leftOut);
  step(`cargo build --release (opt-level ${values.opt})`, () =>
    run("cargo", ["build", "--quiet", "--release", "--locked", "--target", "wasm32-unknown-unknown"], {
      cwd: work,
      // -A warnings: imports an export left out no longer uses (no effect on the code generated)
      env: { ...process.env, CARGO_PROFILE_RELEASE_OPT_LEVEL: values.opt, RUSTFLAGS: "-A warnings" },
    }),
  );
  const wasmBindgen = await bindgen.ready;
  const { bytes, gzip } = wasmModule(wasmBindgen, join(work, "target/wasm32-unknown-unknown/release/memdir.wasm"), join(work, "out"));
  const what = `${values.module} (${leftOut.length} exports left out), opt-level ${values.opt}`;
  console.log(`memdir_bg.wasm ${what}: ${bytes.toLocaleString("en")} bytes, ${gzip.toLocaleString("en")} gzip -9`);
} finally {
  bindgen.cancel();
  rmSync(work, { recursive: true, force: true });
}

/** `#[cfg(any())]` (never true) on each named export in the copy's `src/wasm`; throws for a name not found. */
function leaveOut(dir, names) {
  const left = new Set(names);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".rs"))) {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8").replace(/#\[wasm_bindgen\(\s*js_name = (\w+)/g, (attr, name) => {
      if (!left.delete(name)) return attr;
      return `#[cfg(any())]\n${attr}`;
    });
    writeFileSync(path, text);
  }
  if (left.size > 0) throw new Error(`bench/wasm-size-floor.mjs: no export ${[...left].join(", ")} in src/wasm (update UPKEEP_EXPORTS or WRITER_EXPORTS)`);
}
