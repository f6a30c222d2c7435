/**
 * The browser entry (also what bundlers take for any target that is not Node): nothing is
 * loaded on import. Call `await init()` once; until then calls throw `NOT_INITIALIZED`. The
 * module travels inside this JavaScript, so no bundler needs a rule for a `.wasm` file, and
 * nothing here imports a `node:` module. To load `memdir/memdir.wasm` yourself instead, pass
 * its URL or bytes: `init(url)`, `initSync(bytes)`.
 */
import { init as load, isReady } from "../core.js";
import type { WasmSource } from "../core.js";
import { inflateInlineWasm } from "../inline-wasm.js";

export * from "../index.js";
export { browserHost, IndexedDbHost, OpfsHost, type IndexedDbHostOptions } from "../hosts/browser.js";

/**
 * Loads the WebAssembly module: by default the copy this package carries (inflated with the
 * platform's `DecompressionStream` and compiled as it streams), or `source`: the module's
 * URL, bytes, a compiled module or a fetch `Response`.
 */
export async function init(source?: WasmSource): Promise<void> {
  if (isReady()) return;
  await load(source ?? (await inflateInlineWasm()));
}
