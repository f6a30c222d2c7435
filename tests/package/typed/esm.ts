// A Node ESM consumer, type-checked by types.test.mjs under node16 and nodenext with
// skipLibCheck off: Node's exports (NodeHost), the code unions, the wasm subpath, the loaders.
import { init, initSync, isReady, MemdirError, NodeHost, openMemory, truncateIndex } from "memdir";
import type { DiagnosticCode, FetchFunction, FindingCode, MemdirErrorCode, NodeHostOptions, OpenedMemory, WasmSource } from "memdir";
import { NodeHost as SameNodeHost } from "memdir/node";
// @ts-expect-error: the browser entry has no NodeHost
import { NodeHost as NoNodeHost } from "memdir/browser";
import wasmUrl from "memdir/memdir.wasm";

export async function use(dir: string): Promise<string[]> {
  const fetchFunction: FetchFunction = globalThis.fetch;
  const memory: OpenedMemory = await openMemory({ dir, selector: { provider: "openai", fetch: fetchFunction } });
  const options: NodeHostOptions = {};
  const host: SameNodeHost = new NodeHost(dir, options);
  const findings: FindingCode[] = (await memory.doctor()).findings.map((f) => f.code);
  const diagnostics: DiagnosticCode[] = (await memory.scan()).diagnostics.map((d) => d.code);
  try {
    truncateIndex("x");
  } catch (error) {
    if (error instanceof MemdirError) {
      const code: MemdirErrorCode = error.code;
      // @ts-expect-error: `code` is the union of memdir's codes, so an unknown one cannot match
      if (error.code === "NOT_A_CODE") return [code];
    }
  }
  const sources: WasmSource[] = [new Uint8Array(8), new ArrayBuffer(8), Buffer.from("x"), new URL("https://example.test/memdir.wasm"), "memdir.wasm", fetch("memdir.wasm"), await fetch("memdir.wasm")];
  // @ts-expect-error: a number is no module
  const notASource: WasmSource = 42;
  initSync(Buffer.from([0, 97, 115, 109]));
  await init(sources[0]);
  return [host.root, wasmUrl, String(isReady()), String(notASource), String(NoNodeHost), ...findings, ...diagnostics];
}
