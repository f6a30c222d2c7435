// The write lock on the real file system, with real processes (tests/js/fixtures-proc/lock-writer.mjs):
// a lock file that is not a lock, one dated in the future, one from before a reboot, from another
// machine or left by a writer killed while breaking a dead lock; a file where the memory directory
// should be; temporary files left by a writer killed mid-write. Faults are injected through the
// NodeHost's `fs` option at exact steps, and ages are set with utimes, so nothing waits on luck.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, lutimesSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { MemdirError, NodeHost, openMemory } from "memdir";
import { machine } from "./machine.mjs";

const WRITER = fileURLToPath(new URL("./fixtures-proc/lock-writer.mjs", import.meta.url));
const CLI = fileURLToPath(new URL("../../pkg/cli/main.js", import.meta.url));
const LOCK = ".memdir.lock";
const TEMP = /^\..+\.tmp-[0-9a-f]+$/;
const { boot: BOOT, pidns: PIDNS } = machine;

const children = new Set();
const temps = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
function memoryDir() {
  const root = mkdtempSync(join(tmpdir(), "memdir-lock-"));
  temps.push(root);
  const dir = join(root, "memory");
  mkdirSync(dir);
  return dir;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const open = (dir, lock = {}) => openMemory({ dir, selector: { provider: "lexical" }, lock });
const WORDS = ["harbor", "lantern", "quartz", "meadow", "falcon", "glacier", "tundra", "orchid", "copper", "violet", "canyon", "ember", "prairie", "walnut", "cobalt", "saffron"];
let counter = 0;
/** A memory no other in the directory comes near (one unique word in each description). */
function input() {
  const n = counter++;
  return { type: "project", name: `Lock note ${n}`, description: `Lock note n${n} about ${WORDS[n % WORDS.length]} and ${WORDS[(n * 7 + 3) % WORDS.length]}`, body: `Note ${n}.` };
}
/** Backdates a path (a link itself, not its target) by `ms`. */
function age(path, ms) {
  const t = new Date(Date.now() - ms);
  lutimesSync(path, t, t);
}
// memdir's own folder (.memdir: the history) is no leftover
const leftovers = (dir) => readdirSync(dir).filter((n) => !n.endsWith(".md") && n !== ".memdir");
const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid;
const lockBody = (fields) => JSON.stringify({ pid: null, ...machine, at: Date.now(), token: "held-by-test", ...fields });

/** A live process (a pid that answers kill 0) until the test ends. */
async function liveProcess() {
  const child = spawn(process.execPath, ["-e", "console.log('up'); setInterval(() => {}, 1 << 30)"], { stdio: ["ignore", "pipe", "ignore"] });
  children.add(child);
  await new Promise((resolve) => child.stdout.once("data", resolve));
  return child;
}

/** Runs the lock writer; `until(pred)` waits for a fact; `closed` resolves at exit. */
function writer(config, env = process.env) {
  const child = spawn(process.execPath, [WRITER, JSON.stringify(config)], { stdio: ["ignore", "pipe", "pipe"], env });
  children.add(child);
  const facts = [];
  let stderr = "";
  const waiters = new Set();
  createInterface({ input: child.stdout }).on("line", (line) => {
    facts.push(JSON.parse(line));
    for (const w of waiters) w();
  });
  child.stderr.on("data", (d) => (stderr += d));
  const closed = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  const until = (pred) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const fact = facts.find(pred);
        if (fact) {
          waiters.delete(check);
          resolve(fact);
        }
      };
      waiters.add(check);
      check();
      closed.then(() => {
        if (waiters.has(check)) reject(new Error(`the writer exited first: ${stderr} ${JSON.stringify(facts)}`));
      });
    });
  return { child, facts, closed, until, stderr: () => stderr };
}

/** SIGKILLs a writer that reported it stalled at `step`, and waits until its pid is gone. */
async function killAt(w, step) {
  await w.until((f) => f.stalled === step);
  w.child.kill("SIGKILL");
  assert.deepEqual(await w.closed, { code: null, signal: "SIGKILL" });
}

