// A process's start: `memdir recall` as a whole process (the CLI, lexical selector, 200 files)
// against bare `node`; the first scan in a fresh process against warm ones; the peak memory of
// a scan and a recall of 20,000 files against a process that only imported memdir.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { median, memoryFolder } from "./fixture.mjs";

const CLI = fileURLToPath(new URL("../pkg/cli/main.js", import.meta.url));
const CHILD = fileURLToPath(new URL("./child.mjs", import.meta.url));
const env = { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" };

function wall(args, runs = 7) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    execFileSync(process.execPath, args, { env, stdio: ["ignore", "ignore", "inherit"] });
    times.push(performance.now() - t);
  }
  return median(times);
}

const child = (...args) => JSON.parse(execFileSync(process.execPath, [CHILD, ...args], { env, encoding: "utf8" }));

export async function benchProcess() {
  const out = {};
  const folder = memoryFolder(200);
  try {
    out.bareNodeMs = wall(["-e", ""]);
    out.cliRecallMs = wall([CLI, "recall", "what should I know about deploys and tests", "--dir", folder.dir]);
    const firsts = [child("first", folder.dir), child("first", folder.dir), child("first", folder.dir)];
    const pick = (k) => median(firsts.map((f) => f[k]));
    out.importMs = pick("importMs");
    out.firstScanMs = pick("firstScanMs");
    out.warmScanMs = pick("warmScanMs");
    out.firstRecallOwnMs = pick("firstRecallOwnMs");
  } finally {
    folder.remove();
  }
  const big = memoryFolder(20000);
  try {
    const base = child("baseline", big.dir);
    const used = child("memory", big.dir);
    out.memory20k = { peakRssMB: used.maxRssKB / 1024, importOnlyRssMB: base.maxRssKB / 1024, heapUsedMB: used.heapUsedMB };
  } finally {
    big.remove();
  }
  return out;
}
