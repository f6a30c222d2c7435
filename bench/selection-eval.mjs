// Offline selection quality of the lexical selector on examples/queries.json (12 queries with
// hand-judged relevant files): precision and recall of what it chooses.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openMemory } from "memdir";

export async function evaluateLexical() {
  const dir = fileURLToPath(new URL("../examples/memory/", import.meta.url));
  const queries = JSON.parse(readFileSync(new URL("../examples/queries.json", import.meta.url), "utf8"));
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  let hits = 0, chosen = 0, relevant = 0, emptyRight = 0, empties = 0;
  const rows = [];
  for (const { query, relevant: want } of queries) {
    const r = await memory.recall(query);
    const got = r.memories.map((m) => m.path);
    hits += got.filter((p) => want.includes(p)).length;
    chosen += got.length;
    relevant += want.length;
    if (want.length === 0) { empties++; if (got.length === 0) emptyRight++; }
    rows.push({ query, want, got });
  }
  return { precision: chosen ? hits / chosen : 1, recall: relevant ? hits / relevant : 1, emptyRight, empties, rows };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const e = await evaluateLexical();
  for (const r of e.rows) console.log(`${r.got.join(",") || "-"}  <=  want ${r.want.join(",") || "-"}  :: ${r.query}`);
  console.log(`lexical: precision ${e.precision.toFixed(2)}, recall ${e.recall.toFixed(2)}, empty answers right ${e.emptyRight}/${e.empties}`);
}
