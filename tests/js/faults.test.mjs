// Nothing lost when the disk fails: every write memdir makes — remember (create, update, into a
// missing directory), forget, the memory tool's create / str_replace / insert (topic file and
// MEMORY.md) / delete (file and folder) / rename, doctor's applyFixes — is run once on the real
// file system with every call to `node:fs/promises` (and to the FileHandles it opens) recorded,
// then replayed with a fault at each of those calls in turn (ENOSPC, EROFS, EACCES, EIO, shaped
// like Node's errors; a failed write has written half its bytes, a failed close has closed).
// After each: a clear MemdirError (the tool: an error result), never a raw error nor an
// absolute path; every file exactly as before or as intended, never partial; MEMORY.md still
// linking to files that exist (or as before); no temporary file, no lock left behind; and the
// next write works. Then files that vanish between a listing and a read.
//
// `npm test` runs every step with one of the four errors (rotating); MEMDIR_FULL=1 runs every
// step with each of the four, on both walks (descriptors and plain paths); MEMDIR_VERBOSE=1
// lists the steps whose fault was absorbed or left the lock.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { MemdirError, NodeHost, openMemory } from "memdir";
import { faultyFs } from "./fault-fs.mjs";

const FULL = process.env.MEMDIR_FULL === "1";
const ERRORS = ["ENOSPC", "EROFS", "EACCES", "EIO"];
// tmpfs where there is one: a case is a dozen fsyncs, and the faults are injected, not the disk
const root = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "memdir-faults-"));
after(() => rmSync(root, { recursive: true, force: true }));
let serial = 0;

before(async () => {
  // whether /proc/self/fd works is judged once per process, by the first host: not under a fault
  await new NodeHost(root).descriptorWalk();
});

