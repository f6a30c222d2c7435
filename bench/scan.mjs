// Scanning 200 topic-file headers (30 lines each) in Node: memdir's wasm core against the
// alternative a Node user would write — npm gray-matter (js-yaml) plus the same filtering,
// folding and sorting in JavaScript. One process, warm medians, reported as a ratio.
import { performance } from "node:perf_hooks";
import matter from "gray-matter";

export function makeHeads(n, now = Date.now()) {
  const types = ["user", "feedback", "project", "reference"];
  return Array.from({ length: n }, (_, i) => {
    const type = types[i % 4];
    const head = [
      "---",
      `name: Memory number ${i}`,
      `description: >`,
      `  ${type} memory ${i} about the staging deploy checklist,`,
      `  integration tests against a real database and on-call rotation`,
      `type: ${type}`,
      "---",
      "",
      ...Array.from({ length: 22 }, (_, j) => `Line ${j} of the body of memory ${i}: **Why:** because.`),
    ].join("\n");
    return { path: `${type}_${i}.md`, mtimeMs: now - i * 3_600_000, head };
  });
}

/** What a user would write without memdir: gray-matter per file, then the same rules. */
export function scanWithGrayMatter(files, maxFiles = 200) {
  const memories = [];
  for (const f of files) {
    if (!f.path.endsWith(".md") || f.path.split("/").pop() === "MEMORY.md") continue;
    let data = {};
    try {
      data = matter(f.head.split("\n").slice(0, 30).join("\n"), {}).data;
    } catch {}
    const m = { path: f.path, mtimeMs: f.mtimeMs };
    if (typeof data.name === "string") m.name = data.name;
    if (typeof data.description === "string") m.description = data.description.split(/\s+/).filter(Boolean).join(" ");
    if (["user", "feedback", "project", "reference"].includes(data.type)) m.type = data.type;
    memories.push(m);
  }
  memories.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { memories: memories.slice(0, maxFiles), dropped: memories.slice(maxFiles) };
}

export function median(fn, runs = 60) {
  for (let i = 0; i < 10; i++) fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
