// copyMemory (js/transfer.ts) between Node folders and the in-memory host: every file byte for
// byte with its modification time, the lock files never, a non-empty target refused unless
// `replace`, and a writer of the target waiting for the copy instead of being overwritten by it.
// The same against the real PostgreSQL server: tests/postgres/transfer.test.mjs.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { InMemoryHost, init, NodeHost, openMemory } from "../../pkg/entry/node.js";
import { copyMemory } from "../../pkg/transfer.js";
import { assertSameTree, copyShape, gatedReads, oddFiles, readTree, shapes, tempDir, watchLockTries, writeTree } from "./transfer-folders.mjs";

await init();

test("every real folder shape and a folder of odd bytes copy byte for byte, with their times, folder to folder", async () => {
  for (const shape of [...shapes(), "odd"]) {
    const t = tempDir();
    try {
      const from = join(t.dir, "from");
      const to = join(t.dir, "to");
      if (shape === "odd") writeTree(from, oddFiles());
      else copyShape(shape, from);
      const before = readTree(from);
      const r = await copyMemory(new NodeHost(from), new NodeHost(to));
      assertSameTree(assert, readTree(to), before);
      assertSameTree(assert, readTree(from), before); // the source untouched, its lock gone
      assert.equal(r.files, before.size, shape);
      assert.equal(r.bytes, [...before.values()].reduce((n, f) => n + f.bytes.length, 0), shape);
      assert.equal(r.timesKept, before.size, shape);
      assert.equal(r.timesNotKept, 0);
      assert.equal(r.sourceLocked, true);
      assert.deepEqual(r.removed, []);
      // the source's lock, held during the copy, is the one thing skipped
      assert.deepEqual(r.skipped, [{ path: ".memdir.lock", reason: "the write lock (never copied)" }], shape);
      assert.ok(!existsSync(join(to, ".memdir.lock")) && !existsSync(join(from, ".memdir.lock")));
    } finally {
      t.done();
    }
  }
});

test("through the in-memory host and back: the times kept there too; a host that cannot set times is counted", async () => {
  const t = tempDir();
  try {
    const from = writeTree(join(t.dir, "from"), oddFiles());
    const ram = new InMemoryHost();
    const there = await copyMemory(new NodeHost(from), ram);
    assert.equal(there.timesKept, there.files);
    const back = await copyMemory(ram, new NodeHost(join(t.dir, "back")));
    assertSameTree(assert, readTree(join(t.dir, "back")), readTree(from));
    assert.equal(back.timesKept, Object.keys(oddFiles()).length);
    // a host that gives its own time whatever it is asked
    const stubborn = new InMemoryHost();
    const plain = stubborn.writeFile.bind(stubborn);
    stubborn.writeFile = (path, data, options = {}) => plain(path, data, { ...options, mtimeMs: undefined });
    const r = await copyMemory(new NodeHost(from), stubborn);
    assert.equal(r.timesKept, 0);
    assert.equal(r.timesNotKept, r.files);
  } finally {
    t.done();
  }
});

test("what never travels: a young temporary file, a consolidation run's lock, an empty folder; each skipped with its reason", async () => {
  const t = tempDir();
  try {
    const from = writeTree(join(t.dir, "from"), { "MEMORY.md": "- [A](a.md) — a\n", "a.md": "a" });
    writeFileSync(join(from, ".a.md.tmp-0a1b2c"), "half a write"); // young: a live writer's, not swept
    mkdirSync(join(from, ".memdir"), { recursive: true });
    writeFileSync(join(from, ".memdir/consolidate.lock"), "{}");
    mkdirSync(join(from, "empty/inside"), { recursive: true });
    const r = await copyMemory(new NodeHost(from), new NodeHost(join(t.dir, "to")));
    assert.deepEqual(
      r.skipped.map((s) => s.path).sort(),
      [".a.md.tmp-0a1b2c", ".memdir", ".memdir.lock", ".memdir/consolidate.lock", "empty", "empty/inside"],
    );
    assert.match(r.skipped.find((s) => s.path === ".a.md.tmp-0a1b2c").reason, /temporary file/);
    assert.deepEqual([...readTree(join(t.dir, "to")).keys()], ["MEMORY.md", "a.md"]);
  } finally {
    t.done();
  }
});

