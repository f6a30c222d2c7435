/**
 * memdir: long-term memory for AI agents made of plain Markdown files.
 *
 * Everything deterministic is decided by the Rust core (compiled to WebAssembly); this
 * package's JavaScript only reads files and calls models.
 */
export * from "./core.js";
export { MemdirError } from "./errors.js";
