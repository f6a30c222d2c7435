// The benchmark's report: the targets of issue 13 with what this run measured, and the tables
// of bench/results/latest.md (which docs/measured.md shows).
import { ms } from "./fixture.mjs";

const row = (cells) => `| ${cells.join(" | ")} |`;
const x = (r) => `${r.toFixed(1)}×`;

export function targets(r) {
  const out = [];
  const add = (target, measured, met) => out.push({ target, measured, met: Boolean(met) });
  const scan = (n) => r.scan?.find((s) => s.files === n);
  const s200 = scan(200);
  const s20k = scan(20000);
  if (s200) {
    add("cold scan ≥ 5× the plain JavaScript scan at 200 files", `${x(s200.vsPlainJs)} (${ms(s200.coldMs)} vs ${ms(s200.plainJsMs)} ms)`, s200.vsPlainJs >= 5);
    add("cold scan ≤ 2× the sync syscall floor at 200 files", `${x(s200.vsFloor)} (${ms(s200.coldMs)} vs ${ms(s200.floorMs)} ms)`, s200.vsFloor <= 2);
    add("per turn, nothing changed, ≤ 1 ms at 200 files", `${ms(s200.unchangedMs)} ms`, s200.unchangedMs <= 1);
    add("per turn, one file changed, ≤ 2 ms at 200 files", `${ms(s200.oneChangedMs)} ms`, s200.oneChangedMs <= 2);
  }
  if (s20k) {
    add("cold scan ≥ 20× the plain JavaScript scan at 20,000 files", `${x(s20k.vsPlainJs)} (${ms(s20k.coldMs)} vs ${ms(s20k.plainJsMs)} ms)`, s20k.vsPlainJs >= 20);
    add("per turn, nothing changed, ≤ 20 ms at 20,000 files", `${ms(s20k.unchangedMs)} ms`, s20k.unchangedMs <= 20);
  }
  if (r.scan) {
    const worst = Math.max(...r.scan.map((s) => s.maxEventLoopDelayMs));
    add("the event loop never held more than 10 ms by a scan (monitorEventLoopDelay, any size)", `${ms(worst)} ms at most`, worst <= 10);
  }
  const rec = (n) => r.recall?.find((s) => s.files === n);
  if (rec(200)) {
    add("recall excluding the model ≤ 6 ms at 200 files, cold", `${ms(rec(200).coldMs)} ms`, rec(200).coldMs <= 6);
    add("recall excluding the model ≤ 2 ms per turn after", `${ms(rec(200).perTurnMs)} ms`, rec(200).perTurnMs <= 2);
  }
  const cd = r.writes?.tool.find((t) => t.command === "create + delete");
  if (cd?.ratio != null) add("memory-tool create + delete ≤ 1.5× the SDK's local tool", `${x(cd.ratio)} (${ms(cd.memdirMs)} vs ${ms(cd.sdkMs)} ms)`, cd.ratio <= 1.5);
  if (r.writes?.remember) add("remember ≤ 3 ms at 200 files", `${ms(r.writes.remember.memdirMs)} ms`, r.writes.remember.memdirMs <= 3);
  if (r.process) {
    const extra = r.process.cliRecallMs - r.process.bareNodeMs;
    add("`memdir recall` as a process ≤ bare node + 60 ms", `+${ms(extra)} ms (${ms(r.process.cliRecallMs)} vs ${ms(r.process.bareNodeMs)} ms)`, extra <= 60);
  }
  add(".wasm ≤ 300 KB gzip (issue 26)", `${(r.wasm.gzipBytes / 1000).toFixed(0)} KB gzip -9 (${(r.wasm.rawBytes / 1000).toFixed(0)} KB raw)`, r.wasm.gzipBytes <= 300_000);
  return out;
}

