/**
 * The commands that work on a memory, in one module: `commands.ts` imports it when such a
 * command runs (so `--help` and `--version` load none of it, nor the core), and the bundled
 * CLI (scripts/packaging.mjs, `bundleCli`) loads it as one file with the core, instead of
 * some forty modules one after another.
 */
export * as consolidate from "./consolidate.js";
export * as doctor from "./doctor.js";
export * as extract from "./extract.js";
export * as git from "./git.js";
export * as history from "./history.js";
export * as read from "./read.js";
export * as recall from "./recall.js";
export * as transfer from "./transfer.js";
export * as write from "./write.js";
