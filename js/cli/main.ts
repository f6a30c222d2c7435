#!/usr/bin/env node
/**
 * The `memdir` process: the V8 flags a short command wants, then `runCli` (cli.ts) on the
 * process's arguments and environment. The status is set with `process.exitCode`, never
 * `process.exit`: output piped to a slow reader arrives whole.
 */
import { setFlagsFromString } from "node:v8";
import { COMMANDS } from "./commands.js";
import { runCli } from "./cli.js";

const argv = process.argv.slice(2);
// A command runs once and exits. V8 compiles the hot WebAssembly functions again with its
// optimising compiler, in the background, and Node waits for those jobs before it exits
// (40–100 ms measured, longer than the command's work); they would never run. The largest
// tiering budget the flag takes leaves a short process on the baseline code (100,000,000 was
// not enough: a hot helper such as memcmp, called millions of times on 200 files, spent it).
// Lazy validation: a function body is validated when first compiled, not all ~800 KB when the
// module is (~2 ms of every command's start; a command calls a small part of the core).
// Set before the core is loaded (each command imports it when it runs).
// A server (mcp) runs long: V8's own tiering suits it.
const named = argv.find((a) => Object.hasOwn(COMMANDS, a));
if (!(named !== undefined && COMMANDS[named]!.longRunning)) {
  setFlagsFromString("--wasm-tiering-budget=2147483647");
  setFlagsFromString("--wasm-lazy-validation");
}

process.exitCode = await runCli(argv, process.env);
