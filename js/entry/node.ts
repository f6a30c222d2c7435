/**
 * The Node entry: loads the WebAssembly module synchronously from the file next to it, so
 * `import { truncateIndex } from "memdir"` is usable on the next line, with no top-level await
 * (which keeps `require(esm)` and bundlers working).
 */
import { readFileSync } from "node:fs";
import { initSync } from "../core.js";

initSync(readFileSync(new URL("../wasm/memdir_bg.wasm", import.meta.url)));

export * from "../index.js";
export { NodeHost } from "../hosts/node.js";
