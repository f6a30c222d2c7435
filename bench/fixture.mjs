// Memory folders for the benchmarks: `n` topic files as Claude Code writes them (a tenth in a
// sub-folder), mtimes ten minutes apart, and an index.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const TYPES = ["user", "feedback", "project", "reference"];

export function topicText(i, note = "") {
  const type = TYPES[i % 4];
  return (
    `---\nname: Memory ${i}\ndescription: ${type} memory ${i} about deploys, tests and on-call${note}\ntype: ${type}\n---\n\n` +
    "Body line with **Why:** and **How to apply:**, as a memory's body reads.\n".repeat(20)
  );
}

export function topicPath(i) {
  return `${i % 10 === 0 ? "team/" : ""}${TYPES[i % 4]}_${i}.md`;
}

/** A folder of `n` memories; `remove()` deletes it. */
export function memoryFolder(n, prefix = "memdir-bench-") {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}${n}-`));
  mkdirSync(join(dir, "team"));
  const now = Date.now();
  const lines = [];
  for (let i = 0; i < n; i++) {
    const path = join(dir, topicPath(i));
    writeFileSync(path, topicText(i));
    const t = new Date(now - (i + 1) * 600_000);
    utimesSync(path, t, t);
    if (i < 150) lines.push(`- [Memory ${i}](${topicPath(i)}) — memory ${i}`);
  }
  writeFileSync(join(dir, "MEMORY.md"), `${lines.join("\n")}\n`);
  return { dir, n, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Rewrites one memory (a new description, the mtime now), as an edit between two turns does. */
export function touchOne(folder, k) {
  const i = (k * 7919) % folder.n;
  writeFileSync(join(folder.dir, topicPath(i)), topicText(i, ` (edit ${k})`));
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median wall time of `fn` over `runs` runs, after `warmup` runs; `before` runs untimed before each. */
export async function timeMedian(fn, runs, warmup = 1, before = null) {
  let k = 0;
  for (let i = 0; i < warmup; i++) {
    await before?.(k);
    await fn(k++);
  }
  const times = [];
  for (let i = 0; i < runs; i++) {
    await before?.(k);
    // turns come apart: the event loop runs between them (and the delay monitor sees each alone)
    await new Promise((r) => setTimeout(r, 1));
    const t = performance.now();
    await fn(k++);
    times.push(performance.now() - t);
  }
  return median(times);
}

export const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
export const ratio = (a, b) => (b > 0 ? a / b : Number.NaN);
