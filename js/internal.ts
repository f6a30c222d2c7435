/**
 * Everything the package's modules export, for memdir's own tests and tools: not in
 * package.json "exports", so no user imports it. The public entry is `index.ts`.
 */
export * from "./core.js";
export * from "./index.js";
export { Listing, ListingBuilder } from "./listing.js";
export type { FileStatLike, FileSystemLike, FileSystemWatcherLike, ThenableLike, UriLike } from "./hosts/vscode.js";
export type { FetchBodyReader, FetchFunction, FetchResponse } from "./selectors.js";
export { NodeHost } from "./hosts/node.js";
export type { NodeFs, NodeHostOptions } from "./hosts/node.js";
export { openMemory } from "./node-open.js";
export type { Prefetch, RecallEvent, SelectorRequest } from "./api.js";
export type { RecallOutcome } from "./api.js";
export type { DoctorOptions } from "./doctor.js";
export type { LockOptions } from "./lock.js";
export type { HostHead, WriteRequest } from "./host.js";
