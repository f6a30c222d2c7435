// Whether the Node host's fast paths (js/hosts/node-fast.ts, its `fast` group) earn their place:
// a cold scan (a new `openMemory` on a new NodeHost after a file changed, then `scan()`) with
// them and without them (`rawFs: null`: the host's required members alone, through
// `node:fs/promises`), at 200 and 20,000 files.
import { memoryFolder, ratio, timeMedian, touchOne } from "./fixture.mjs";

const RUNS = { 200: 15, 20000: 3 };

export async function benchHostFast(memdir, sizes = [200, 20000]) {
  const rows = [];
  for (const n of sizes) {
    const folder = memoryFolder(n);
    const runs = RUNS[n] ?? 5;
    try {
      await new Promise((r) => setTimeout(r, 150)); // past the moment the files were written
      const cold = (options) =>
        timeMedian(
          async () => {
            const memory = await memdir.openMemory({ host: new memdir.NodeHost(folder.dir, options), selector: { provider: "lexical" } });
            await memory.scan();
            memory.close();
          },
          runs,
          1,
          (k) => touchOne(folder, k + 3000),
        );
      const withFast = await cold({});
      const without = await cold({ rawFs: null });
      rows.push({ files: n, withFastMs: withFast, withoutFastMs: without, speedup: ratio(without, withFast) });
    } finally {
      folder.remove();
    }
  }
  return rows;
}
