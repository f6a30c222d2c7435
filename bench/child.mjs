// Run in a fresh process by bench/process.mjs: `first <dir>` times the first scan and recall
// in a process and then warm ones; `memory <dir>` reports the peak memory of a scan and a recall.
import { performance } from "node:perf_hooks";

const [mode, dir] = process.argv.slice(2);
const t0 = performance.now();
const memdir = await import("memdir");
const importMs = performance.now() - t0;
if (mode === "baseline") {
  console.log(JSON.stringify({ maxRssKB: process.resourceUsage().maxRSS }));
  process.exit(0);
}
const selector = async (req) => JSON.stringify({ selected_memories: req.user.match(/\S+\.md/g).slice(0, 5) });
const coldScan = async () => {
  const memory = await memdir.openMemory({ dir, selector });
  const t = performance.now();
  await memory.scan();
  const scanMs = performance.now() - t;
  memory.close();
  return scanMs;
};
if (mode === "first") {
  const first = await coldScan();
  for (let i = 0; i < 10; i++) await coldScan();
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push(await coldScan());
  warm.sort((a, b) => a - b);
  const memory = await memdir.openMemory({ dir, selector });
  const r = await memory.recall("what should I know about deploys and tests");
  console.log(JSON.stringify({ importMs, firstScanMs: first, warmScanMs: warm[2], firstRecallOwnMs: r.latencyMs - r.modelLatencyMs }));
} else {
  const memory = await memdir.openMemory({ dir, selector });
  await memory.scan();
  await memory.recall("what should I know about deploys and tests");
  const m = process.memoryUsage();
  console.log(JSON.stringify({ maxRssKB: process.resourceUsage().maxRSS, heapUsedMB: m.heapUsed / 1e6, arrayBuffersMB: m.arrayBuffers / 1e6 }));
}
