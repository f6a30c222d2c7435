/// <reference types="node" preserve="true" />
/**
 * The Node entry as bundlers resolve `memdir` (esbuild, webpack, rollup and vite all set the
 * `module` export condition; Node does not): the module comes from the copy this package
 * carries inside its JavaScript, not from a file, so a CommonJS bundle, an ESM bundle and a
 * single-file bundle (a VS Code extension, a Lambda) all load it with no `import.meta.url`
 * and no asset to copy. Loaded synchronously on import, as in `node.js`.
 */
import { Buffer } from "node:buffer";
import { inflateRawSync } from "node:zlib";
import { initSync } from "../core.js";
import { wasmDeflatedBase64 } from "../wasm/inline.js";

initSync(inflateRawSync(Buffer.from(wasmDeflatedBase64, "base64")));

export * from "../node-api.js";
