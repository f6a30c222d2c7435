// A browser consumer: the DOM library, no @types/node. `init()` with no argument loads the
// module the package carries; a VS Code web extension could hand it the file's bytes instead.
import { init, initSync, InMemoryHost, MemdirError, openMemory, VsCodeHost, type FetchFunction, type MemdirErrorCode, type WasmSource } from "memdir";
import wasmUrl from "memdir/memdir.wasm";

export async function use(bytes: Uint8Array<ArrayBuffer>): Promise<string[]> {
  await init();
  initSync(bytes);
  const sources: WasmSource[] = [bytes, bytes.buffer, new URL(wasmUrl, location.href), wasmUrl, fetch(wasmUrl), await fetch(wasmUrl), await WebAssembly.compile(bytes)];
  const fetchFunction: FetchFunction = window.fetch.bind(window);
  const memory = await openMemory({ host: new InMemoryHost(), selector: { provider: "anthropic", apiKey: "k", fetch: fetchFunction } });
  let code: MemdirErrorCode | null = null;
  try {
    await memory.remember({ type: "user", name: "x", description: "", body: "" });
  } catch (error) {
    if (error instanceof MemdirError) code = error.code;
  }
  return [String(sources.length), String(code), typeof VsCodeHost];
}