export function markdown(r) {
  const lines = [];
  const m = r.machine;
  lines.push(`Measured ${r.date.slice(0, 10)} by \`npm run bench\` (${r.benchSeconds} s): memdir ${r.versions.memdir}${r.versions.commit ? ` (${r.versions.commit})` : ""}, Node ${r.versions.node}, ${m.cores} cores (${m.cpu}), ${m.platform}; load average ${m.loadAverageAtStart.join(" / ")} at the start, ${m.loadAverageAtEnd.join(" / ")} at the end.`);
  lines.push("");
  if (r.scan) {
    lines.push(row(["files", "memdir cold", "per turn, unchanged", "per turn, one changed", "plain JS (fs/promises + gray-matter)", "sync floor", "cold vs plain JS", "cold vs floor", "event loop held at most"]));
    lines.push(row(Array(9).fill("---")));
    for (const s of r.scan) {
      lines.push(row([s.files.toLocaleString("en"), `${ms(s.coldMs)} ms`, `${ms(s.unchangedMs)} ms`, `${ms(s.oneChangedMs)} ms`, `${ms(s.plainJsMs)} ms`, `${ms(s.floorMs)} ms`, `${x(s.vsPlainJs)} faster`, x(s.vsFloor), `${ms(s.maxEventLoopDelayMs)} ms`]));
    }
    lines.push("");
  }
  if (r.hostFast || r.recall || r.writes || r.process) {
    lines.push(row(["measure", "memdir", "alongside"]));
    lines.push(row(["---", "---", "---"]));
    for (const s of r.hostFast ?? []) lines.push(row([`cold scan, ${s.files.toLocaleString("en")} files: the Node host with its fast paths`, `${ms(s.withFastMs)} ms`, `without them (the required members alone) ${ms(s.withoutFastMs)} ms (${x(s.speedup)})`]));
    for (const s of r.recall ?? []) lines.push(row([`recall without the model, ${s.files.toLocaleString("en")} files`, `${ms(s.coldMs)} ms cold, ${ms(s.perTurnMs)} ms a turn`, ""]));
    for (const s of (r.recall ?? []).filter((x) => x.lexical)) lines.push(row([`recall with the offline (lexical) selector, ${s.files.toLocaleString("en")} files`, `${ms(s.lexical.coldMs)} ms cold, ${ms(s.lexical.perTurnMs)} ms a turn`, `without a cache ${ms(s.lexical.noCachePerTurnMs)} ms a turn (${(s.lexical.noCachePerTurnMs / s.lexical.perTurnMs).toFixed(1)}×)`]));
    for (const t of r.writes?.tool ?? []) lines.push(row([`memory tool: ${t.command}`, `${ms(t.memdirMs)} ms`, t.sdkMs === null ? "" : `SDK local tool ${ms(t.sdkMs)} ms (${x(t.ratio)})`]));
    if (r.writes?.remember) lines.push(row([`remember into ${r.writes.remember.files} memories`, `${ms(r.writes.remember.memdirMs)} ms`, `two bare fs writes ${ms(r.writes.remember.bareWritesMs)} ms`]));
    if (r.git) lines.push(row([`recall (lexical selector) a turn in a git work tree, ${r.git.files} files`, `${ms(r.git.gitMs)} ms with ages from git`, `mtimes alone (\`git: false\`) ${ms(r.git.mtimesMs)} ms (${r.git.ratio.toFixed(2)}×)`]));
    if (r.scopes) lines.push(row([`recall (lexical selector) a turn over ${r.scopes.scopes} scopes of ${r.scopes.memoriesEach} memories`, `${ms(r.scopes.threeScopesMs)} ms`, `one folder of ${r.scopes.memoriesEach} ${ms(r.scopes.oneFolderMs)} ms (${x(r.scopes.ratio)})`]));
    if (r.writes?.doctorMs != null) lines.push(row(["doctor on 200 memories", `${ms(r.writes.doctorMs)} ms`, ""]));
    if (r.process) {
      const p = r.process;
      lines.push(row(["`memdir recall` as a process (200 files)", `${ms(p.cliRecallMs)} ms`, `bare \`node\` ${ms(p.bareNodeMs)} ms (+${ms(p.cliRecallMs - p.bareNodeMs)} ms)`]));
      lines.push(row(["a fresh process: import, first scan (200 files)", `${ms(p.importMs)} ms, ${ms(p.firstScanMs)} ms`, `a warm cold scan ${ms(p.warmScanMs)} ms`]));
      lines.push(row(["peak memory, scan + recall of 20,000 files", `${p.memory20k.peakRssMB.toFixed(0)} MB RSS`, `import only ${p.memory20k.importOnlyRssMB.toFixed(0)} MB`]));
    }
    lines.push(row(["`.wasm`", `${r.wasm.rawBytes.toLocaleString("en")} B raw`, `${r.wasm.gzipBytes.toLocaleString("en")} gzip -9, ${r.wasm.brotliBytes.toLocaleString("en")} brotli`]));
    if (r.selection) lines.push(row([`lexical selector, ${r.selection.cases} judged cases`, `recall@5 ${r.selection.recallAt5.toFixed(2)}, precision ${r.selection.precision.toFixed(2)}`, `abstention ${r.selection.abstention.toFixed(2)}, exact ${r.selection.exact.toFixed(2)}`]));
    lines.push("");
  }
  if (r.postgres?.rows?.length) {
    const rt = (q) => `${q < 10 ? q.toFixed(1) : q.toFixed(0)} round trip${q === 1 ? "" : "s"}`;
    lines.push(row(["PostgreSQL host (memdir/postgres), one server on this machine", "PostgreSQL", "Node host (a folder)", "PostgreSQL ÷ Node"]));
    lines.push(row(["---", "---", "---", "---"]));
    for (const p of r.postgres.rows) {
      const n = p.memories.toLocaleString("en");
      lines.push(row([`recall (lexical selector), ${n} memories, a turn`, `${ms(p.pg.perTurnMs)} ms, ${rt(p.pg.perTurnQueries)}`, `${ms(p.node.perTurnMs)} ms`, x(p.pg.perTurnMs / p.node.perTurnMs)]));
      lines.push(row([`recall (lexical selector), ${n} memories, cold (a new openMemory)`, `${ms(p.pg.coldMs)} ms, ${rt(p.pg.coldQueries)}`, `${ms(p.node.coldMs)} ms`, x(p.pg.coldMs / p.node.coldMs)]));
    }
    const w = r.postgres.remember;
    if (w) lines.push(row([`remember into ~${w.memories} memories`, `${ms(w.pgMs)} ms, ${rt(w.pgQueries)}`, `${ms(w.nodeMs)} ms`, x(w.pgMs / w.nodeMs)]));
    for (const p of r.postgres.rows) lines.push(row([`\`memdir import\` of ${p.files.toLocaleString("en")} files (copyMemory)`, `${ms(p.importMs)} ms, ${rt(p.importQueriesPerFile)} a file`, "", ""]));
    lines.push("");
  } else if (r.postgres?.skipped) {
    lines.push(`PostgreSQL rows skipped: ${r.postgres.skipped}.`, "");
  }
  if (r.targets) {
    lines.push(row(["target (issue 13)", "this run", ""]));
    lines.push(row(["---", "---", "---"]));
    for (const t of r.targets) lines.push(row([t.target, t.measured, t.met ? "met" : "**not met**"]));
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}
