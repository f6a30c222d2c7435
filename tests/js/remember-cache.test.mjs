// remember's duplicate check over an opened memory's cache (js/writes.ts, js/snapshot.ts,
// ScanCache.scannedFor): the frontmatter the last scan parsed is handed to the core as
// `scanned` instead of every head crossing again, and nothing the cache holds hides an edit made
// on disk since — the listing under the lock decides what is read again.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { defaultLimits, NodeHost, openMemory } from "memdir";
import { rememberReadPlan } from "../../pkg/internal.js";
import { ScanCache } from "../../pkg/scan-cache.js";
import { takeSnapshot } from "../../pkg/snapshot.js";

const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-remember-cache-"));
  temps.push(d);
  return d;
}
const fm = (name, description) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\nbody\n`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** `a0.md`… with mtimes a minute apart (the newest last), and their index. */
function fill(dir, n) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const p = join(dir, `a${i}.md`);
    writeFileSync(p, fm(`A${i}`, `memory number ${i} about subsystem ${i * 7919}`));
    const t = new Date(Date.now() - (n - i) * 60_000);
    utimesSync(p, t, t);
    lines.push(`- [A${i}](a${i}.md) — memory number ${i}`);
  }
  writeFileSync(join(dir, "MEMORY.md"), `${lines.join("\n")}\n`);
}
/** Rewrites a file with text of the same length and puts its mtime back: only its ctime tells. */
function editInPlace(path, text) {
  const { mtime, size } = statSync(path);
  writeFileSync(path, text);
  utimesSync(path, mtime, mtime);
  assert.equal(statSync(path).size, size, "the edit keeps the size");
}
/** A NodeHost that counts the heads it reads (`fast.readHeads`: it has no other way to read one). */
function counted(dir, watcher) {
  const host = new NodeHost(dir);
  const counts = { heads: 0 };
  const readHeads = host.fast.readHeads.bind(host.fast);
  host.fast.readHeads = async (paths, lines) => {
    counts.heads += paths.length;
    return readHeads(paths, lines);
  };
  if (watcher === "none") host.watch = undefined;
  return { host, counts };
}
/** The snapshot `remember` takes, with what `cache` holds (as js/writes.ts asks for it). */
function snapshotWith(host, cache, file = null) {
  return takeSnapshot(host, rememberReadPlan(file, defaultLimits()), 16, {
    head: (e, lines) => cache.headFor(e, lines),
    header: (e) => {
      const m = cache.scannedFor(e);
      return m && [m.name ?? null, m.description ?? null];
    },
  });
}

for (const watcher of ["real", "none"]) {
  describe(`remember over the cache (watcher: ${watcher})`, () => {
    test("what the last scan parsed is neither read nor passed again; a duplicate is still found from it", async () => {
      const dir = temp();
      fill(dir, 30);
      await sleep(150); // past the racy window of the files just written
      const { host, counts } = counted(dir, watcher);
      const memory = await openMemory({ host, selector: { provider: "lexical" } });
      await memory.scan();
      assert.equal(counts.heads, 30);
      await assert.rejects(memory.remember({ type: "project", name: " a7 ", description: "something else", body: "b" }), (e) => e.code === "DUPLICATE_MEMORY" && e.message.includes("a7.md"));
      await assert.rejects(memory.remember({ type: "project", name: "Other", description: "Memory number 12 about subsystem 95028!", body: "b" }), (e) => e.code === "DUPLICATE_MEMORY" && e.message.includes("a12.md"));
      const done = await memory.remember({ type: "project", name: "Fresh", description: "a new memory", body: "b" });
      assert.equal(done.action, "created");
      assert.equal(counts.heads, 30, "no head read again for the duplicate checks");
      memory.close();
    });

    test("an edit on disk after the last scan (same size and mtime) is read again: the cache hides no duplicate", async () => {
      const dir = temp();
      fill(dir, 10);
      await sleep(150);
      const { host } = counted(dir, watcher);
      const memory = await openMemory({ host, selector: { provider: "lexical" } });
      await memory.scan();
      // renamed on disk: the cache's parsed name (A4) is stale, the file's own (Z4) counts
      editInPlace(join(dir, "a4.md"), fm("Z4", "memory number 4 about subsystem 31676"));
      await assert.rejects(memory.remember({ type: "project", name: "z4", description: "unrelated words entirely", body: "b" }), (e) => e.code === "DUPLICATE_MEMORY" && e.message.includes("a4.md"));
      const freed = await memory.remember({ type: "project", name: "A4", description: "unrelated words entirely", body: "b" });
      assert.equal(freed.action, "created", "the old name is free once the file no longer has it");
      // a description edited on disk into a near duplicate
      editInPlace(join(dir, "a8.md"), fm("A8", "the deploys go out on tuesday only ok"));
      await assert.rejects(memory.remember({ type: "project", name: "Deploys", description: "The deploys go out on Tuesday only, OK", body: "b" }), (e) => e.code === "DUPLICATE_MEMORY" && e.message.includes("a8.md"));
      memory.close();
    });
  });
}

test("the snapshot: parsed frontmatter for the files the cache holds unchanged, heads for the rest and for the file named", async () => {
  const dir = temp();
  fill(dir, 6);
  await sleep(150);
  const { host, counts } = counted(dir, "none");
  const cache = new ScanCache(host, defaultLimits(), { watch: false });
  await cache.scan(16);
  assert.equal(counts.heads, 6);
  editInPlace(join(dir, "a2.md"), fm("B2", "memory number 2 about subsystem 15838"));
  const snapshot = await snapshotWith(host, cache, "a5.md");
  assert.deepEqual(Object.keys(snapshot.contents).sort(), ["MEMORY.md", "a2.md", "a5.md"], "the edited file and the one named are given whole");
  assert.equal(counts.heads, 7, "the edited file read again; the one named is the head the cache holds (unchanged)");
  const scanned = JSON.parse(snapshot.scanned);
  assert.deepEqual(scanned.map((t) => t[0]).sort(), ["a0.md", "a1.md", "a3.md", "a4.md"]);
  assert.deepEqual(scanned.find((t) => t[0] === "a3.md"), ["a3.md", "A3", "memory number 3 about subsystem 23757"]);
  // a file read within the racy window is not trusted either
  const before = await cache.scan(16);
  assert.equal(before.result.memories.find((m) => m.path === "a2.md").name, "B2");
  const fresh = await snapshotWith(host, cache);
  assert.ok(!JSON.parse(fresh.scanned).some((t) => t[0] === "a2.md"), "a head read just after its file changed is read again");
  cache.close();
});

test("no cache (cache: false): every head is read, nothing is passed as parsed", async () => {
  const dir = temp();
  fill(dir, 4);
  await sleep(150);
  const { host, counts } = counted(dir, "none");
  const memory = await openMemory({ host, selector: { provider: "lexical" }, cache: false });
  await memory.scan();
  await assert.rejects(memory.remember({ type: "project", name: "A1", description: "x y z", body: "b" }), (e) => e.code === "DUPLICATE_MEMORY");
  assert.equal(counts.heads, 8);
  memory.close();
});
