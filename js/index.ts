/**
 * memdir: long-term memory for AI agents made of plain Markdown files.
 *
 * Everything deterministic is decided by the Rust core (compiled to WebAssembly); this
 * package's JavaScript only reads files and calls models.
 */
export * from "./core.js";
export { MEMORY_TYPES } from "./generated/defaults.js";
export { MemdirError } from "./errors.js";
export { INPUT_LIMITS } from "./edge.js";
export { openMemory } from "./open.js";
export type { OpenedMemory, MemorySession, OpenMemoryOptions, Prefetch, RecallEvent, RecallOptions, RecallOutcome, RecallResult, RecalledMemory, SelectorConfig, SelectorFunction, SelectorRequest } from "./api.js";
export type { HostEntry, HostError, LockOwner, MemoryHost } from "./host.js";
/** A listing in columns (`MemoryHost.listing`), for hosts that list that way. */
export { Listing, ListingBuilder } from "./listing.js";
export { InMemoryHost } from "./hosts/ram.js";
export { VsCodeHost } from "./hosts/vscode.js";
export type { FileStatLike, FileSystemLike, FileSystemWatcherLike, ThenableLike, UriLike, VsCodeApi } from "./hosts/vscode.js";
export { MemoryToolError, memoryTool, runMemoryCommand } from "./tool.js";
export type { MemoryTool, MemoryToolHandlers } from "./tool.js";
export type { WriteResult } from "./api.js";
export type { FetchBodyReader, FetchFunction, FetchResponse } from "./selectors.js";
export type { DoctorOptions } from "./doctor.js";
export { withLock, LOCK_FILE } from "./lock.js";
export type { LockOptions } from "./lock.js";