/** Remembers, and checks the write went through at once, released the lock and left nothing. */
async function remembersAtOnce(dir, lock = {}) {
  const t0 = Date.now();
  const done = await (await open(dir, { timeoutMs: 3000, ...lock })).remember(input());
  const ms = Date.now() - t0;
  assert.equal(done.action, "created");
  assert.ok(ms < 1500, `went ahead without waiting the lock out (${ms} ms)`);
  assert.ok(readFileSync(join(dir, "MEMORY.md"), "utf8").includes(done.indexLine));
  assert.deepEqual(leftovers(dir), [], "no lock, breaker or temporary file left");
  return done;
}
const refusedLocked = async (dir, timeoutMs = 300) => {
  await assert.rejects((await open(dir, { timeoutMs })).remember(input()), (e) => e instanceof MemdirError && e.code === "LOCKED");
};

// ---- 1. locks that never broke ------------------------------------------------------------------

const NOT_LOCKS = {
  "garbage bytes": (p) => writeFileSync(p, "\u0000\u00ff garbage, not JSON"),
  "an empty file": (p) => writeFileSync(p, ""),
  "JSON null": (p) => writeFileSync(p, "null"),
  "JSON without a token": (p) => writeFileSync(p, JSON.stringify({ pid: 1, host: hostname(), at: Date.now() })),
  "a token that is not a string": (p) => writeFileSync(p, JSON.stringify({ pid: 1, host: hostname(), at: Date.now(), token: 7 })),
  "a JSON array": (p) => writeFileSync(p, "[]"),
  "a directory": (p) => {
    mkdirSync(p);
    writeFileSync(join(p, "inside"), "x");
  },
  "a dangling symbolic link": (p) => symlinkSync(join(p, "..", "..", "nowhere"), p),
  "a link to a folder outside": (p) => {
    mkdirSync(join(p, "..", "..", "elsewhere"));
    writeFileSync(join(p, "..", "..", "elsewhere", "kept"), "kept");
    symlinkSync(join(p, "..", "..", "elsewhere"), p);
  },
};

for (const [what, make] of Object.entries(NOT_LOCKS)) {
  test(`a lock file that is ${what}: respected for a short grace, then broken by its age`, async () => {
    const dir = memoryDir();
    const lock = join(dir, LOCK);
    make(lock);
    await refusedLocked(dir); // just made: it may be another tool's, give it a moment
    age(lock, 10_000);
    await remembersAtOnce(dir);
    assert.ok(!existsSync(join(dir, "..", "nowhere")), "a dangling link is not followed");
    if (what.includes("outside")) assert.equal(readFileSync(join(dir, "..", "elsewhere", "kept"), "utf8"), "kept", "nothing beyond the link was touched");
  });
}

test("a freshly made empty lock file is broken once the grace has passed, within the timeout", async () => {
  const dir = memoryDir();
  writeFileSync(join(dir, LOCK), "");
  const t0 = Date.now();
  const done = await (await open(dir, { timeoutMs: 5000 })).remember(input());
  const ms = Date.now() - t0;
  assert.equal(done.action, "created");
  assert.ok(ms >= 1000 && ms < 4000, `waited about the grace (2 s), not the timeout: ${ms} ms`);
  assert.deepEqual(leftovers(dir), []);
});

test("a lock dated in the future, held by a live pid, is judged by its file's time: not immortal", async () => {
  const dir = memoryDir();
  const live = await liveProcess();
  const lock = join(dir, LOCK);
  writeFileSync(lock, lockBody({ pid: live.pid, at: Date.now() + 86_400_000 }));
  await refusedLocked(dir); // the file is new and its owner alive: respected
  age(lock, 60_000); // written a minute ago by the file system's clock, past staleMs (30 s)
  await remembersAtOnce(dir);
});

test("a dead writer's lock on this machine is broken at once, whatever $HOSTNAME says", async () => {
  for (const HOSTNAME of ["not-this-machine", undefined]) {
    const dir = memoryDir();
    writeFileSync(join(dir, LOCK), lockBody({ pid: deadPid() }));
    const env = { ...process.env, HOSTNAME };
    if (HOSTNAME === undefined) delete env.HOSTNAME;
    const w = writer({ mode: "remember", dir, input: input(), lock: { timeoutMs: 3000 } }, env);
    const fact = await w.until((f) => "ok" in f);
    assert.equal(fact.ok, true, `HOSTNAME=${HOSTNAME}: ${fact.code} ${fact.message}`);
    assert.ok(fact.ms < 1500, `broken at once (${fact.ms} ms)`);
    assert.deepEqual(leftovers(dir), []);
  }
});