const NOW = Date.UTC(2026, 2, 5, 12, 0, 0);
const fm = (name, description, type) => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n`;
const TESTING = fm("Testing", "Integration tests hit a real database", "feedback") + "Use a real DB.\n";
const DEPLOYS = fm("Deploys", "Deploys go out on Tuesdays", "project") + "Never on a Friday.\nAsk Dana first.\n";
const NOTES = fm("Old notes", "Notes kept from the old tracker", "reference") + "See the wiki.\n";
const INDEX =
  "- [Testing](feedback_testing.md) — Integration tests hit a real database\n" +
  "- [Deploys](project_deploys.md) — Deploys go out on Tuesdays\n" +
  "- [Old notes](old/notes.md) — Notes kept from the old tracker\n";
const FIXTURES = {
  base: { "MEMORY.md": INDEX, "feedback_testing.md": TESTING, "project_deploys.md": DEPLOYS, "old/notes.md": NOTES },
  // doctor: a dead link (project_gone.md) and a file without an entry (project_deploys.md)
  doctor: {
    "MEMORY.md": "- [Testing](feedback_testing.md) — Integration tests hit a real database\n- [Gone](project_gone.md) — A memory that was removed\n",
    "feedback_testing.md": TESTING,
    "project_deploys.md": DEPLOYS,
  },
  none: null, // the memory directory does not exist yet
};

const tool = (input) => async (memory) => {
  const r = await memory.tool().execute(input);
  if (r.isError) throw Object.assign(new Error(r.content), { toolResult: r });
  return r;
};
/** Every write, with the fixture it starts from. `prepare` runs before the fault is armed. */
const OPERATIONS = [
  { name: "remember (create)", fixture: "base", run: (m) => m.remember({ type: "project", name: "Release train", description: "Releases leave every second Tuesday", body: "Cut the branch on Monday.", nowMs: NOW }) },
  { name: "remember (update)", fixture: "base", run: (m) => m.remember({ file: "feedback_testing.md", type: "feedback", name: "Testing", description: "Integration tests hit a real database, never mocks", body: "Use a real database.", nowMs: NOW }) },
  { name: "remember (into a missing directory)", fixture: "none", run: (m) => m.remember({ type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "Explain UI in backend terms.", nowMs: NOW }) },
  { name: "forget", fixture: "base", run: (m) => m.forget("project_deploys.md") },
  { name: "tool create", fixture: "base", tool: true, run: tool({ command: "create", path: "/memories/project_new.md", file_text: fm("New", "A new memory the tool wrote", "project") + "Body.\n" }) },
  { name: "tool str_replace", fixture: "base", tool: true, run: tool({ command: "str_replace", path: "/memories/feedback_testing.md", old_str: "Use a real DB.", new_str: "Use a real database, never mocks." }) },
  { name: "tool insert (topic file)", fixture: "base", tool: true, run: tool({ command: "insert", path: "/memories/project_deploys.md", insert_line: 6, insert_text: "Not in December either." }) },
  { name: "tool insert (MEMORY.md)", fixture: "base", tool: true, run: tool({ command: "insert", path: "/memories/MEMORY.md", insert_line: 0, insert_text: "# Index" }) },
  { name: "tool delete (file)", fixture: "base", tool: true, run: tool({ command: "delete", path: "/memories/project_deploys.md" }) },
  { name: "tool delete (folder)", fixture: "base", tool: true, run: tool({ command: "delete", path: "/memories/old" }) },
  { name: "tool rename", fixture: "base", tool: true, run: tool({ command: "rename", old_path: "/memories/feedback_testing.md", new_path: "/memories/feedback/testing.md" }) },
  { name: "applyFixes", fixture: "doctor", prepare: (m) => m.planFixes(), run: (m, plan) => m.applyFixes(plan) },
];

function makeDir(fixture) {
  const dir = join(root, `case-${serial++}`, "memory");
  const files = FIXTURES[fixture];
  if (files === null) return dir;
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Every regular file under `dir` (relative path → text), links and folders left out. */
function files(dir, prefix = "") {
  const out = {};
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) Object.assign(out, files(join(dir, e.name), `${prefix}${e.name}/`));
    else if (e.isFile()) out[prefix + e.name] = readFileSync(join(dir, e.name), "utf8");
  }
  return out;
}

const TEMP = /(^|\/)\.[^/]+\.tmp-[0-9a-f]+$/;
/** memdir's own folder: the history (its files are checked through `memory.history()`). */
const HISTORY = /^\.memdir\//;
/** The folder's files without the history's. */
const memories = (all) => Object.fromEntries(Object.entries(all).filter(([p]) => !HISTORY.test(p)));
const LOCK = ".memdir.lock";
const BREAK = ".memdir.lock.break";
const links = (index) => [...index.matchAll(/\]\(([^)\s]+\.md)\)/g)].map((m) => m[1]);

/** Runs `op` once, recording its calls; returns the calls and the files after. */
async function record(op, walk) {
  const dir = makeDir(op.fixture);
  const before = files(dir);
  const { fs, rawFs, state } = faultyFs({ base: dir });
  const memory = await openMemory({ host: new NodeHost(dir, { fs, rawFs, descriptorWalk: walk }), selector: { provider: "lexical" } });
  const prepared = await op.prepare?.(memory);
  state.arm(null);
  await op.run(memory, prepared);
  const afterFiles = memories(files(dir));
  assert.notDeepEqual(afterFiles, before, `${op.name}: the clean run changed something`);
  rmSync(join(dir, ".."), { recursive: true, force: true });
  return { calls: state.calls.slice(), before, after: afterFiles };
}

/** A step as people read it: `lstat <dir>/MEMORY.md`, `(call 2)` when the same call comes again. */
const step = (f) => `${f.key}${f.n ? ` (call ${f.n + 1})` : ""}`;

const PROBE = { type: "project", name: "Probe", description: "A probe written after the fault cleared", body: "Written after the fault.", nowMs: NOW };

/**
 * One write with one fault; returns what happened for the tally. Asserts (a) a clear error,
 * (b) whole files, (c) no temporary or lock file, (d) the next write works.
 */
async function runCase(op, walk, fault, expected) {
  const dir = makeDir(op.fixture);
  const where = `${op.name}: ${fault.code} at ${step(fault)}`;
  const { fs, rawFs, state } = faultyFs({ base: dir });
  const memory = await openMemory({ host: new NodeHost(dir, { fs, rawFs, descriptorWalk: walk }), selector: { provider: "lexical" }, lock: { timeoutMs: 2_000 } });
  const prepared = await op.prepare?.(memory);
  state.arm(fault);
  let error = null;
  try {
    await op.run(memory, prepared);
  } catch (e) {
    error = e;
  }
  const hit = state.hit;
  state.arm(null);
  assert.deepEqual([...state.open.values()], [], `${where}: every file handle opened was closed`);
  const now = files(dir);
  const tally = { reached: hit !== null, failed: error !== null, lockLeft: false };
  // (a) a clear error, never raw, never an absolute path
  if (error !== null) {
    if (op.tool) {
      const text = error.toolResult?.content;
      assert.equal(typeof text, "string", `${where}: the tool answered with an error result, it did not throw (${error?.stack})`);
      assert.ok(text.includes(`(${fault.code})`), `${where}: the tool's error names the error: ${text}`);
      assert.ok(!text.includes(root) && !text.includes("/proc/"), `${where}: no host path in ${text}`);
    } else {
      assert.ok(error instanceof MemdirError, `${where}: a MemdirError, not ${error?.stack}`);
      if (error.code === "IO_ERROR") {
        assert.equal(error.errno, fault.code, `${where}: errno (${error.message})`);
        assert.ok(typeof error.path === "string" && !error.path.startsWith("/"), `${where}: a relative path (${error.path})`);
      }
      else assert.ok(["LOCKED", "NOT_A_DIRECTORY"].includes(error.code), `${where}: code ${error.code}: ${error.message}`);
      assert.ok(!error.message.includes(root) && !error.message.includes("/proc/"), `${where}: no host path in ${error.message}`);
    }
  } else if (hit !== null) {
    // the fault was absorbed: then the write must have done all it meant to
    const { [LOCK]: _lock, ...written } = now;
    assert.deepEqual(memories(written), expected.after, `${where}: succeeded despite the fault, so every file is as intended`);
  }

  // (b) every file whole: as before, or as intended
  for (const path of new Set([...Object.keys(expected.before), ...Object.keys(expected.after), ...Object.keys(now)])) {
    if (TEMP.test(path) || path === LOCK || HISTORY.test(path)) continue; // (c) below; the history is checked in (d)
    const is = now[path];
    assert.ok(is === expected.before[path] || is === expected.after[path], `${where}: ${path} is ${is === undefined ? "missing" : JSON.stringify(is.slice(0, 200))}, neither before nor after`);
  }
  if (now["MEMORY.md"] !== undefined && now["MEMORY.md"] !== expected.before["MEMORY.md"]) {
    for (const target of links(now["MEMORY.md"])) assert.ok(target in now, `${where}: MEMORY.md links to ${target}, which exists`);
  }

  // (c) no temporary file, no breaker; a lock only where its release failed, and then (d) clears it
  const leftovers = Object.keys(now).filter((p) => TEMP.test(p) || p === BREAK);
  assert.deepEqual(leftovers, [], `${where}: nothing temporary left behind`);
  tally.lockLeft = LOCK in now;
  // a failed write released its lock: one is left only when the release itself failed, which
  // comes after a write that succeeded (and the next write must then break it at once)
  if (tally.lockLeft) assert.equal(error, null, `${where}: the write failed and left its lock: ${error?.message}`);

  // (d) the next write, on the same memory with the fault gone, works and keeps every entry
  // a write that failed is not made: what it left is taken back (at once, or by this next write)
  const index = (error === null ? now["MEMORY.md"] : expected.before["MEMORY.md"]) ?? "";
  const probe = await memory.remember(PROBE).catch((e) => e);
  assert.ok(!(probe instanceof Error), `${where}: the next write works${tally.lockLeft ? " (a lock was left behind)" : ""}: ${probe?.message}`);
  const then = files(dir);
  assert.ok(then["MEMORY.md"].includes(probe.indexLine), `${where}: the probe's entry is in MEMORY.md`);
  for (const target of links(index)) assert.ok(then["MEMORY.md"].includes(`](${target})`), `${where}: the next write kept the entry for ${target}`);
  assert.deepEqual(Object.keys(then).filter((p) => TEMP.test(p) || p === LOCK || p === BREAK), [], `${where}: no lock or temporary file after the next write`);
  assert.deepEqual([...state.open.values()], [], `${where}: every file handle the next write opened was closed`);
  // the history agrees: no change left half-made, the probe recorded
  const history = await memory.history();
  assert.ok(history.every((h) => h.status !== "interrupted"), `${where}: nothing interrupted in the history: ${JSON.stringify(history.map((h) => [h.route, h.status]))}`);
  assert.deepEqual([history[0]?.route, history[0]?.status], ["remember", "done"], `${where}: the probe is recorded`);
  rmSync(join(dir, ".."), { recursive: true, force: true });
  return tally;
}

