// Many processes on one memory through the PostgreSQL host, against a real server: ten writers
// (each a process with a pool of its own) remembering at once lose no file and no index line, and
// every write bumps the version once; a writer killed while it holds the write lock leaves no
// lock (PostgreSQL frees its advisory lock with its connection, and its lock row is broken at
// once); a writer whose lock was lost (its connection cut) writes nothing over the next writer's.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import pg from "pg";
import { init, openMemory } from "../../pkg/entry/node.js";
import { PostgresStore } from "../../pkg/hosts/postgres.js";
import { usePostgres } from "./server.mjs";

await init();

const writer = fileURLToPath(new URL("./writer.mjs", import.meta.url));
const RUN = `concurrency-${process.pid}-${Date.now().toString(36)}`;
// the file's store, and a plain client to seed and to look without the host
const db = usePostgres({ before, after }, pg, PostgresStore);

/** Starts a writer process; `done` resolves `{ code, signal, out, err }`. */
function start(args) {
  const child = spawn(process.execPath, [writer, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  const done = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, out, err }));
  });
  return { child, done, output: () => out };
}

/** The advisory locks held on `host`'s lock key, from pg_locks. */
async function advisoryLocks(host) {
  const { rows } = await db.sql.query(
    `WITH k AS (SELECT hashtextextended($1, 0) AS key)
     SELECT count(*)::int AS n FROM pg_locks, k WHERE locktype = 'advisory' AND granted AND objsubid = 1
       AND classid::bigint = ((k.key >> 32) & 4294967295) AND objid::bigint = (k.key & 4294967295)`,
    [host.lockName],
  );
  return rows[0].n;
}

const version = async (id) => Number((await db.sql.query("SELECT version FROM memdir.memories WHERE id = $1", [id])).rows[0]?.version ?? 0);

test("ten processes remembering into one memory at once lose no file and no index line; the version counts every write", async () => {
  const id = `${RUN}-ten`;
  const K = 4;
  const labels = Array.from({ length: 10 }, (_, i) => `w${i}`);
  const runs = labels.map((label) => start(["remember", db.url, id, label, String(K)]));
  const results = await Promise.all(runs.map((r) => r.done));
  let files = [];
  let writes = 0;
  for (const r of results) {
    assert.equal(r.code, 0, r.err);
    const got = JSON.parse(r.out);
    files = files.concat(got.files);
    writes += got.writes;
  }
  assert.equal(new Set(files).size, 10 * K, "every memory its own file");
  const host = db.store.host(id);
  for (const f of files) assert.ok(await host.stat(f), `${f} exists`);
  const index = new TextDecoder().decode(await host.readFile("MEMORY.md"));
  for (const label of labels) for (let k = 0; k < K; k++) assert.ok(index.includes(`Note ${label}x${k}`), `the index line of ${label}x${k}`);
  assert.equal(index.split("\n").filter((l) => l.startsWith("- [")).length, 10 * K, "no line twice, none lost");
  assert.equal(await version(id), writes, "one version a write, none lost");
  assert.equal(await host.stat(".memdir.lock"), null, "no lock left");
});

test("a writer killed while it holds the write lock leaves no lock: the next writer, in another process, gets it at once", async () => {
  const id = `${RUN}-killed`;
  const holder = start(["hold", db.url, id]);
  while (!holder.output().includes("locked")) {
    const early = await Promise.race([holder.done, new Promise((r) => setTimeout(() => r(null), 20))]);
    if (early) assert.fail(`the holder ended first: ${early.err}`);
  }
  const host = db.store.host(id);
  const row = JSON.parse(new TextDecoder().decode(await host.readFile(".memdir.lock")));
  assert.equal(row.pid, holder.child.pid, "the killed writer's lock row is there");
  assert.equal(await advisoryLocks(host), 1, "and its advisory lock");
  holder.child.kill("SIGKILL");
  assert.equal((await holder.done).signal, "SIGKILL");
  // well inside the 30 s a lock row is otherwise respected: its owner is proven gone
  const memory = await openMemory({ host, selector: { provider: "lexical" }, lock: { timeoutMs: 5000 } });
  const saved = await memory.remember({ type: "project", name: "After the kill", description: "A write after a killed writer", body: "b" });
  memory.close();
  assert.equal(saved.action, "created");
  assert.equal(await host.stat(".memdir.lock"), null, "the row was broken and the new one released");
  assert.equal(await advisoryLocks(host), 0, "no advisory lock left");
});

test("a writer whose lock was lost (its connection cut) writes nothing over the writer that took the lock next", async () => {
  const id = `${RUN}-lost`;
  const host = db.store.host(id);
  await host.writeFile("a.md", new TextEncoder().encode("first"));
  const other = await PostgresStore.open({ connectionString: db.url });
  try {
    await assert.rejects(
      host.locks.exclusive(async () => {
        // the lock's connection dies (a network cut, the server's timeout)
        const { rows } = await db.sql.query(
          `WITH k AS (SELECT hashtextextended($1, 0) AS key)
           SELECT pid FROM pg_locks, k WHERE locktype = 'advisory' AND granted AND classid::bigint = ((k.key >> 32) & 4294967295) AND objid::bigint = (k.key & 4294967295)`,
          [host.lockName],
        );
        assert.equal(rows.length, 1);
        await db.sql.query("SELECT pg_terminate_backend($1, 5000)", [rows[0].pid]);
        // another machine takes the lock, freed with the connection, and writes
        await other.host(id).locks.exclusive(() => other.host(id).writeFile("a.md", new TextEncoder().encode("theirs")), 5000);
        await host.writeFile("a.md", new TextEncoder().encode("stale"));
      }, 5000),
    );
    assert.equal(new TextDecoder().decode(await host.readFile("a.md")), "theirs");
  } finally {
    await other.close();
  }
});

test("a process that opens a memory, recalls (its watch listening) and closes nothing still exits on its own", async () => {
  const run = start(["leave", db.url, `${RUN}-leave`]);
  const done = await run.done;
  assert.equal(done.code, 0, done.err);
  const { alive } = JSON.parse(done.out);
  // the pool's idle connections and the watch's listening one are unref'd, as fs.watch's are not persistent
  assert.ok(!alive.includes("TCPSocketWrap"), `nothing holds the process: ${alive.join(", ")}`);
});