test("a lock that does not name its machine, or names another, is never judged by its pid", async () => {
  const dir = memoryDir();
  const lock = join(dir, LOCK);
  const dead = deadPid();
  for (const host of [null, "another-machine.example"]) {
    // this pid is dead here, but it is some other machine's pid: only time can tell
    writeFileSync(lock, lockBody({ pid: dead, host }));
    await refusedLocked(dir);
    assert.equal(JSON.parse(readFileSync(lock, "utf8")).host, host, "the lock is untouched");
    writeFileSync(lock, lockBody({ pid: dead, host, at: Date.now() - 60_000 }));
    await remembersAtOnce(dir);
  }
});

test("a lock from another pid namespace (another container on this kernel) is not judged by its pid", { skip: !PIDNS && "no /proc/self/ns/pid here" }, async () => {
  const dir = memoryDir();
  writeFileSync(join(dir, LOCK), lockBody({ pid: deadPid(), pidns: "pid:[1]" }));
  await refusedLocked(dir);
});

test("a pid from before a reboot is not mistaken for a live one", { skip: !BOOT && "no boot id on this OS" }, async () => {
  const dir = memoryDir();
  const live = await liveProcess();
  writeFileSync(join(dir, LOCK), lockBody({ pid: live.pid, boot: "00000000-0000-4000-8000-000000000000" }));
  await remembersAtOnce(dir);
  // the same live pid in this boot is respected
  writeFileSync(join(dir, LOCK), lockBody({ pid: live.pid }));
  await refusedLocked(dir);
});

test("a writer killed while breaking a dead lock does not block the next writer", async () => {
  const dir = memoryDir();
  // a dead writer's lock, and past staleMs, so every version of the lock breaks it
  writeFileSync(join(dir, LOCK), lockBody({ pid: deadPid(), at: Date.now() - 60_000 }));
  const breaker = writer({ mode: "stall", dir, input: input(), at: "break" });
  await killAt(breaker, "break");
  const names = leftovers(dir);
  assert.ok(names.includes(LOCK) && names.some((n) => n.startsWith(`${LOCK}.break`)), `the lock and the breaker are left: ${names}`);
  for (const n of names.filter((n) => n.startsWith(`${LOCK}.break`) && !n.includes(".tmp-"))) {
    const body = (() => {
      try {
        return JSON.parse(readFileSync(join(dir, n), "utf8"));
      } catch {
        return null;
      }
    })();
    assert.equal(body?.pid, breaker.child.pid, `the breaker names its owner: ${readFileSync(join(dir, n), "utf8")}`);
  }
  await remembersAtOnce(dir);
});

test("a breaker left by a writer killed after it removed the lock is cleared by the next write", async () => {
  const dir = memoryDir();
  writeFileSync(join(dir, `${LOCK}.break`), lockBody({ pid: deadPid() }));
  await remembersAtOnce(dir);
});

test("a breaker whose owner cannot be judged is cleared after a bound shorter than the timeout", async () => {
  const dir = memoryDir();
  writeFileSync(join(dir, LOCK), lockBody({ pid: deadPid(), at: Date.now() - 60_000 }));
  writeFileSync(join(dir, `${LOCK}.break`), lockBody({ pid: 4242, host: "another-machine.example", token: "their-break" }));
  const t0 = Date.now();
  const done = await (await open(dir, { timeoutMs: 6000 })).remember(input());
  const ms = Date.now() - t0;
  assert.equal(done.action, "created");
  assert.ok(ms < 4000, `cleared well before the timeout (${ms} ms)`);
  assert.deepEqual(leftovers(dir), []);
});

test("a lock whose link reply was lost (EEXIST, but the lock is ours, as NFS can answer) is taken", async () => {
  const dir = memoryDir();
  let lost = 0;
  const fs = {
    ...fsp,
    link: async (from, to) => {
      await fsp.link(from, to);
      if (basename(String(to)) === LOCK && lost++ === 0) throw Object.assign(new Error("EEXIST: retried link"), { code: "EEXIST" });
    },
  };
  const memory = await openMemory({ host: new NodeHost(dir, { fs }), selector: { provider: "lexical" }, lock: { timeoutMs: 1000 } });
  const done = await memory.remember(input());
  assert.equal(done.action, "created");
  assert.equal(lost, 1);
  assert.deepEqual(leftovers(dir), []);
});

// ---- 2. a file given as the directory -------------------------------------------------------------