for (const walk of FULL ? [true, false] : [true]) {
  describe(`faults at every step of every write (${walk ? "descriptor walk" : "plain paths"})`, () => {
    for (const [o, op] of OPERATIONS.entries()) {
      test(op.name, async () => {
        const expected = await record(op, walk);
        const cases = [];
        for (const [i, call] of expected.calls.entries()) {
          const codes = FULL ? ERRORS : [ERRORS[(i + o) % ERRORS.length]];
          for (const code of codes) cases.push({ fn: call.fn, k: call.k, key: call.key, n: call.n, code });
        }
        const tally = { cases: 0, reached: 0, failed: 0, absorbed: [], lockLeft: [] };
        const broken = [];
        for (const fault of cases) {
          let t;
          try {
            t = await runCase(op, walk, fault, expected);
          } catch (error) {
            broken.push(error.message.split("\n")[0]);
            continue;
          }
          tally.cases++;
          if (t.reached) tally.reached++;
          if (t.failed) tally.failed++;
          else if (t.reached) tally.absorbed.push(step(fault));
          if (t.lockLeft) tally.lockLeft.push(`${step(fault)} ${fault.code}`);
        }
        assert.deepEqual(broken, [], `${broken.length} of ${cases.length} cases broke a rule`);
        assert.equal(tally.reached, tally.cases, "every recorded step was reached again on replay");
        // absorbed: the write succeeded whole despite the fault (a failed close, the sweep, the
        // lock's release); a lock left: its release failed, and the next write broke it at once
        const list = (steps) => (steps.length && process.env.MEMDIR_VERBOSE ? ` (${steps.join(", ")})` : "");
        process.stdout.write(
          `# ${op.name}: ${expected.calls.length} steps, ${tally.cases} cases: ${tally.failed} failed cleanly, ` +
            `${tally.absorbed.length} absorbed${list([...new Set(tally.absorbed)])}, ${tally.lockLeft.length} left the lock${list(tally.lockLeft)}\n`,
        );
      });
    }
  });
}

