/// <reference types="node" preserve="true" />
/**
 * The Node entry, as Node itself resolves `memdir` (ESM `import`, `require` on 20.19+): reads
 * the module from the file next to it, synchronously, so `import { truncateIndex } from
 * "memdir"` is usable on the next line, with no top-level await (which keeps `require(esm)`
 * working). Bundlers take `node-bundled.js` instead (the `module` condition), which carries
 * the module inside its JavaScript.
 *
 * A bundle that took this file anyway (a bundler told not to use the `module` condition) has
 * no file next to it: then nothing is loaded, and every call throws `NOT_INITIALIZED` saying
 * so, until the host hands over the bytes of `memdir/memdir.wasm` with `initSync(bytes)`.
 */
import { readFileSync } from "node:fs";
import { initSync } from "../core.js";
import { explainNotReady } from "../not-ready.js";

try {
  initSync(readFileSync(new URL("../wasm/memdir_bg.wasm", import.meta.url)));
} catch (error) {
  const why = error instanceof Error ? error.message : String(error);
  explainNotReady(
    `memdir could not read memdir.wasm next to its Node entry (${why}): in a bundle, let the bundler use the \`module\` export condition (the default), or read the bytes of memdir/memdir.wasm yourself and call initSync(bytes)`,
  );
}

export * from "../node-api.js";
