/**
 * memdir: long-term memory for AI agents made of plain Markdown files.
 *
 * Everything deterministic is decided by the Rust core (compiled to WebAssembly); this
 * package's JavaScript only reads files and calls models.
 *
 * This is the public entry, chosen name by name (tests/js/exports.test.mjs keeps the list and
 * fails past 60 names): opening a memory, the hosts, the tool, the errors, the core functions
 * the README documents for direct use, and the types a caller writes down. Everything else the
 * core exports is internal (`internal.ts`, not in package.json "exports").
 */
export { init, initSync, isReady } from "./core.js";
export { buildSelectionRequest, memoryInstructions, memoryToolInputSchema, parseSelection, renderMemory, sanitizePath, scanMemories, truncateIndex, defaultLimits } from "./core.js";
/** What the VS Code extension shows: where a project's memory lives and how old a memory is. */
export { memoryAge, memoryAgeDays, memoryFreshnessText, projectMemoryDir } from "./core.js";
export type { Diagnostic, DiagnosticCode, FindingCode, MemdirErrorCode, WasmSource, Limits, Memory, ScanResult } from "./core.js";
export { MEMORY_TYPES } from "./generated/defaults.js";
export { MemdirError } from "./errors.js";
export { INPUT_LIMITS } from "./edge.js";
export { openMemory } from "./open.js";
export type { OpenedMemory, MemorySession, OpenMemoryOptions, RecallOptions, RecallResult, RecalledMemory, SelectorConfig, SelectorFunction, WriteResult } from "./api.js";
/** The automatic writers (rules §4.7): their settings, modes and results. */
export type { KeepOptions, ExtractResult, ConsolidateResult, ScopeOptions, ScopedMemory } from "./api.js";
export type { KeepMode } from "./core.js";
export type { HostEntry, HostError, HostFastPaths, HostLinks, HostLocks, HostWatcher, LockOwner, MemoryHost } from "./host.js";
export type { FetchFunction } from "./selectors.js";
export { InMemoryHost } from "./hosts/ram.js";
export { VsCodeHost } from "./hosts/vscode.js";
export type { VsCodeApi } from "./hosts/vscode.js";
export { MemoryToolError, memoryTool, runMemoryCommand } from "./tool.js";
export type { MemoryTool, MemoryToolHandlers } from "./tool.js";
export { withLock, LOCK_FILE } from "./lock.js";