describe("files that vanish between the listing and the read", () => {
  const HARBOR = {
    "MEMORY.md":
      "- [Harbor tides](project_harbor_tides.md) — Harbor tides decide the release window\n" +
      "- [Harbor cranes](project_harbor_cranes.md) — Harbor cranes need a day of notice\n" +
      "- [Harbor fees](reference_harbor_fees.md) — Harbor fees are billed per berth\n",
    "project_harbor_tides.md": fm("Harbor tides", "Harbor tides decide the release window", "project") + "High tide at noon.\n",
    "project_harbor_cranes.md": fm("Harbor cranes", "Harbor cranes need a day of notice", "project") + "Call the crane desk.\n",
    "reference_harbor_fees.md": fm("Harbor fees", "Harbor fees are billed per berth", "reference") + "See the fee sheet.\n",
  };
  const VICTIM = "project_harbor_cranes.md";
  function harborDir() {
    const dir = join(root, `vanish-${serial++}`, "memory");
    mkdirSync(dir, { recursive: true });
    for (const [path, text] of Object.entries(HARBOR)) writeFileSync(join(dir, path), text);
    return dir;
  }
  /** A host whose fs removes VICTIM just before the `nth` time it is opened (listed, then gone). */
  function vanishing(dir, nth) {
    let opens = 0;
    const { fs, rawFs, state } = faultyFs({
      before: (fn, path) => {
        if (fn === "open" && basename(String(path)) === VICTIM && ++opens === nth) unlinkSync(join(dir, VICTIM));
      },
    });
    return { host: new NodeHost(dir, { fs, rawFs }), state, opened: () => opens };
  }
  /** The handles still open once the work after a turn (the check of the held files) has settled: a leak stays open. */
  async function settledHandles(state) {
    for (let i = 0; i < 50 && state.open.size > 0; i++) await new Promise((r) => setTimeout(r, 20));
    return [...state.open.values()];
  }
  const QUERY = "tides, cranes and fees: what do I need to know?";
  /** A model that picks every file it is offered (the manifest's lines). */
  const pickAll = async ({ user }) => JSON.stringify({ selected_memories: [...user.matchAll(/^- (?:\[\w+\] )?(\S+\.md) \(/gm)].map((m) => m[1]) });

  test("recall: gone before its header is read — the others are recalled", async () => {
    const dir = harborDir();
    const { host, state, opened } = vanishing(dir, 1);
    const r = await (await openMemory({ host, selector: pickAll })).recall(QUERY);
    assert.equal(opened(), 1, "the listing saw it, then it was opened once");
    assert.equal(r.outcome, "selected", r.error);
    assert.deepEqual(r.memories.map((m) => m.path).sort(), ["project_harbor_tides.md", "reference_harbor_fees.md"]);
    assert.deepEqual(await settledHandles(state), [], "every handle closed");
  });

  test("recall: gone after the scan chose it — the others are recalled, the error says which", async () => {
    const dir = harborDir();
    const { host, state, opened } = vanishing(dir, 2);
    const r = await (await openMemory({ host, selector: pickAll })).recall(QUERY);
    assert.equal(opened(), 2, "its header was read, then its content was not");
    assert.equal(r.outcome, "selected", r.error);
    assert.deepEqual(r.memories.map((m) => m.path).sort(), ["project_harbor_tides.md", "reference_harbor_fees.md"]);
    assert.match(r.error, /project_harbor_cranes\.md could not be read \(ENOENT\)/);
    assert.ok(!r.error.includes(root), `no host path in ${r.error}`);
    assert.deepEqual(await settledHandles(state), [], "every handle closed");
  });

  test("remember: gone during the duplicate check — the write goes on, every other entry kept", async () => {
    const dir = harborDir();
    const { host, state, opened } = vanishing(dir, 1);
    const memory = await openMemory({ host, selector: { provider: "lexical" } });
    const done = await memory.remember({ type: "project", name: "Harbor pilots", description: "Harbor pilots board two miles out", body: "Radio channel 12.", nowMs: NOW });
    assert.equal(opened(), 1, "listed, then gone when its header was to be read");
    const after = memories(files(dir));
    assert.equal(after["MEMORY.md"], HARBOR["MEMORY.md"] + done.indexLine + "\n", "the new line added, the others (the vanished one's too) kept");
    assert.deepEqual(Object.keys(after).sort(), ["MEMORY.md", "project_harbor_pilots.md", "project_harbor_tides.md", "reference_harbor_fees.md"]);
    assert.deepEqual(await settledHandles(state), [], "every handle closed");
  });

  test("doctor: gone before it is read — a report, not an error, and its entry is a dead link", async () => {
    const dir = harborDir();
    const { host, opened } = vanishing(dir, 1);
    const memory = await openMemory({ host, selector: { provider: "lexical" } });
    const report = await memory.doctor();
    assert.equal(opened(), 1);
    const about = report.findings.filter((f) => f.message.includes(VICTIM) || f.file === VICTIM);
    assert.ok(about.length > 0, `doctor reports the link to the vanished file: ${JSON.stringify(report.findings)}`);
    assert.ok(about.every((f) => !f.message.includes(root)));
    // and fixing keeps that dead line's words, the only copy of them: the file is written from its entry
    const index = readFileSync(join(dir, "MEMORY.md"), "utf8");
    const fixed = await memory.applyFixes(await memory.planFixes());
    assert.equal(fixed.errors, 0, JSON.stringify(fixed.findings));
    assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), index, "the entry stays");
    const hook = /\]\(([^)]+)\) — (.*)$/m.exec(index.split("\n").find((l) => l.includes(VICTIM)))[2];
    assert.ok(readFileSync(join(dir, VICTIM), "utf8").includes(`description: ${hook}`), "the file is written from its entry");
  });
});

