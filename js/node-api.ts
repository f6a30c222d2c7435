/**
 * What both Node entries export: everything the browser entry does, `NodeHost`, and the
 * `openMemory` that opens a folder (`dir`, `projectRoot`).
 */
export * from "./index.js";
export { NodeHost } from "./hosts/node.js";
export type { NodeHostOptions } from "./hosts/node.js";
export { openMemory } from "./node-open.js";
export { claudeCodeScopes } from "./claude-settings.js";
