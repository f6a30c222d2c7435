// Time of `recall` excluding the model call, for 200 and 5,000 topic files on the real file
// system (list, stat, plan, read the newest 200 heads, scan, build the request, parse the
// answer, read and render the chosen files). The selector is a function that answers at once,
// so what is measured is memdir's own work; `modelLatencyMs` is subtracted all the same.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function makeDir(n) {
  const dir = mkdtempSync(join(tmpdir(), `memdir-bench-${n}-`));
  mkdirSync(join(dir, "team"));
  const types = ["user", "feedback", "project", "reference"];
  for (let i = 0; i < n; i++) {
    const type = types[i % 4];
    const path = join(dir, i % 10 === 0 ? "team" : "", `${type}_${i}.md`);
    writeFileSync(path, `---\nname: Memory ${i}\ndescription: ${type} memory ${i} about deploys, tests and on-call\ntype: ${type}\n---\n${"Body line with **Why:** and **How to apply:**.\n".repeat(20)}`);
    const t = new Date(Date.now() - i * 600_000);
    utimesSync(path, t, t);
  }
  writeFileSync(join(dir, "MEMORY.md"), "- [Memory 0](user_0.md) — hook\n");
  return dir;
}

export async function benchRecall(memdir) {
  for (const n of [200, 5000]) {
    const dir = makeDir(n);
    try {
      const memory = await memdir.openMemory({ dir, selector: async (req) => JSON.stringify({ selected_memories: req.user.match(/\S+\.md/g).slice(0, 5) }) });
      const times = [];
      for (let i = 0; i < 25; i++) {
        const r = await memory.recall("what should I know about deploys and tests");
        if (r.outcome !== "selected") throw new Error(`recall ${r.outcome}: ${r.error}`);
        if (i >= 5) times.push(r.latencyMs - r.modelLatencyMs);
      }
      times.sort((a, b) => a - b);
      console.log(`recall without the model call, ${n} files: median ${times[times.length >> 1].toFixed(1)} ms (min ${times[0].toFixed(1)}, max ${times.at(-1).toFixed(1)}) over ${times.length} warm runs`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
