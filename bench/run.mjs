// `npm run bench`: speed and size, side by side with what a user would otherwise use.
// Figures are from this one run on this machine; compare the ratios, not the absolutes.
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { performance } from "node:perf_hooks";

const t0 = performance.now();
const memdir = await import("memdir");
const importMs = performance.now() - t0;
const t1 = performance.now();
await import("gray-matter");
const grayImportMs = performance.now() - t1;
const { makeHeads, median, scanWithGrayMatter } = await import("./scan.mjs");

const wasm = readFileSync(new URL("../pkg/wasm/memdir_bg.wasm", import.meta.url));
console.log(`wasm size: ${wasm.length.toLocaleString("en")} bytes raw, ${gzipSync(wasm, { level: 9 }).length.toLocaleString("en")} bytes gzip -9`);
console.log(`import: memdir ${importMs.toFixed(1)} ms (wasm compiled and instantiated), gray-matter ${grayImportMs.toFixed(1)} ms`);

const heads = makeHeads(200);
const same = JSON.stringify(memdir.scanMemories(heads).memories) === JSON.stringify(scanWithGrayMatter(heads).memories);
const wasmMs = median(() => memdir.scanMemories(heads));
const grayMs = median(() => scanWithGrayMatter(heads));
console.log(`scan 200 headers (warm median): memdir ${wasmMs.toFixed(2)} ms, gray-matter+JS ${grayMs.toFixed(2)} ms, ratio ${(wasmMs / grayMs).toFixed(2)} (same result: ${same})`);

const bytes = heads.map((h) => ({ ...h, head: new TextEncoder().encode(h.head) }));
console.log(`scan 200 headers given as bytes: memdir ${median(() => memdir.scanMemories(bytes)).toFixed(2)} ms`);
const index = "- [Entry](file.md) — a one-line hook for this memory\n".repeat(400);
console.log(`truncateIndex on a 400-line index: ${median(() => memdir.truncateIndex(index)).toFixed(3)} ms`);

const { benchRecall } = await import("./recall.mjs");
await benchRecall(memdir);
const { evaluate } = await import("./selection-eval.mjs");
const quality = await evaluate();
const q = quality.overall;
console.log(`lexical selector on bench/eval and examples (${q.cases} cases; node bench/selection-eval.mjs for the table): recall@5 ${q.recallAt5.toFixed(2)}, precision ${q.precision.toFixed(2)}, abstention ${q.abstention.toFixed(2)}, exact ${q.exactMatch.toFixed(2)}`);
const { benchWrites } = await import("./write.mjs");
await benchWrites(memdir);
