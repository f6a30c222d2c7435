// How long memdir's scans hold the event loop, in more detail than `npm run bench` gives (which
// keeps the worst hold of every run): max, 99th and 90th percentile of `monitorEventLoopDelay`
// over `runs` cold scans (a new `openMemory` after a file changed) and as many turns with one
// file changed, next to the same process idle (this VM's own noise). Then issue 22's case:
// `left` earlier memories on the folder left open (each scanned, each watching), every file's
// mtime changed (`utimes`), then a fresh `openMemory` + `scan` while their watchers hear of it:
// the longest hold over `runs` such rounds.
//
//   node bench/event-loop.mjs [files=200] [runs=30] [left=4]
import { monitorEventLoopDelay } from "node:perf_hooks";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { memoryFolder, topicPath, touchOne } from "./fixture.mjs";
import { settleHeap } from "./scan-fs.mjs";

const memdir = await import("memdir");
const n = Number(process.argv[2] ?? 200);
const runs = Number(process.argv[3] ?? 30);
const left = Number(process.argv[4] ?? 4);
const folder = memoryFolder(n);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const open = () => memdir.openMemory({ dir: folder.dir, selector: { provider: "lexical" } });
const show = (h) => `max ${(h.max / 1e6).toFixed(1)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(1)}, p90 ${(h.percentile(90) / 1e6).toFixed(1)}`;
try {
  await sleep(150); // past the moment the files were written
  for (let i = 0; i < 3; i++) {
    const warm = await open();
    await warm.scan();
    warm.close();
  }
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await sleep(300);
  idle.disable();

  settleHeap(); // as npm run bench does: garbage from before is not collected inside the window
  const cold = monitorEventLoopDelay({ resolution: 1 });
  cold.enable();
  for (let k = 0; k < runs; k++) {
    touchOne(folder, k + 1000);
    await sleep(2);
    const memory = await open();
    await memory.scan();
    memory.close();
  }
  cold.disable();

  const memory = await open();
  await memory.scan();
  await sleep(150);
  await memory.scan();
  const changed = monitorEventLoopDelay({ resolution: 1 });
  changed.enable();
  for (let k = 0; k < runs; k++) {
    touchOne(folder, k + 2000);
    await sleep(2);
    await memory.scan();
  }
  changed.disable();
  memory.close();
  console.log(`${n} files, ${runs} runs each — idle: ${show(idle)} | cold scans: ${show(cold)} | one file changed: ${show(changed)}`);

  // issue 22: earlier memories left open, every mtime changed, a fresh openMemory + scan
  const earlier = [];
  for (let i = 0; i < left; i++) {
    const m = await open();
    await m.scan();
    earlier.push(m);
  }
  await sleep(150);
  const paths = Array.from({ length: n }, (_, i) => join(folder.dir, topicPath(i)));
  const rounds = Math.min(runs, 5);
  const held = [];
  for (let k = 0; k < rounds; k++) {
    const t = new Date(Date.now() - 3_600_000 + k * 1000);
    for (const p of paths) utimesSync(p, t, t); // the bench's own work: before the window opens
    settleHeap();
    // a new monitor each round: one enabled again counts the time since it was disabled (the utimes above)
    const round = monitorEventLoopDelay({ resolution: 1 });
    round.enable();
    const fresh = await open();
    await fresh.scan();
    await sleep(300); // the watchers of the memories left open hear of it, and read again
    round.disable();
    held.push(round);
    fresh.close();
  }
  for (const m of earlier) m.close();
  const worst = held.reduce((a, b) => (b.max > a.max ? b : a));
  console.log(`${n} files, ${left} earlier memories left open, every mtime changed, then a fresh openMemory + scan (${rounds} rounds): the worst round ${show(worst)}; max by round ${held.map((h) => (h.max / 1e6).toFixed(1)).join(", ")} ms`);
} finally {
  folder.remove();
}