test("the index's rename fails: the change is taken back whole (the topic file removed, the record aborted), nothing temporary", async () => {
  const dir = makeDir("base");
  const { fs, rawFs, state } = faultyFs({ fault: { fn: "rename", path: /\/\.MEMORY\.md\.tmp-[0-9a-f]+$/, code: "EIO" } });
  const memory = await openMemory({ host: new NodeHost(dir, { fs, rawFs }), selector: { provider: "lexical" } });
  const input = { type: "project", name: "Release train", description: "Releases leave every second Tuesday", body: "Cut the branch on Monday.", nowMs: NOW };
  await assert.rejects(memory.remember(input), (e) => {
    assert.ok(e instanceof MemdirError, e?.stack);
    assert.deepEqual([e.code, e.errno, e.path, e.message], ["IO_ERROR", "EIO", "MEMORY.md", "could not write MEMORY.md: an input/output error (EIO)"]);
    return true;
  });
  assert.ok(state.hit, "the rename of MEMORY.md's temporary file failed");
  const now = files(dir);
  assert.equal(now["MEMORY.md"], INDEX, "MEMORY.md as it was");
  assert.equal(now["project_release_train.md"], undefined, "the topic file written before the index failed is taken back: no memory without its line");
  assert.deepEqual(Object.keys(now).filter((p) => TEMP.test(p) || p === LOCK), []);
  state.arm(null);
  const [record] = await memory.history();
  assert.deepEqual([record.route, record.status], ["remember", "aborted"]);
  // and the same write, the fault gone, goes through
  await memory.remember(input);
  assert.match(readFileSync(join(dir, "MEMORY.md"), "utf8"), /\]\(project_release_train\.md\)/);
  assert.deepEqual([...state.open.values()], []);
});

