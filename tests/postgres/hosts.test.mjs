// The PostgreSQL host (memdir/postgres) against a real server (tests/postgres/server.mjs: the
// one `npm test` started, or one of this file's own): the shared host conformance suite, each
// case on a memory of its own; openMemory over it (remember, recall, forget); the write lock's
// advisory lock, the expected version, the lock row a killed writer leaves; watch across stores;
// and what a turn costs in round trips (every query the pool sends, counted).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { init, openMemory } from "../../pkg/entry/node.js";
import { PostgresStore } from "../../pkg/hosts/postgres.js";
import { withLock } from "../../pkg/lock.js";
import { bytes, hostCases, text } from "../js/host-conformance.mjs";
import { usePostgres } from "./server.mjs";

await init();

/** Memory ids of this file's own: files running at once never share rows. */
const RUN = `hosts-${process.pid}-${Date.now().toString(36)}`;
let n = 0;
const newId = (label = "m") => `${RUN}-${label}-${++n}`;
// the file's store, and a plain client to seed and to look without the host
const db = usePostgres({ before, after }, pg, PostgresStore);

/** Seeds `files` for memory `id` with SQL (not through the host). */
async function seed(id, files) {
  const entries = Object.entries(files);
  if (entries.length === 0) return;
  await db.sql.query("INSERT INTO memdir.memories (id, version) VALUES ($1, 1)", [id]);
  for (const [path, content] of entries) {
    await db.sql.query("INSERT INTO memdir.files (memory, path, data, mtime_ms, written) VALUES ($1, $2, $3, $4, 1)", [id, path, Buffer.from(bytes(content)), Date.now()]);
  }
}

/** The memory's version, read with SQL. */
async function versionOf(id) {
  const { rows } = await db.sql.query("SELECT version FROM memdir.memories WHERE id = $1", [id]);
  return rows.length ? Number(rows[0].version) : 0;
}

/** `want(pred)` resolves once `pred` holds, checked now and at every `wake()` (a watch's report). */
function waiter() {
  let check = () => {};
  const want = (pred) =>
    new Promise((r) => {
      check = () => pred() && r();
      check();
    });
  return { want, wake: () => check() };
}

describe("PostgresHost: the host conformance suite", () => {
  const make = async (files = {}, options = {}) => {
    const id = newId("case");
    if (!options.missing) await seed(id, files);
    const host = db.store.host(id);
    const database = host.root.split("/")[2];
    return { host, root: `postgres://${database}/${id}`, absolute: (path) => `postgres://${database}/${id}/${path}` };
  };
  for (const { name, run } of hostCases({ assert, openMemory })) test(name, () => run(make));
});

