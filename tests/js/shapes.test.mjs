// Real shapes of memory folders (tests/fixtures/shapes/<shape>/), through the built package's
// public API and the Node host, on a temporary copy of each folder with its ages applied:
// scan, index, doctor (outside links looked up by the host), planFixes + applyFixes (every
// line and file the fixes should not touch is byte for byte the same), offline recall and the
// CLI's doctor exit status. tests/shapes.rs checks the same expect.json natively.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { openMemory } from "memdir";

const DAY_MS = 86_400_000;
const AGE_MARGIN_MS = 60_000; // as examples/ages.mjs: each file a minute older than its whole days
const MAX_ENTRY_UTF16 = 150;
const shapesDir = fileURLToPath(new URL("../fixtures/shapes/", import.meta.url));
const bin = fileURLToPath(new URL("../../pkg/cli/main.js", import.meta.url));
const shapes = readdirSync(shapesDir).filter((n) => existsSync(join(shapesDir, n, "expect.json"))).sort();

// links into the home folder (`~/.claude/plans/…`) are looked up in a home of our own
const home = mkdtempSync(join(tmpdir(), "memdir-shape-home-"));
const realHome = process.env.HOME;
process.env.HOME = home;
const temps = [home];
after(() => {
  process.env.HOME = realHome;
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

function walk(root) {
  const out = [];
  const visit = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) visit(p);
      else out.push(relative(root, p).split("\\").join("/"));
    }
  };
  visit(root);
  return out;
}

/**
 * A copy of the shape's memory/ where Claude Code keeps it, under our home
 * (`~/.claude/projects/<key>/memory`, so `../../x` stays inside it), with the mtimes of
 * ages.json and the outside files expect.json says exist (`null`: the host cannot look).
 */
function copyShape(name, expect) {
  const now = Date.parse(expect.now);
  const tmp = join(home, ".claude", "projects", `-work-${name}`);
  const dir = join(tmp, "memory");
  cpSync(join(shapesDir, name, "memory"), dir, { recursive: true });
  const ages = JSON.parse(readFileSync(join(shapesDir, name, "ages.json"), "utf8"));
  for (const [path, days] of Object.entries(ages)) {
    const when = new Date(now - days * DAY_MS - AGE_MARGIN_MS);
    utimesSync(join(dir, path), when, when);
  }
  for (const [link, exists] of Object.entries(expect.outside)) {
    if (exists === null) continue;
    const target = link.startsWith("~/") ? join(home, link.slice(2)) : resolve(dir, link);
    if (exists) {
      assert.ok(target.startsWith(home), `${name}: outside link ${link} must stay inside the temporary home`);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, `# ${link}\n`);
    } else {
      assert.ok(!existsSync(target), `${name}: ${target} exists on this machine; the fixture expects it gone`);
    }
  }
  return { dir, now, ages };
}

