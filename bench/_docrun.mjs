import { openMemory } from "memdir";
const dir = process.argv[2];
const m = await openMemory({ dir });
const t0 = performance.now();
const plan = await m.planFixes();
const t1 = performance.now();
const mem = process.memoryUsage();
console.log(JSON.stringify({ dir, ms: Math.round(t1 - t0), rssMB: Math.round(mem.rss / 1e6), arrayBuffersMB: Math.round(mem.arrayBuffers / 1e6), findings: plan.before.findings.length, effects: plan.effects.length }));
