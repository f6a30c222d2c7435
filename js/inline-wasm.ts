/**
 * The module this package carries inside its JavaScript (pkg/wasm/inline.js, written by the
 * build: deflated, base64), turned back into a `Response` the browser compiles as it streams.
 * Needs `DecompressionStream` (every current browser, web workers, Deno, Node 21+); where it
 * is missing, pass the module yourself (`init(url)`, `initSync(bytes)`).
 */
import { MemdirError } from "./errors.js";

function fromBase64(text: string): Uint8Array {
  const native = (Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array }).fromBase64;
  if (typeof native === "function") return native(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The carried module as a streaming `Response` with the `application/wasm` type. The copy is
 * imported when asked for, so a bundler that splits code puts it in a chunk of its own, loaded
 * by `init()` (vite warns about a chunk over 500 KB; the module alone is under).
 */
export async function inflateInlineWasm(): Promise<Response> {
  if (typeof DecompressionStream !== "function") {
    throw new MemdirError("INVALID_ARGUMENT", "this platform has no DecompressionStream to unpack the module memdir carries: pass it yourself, `init(url)` or `initSync(bytes)` with memdir/memdir.wasm");
  }
  const { wasmDeflatedBase64 } = await import("./wasm/inline.js");
  const deflated = new Blob([fromBase64(wasmDeflatedBase64) as Uint8Array<ArrayBuffer>]);
  return new Response(deflated.stream().pipeThrough(new DecompressionStream("deflate-raw")), { headers: { "content-type": "application/wasm" } });
}
