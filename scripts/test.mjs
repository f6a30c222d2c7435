// `npm test`: everything, from a fresh clone. Installs what is missing (npm packages, the
// wasm32 target, wasm-bindgen (tools/wasm-bindgen), Chromium), runs the native Rust tests, rebuilds pkg/
// when its sources changed, then runs the Node tests of the built package, the mock-provider
// and CLI tests, the MCP server's tests, the headless-Chromium tests, the playground in Chromium, and the packed package in
// every bundler and type checker (tests/package/), and the VS Code extension in a real VS Code
// (code-server, scripts/code-server.mjs; screenshots in test-results/vscode/) under Node's test runner. One PostgreSQL server
// (scripts/postgres.mjs) serves the whole run (MEMDIR_TEST_PG_URL, tests/postgres/), stopped at
// the end whatever happened.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "./build.mjs";
import { ensureCodeServer } from "./code-server.mjs";
import { startPostgres } from "./postgres.mjs";
import { ensureChromium, ensureExtensionDeps, root, run, step } from "./toolchain.mjs";

let postgres = null;
try {
  step("cargo test", () => run("cargo", ["test", "--quiet"]));
  await build();
  ensureChromium();
  ensureExtensionDeps();
  // a real VS Code for tests/vscode/code-server.test.mjs (cached; ~3 min and ~800 MB the first
  // time). Where it cannot be installed the test is skipped with the reason — but never in CI.
  try {
    process.env.MEMDIR_CODE_SERVER = step("code-server (tests/vscode/code-server.test.mjs)", () => ensureCodeServer()).dir;
  } catch (error) {
    if (process.env.CI) throw error;
    process.env.MEMDIR_CODE_SERVER_SKIP = error.message;
    console.error(`  code-server cannot be installed here, its test is skipped: ${error.message}`);
  }
  postgres = await startPostgres();
  console.error(`  PostgreSQL for the run at ${postgres.url}`);
  process.env.MEMDIR_TEST_PG_URL = postgres.url;
  const dirs = ["tests/js", "tests/mock", "tests/cli", "tests/mcp", "tests/adapters", "tests/browser", "tests/playground", "tests/package", "tests/vscode", "tests/postgres"].filter((d) => existsSync(join(root, d)));
  const files = dirs.flatMap((d) => readdirSync(join(root, d)).filter((f) => f.endsWith(".test.mjs")).map((f) => join(d, f)));
  // spec for people, TAP to a file for the closing count
  const tapDir = mkdtempSync(join(tmpdir(), "memdir-tap-"));
  const tap = join(tapDir, "results.tap");
  let failed;
  try {
    // three files at a time: most wait on processes, servers, browsers and timers, not the CPU
    // (one at a time, the default on two cores, took ~6 minutes; three, ~2.5)
    run(process.execPath, ["--test", "--test-concurrency=3", "--test-reporter=spec", "--test-reporter-destination=stdout", "--test-reporter=tap", `--test-reporter-destination=${tap}`, ...files]);
  } catch (error) {
    failed = error;
  }
  const summary = readFileSync(tap, "utf8");
  const count = (word) => Number(new RegExp(`^# ${word} (\\d+)$`, "m").exec(summary)?.[1] ?? 0);
  console.log(`\ntests: ${count("pass")} passed, ${count("fail")} failed, ${count("skipped")} skipped`);
  rmSync(tapDir, { recursive: true, force: true });
  if (failed) throw failed;
} catch (error) {
  console.error(`\nnpm test failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  await postgres?.stop();
  if (process.exitCode) process.exit(process.exitCode);
}