test("a file given as the memory directory fails at once with NOT_A_DIRECTORY: API, tool and CLI", async () => {
  const root = mkdtempSync(join(tmpdir(), "memdir-lock-"));
  temps.push(root);
  const file = join(root, "notes.txt");
  writeFileSync(file, "a file, not a folder\n");
  for (const dir of [file, join(file, "memory")]) {
    const memory = await open(dir); // default timeout: 10 s
    let t0 = Date.now();
    await assert.rejects(memory.remember(input()), (e) => {
      assert.ok(e instanceof MemdirError, `a MemdirError, not ${e}`);
      assert.equal(e.code, "NOT_A_DIRECTORY");
      assert.match(e.message, /not a directory/);
      assert.ok(e.message.includes(file), e.message);
      return true;
    });
    await assert.rejects(memory.forget("project_x.md"), { code: "NOT_A_DIRECTORY" });
    assert.ok(Date.now() - t0 < 1500, `at once (${Date.now() - t0} ms)`);
    t0 = Date.now();
    const result = await memory.tool().execute({ command: "create", path: "/memories/x.md", file_text: "x\n" });
    assert.equal(result.isError, true);
    assert.match(result.content, /not a directory/);
    await assert.rejects(memory.tool().create({ command: "create", path: "/memories/x.md", file_text: "x\n" }), { name: "MemoryToolError" });
    assert.ok(Date.now() - t0 < 1500, `at once (${Date.now() - t0} ms)`);

    t0 = Date.now();
    const env = { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" };
    const cli = spawnSync(CLI, ["remember", "--dir", dir, "--type", "project", "--name", "X", "--description", "A note about the harbor lantern", "--body", "x"], { encoding: "utf8", env });
    assert.equal(cli.status, 3, cli.stderr);
    assert.match(cli.stderr, /not a directory/);
    assert.ok(Date.now() - t0 < 5000, `at once (${Date.now() - t0} ms)`);
    const json = spawnSync(CLI, ["forget", "project_x.md", "--dir", dir, "--json"], { encoding: "utf8", env });
    assert.equal(json.status, 3, json.stderr);
    assert.equal(JSON.parse(json.stdout).error.code, "NOT_A_DIRECTORY");
  }
  assert.equal(readFileSync(file, "utf8"), "a file, not a folder\n");
  assert.deepEqual(readdirSync(root), ["notes.txt"]);
});

// ---- 3. temporary files left by kill -9 ----------------------------------------------------------

test("a writer SIGKILLed mid-write leaves temporary files; the next write clears them under the lock", async () => {
  const dir = memoryDir();
  await (await open(dir)).remember(input());
  const w = writer({ mode: "stall", dir, input: input(), at: "index" });
  await killAt(w, "index");
  const left = leftovers(dir);
  assert.ok(left.includes(LOCK), `the dead writer's lock is left: ${left}`);
  assert.ok(left.some((n) => /^\.MEMORY\.md\.tmp-/.test(n)), `its temporary index is left: ${left}`);
  await remembersAtOnce(dir);
});

test("a writer SIGKILLed while taking the lock leaves its lock's temporary file; the next write clears it", async () => {
  const dir = memoryDir();
  const w = writer({ mode: "stall", dir, input: input(), at: "acquire" });
  await killAt(w, "acquire");
  const left = leftovers(dir);
  assert.equal(left.length, 1, `only a temporary file: ${left}`);
  assert.match(left[0], /^\.\.memdir\.lock\.tmp-/);
  assert.equal(JSON.parse(readFileSync(join(dir, left[0]), "utf8")).pid, w.child.pid, "it names the dead writer");
  await remembersAtOnce(dir);
});

test("a live writer's temporary files are not touched; old ones are", async () => {
  const dir = memoryDir();
  // writer A stops while linking its lock into place: its temporary lock file is live
  let release;
  const gate = new Promise((r) => (release = r));
  let stalled;
  const atLink = new Promise((r) => (stalled = r));
  const fs = {
    ...fsp,
    link: async (from, to) => {
      if (basename(String(to)) === LOCK && release) {
        stalled();
        await gate;
      }
      return fsp.link(from, to);
    },
  };
  const a = await openMemory({ host: new NodeHost(dir, { fs }), selector: { provider: "lexical" }, lock: { timeoutMs: 3000 } });
  const pa = a.remember(input());
  await atLink;
  // a temporary file some other writer is writing right now (no owner to ask: only its age)
  const foreign = join(dir, ".project_other.md.tmp-0123456789ab");
  writeFileSync(foreign, "half a memory");
  const aTemp = leftovers(dir).find((n) => n.startsWith(`.${LOCK}.tmp-`));
  assert.ok(aTemp, "A's temporary lock file exists");

  const b = await (await open(dir)).remember(input());
  assert.equal(b.action, "created");
  assert.ok(existsSync(join(dir, aTemp)), "A's temporary lock file (a live owner) is kept");
  assert.ok(existsSync(foreign), "a young temporary file is kept");

  release();
  release = null;
  assert.equal((await pa).action, "created", "A goes on and writes");
  assert.ok(existsSync(foreign));
  age(foreign, 60_000);
  await remembersAtOnce(dir);
});

test("a temporary lock file a killed writer created but never wrote (no body) goes once 2 s old, not before", async () => {
  const dir = memoryDir();
  const empty = join(dir, `.${LOCK}.tmp-0123456789ab`);
  const cut = join(dir, `.${LOCK}.break.tmp-ba9876543210`);
  writeFileSync(empty, "");
  writeFileSync(cut, '{"pid":12');
  assert.equal((await (await open(dir, { timeoutMs: 3000 })).remember(input())).action, "created");
  assert.ok(existsSync(empty) && existsSync(cut), "young: its writer may be between the two calls");
  age(empty, 2_500);
  age(cut, 2_500);
  await remembersAtOnce(dir);
  assert.deepEqual(leftovers(dir), [], "no lock in them, and older than any live writer's: cleared");
});

// ---- the NodeHost's part: lstat, and who owns a lock ---------------------------------------------

test("NodeHost.lstat reports a link as itself, a dangling one included; ENOTDIR below a file", async () => {
  const dir = memoryDir();
  writeFileSync(join(dir, "a.md"), "abc");
  mkdirSync(join(dir, "notes"));
  symlinkSync(join(dir, "..", "nowhere"), join(dir, "dangling"));
  symlinkSync(join(dir, "a.md"), join(dir, "to-a"));
  age(join(dir, "dangling"), 5000);
  const host = new NodeHost(dir);
  const st = await fsp.stat(join(dir, "a.md"));
  assert.deepEqual(await host.lstat("a.md"), { path: "a.md", kind: "file", mtimeMs: st.mtimeMs, size: 3, ctimeMs: st.ctimeMs, ino: st.ino });
  assert.equal((await host.lstat("notes")).kind, "directory");
  const dangling = await host.lstat("dangling");
  assert.deepEqual([dangling.kind, dangling.problem], ["other", "symlink"]);
  assert.ok(Math.abs(Date.now() - 5000 - dangling.mtimeMs) < 1000, "the link's own mtime");
  assert.equal(await host.stat("dangling"), null, "stat follows it: nothing there");
  assert.deepEqual([(await host.lstat("to-a")).kind, (await host.stat("to-a")).kind], ["other", "file"]);
  assert.equal(await host.lstat("missing.md"), null);
  await assert.rejects(host.lstat("a.md/x"), { code: "ENOTDIR" });
});

test("NodeHost names this process for a lock, and proves an owner gone only on this machine", async () => {
  const host = new NodeHost(memoryDir());
  const me = await host.lockOwner();
  assert.deepEqual(me, { host: hostname(), pid: process.pid, boot: BOOT, pidns: PIDNS });
  const live = await liveProcess();
  const dead = deadPid();
  assert.equal(await host.ownerAlive(me), true);
  assert.equal(await host.ownerAlive({ ...me, pid: live.pid }), true);
  assert.equal(await host.ownerAlive({ ...me, pid: dead }), false);
  assert.equal(await host.ownerAlive({ ...me, pid: dead, host: "another-machine.example" }), null, "another machine's pid means nothing here");
  assert.equal(await host.ownerAlive({ ...me, pid: 0 }), null, "0 would signal our own process group");
  assert.equal(await host.ownerAlive({ ...me, pid: -1 }), null, "-1 would signal every process");
  if (PIDNS) assert.equal(await host.ownerAlive({ ...me, pid: dead, pidns: "pid:[1]" }), null, "another container's pid means nothing here");
  if (BOOT) assert.equal(await host.ownerAlive({ ...me, pid: live.pid, boot: "00000000-0000-4000-8000-000000000000" }), false, "a pid from an earlier boot");
  assert.equal(await host.ownerAlive({ ...me, pid: 1 }), true, "pid 1 is alive (kill answers EPERM or success)");
});
