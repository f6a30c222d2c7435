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
        if (r.outcome !== "selected") throw new Error(`recall ${r.outcome}: ${r.error ?? r.skip}`);
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
      const row = { files: n, coldMs: median(cold), perTurnMs: median(turns) };
      // the offline selector (no model at all, as `memdir recall` without a key), whose terms the
      // opened memory keeps per head, next to a memory without a cache (every turn starts over)
      if (n <= 1000) row.lexical = { coldMs: await lexicalTurns(memdir, folder.dir, true), perTurnMs: await lexicalTurns(memdir, folder.dir, false), noCachePerTurnMs: await lexicalTurns(memdir, folder.dir, false, false) };
      rows.push(row);
    } finally {
      folder.remove();
    }
  }
  return rows;
}

/** Median recall time with the lexical selector: each in a new opened memory (`cold`), or turns of one. */
async function lexicalTurns(memdir, dir, cold, cache = true) {
  const times = [];
  let memory = cold ? null : await memdir.openMemory({ dir, selector: { provider: "lexical" }, cache });
  for (let i = 0; i < (cold ? 12 : 25); i++) {
    if (cold) memory = await memdir.openMemory({ dir, selector: { provider: "lexical" } });
    else await new Promise((r) => setTimeout(r, 1));
    const r = await memory.recall(QUERY);
    if (r.outcome === "failed") throw new Error(`lexical recall failed: ${r.error}`);
    if (i >= (cold ? 2 : 5)) times.push(r.latencyMs);
    if (cold) memory.close();
  }
  if (!cold) memory.close();
  return median(times);
}