test("recall when the directory cannot be listed: failed, saying why, naming no host path", async () => {
  for (const [fn, code] of [["readdir", "EIO"], ["lstat", "EIO"], ["open", "EACCES"]]) {
    const dir = makeDir("base");
    const { fs, rawFs, state } = faultyFs({});
    // armed once the memory is open (the open reads the history's live segment)
    const memory = await openMemory({ host: new NodeHost(dir, { fs, rawFs }), selector: { provider: "lexical" } });
    state.arm({ fn, k: 0, code });
    if (fn === "lstat") {
      // an entry's lstat fails through the folder's plain path and again through its descriptor
      // (one failure alone is taken again through the descriptor: see the next test)
      const once = rawFs.lstatSync;
      rawFs.lstatSync = (path, ...rest) => {
        if (String(path).endsWith(".md") && !String(path).endsWith("MEMORY.md")) {
          state.hit = { fn, path };
          throw Object.assign(new Error(`EIO: i/o error, lstat '${path}'`), { code: "EIO", errno: -5, syscall: "lstat", path });
        }
        return once(path, ...rest);
      };
      state.fault = null;
    }
    const r = await memory.recall("when do deploys go out?");
    assert.ok(state.hit, `${fn}: the fault was met`);
    assert.equal(r.outcome, "failed", `${fn}: ${r.error}`);
    assert.match(r.error, new RegExp(`^recall failed: could not list the memory directory: .*\\(${code}\\)$`));
    assert.ok(!r.error.includes(root) && !r.error.includes("/proc/"), r.error);
    assert.deepEqual([...state.open.values()], []);
  }
});

test("an entry's lstat that fails once through the folder's plain path is taken again through its descriptor", async () => {
  const dir = makeDir("base");
  const { fs, rawFs, state } = faultyFs({ fault: { fn: "lstat", path: /\.md$/, code: "EIO" } });
  const r = await (await openMemory({ host: new NodeHost(dir, { fs, rawFs }), selector: { provider: "lexical" } })).recall("when do deploys go out?");
  assert.ok(state.hit, "the fault was met");
  assert.ok(!state.hit.path.startsWith("/proc/"), `through the plain path: ${state.hit.path}`);
  assert.equal(r.outcome, "selected", r.error);
});
