// A CommonJS consumer (its package.json has no "type"), type-checked under node16 and
// nodenext: `import` compiles to require("memdir"), which Node 20.19+ loads (require of ESM).
import { init, initSync, MemdirError, NodeHost, openMemory } from "memdir";
import type { FindingCode, MemdirErrorCode, WasmSource } from "memdir";
import wasmPath = require("memdir/memdir.wasm");

export async function use(dir: string): Promise<string[]> {
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const host = new NodeHost(dir);
  const findings: FindingCode[] = (await memory.doctor()).findings.map((f) => f.code);
  let code: MemdirErrorCode | null = null;
  try {
    await memory.forget("../x.md");
  } catch (error) {
    if (error instanceof MemdirError) code = error.code;
  }
  // @ts-expect-error: an unknown code is no MemdirErrorCode
  const wrong: MemdirErrorCode = "NOT_A_CODE";
  const source: WasmSource = Buffer.from("x");
  initSync(new Uint8Array(8));
  await init(source);
  return [host.root, wasmPath, String(code), wrong, ...findings];
}
