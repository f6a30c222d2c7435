// Scopes on the recall path (rules §1.6): a turn of recall (lexical selector) over three scopes of
// 200 memories each, next to the same 600 memories... that one folder cannot hold (its cap is 200),
// so next to one folder of 200: what a user pays per turn for the two scopes more.
import { performance } from "node:perf_hooks";
import { median, memoryFolder } from "./fixture.mjs";

const WARM = 30;
const TURNS = 300;
const ROUNDS = 5;
const QUERY = "how do we deploy the service and run the tests";

async function perTurn(memory) {
  for (let i = 0; i < WARM; i++) await memory.recall(QUERY);
  const t = performance.now();
  for (let i = 0; i < TURNS; i++) await memory.recall(QUERY);
  return (performance.now() - t) / TURNS;
}

export async function benchScopes(memdir) {
  const { openMemory } = memdir;
  const folders = [memoryFolder(200), memoryFolder(200), memoryFolder(200)];
  try {
    const lexical = { provider: "lexical" };
    const scoped = [];
    const single = [];
    for (let r = 0; r < ROUNDS; r++) {
      const three = await openMemory({ scopes: folders.map((f, i) => ({ name: `s${i}`, dir: f.dir })), selector: lexical, cache: { watch: false } });
      scoped.push(await perTurn(three));
      three.close();
      const one = await openMemory({ dir: folders[0].dir, selector: lexical, cache: { watch: false } });
      single.push(await perTurn(one));
      one.close();
    }
    const threeMs = median(scoped);
    const oneMs = median(single);
    return { memoriesEach: 200, scopes: 3, threeScopesMs: threeMs, oneFolderMs: oneMs, ratio: threeMs / oneMs };
  } finally {
    for (const f of folders) f.remove();
  }
}
