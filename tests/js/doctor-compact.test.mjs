// A way out of an over-limit index (issue 21): a real folder whose MEMORY.md is past 200 lines
// refuses every write that grows it (LIMIT_EXCEEDED); doctor's fix compacts it through the
// public API and the Node host, every word kept, and the next write goes through.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openMemory } from "memdir";

const shape = new URL("../fixtures/shapes/over-limit-index/memory/", import.meta.url);
const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const words = (dir) =>
  new Set(
    readdirSync(dir)
      .filter((f) => f.endsWith(".md"))
      .flatMap((f) => readFileSync(join(dir, f), "utf8").replace(/\]\([^)\s]*\)/g, "] ").split(/[^\p{L}\p{N}]+/u))
      .filter(Boolean)
      .map((w) => w.toLowerCase()),
  );

test("an index over its limits refuses writes until doctor's fix compacts it, with every word kept", async () => {
  const dir = join(mkdtempSync(join(tmpdir(), "memdir-compact-")), "memory");
  temps.push(join(dir, ".."));
  cpSync(shape, dir, { recursive: true });
  const memory = await openMemory({ dir });
  try {
    const input = { type: "project", name: "Rate limiter", description: "The API rate limiter allows 600 requests a minute per tenant", body: "Token bucket per tenant." };
    await assert.rejects(memory.remember(input), (e) => e.code === "LIMIT_EXCEEDED");
    const before = words(dir);
    const report = await memory.doctor();
    const over = report.findings.find((f) => f.code === "index_over_lines");
    assert.match(over.fix, /^compact MEMORY\.md under its limits, every word kept: move 8 lines of notes into topic files and \d+ entries into sub-index files/);
    const plan = await memory.planFixes();
    const after = await memory.applyFixes(plan);
    assert.deepEqual(after.findings.filter((f) => f.file === "MEMORY.md").map((f) => f.code), []);
    const index = readFileSync(join(dir, "MEMORY.md"), "utf8");
    assert.ok(index.trim().split("\n").length <= 180, "under 90 % of the line limit");
    const kept = words(dir);
    assert.deepEqual([...before].filter((w) => !kept.has(w)), [], "no word lost");
    const written = await memory.remember(input);
    assert.equal(written.action, "created");
    assert.ok(readFileSync(join(dir, "MEMORY.md"), "utf8").includes("(project_rate_limiter.md)"));
  } finally {
    await memory.close();
  }
});
