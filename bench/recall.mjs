// Time of `recall` excluding the model call, for 200 and 5,000 topic files on the real file
// system: cold (a new `openMemory`, nothing kept) and per turn (the same opened memory, nothing
// changed, turns a timer tick apart). The selector is a function that answers at once, so what is measured is memdir's
// own work (list, plan, read the newest heads, scan, build the request, parse the answer, read
// and render the chosen files); `modelLatencyMs` is subtracted all the same.
import { median, memoryFolder } from "./fixture.mjs";

const selector = async (req) => JSON.stringify({ selected_memories: req.user.match(/\S+\.md/g).slice(0, 5) });
const QUERY = "what should I know about deploys and tests";

export async function benchRecall(memdir, sizes = [200, 5000]) {
  const rows = [];
  for (const n of sizes) {
    const folder = memoryFolder(n);
    try {
      await new Promise((r) => setTimeout(r, 150));
      const own = (r) => {
        if (r.outcome !== "selected") throw new Error(`recall ${r.outcome}: ${r.error}`);
        return r.latencyMs - r.modelLatencyMs;
      };
      const cold = [];
      for (let i = 0; i < (n > 1000 ? 7 : 15); i++) {
        const memory = await memdir.openMemory({ dir: folder.dir, selector });
        const t = own(await memory.recall(QUERY));
        memory.close();
        if (i >= 2) cold.push(t);
      }
      const memory = await memdir.openMemory({ dir: folder.dir, selector });
      const turns = [];
      for (let i = 0; i < 25; i++) {
        // turns come apart, as an agent's do (and as the scan's turns do in scan-fs.mjs): the
        // check of the held files that follows a turn runs between them, not in the next one
        await new Promise((r) => setTimeout(r, 1));
        const t = own(await memory.recall(QUERY));
        if (i >= 5) turns.push(t);
      }
      memory.close();
      rows.push({ files: n, coldMs: median(cold), perTurnMs: median(turns) });
    } finally {
      folder.remove();
    }
  }
  return rows;
}