test("a target that holds files is refused, nothing written; with replace it becomes the copy and says what it removed", async () => {
  const t = tempDir();
  try {
    const from = writeTree(join(t.dir, "from"), oddFiles());
    const to = writeTree(join(t.dir, "to"), { "MEMORY.md": "- [Mine](mine.md) — mine\n", "mine.md": "mine", "notes/old.md": "old", "blobs/one-mebibyte.bin/x": "a folder where the source has a file" });
    const before = readTree(to);
    await assert.rejects(copyMemory(new NodeHost(from), new NodeHost(to)), (e) => e.code === "INVALID_ARGUMENT" && /not empty \(4 files/.test(e.message) && /nothing was written/.test(e.message));
    assertSameTree(assert, readTree(to), before);
    assert.ok(!existsSync(join(to, ".memdir.lock")));
    const r = await copyMemory(new NodeHost(from), new NodeHost(to), { replace: true });
    assertSameTree(assert, readTree(to), readTree(from));
    assert.deepEqual(r.removed.sort(), ["blobs/one-mebibyte.bin", "mine.md", "notes/old.md"]);
  } finally {
    t.done();
  }
});

test("a target that holds only memdir's passing files (a lock's temporary file) counts as empty; the same folder, or one inside the other, is refused", async () => {
  const t = tempDir();
  try {
    const from = writeTree(join(t.dir, "from"), { "a.md": "a" });
    const to = join(t.dir, "to");
    mkdirSync(to);
    writeFileSync(join(to, ".memdir.lock.tmp-00ff00"), "");
    await copyMemory(new NodeHost(from), new NodeHost(to));
    assert.ok(existsSync(join(to, "a.md")));
    await assert.rejects(copyMemory(new NodeHost(from), new NodeHost(from)), { code: "INVALID_ARGUMENT" });
    await assert.rejects(copyMemory(new NodeHost(from), new NodeHost(join(from, "backup"))), /inside the other/);
    await assert.rejects(copyMemory(new NodeHost(join(from, "sub")), new NodeHost(from), { replace: true }), /remove its source/);
    assert.ok(!existsSync(join(from, "backup")));
  } finally {
    t.done();
  }
});

test("a remember into the target during the copy waits for the copy's lock and is not lost", async () => {
  const t = tempDir();
  try {
    const from = copyShape("claude-code-current", join(t.dir, "from"));
    const to = join(t.dir, "to");
    let openGate;
    const gate = new Promise((r) => (openGate = r));
    let copying;
    const copyStarted = new Promise((r) => (copying = r));
    const copy = copyMemory(gatedReads(new NodeHost(from), gate, copying), new NodeHost(to));
    await copyStarted; // the copy holds the target's lock and reads its first file
    let tried;
    const triedLock = new Promise((r) => (tried = r));
    const memory = await openMemory({ host: watchLockTries(new NodeHost(to), tried), history: { label: "test" } });
    const remember = memory.remember({ type: "project", name: "Written during the import", description: "A memory saved while the copy ran", body: "It must survive the copy." });
    await triedLock; // the remember found the lock taken
    openGate();
    const copied = await copy;
    const saved = await remember;
    memory.close();
    assert.equal(copied.files, readTree(from).size);
    const after = readTree(to);
    assert.ok(after.has(saved.file), "the remembered file is there");
    const index = after.get("MEMORY.md").bytes.toString("utf8");
    assert.match(index, /Written during the import/);
    assert.match(index, /\[Role: costing engine owner\]\(user_role\.md\)/, "and the copied index lines with it");
    // every copied file but the index and the history (which the remember appended to) as copied
    const source = readTree(from);
    for (const [path, f] of source) if (path !== "MEMORY.md" && !path.startsWith(".memdir/")) assert.ok(Buffer.compare(after.get(path).bytes, f.bytes) === 0, path);
  } finally {
    t.done();
  }
});
