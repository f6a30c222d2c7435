// memdir export / import against a real PostgreSQL server (tests/postgres/server.mjs: the one
// `npm test` started, or one of this file's own): every real folder shape and a folder of odd
// bytes round-trip folder → store → folder byte for byte with their times; the CLI end to end;
// an import into a memory that holds files refused, nothing written; a remember during an import
// waits for the import's lock (a second store, as a second replica has) and is not lost.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { init, NodeHost, openMemory } from "../../pkg/entry/node.js";
import { PostgresStore } from "../../pkg/hosts/postgres.js";
import { copyMemory } from "../../pkg/transfer.js";
import { assertSameTree, copyShape, gatedReads, oddFiles, readTree, shapes, tempDir, watchLockTries, writeTree } from "../js/transfer-folders.mjs";
import { pgUrl } from "./server.mjs";
import { memdirAsync as memdir } from "../cli/helpers.mjs";

await init();

/** A memory id of this file's own: files running at once never share rows. */
const ID = `transfer-${process.pid}-${Date.now().toString(36)}`;
let url;
let store;
const temps = [];
const temp = () => {
  const t = tempDir();
  temps.push(t);
  return t.dir;
};

before(async () => {
  url = await pgUrl();
  store = await PostgresStore.open({ connectionString: url });
});
after(async () => {
  await store?.close();
  for (const t of temps) t.done();
});


/** Every file of a store's memory, read through its host: path → bytes. */
async function storeFiles(host) {
  const out = new Map();
  for (const e of (await host.list()).filter((e) => e.kind === "file").sort((a, b) => (a.path < b.path ? -1 : 1))) out.set(e.path, Buffer.from(await host.readFile(e.path)));
  return out;
}

test("every real folder shape and a folder of odd bytes: folder → store → new folder, byte for byte, times to the millisecond", async () => {
  for (const shape of [...shapes(), "odd"]) {
    const dir = temp();
    const from = shape === "odd" ? writeTree(join(dir, "from"), oddFiles()) : copyShape(shape, join(dir, "from"));
    const want = readTree(from);
    const host = store.host(`${ID}-shape-${shape}`);
    const there = await copyMemory(new NodeHost(from), host);
    assert.equal(there.files, want.size, shape);
    assert.equal(there.timesNotKept, 0, `${shape}: the store keeps every file's time`);
    // the store holds the very bytes
    const held = await storeFiles(host);
    assert.deepEqual([...held.keys()], [...want.keys()], shape);
    for (const [path, f] of want) assert.ok(Buffer.compare(held.get(path), f.bytes) === 0, `${shape}: ${path} in the store`);
    const back = await copyMemory(store.host(`${ID}-shape-${shape}`), new NodeHost(join(dir, "back")));
    assert.equal(back.files, want.size);
    assertSameTree(assert, readTree(join(dir, "back")), want);
    assert.ok((await store.memories()).includes(`${ID}-shape-${shape}`), "the memory is listed");
  }
});

test("the CLI end to end: memdir import <folder> --database --memory, then memdir export --database --memory <folder>", async () => {
  const dir = temp();
  const from = writeTree(join(dir, "from"), oddFiles());
  const id = `${ID}-cli`;
  const imported = await memdir(["import", from, "--database", url, "--memory", id]);
  assert.equal(imported.code, 0, imported.err);
  assert.match(imported.out, new RegExp(`^imported ${Object.keys(oddFiles()).length} files \\([\\d,]+ bytes\\) from ${from} to memory "${id}" of postgres`));
  assert.match(imported.out, /\nmodification times kept\n/);
  const exported = await memdir(["export", "--database", url, "--memory", id, join(dir, "out"), "--json"]);
  assert.equal(exported.code, 0, exported.err);
  const result = JSON.parse(exported.out);
  assert.equal(result.files, Object.keys(oddFiles()).length);
  assert.equal(result.timesNotKept, 0);
  assertSameTree(assert, readTree(join(dir, "out")), readTree(from));
  // a memory the database does not have: exit 3, naming the ones it has
  const missing = await memdir(["export", "--database", url, "--memory", `${ID}-nobody`, join(dir, "none")]);
  assert.equal(missing.code, 3, missing.err);
  assert.match(missing.err, /no memory "transfer-.*-nobody" of postgres/);
});

test("an import into a memory that holds files is refused, and writes nothing; --replace makes it the folder's copy", async () => {
  const dir = temp();
  const id = `${ID}-refuse`;
  const first = copyShape("claude-code-classic", join(dir, "first"));
  const second = writeTree(join(dir, "second"), oddFiles());
  assert.equal((await memdir(["import", first, "--database", url, "--memory", id])).code, 0);
  const before = await storeFiles(store.host(id));
  const refused = await memdir(["import", second, "--database", url, "--memory", id]);
  assert.equal(refused.code, 1, refused.err);
  assert.match(refused.err, /^memdir: import refused: the target memory .* is not empty \(\d+ files, e\.g\. [^)]+\); replace it \(--replace\) or choose an empty one; nothing was written\n$/);
  assert.deepEqual(await storeFiles(store.host(id)), before, "nothing written");
  // and the lock was let go: a write goes through at once
  const memory = await openMemory({ host: store.host(id), lock: { timeoutMs: 2000 } });
  await memory.remember({ type: "project", name: "After the refusal", description: "a write after a refused import", body: "b" });
  memory.close();
  const replaced = await memdir(["import", second, "--database", url, "--memory", id, "--replace", "--json"]);
  assert.equal(replaced.code, 0, replaced.err);
  assert.ok(JSON.parse(replaced.out).removed.includes("project_after_the_refusal.md"));
  const now = await storeFiles(store.host(id));
  assert.deepEqual([...now.keys()], [...readTree(second).keys()]);
});

test("a remember from another replica during an import waits for the import's lock and is not lost", async () => {
  const dir = temp();
  const id = `${ID}-concurrent`;
  const from = copyShape("claude-code-current", join(dir, "from"));
  let openGate;
  const gate = new Promise((r) => (openGate = r));
  let started;
  const copyStarted = new Promise((r) => (started = r));
  const copy = copyMemory(gatedReads(new NodeHost(from), gate, started), store.host(id));
  await copyStarted; // the import holds the memory's lock and reads its first file
  // a second store: another pool, as another replica's process has
  const replica = await PostgresStore.open({ connectionString: url });
  try {
    let tried;
    const triedLock = new Promise((r) => (tried = r));
    const memory = await openMemory({ host: watchLockTries(replica.host(id), tried), history: { label: "replica" } });
    const remember = memory.remember({ type: "project", name: "Written during the import", description: "A memory saved while the import ran", body: "It must survive the import." });
    await triedLock; // the remember asked for the lock the import holds
    openGate();
    const copied = await copy;
    const saved = await remember;
    memory.close();
    assert.equal(copied.files, readTree(from).size);
    const held = await storeFiles(store.host(id));
    assert.ok(held.has(saved.file), "the remembered file is there");
    const index = held.get("MEMORY.md").toString("utf8");
    assert.match(index, /Written during the import/);
    assert.match(index, /\[Role: costing engine owner\]\(user_role\.md\)/, "and the imported index lines with it");
  } finally {
    await replica.close();
  }
});