describe("PostgresHost", () => {
  test("openMemory over it: remember, recall, forget; the store lists the memory", async () => {
    const id = newId("round");
    const memory = await openMemory({ host: db.store.host(id), selector: { provider: "lexical" } });
    const saved = await memory.remember({ type: "project", name: "Harbor deploys", description: "Deploys to harbor run on Tuesdays only", body: "Ask the release captain first." });
    assert.equal(saved.action, "created");
    const recalled = await memory.recall("when do harbor deploys run");
    assert.equal(recalled.outcome, "selected", JSON.stringify(recalled.error ?? null));
    assert.ok(recalled.memories.some((m) => m.path === saved.file), "the memory is recalled");
    assert.match(text(await db.store.host(id).readFile("MEMORY.md")), /Harbor deploys/);
    await memory.forget(saved.file);
    assert.equal(await db.store.host(id).stat(saved.file), null);
    assert.equal(text(await db.store.host(id).readFile("MEMORY.md")), "");
    memory.close();
    assert.ok((await db.store.memories()).includes(id));
    assert.equal(db.store.host(id), db.store.host(id), "one host a memory");
  });

  test("open: stores opened at once on a new schema all open (the tables made once); a schema keeps its memories apart", async () => {
    const schema = `memdir_${RUN.replace(/[^a-z0-9]/g, "_")}`;
    const stores = await Promise.all(Array.from({ length: 8 }, () => PostgresStore.open({ connectionString: db.url, schema })));
    try {
      await stores[0].host("alice").writeFile("a.md", bytes("in the other schema"));
      assert.deepEqual(await stores[7].memories(), ["alice"]);
      assert.equal(text(await stores[3].host("alice").readFile("a.md")), "in the other schema");
      assert.equal(await db.store.host("alice").stat("a.md"), null, "not in memdir's schema");
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await db.sql.query(`DROP SCHEMA ${schema} CASCADE`);
    }
  });

  test("every write bumps the memory's version by one; a rewrite gets a new ino even within a millisecond", async () => {
    const id = newId("version");
    const host = db.store.host(id);
    assert.equal(await versionOf(id), 0, "no row before the first write");
    await host.writeFile("a.md", bytes("1"));
    assert.equal(await versionOf(id), 1);
    const first = await host.stat("a.md");
    await host.writeFile("a.md", bytes("2"), { mtimeMs: first.mtimeMs });
    const second = await host.stat("a.md");
    assert.equal(second.mtimeMs, first.mtimeMs);
    assert.notEqual(second.ino, first.ino, "a new key");
    await host.fast.writeFiles([{ path: "b.md", data: bytes("b") }, { path: "c/d.md", data: bytes("d") }]);
    await host.rename("c", "e");
    await host.remove("e");
    assert.equal(await versionOf(id), 5);
    // a refused write bumps nothing
    await assert.rejects(host.writeFile("a.md", bytes("x"), { exclusive: true }), { code: "EEXIST" });
    await assert.rejects(host.remove("nope.md"), { code: "ENOENT" });
    assert.equal(await versionOf(id), 5);
  });

  test("fast.writeFiles is all or nothing: one exclusive file that exists and none is written", async () => {
    const id = newId("batch");
    const host = db.store.host(id);
    await host.writeFile("taken.md", bytes("old"));
    await assert.rejects(
      host.fast.writeFiles([
        { path: "new.md", data: bytes("new") },
        { path: "taken.md", data: bytes("x"), exclusive: true },
      ]),
      (error) => error.code === "EEXIST" && error.writePath === "taken.md",
    );
    assert.equal(await host.stat("new.md"), null, "nothing written");
    assert.equal(text(await host.readFile("taken.md")), "old");
    await assert.rejects(host.writeFile("taken.md/below.md", bytes("x")), { code: "ENOTDIR" });
  });

  test("exclusive: a second writer (another store, another pool) waits; ETIMEDOUT after its timeout; the lock is free after", async () => {
    const id = newId("excl");
    const other = await PostgresStore.open({ connectionString: db.url });
    try {
      let release;
      const holding = new Promise((r) => (release = r));
      let entered;
      const inside = new Promise((r) => (entered = r));
      const first = db.store.host(id).locks.exclusive(async () => {
        entered();
        await holding;
        return "first";
      }, 5000);
      await inside;
      await assert.rejects(other.host(id).locks.exclusive(async () => "second", 100), { code: "ETIMEDOUT" });
      const second = other.host(id).locks.exclusive(async () => "second", 10_000);
      release();
      assert.equal(await first, "first");
      assert.equal(await second, "second");
      // a memdir write through a lock of its own: LOCKED, a MemdirError
      const memory = await openMemory({ host: other.host(id), lock: { timeoutMs: 100 } });
      let unlock;
      const held = new Promise((r) => (unlock = r));
      let got;
      const gotLock = new Promise((r) => (got = r));
      const holder = db.store.host(id).locks.exclusive(async () => (got(), await held), 5000);
      await gotLock;
      await assert.rejects(memory.remember({ type: "project", name: "Blocked", description: "a blocked write", body: "b" }), { code: "LOCKED" });
      unlock();
      await holder;
      memory.close();
    } finally {
      await other.close();
    }
  });

  test("expected version: a write under the lock after another connection changed the memory is refused (ECONFLICT) and writes nothing", async () => {
    const id = newId("conflict");
    const host = db.store.host(id);
    await host.writeFile("a.md", bytes("before"));
    await assert.rejects(
      host.locks.exclusive(async () => {
        await host.writeFile("mine.md", bytes("mine")); // fine: the version is the one seen
        // another machine, its lock lost to it: it writes with SQL behind this writer's back
        await db.sql.query("UPDATE memdir.memories SET version = version + 1 WHERE id = $1", [id]);
        await host.writeFile("a.md", bytes("overwrite"));
      }, 5000),
      (error) => error.code === "ECONFLICT" && /changed by another writer/.test(error.message),
    );
    assert.equal(text(await host.readFile("a.md")), "before", "nothing written");
    await assert.rejects(
      host.locks.exclusive(async () => {
        await db.sql.query("UPDATE memdir.memories SET version = version + 1 WHERE id = $1", [id]);
        await host.remove("a.md");
      }, 5000),
      { code: "ECONFLICT" },
    );
    await assert.rejects(
      host.locks.exclusive(async () => {
        await db.sql.query("UPDATE memdir.memories SET version = version + 1 WHERE id = $1", [id]);
        await host.rename("a.md", "b.md");
      }, 5000),
      { code: "ECONFLICT" },
    );
    assert.equal(text(await host.readFile("a.md")), "before");
    assert.equal(await host.stat("b.md"), null);
    // outside the lock, writes are not checked
    await host.writeFile("a.md", bytes("after"));
    assert.equal(text(await host.readFile("a.md")), "after");
  });

  test("a remember whose lock is lost before its files are written fails (IO_ERROR, errno ECONFLICT) and leaves no memory; the next writer goes through", async () => {
    const id = newId("remember-conflict");
    const host = db.store.host(id);
    let bump = false;
    // another machine writes (its lock taken over this one's) just before this remember's files
    const fast = {
      ...host.fast,
      writeFiles: async (files) => {
        if (bump) await db.sql.query("UPDATE memdir.memories SET version = version + 1 WHERE id = $1", [id]);
        return host.fast.writeFiles(files);
      },
    };
    const racing = new Proxy(host, {
      get: (target, key) => (key === "fast" ? fast : typeof target[key] === "function" ? target[key].bind(target) : target[key]),
    });
    const memory = await openMemory({ host: racing, selector: { provider: "lexical" }, lock: { timeoutMs: 3000 } });
    await memory.remember({ type: "project", name: "First one", description: "The first memory, before any race", body: "b" });
    bump = true;
    await assert.rejects(memory.remember({ type: "project", name: "Lost lock", description: "A memory written under a lost lock", body: "b" }), (error) => {
      assert.equal(error.code, "IO_ERROR");
      assert.equal(error.errno, "ECONFLICT");
      assert.match(error.message, /another writer changed the memory/);
      return true;
    });
    assert.equal(await host.stat("project_lost_lock.md"), null, "no memory file");
    assert.doesNotMatch(text(await host.readFile("MEMORY.md")), /Lost lock/);
    bump = false;
    const next = await openMemory({ host: db.store.host(id), selector: { provider: "lexical" }, lock: { timeoutMs: 3000 } });
    assert.equal((await next.remember({ type: "project", name: "After the race", description: "A memory after the lost lock", body: "b" })).action, "created");
    assert.match(text(await host.readFile("MEMORY.md")), /First one[\s\S]*After the race/);
    memory.close();
    next.close();
  });

  test("a timer made under the lock that writes after it was let go goes through the pool, unchecked (not the lock's old connection and version)", async () => {
    const id = newId("late");
    const host = db.store.host(id);
    let go;
    const gate = new Promise((r) => (go = r));
    let late;
    await host.locks.exclusive(async () => {
      await host.writeFile("first.md", bytes("1"));
      late = new Promise((resolve, reject) => setTimeout(() => gate.then(() => host.writeFile("late.md", bytes("late"))).then(resolve, reject), 1));
    }, 5000);
    await host.writeFile("between.md", bytes("b")); // the version moves on
    go();
    await late;
    assert.equal(text(await host.readFile("late.md")), "late");
  });

  test("a lock row left by a writer that is gone does not hold up the next one (the advisory lock proves it gone)", async () => {
    const id = newId("row");
    const host = db.store.host(id);
    // what a killed writer leaves: a fresh lock row, a live-looking owner on another machine
    await host.writeFile(".memdir.lock", bytes(JSON.stringify({ pid: 4242, host: "another-machine", boot: null, pidns: null, at: Date.now(), token: "killed" })));
    assert.equal(await host.locks.ownerAlive({ host: "another-machine", pid: 4242 }), null, "outside the lock: cannot tell");
    const ran = await withLock(host, async () => "ran", { timeoutMs: 3000 });
    assert.equal(ran, "ran");
    assert.equal(await host.stat(".memdir.lock"), null, "broken and released");
  });

  test("watch: a write through another store (another pool) is heard, with its name in the folder", async () => {
    const id = newId("watch");
    const other = await PostgresStore.open({ connectionString: db.url });
    const heard = [];
    const { want, wake } = waiter();
    const root = db.store.host(id).watch("", (name) => (heard.push(["", name]), wake?.()));
    const notes = db.store.host(id).watch("notes", (name) => (heard.push(["notes", name]), wake?.()));
    try {
      // a null first: listening began (changes before it were not heard)
      await want(() => heard.some(([d, nm]) => d === "" && nm === null));
      let waiting = want(() => heard.some(([d, nm]) => d === "" && nm === "a.md"));
      await other.host(id).writeFile("a.md", bytes("a"));
      await waiting;
      waiting = want(() => heard.some(([d, nm]) => d === "notes" && nm === "n.md"));
      await other.host(id).writeFile("notes/n.md", bytes("n"));
      await waiting;
      assert.ok(heard.some(([d, nm]) => d === "" && nm === "notes"), "the root hears its folder");
      // another memory's write is not heard
      const before = heard.length;
      waiting = want(() => heard.some(([, nm]) => nm === "b.md"));
      await other.host(`${id}-else`).writeFile("z.md", bytes("z"));
      await other.host(id).writeFile("b.md", bytes("b"));
      await waiting;
      assert.ok(!heard.slice(before).some(([, nm]) => nm === "z.md"));
    } finally {
      root.close();
      notes.close();
      await other.close();
    }
  });

  test("an opened memory sees a memory another replica (another store) remembered, at its next recall", async () => {
    const id = newId("replica");
    const other = await PostgresStore.open({ connectionString: db.url });
    const mine = await openMemory({ host: db.store.host(id), selector: { provider: "lexical" } });
    const theirs = await openMemory({ host: other.host(id), selector: { provider: "lexical" } });
    try {
      await mine.remember({ type: "project", name: "Quartz builds", description: "Quartz builds need the large runner", body: "b" });
      assert.equal((await mine.recall("falcon releases")).memories.length, 0);
      const saved = await theirs.remember({ type: "project", name: "Falcon releases", description: "Falcon releases ship on Fridays after the freeze", body: "b" });
      // the watch's notification may still be on its way: the held files are checked all the same
      let found = false;
      for (let i = 0; i < 50 && !found; i++) {
        found = (await mine.recall("falcon releases")).memories.some((m) => m.path === saved.file);
        if (!found) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(found, "the other replica's memory is recalled");
    } finally {
      mine.close();
      theirs.close();
      await other.close();
    }
  });

  test("round trips: a recall turn with nothing changed is at most two queries; a remember and a cold open are counted (reported)", async (t) => {
    const id = newId("trips");
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    let queries = 0;
    pool.on("connect", (client) => {
      const query = client.query.bind(client);
      client.query = (...args) => (queries++, query(...args));
    });
    const counted = await PostgresStore.open({ pool });
    try {
      const memory = await openMemory({ host: counted.host(id), selector: { provider: "lexical" } });
      for (let i = 0; i < 5; i++) await memory.remember({ type: "project", name: `Seed ${i}`, description: `seed memory ${i} about topic ${["harbor", "quartz", "falcon", "meadow", "copper"][i]}`, body: "b" });
      const cost = async (fn) => {
        const q = queries;
        await fn();
        return queries - q;
      };
      const remember = await cost(() => memory.remember({ type: "project", name: "Counted", description: "a counted write about lanterns", body: "b" }));
      await memory.recall("lanterns");
      await new Promise((r) => setTimeout(r, 100)); // the watch's notifications of this process's own writes
      await memory.recall("lanterns");
      const turn = await cost(() => memory.recall("harbor"));
      memory.close();
      const fresh = await PostgresStore.open({ pool });
      const cold = await cost(async () => {
        const m = await openMemory({ host: fresh.host(id), selector: { provider: "lexical" } });
        await m.recall("harbor");
        m.close();
      });
      t.diagnostic(`round trips: remember ${remember}, a recall turn with nothing changed ${turn}, a cold open and recall ${cold}`);
      // one statMany (the folders, the names a watch reported), and the check of the held heads after a turn
      assert.ok(turn <= 2, `${turn} queries for a turn with nothing changed`);
    } finally {
      await counted.close();
      await pool.end();
    }
  });

  test("watches opened and closed again and again leave no listener behind on the pooled connection they used", async () => {
    const pool = new pg.Pool({ connectionString: db.url, max: 1 }); // one connection: every watch gets it back
    const own = await PostgresStore.open({ pool });
    try {
      for (let i = 0; i < 15; i++) {
        const watch = own.host(newId("again")).watch("", () => {});
        await new Promise((r) => setTimeout(r, 30)); // listening
        watch.close();
        await new Promise((r) => setTimeout(r, 30)); // unlistened, back in the pool
      }
      const client = await pool.connect();
      const listeners = client.listenerCount("error");
      client.release();
      assert.ok(listeners <= 2, `${listeners} error listeners on the pooled connection`);
    } finally {
      await own.close();
      await pool.end();
    }
  });

  test("watch: a lost listening connection is reported (null), and once listening again, changes are heard again", async () => {
    const id = newId("lost");
    const heard = [];
    const { want, wake } = waiter();
    const other = await PostgresStore.open({ connectionString: db.url });
    const watcher = db.store.host(id).watch("", (name) => (heard.push(name), wake()));
    try {
      await want(() => heard.includes(null)); // listening
      let waiting = want(() => heard.includes("a.md"));
      await other.host(id).writeFile("a.md", bytes("a"));
      await waiting;
      // the server ends the listening connection
      const { rows } = await db.sql.query("SELECT pid FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()", [`LISTEN "${db.store.channel}"`]);
      assert.ok(rows.length >= 1, "the listening connection is there");
      heard.length = 0;
      waiting = want(() => heard.includes(null));
      for (const { pid } of rows) await db.sql.query("SELECT pg_terminate_backend($1, 5000)", [pid]);
      await waiting;
      // listening again (another null when it is), then a write is heard
      for (let i = 0; i < 100 && !heard.includes("b.md"); i++) {
        await other.host(id).writeFile("b.md", bytes(`b${i}`));
        await Promise.race([want(() => heard.includes("b.md")), new Promise((r) => setTimeout(r, 50))]);
      }
      assert.ok(heard.includes("b.md"), "heard after the reconnection");
    } finally {
      watcher.close();
      await other.close();
    }
  });
});
