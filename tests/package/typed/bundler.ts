// A consumer under `moduleResolution: bundler`, which knows no platform: "memdir" gives the
// browser declarations (no NodeHost), "memdir/node" the Node ones.
import { init, InMemoryHost, openMemory, type MemdirErrorCode, type WasmSource } from "memdir";
// @ts-expect-error: NodeHost is in memdir/node, not in the platform-neutral "memdir"
import { NodeHost as NotHere } from "memdir";
import { NodeHost } from "memdir/node";
import wasmUrl from "memdir/memdir.wasm";

export async function use(): Promise<string[]> {
  const source: WasmSource = new URL(wasmUrl, "https://example.test/");
  await init(source);
  const memory = await openMemory({ host: new InMemoryHost({ "MEMORY.md": "" }), selector: { provider: "lexical" } });
  const code: MemdirErrorCode = "LOCKED";
  return [memory.host.root, new NodeHost("/tmp/memory").root, code, String(NotHere)];
}