/** The link of an index line, as memdir's outside links name it: anchor dropped, escapes decoded. */
function linkOf(line) {
  const m = /^\s*[-*+]\s+\[(?:\\.|[^\]])*\]\(\s*<?([^)>]*)>?\s*\)/.exec(line);
  assert.ok(m, `not an entry: ${line}`);
  return decodeURIComponent(m[1].split(/[#?]/)[0]);
}

/**
 * The expected triples, sorted; with `outside`, each `outside_link` becomes the host's answer for
 * the link on that line of `index`: found → no finding, gone → `outside_link_missing`, `null` →
 * unchanged.
 */
function expected(list, index, outside) {
  const lines = index.split("\n");
  const out = [];
  for (const t of list) {
    if (outside && t[0] === "outside_link") {
      const link = linkOf(lines[t[2] - 1]);
      assert.ok(link in outside, `expect.json's outside has no answer for ${link}`);
      if (outside[link] === null) out.push(JSON.stringify(t)); // the host cannot look there either
      else if (!outside[link]) out.push(JSON.stringify(["outside_link_missing", "MEMORY.md", t[2]]));
    } else out.push(JSON.stringify(t));
  }
  return out.sort();
}

const triples = (report) => report.findings.map((f) => JSON.stringify([f.code, f.file, f.line])).sort();
const isEntryTo = (line, path) => {
  const m = /^\s*[-*+]\s+\[(?:\\.|[^\]])*\]\(\s*<?([^)>]*)>?\s*\)/.exec(line);
  return m !== null && decodeURIComponent(m[1].split(/[#?]/)[0]).replace(/^\.\//, "") === path;
};

/** The fixed index: old lines minus `removed`, `shortened` ones a shorter entry to the same file, the rest byte for byte, and one entry per `appended` file right after old line `addedAfter` (else at the end). */
function checkIndexFix(oldText, newText, spec) {
  let kept = oldText === "" ? [] : oldText.split("\n").map((line, i) => [i + 1, line]).filter(([n]) => !spec.removed.includes(n));
  if (spec.addedAfter === undefined) while (kept.length && kept.at(-1)[1].trim() === "") kept.pop();
  else if (kept.length && kept.at(-1)[1] === "") kept.pop();
  const at = spec.addedAfter === undefined ? kept.length : kept.filter(([n]) => n <= spec.addedAfter).length;
  const lines = newText.split("\n");
  assert.equal(lines.length, kept.length + spec.appended.length + 1, `line count of the fixed index:\n${newText}`);
  assert.equal(lines.at(-1), "", "the fixed index ends with a newline");
  const olds = [...lines.slice(0, at), ...lines.slice(at + spec.appended.length)];
  kept.forEach(([n, oldLine], i) => {
    if (spec.shortened.includes(n)) {
      const target = linkOf(oldLine);
      assert.equal(linkOf(olds[i]), target, `line ${n} still links to ${target}`);
      assert.ok(olds[i].length <= MAX_ENTRY_UTF16 && olds[i].length < oldLine.length, `line ${n} shortened: ${olds[i]}`);
    } else assert.equal(olds[i], oldLine, `line ${n} untouched`);
  });
  spec.appended.forEach((path, k) => assert.ok(isEntryTo(lines[at + k], path), `an entry for ${path}: ${lines[at + k]}`));
}

/** Runs of letters and digits, lower-cased, link destinations (`](…)`) left out. */
const proseWords = (text) =>
  text
    .replace(/\]\(\s*<[^>\n]*>\)|\]\([^)\s]*\)/g, "] ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => w.toLowerCase());

/** A compacted index: under its limits, and every file the fix wrote new linked from it. */
function checkCompaction(newIndex, created) {
  const trimmed = newIndex.trim();
  assert.ok(trimmed.split("\n").length <= DEFAULT_LIMITS_INDEX.lines, `${trimmed.split("\n").length} lines`);
  assert.ok(trimmed.length <= DEFAULT_LIMITS_INDEX.utf16, `${trimmed.length} units`);
  for (const path of created) assert.ok(newIndex.includes(`](${path})`), `${path} is linked from the index`);
}
const DEFAULT_LIMITS_INDEX = { lines: 200, utf16: 25_000 };

for (const name of shapes) {
  test(`shape ${name}`, async (t) => {
    const expect = JSON.parse(readFileSync(join(shapesDir, name, "expect.json"), "utf8"));
    const { dir, now } = copyShape(name, expect);
    const before = new Map(walk(dir).map((p) => [p, readFileSync(join(dir, p))]));
    const indexText = before.get("MEMORY.md")?.toString("utf8") ?? "";
    const memory = await openMemory({ dir, selector: { provider: "lexical" }, now: () => now });

    await t.test("scan: every topic file, its type and its time", async () => {
      const scan = await memory.scan();
      const all = [...scan.memories, ...scan.dropped];
      assert.deepEqual(all.map((m) => m.path).sort(), Object.keys(expect.files).sort());
      for (const m of all) {
        const want = expect.files[m.path];
        assert.equal(m.type ?? null, want.type, `type of ${m.path}`);
        assert.equal(m.mtimeMs, statSync(join(dir, m.path)).mtimeMs, `mtime of ${m.path}`);
        const time = want.timeFrom === "mtime" ? m.mtimeMs : Date.parse(m.metadata?.modified);
        assert.equal(m.timeMs, time, `time of ${m.path} (from ${want.timeFrom})`);
        assert.equal(Math.floor((now - m.timeMs) / DAY_MS), want.ageDays, `age of ${m.path}`);
      }
      if (expect.order) assert.deepEqual(scan.memories.map((m) => m.path), expect.order);
      const diagnostics = scan.diagnostics.map((d) => JSON.stringify([d.code, d.path, d.line ?? null])).sort();
      assert.deepEqual(diagnostics, expected(expect.scanDiagnostics, ""));
    });

    await t.test("index: the view and the prompt", async () => {
      const view = await memory.index();
      const want = expect.index;
      assert.deepEqual(
        { lineCount: view.lineCount, wasLineTruncated: view.wasLineTruncated, wasSizeTruncated: view.wasSizeTruncated },
        { lineCount: want.lineCount, wasLineTruncated: want.wasLineTruncated, wasSizeTruncated: want.wasSizeTruncated },
      );
      for (const s of want.contains) assert.ok(view.prompt.includes(s), `the prompt holds ${JSON.stringify(s)}`);
      for (const s of want.excludes) assert.ok(!view.prompt.includes(s), `the prompt leaves out ${JSON.stringify(s)}`);
      if (want.lineCount === 0) assert.equal(view.prompt, "");
    });

    await t.test("doctor: the complete findings, outside links looked up by the host", async () => {
      const report = await memory.doctor();
      assert.deepEqual(triples(report), expected(expect.doctor, indexText, expect.outside));
    });

    await t.test("offline recall", async () => {
      for (const c of expect.recall) {
        const result = await memory.recall(c.query);
        assert.deepEqual(result.memories.map((m) => m.path), c.selected, `recall ${JSON.stringify(c.query)}`);
        assert.equal(result.outcome, c.outcome ?? (c.selected.length ? "selected" : "none_selected"), `outcome of ${JSON.stringify(c.query)}`);
        if (result.selector !== null) assert.equal(result.selector, "lexical");
      }
    });

    await t.test("the CLI's doctor: findings and exit status", () => {
      const r = spawnSync(process.execPath, [bin, "doctor", "--dir", dir, "--json"], { encoding: "utf8", env: { ...process.env, HOME: home, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } });
      assert.equal(r.status, expect.cliExit, r.stderr);
      // the CLI reads its own clock: only the findings that do not depend on it are compared
      const clockFree = (list) => list.filter((s) => !s.includes('"stale_core_memory"'));
      assert.deepEqual(clockFree(triples(JSON.parse(r.stdout))), clockFree(expected(expect.doctor, indexText, expect.outside)));
    });

    await t.test("fixes: only what is safe, outside links untouched byte for byte", async () => {
      const plan = await memory.planFixes();
      assert.deepEqual(plan.effects.map((e) => `${e.op} ${e.path}`).sort(), expect.fix.writes.map((p) => `write ${p}`).sort());
      assert.equal(plan.fixed, expect.fix.fixed);
      const report = await memory.applyFixes(plan);
      // memdir's own folder (the history) is checked below, through history() and undo()
      const afterFiles = new Map(walk(dir).filter((p) => !p.startsWith(".memdir/")).map((p) => [p, readFileSync(join(dir, p))]));
      const newIndex = afterFiles.get("MEMORY.md")?.toString("utf8") ?? "";
      assert.deepEqual(triples(report), expected(expect.fix.after ?? expect.doctor, newIndex, expect.outside));
      assert.deepEqual([...afterFiles.keys()].filter((p) => !before.has(p)), expect.fix.writes.filter((p) => !before.has(p)), "files created");
      for (const [path, bytes] of before) {
        assert.ok(afterFiles.has(path), `${path} still exists`);
        if (!expect.fix.writes.includes(path)) assert.ok(afterFiles.get(path).equals(bytes), `${path} untouched`);
      }
      if (expect.fix.writes.includes("MEMORY.md")) {
        if (expect.fix.index.compacted) checkCompaction(newIndex, [...afterFiles.keys()].filter((p) => !before.has(p)));
        else checkIndexFix(indexText, newIndex, expect.fix.index);
      }
      // no word that exists nowhere else is removed: every word of the folder is still in it
      const words = (files) => new Set([...files.values()].flatMap((b) => proseWords(b.toString("utf8"))));
      const kept = words(afterFiles);
      assert.deepEqual([...words(before)].filter((w) => !kept.has(w)), [], "the fixes lost no word");
      const newLines = new Set(newIndex.split("\n"));
      for (const line of indexText.split("\n")) {
        if (/^\s*[-*+]\s+\[/.test(line) && /^(\.\.\/|\/|~|[A-Za-z]:\\)/.test(linkOf(line))) assert.ok(newLines.has(line), `outside link kept byte for byte: ${line}`);
      }
      for (const [path, [a, b]] of Object.entries(expect.fix.folded)) {
        const oldLines = before.get(path).toString("utf8").split("\n");
        const newLines = afterFiles.get(path).toString("utf8").split("\n");
        assert.deepEqual(newLines.slice(0, a - 1), oldLines.slice(0, a - 1), `${path}: lines before the description`);
        assert.deepEqual(newLines.slice(a), oldLines.slice(b), `${path}: lines after the description`);
        assert.match(newLines[a - 1], /^description: /, `${path}: one description line`);
      }
      // the fixes are one change in the history (none when there was nothing to fix), and undoing
      // it gives every file back byte for byte
      const history = await memory.history();
      assert.deepEqual(history.map((h) => [h.route, h.status]), plan.effects.length > 0 ? [["doctor", "done"]] : []);
      if (history.length > 0) assert.equal((await memory.undo(history[0].id)).applied, true);
      const back = new Map(walk(dir).filter((p) => !p.startsWith(".memdir/")).map((p) => [p, readFileSync(join(dir, p))]));
      assert.deepEqual([...back.keys()], [...before.keys()], "undo: the same files as before the fixes");
      for (const [path, bytes] of before) assert.ok(back.get(path).equals(bytes), `undo: ${path} byte for byte`);
    });
  });
}
