// `npm run bench`: speed and size, side by side with what a user would otherwise use, in one
// run. Prints as it goes and writes bench/results/latest.json and latest.md (the table in
// docs/measured.md is that file's). Figures are from this one run on this machine, whatever else it was doing
// (the load average is recorded): compare the ratios, not the absolutes.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release } from "node:os";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { performance } from "node:perf_hooks";
import { ms } from "./fixture.mjs";

const started = performance.now();
const only = process.argv.slice(2);
const want = (part) => only.length === 0 || only.includes(part);
const log = (line) => console.log(line);
const memdir = await import("memdir");
const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8"));
const results = {
  date: new Date().toISOString(),
  machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "", platform: `${platform()} ${release()}`, loadAverageAtStart: loadavg().map((x) => Math.round(x * 100) / 100) },
  versions: { memdir: pkg.version, node: process.version, commit: gitCommit() },
};

function gitCommit() {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

// ---- the module's size ---------------------------------------------------------------------
const wasm = readFileSync(`${root}pkg/wasm/memdir_bg.wasm`);
results.wasm = {
  rawBytes: wasm.length,
  gzipBytes: gzipSync(wasm, { level: 9 }).length,
  brotliBytes: brotliCompressSync(wasm, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length,
};
log(`wasm: ${results.wasm.rawBytes.toLocaleString("en")} bytes raw, ${results.wasm.gzipBytes.toLocaleString("en")} gzip -9, ${results.wasm.brotliBytes.toLocaleString("en")} brotli`);

// ---- the scan ------------------------------------------------------------------------------
if (want("scan")) {
  const { benchScans } = await import("./scan-fs.mjs");
  results.scan = await benchScans(memdir);
  for (const r of results.scan) {
    log(
      `scan ${r.files} files: cold ${ms(r.coldMs)} ms (plain JS ${ms(r.plainJsMs)} ms, ${r.vsPlainJs.toFixed(1)}x faster; sync floor ${ms(r.floorMs)} ms, ${r.vsFloor.toFixed(1)}x it), ` +
        `per turn ${ms(r.unchangedMs)} ms unchanged, ${ms(r.oneChangedMs)} ms one file changed; event loop held at most ${ms(r.maxEventLoopDelayMs)} ms`,
    );
  }
}

// ---- the Node host with and without its fast paths ------------------------------------------
if (want("scan") || want("host")) {
  const { benchHostFast } = await import("./host-fast.mjs");
  results.hostFast = await benchHostFast(memdir);
  for (const r of results.hostFast) log(`cold scan ${r.files} files, the Node host with its fast paths ${ms(r.withFastMs)} ms, with the required members alone ${ms(r.withoutFastMs)} ms (${r.speedup.toFixed(1)}x)`);
}

// ---- recall without the model ----------------------------------------------------------------
if (want("recall")) {
  const { benchRecall } = await import("./recall.mjs");
  results.recall = await benchRecall(memdir);
  for (const r of results.recall) log(`recall without the model, ${r.files} files: cold ${ms(r.coldMs)} ms, per turn ${ms(r.perTurnMs)} ms`);
  for (const r of results.recall.filter((x) => x.lexical)) log(`recall with the lexical selector, ${r.files} files: cold ${ms(r.lexical.coldMs)} ms, per turn ${ms(r.lexical.perTurnMs)} ms (without a cache ${ms(r.lexical.noCachePerTurnMs)} ms)`);
}

// ---- writes --------------------------------------------------------------------------------
if (want("write")) {
  const { benchWrites } = await import("./write.mjs");
  results.writes = await benchWrites(memdir);
  for (const t of results.writes.tool) log(`memory tool ${t.command}: memdir ${ms(t.memdirMs)} ms, SDK local tool ${t.sdkMs === null ? "-" : `${ms(t.sdkMs)} ms, ratio ${t.ratio.toFixed(2)}`}`);
  const r = results.writes.remember;
  log(`remember into ${r.files} memories: ${ms(r.memdirMs)} ms (checks, lock, atomic durable writes), two bare fs writes ${ms(r.bareWritesMs)} ms`);
  log(`doctor on 200 memories: ${ms(results.writes.doctorMs)} ms`);
}

// ---- ages from git on the recall path (rules §1.3) ------------------------------------------
if (want("recall") || want("git")) {
  const { benchGit } = await import("./git.mjs");
  results.git = await benchGit(memdir);
  log(`recall a turn in a git work tree, ${results.git.files} files: ${ms(results.git.gitMs)} ms with ages from git, ${ms(results.git.mtimesMs)} ms with mtimes (${results.git.ratio.toFixed(2)}x)`);
}

// ---- scopes on the recall path (rules §1.6) -------------------------------------------------
if (want("recall") || want("scopes")) {
  const { benchScopes } = await import("./scopes.mjs");
  results.scopes = await benchScopes(memdir);
  const r = results.scopes;
  log(`recall a turn over ${r.scopes} scopes of ${r.memoriesEach} memories: ${ms(r.threeScopesMs)} ms, one folder of ${r.memoriesEach} ${ms(r.oneFolderMs)} ms (${r.ratio.toFixed(1)}x)`);
}

// ---- the PostgreSQL host (memdir/postgres) next to the Node host ------------------------------
if (want("postgres")) {
  const { benchPostgres, postgresLines } = await import("./postgres.mjs");
  results.postgres = await benchPostgres(memdir);
  for (const line of postgresLines(results.postgres, ms)) log(line);
}

// ---- a process's start and peak memory -------------------------------------------------------
if (want("process")) {
  const { benchProcess } = await import("./process.mjs");
  results.process = await benchProcess();
  const p = results.process;
  log(`memdir recall (CLI, 200 files) ${ms(p.cliRecallMs)} ms as a process, bare node ${ms(p.bareNodeMs)} ms: +${ms(p.cliRecallMs - p.bareNodeMs)} ms`);
  log(`fresh process: import ${ms(p.importMs)} ms, first scan ${ms(p.firstScanMs)} ms, a warm cold scan ${ms(p.warmScanMs)} ms`);
  log(`peak memory, scan + recall of 20,000 files: ${p.memory20k.peakRssMB.toFixed(0)} MB RSS (a process that only imported memdir: ${p.memory20k.importOnlyRssMB.toFixed(0)} MB)`);
}

// ---- the core alone, and the selector's quality ---------------------------------------------
if (want("core")) {
  const { makeHeads, median, scanWithGrayMatter } = await import("./scan.mjs");
  const heads = makeHeads(200).map((h) => ({ ...h, head: new TextEncoder().encode(h.head) }));
  const text = makeHeads(200);
  results.core = { scan200HeadsMs: median(() => memdir.scanMemories(heads)), grayMatter200HeadsMs: median(() => scanWithGrayMatter(text)) };
  log(`the core alone, 200 heads in memory: ${ms(results.core.scan200HeadsMs)} ms; gray-matter and the same rules in JS ${ms(results.core.grayMatter200HeadsMs)} ms`);
}
if (want("quality")) {
  const { evaluate } = await import("./selection-eval.mjs");
  const q = (await evaluate()).overall;
  results.selection = { cases: q.cases, recallAt5: q.recallAt5, precision: q.precision, abstention: q.abstention, exact: q.exactMatch };
  log(`lexical selector on bench/eval and examples (${q.cases} cases): recall@5 ${q.recallAt5.toFixed(2)}, precision ${q.precision.toFixed(2)}, abstention ${q.abstention.toFixed(2)}, exact ${q.exactMatch.toFixed(2)}`);
}

results.machine.loadAverageAtEnd = loadavg().map((x) => Math.round(x * 100) / 100);
results.benchSeconds = Math.round((performance.now() - started) / 100) / 10;
if (only.length === 0) {
  const { targets, markdown } = await import("./report.mjs");
  results.targets = targets(results);
  mkdirSync(`${root}bench/results`, { recursive: true });
  writeFileSync(`${root}bench/results/latest.json`, `${JSON.stringify(results, null, 1)}\n`);
  writeFileSync(`${root}bench/results/latest.md`, markdown(results));
  // docs/measured.md's table is this run's
  const page = readFileSync(`${root}docs/measured.md`, "utf8");
  const begin = "<!-- bench:begin -->";
  const end = "<!-- bench:end -->";
  if (page.includes(begin) && page.includes(end)) {
    const updated = page.slice(0, page.indexOf(begin) + begin.length) + "\n" + markdown(results) + page.slice(page.indexOf(end));
    writeFileSync(`${root}docs/measured.md`, updated);
  }
  log(`\nwrote bench/results/latest.{json,md} and docs/measured.md's table (${results.benchSeconds} s)`);
  for (const t of results.targets) log(`${t.met ? "met    " : "NOT MET"}  ${t.target}: ${t.measured}`);
}
