/**
 * The Node entry: loads the WebAssembly module synchronously on import, so
 * `import { truncateIndex } from "memdir"` is usable on the next line, with no top-level await
 * (which keeps `require("memdir")` working on Node 20.19+). The module comes from the copy
 * this package carries inside its JavaScript, not from a file next to it: an ESM program, a
 * CommonJS bundle (esbuild, webpack) and a single-file bundle all find it, with no
 * `import.meta.url` and no asset to copy.
 */
import { Buffer } from "node:buffer";
import { inflateRawSync } from "node:zlib";
import { initSync } from "../core.js";
import { wasmDeflatedBase64 } from "../wasm/inline.js";

initSync(inflateRawSync(Buffer.from(wasmDeflatedBase64, "base64")));

export * from "../index.js";
export { NodeHost } from "../hosts/node.js";
export type { NodeFs, NodeHostOptions } from "../hosts/node.js";
export { openMemory } from "../node-open.js";
