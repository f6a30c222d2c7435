// What an opened memory keeps between turns (js/scan-cache.ts), as a turn sees it: any change is
// seen — an edit that keeps size and mtime (ctime, inode), files added and removed, edits a
// watcher never reported, writes through memdir — and an unchanged turn reads no file again (the
// host's calls are counted at its interface). A scan of thousands of files lets the event loop
// through. Memories open on one folder share one cache.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { NodeHost, openMemory } from "memdir";

const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-cache-"));
  temps.push(d);
  return d;
}
const fm = (name, description) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\nbody\n`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Files `a0.md`… with mtimes a minute apart, the newest last. */
function fill(dir, n) {
  for (let i = 0; i < n; i++) {
    const p = join(dir, `a${i}.md`);
    writeFileSync(p, fm(`A${i}`, `memory number ${i}`));
    const t = new Date(Date.now() - (n - i) * 60_000);
    utimesSync(p, t, t);
  }
}
/** A NodeHost that counts heads read, and whose watcher is real, silent (misses every event), or absent. */
function counted(dir, watcher = "real") {
  const host = new NodeHost(dir);
  const counts = { heads: 0, lists: 0 };
  const readHeads = host.fast.readHeads.bind(host.fast);
  const list = host.list.bind(host);
  host.fast.readHeads = async (paths, lines) => {
    counts.heads += paths.length;
    return readHeads(paths, lines);
  };
  // a full listing (an instance's own list() is what its listing() in columns gives too)
  host.list = async () => {
    counts.lists++;
    return list();
  };
  if (watcher === "silent") host.watch = () => ({ close() {} });
  if (watcher === "none") host.watch = undefined;
  return { host, counts };
}
const descriptions = (scan) => Object.fromEntries(scan.memories.map((m) => [m.path, m.description]));
/** Waits until the scan's result passes `check` (a watcher's event arrives within milliseconds). */
async function eventually(memory, check, ms = 2_000) {
  const until = Date.now() + ms;
  for (;;) {
    const scan = await memory.scan();
    if (check(scan) || Date.now() > until) return scan;
    await sleep(20);
  }
}

for (const watcher of ["real", "silent", "none"]) {
  describe(`the cache sees every change (watcher: ${watcher})`, () => {
    test("an unchanged turn reads no head and lists nothing it need not", async () => {
      const dir = temp();
      fill(dir, 5);
      await sleep(150); // past the racy window of the files just written
      const { host, counts } = counted(dir, watcher);
      const memory = await openMemory({ host, selector: { provider: "lexical" } });
      const first = await memory.scan();
      assert.equal(counts.heads, 5);
      const second = await memory.scan();
      assert.deepEqual(second, first);
      assert.equal(counts.heads, 5, "nothing read again");
      if (watcher !== "none") assert.equal(counts.lists, 1, "a watched folder is checked, not listed");
      memory.close();
    });

    test("an edit that keeps size and mtime is seen (ctime), and so is a file replaced by another (inode)", async () => {
      const dir = temp();
      fill(dir, 3);
      await sleep(150);
      const memory = await openMemory({ host: counted(dir, watcher).host, selector: { provider: "lexical" } });
      assert.equal(descriptions(await memory.scan())["a1.md"], "memory number 1");
      const p = join(dir, "a1.md");
      const { mtime, size } = statSync(p);
      writeFileSync(p, fm("A1", "memory NUMBER 1")); // same length
      utimesSync(p, mtime, mtime);
      assert.equal(statSync(p).size, size);
      assert.equal(descriptions(await memory.scan())["a1.md"], "memory NUMBER 1");
      // replaced by a file of the same size and mtime, written elsewhere and renamed over it
      writeFileSync(join(dir, "..a1.new"), fm("A1", "memory Number 1"));
      utimesSync(join(dir, "..a1.new"), mtime, mtime);
      renameSync(join(dir, "..a1.new"), p);
      assert.equal(descriptions(await memory.scan())["a1.md"], "memory Number 1");
      memory.close();
    });

    test("files added, removed and renamed are seen", async () => {
      const dir = temp();
      fill(dir, 3);
      mkdirSync(join(dir, "team"));
      const memory = await openMemory({ host: counted(dir, watcher).host, selector: { provider: "lexical" } });
      await memory.scan();
      writeFileSync(join(dir, "team", "new.md"), fm("New", "a new memory in a folder"));
      assert.ok((await memory.scan()).memories.some((m) => m.path === "team/new.md"));
      rmSync(join(dir, "a0.md"));
      assert.ok(!(await memory.scan()).memories.some((m) => m.path === "a0.md"));
      renameSync(join(dir, "a2.md"), join(dir, "team", "moved.md"));
      const paths = (await memory.scan()).memories.map((m) => m.path).sort();
      assert.deepEqual(paths, ["a1.md", "team/moved.md", "team/new.md"]);
      memory.close();
    });

    test("writes through memdir are seen by the next scan at once", async () => {
      const dir = temp();
      fill(dir, 2);
      const memory = await openMemory({ host: counted(dir, watcher).host, selector: { provider: "lexical" } });
      await memory.scan();
      const done = await memory.remember({ type: "project", name: "Fresh", description: "remembered between two scans", body: "b" });
      assert.ok((await memory.scan()).memories.some((m) => m.path === done.file));
      const tool = memory.tool();
      await tool.str_replace({ command: "str_replace", path: "/memories/a0.md", old_str: "memory number 0", new_str: "memory number zero" });
      assert.equal(descriptions(await memory.scan())["a0.md"], "memory number zero");
      await memory.forget(done.file);
      assert.ok(!(await memory.scan()).memories.some((m) => m.path === done.file));
      memory.close();
    });
  });
}

test("writes in a row (remember's memory and its index, flushed together) tell the cache what they wrote, as one write does", async () => {
  const { ScanCache } = await import("../../pkg/scan-cache.js");
  const dir = temp();
  fill(dir, 2);
  const told = [];
  const touched = ScanCache.prototype.touched;
  ScanCache.prototype.touched = function (...paths) {
    told.push(...paths);
    return touched.apply(this, paths);
  };
  try {
    const memory = await openMemory({ host: counted(dir, "silent").host, selector: { provider: "lexical" } });
    await memory.scan();
    const done = await memory.remember({ type: "project", name: "Fresh", description: "remembered between two scans", body: "b" });
    memory.close();
    assert.ok(told.includes(done.file) && told.includes("MEMORY.md"), `the memory and the index were told, not only the lock: ${told}`);
  } finally {
    ScanCache.prototype.touched = touched;
  }
});

test("an in-place edit of a file older than the newest maxFiles: a watcher reports it; one that misses it, the background check finds it", async () => {
  for (const watcher of ["real", "silent"]) {
    const dir = temp();
    fill(dir, 6);
    await sleep(150);
    const memory = await openMemory({ host: counted(dir, watcher).host, selector: { provider: "lexical" }, limits: { maxFiles: 2 }, cache: { fullCheckMs: 50 } });
    assert.deepEqual((await memory.scan()).memories.map((m) => m.path), ["a5.md", "a4.md"]);
    // a0 (the oldest, not held) edited in place: its folder's entries do not change
    writeFileSync(join(dir, "a0.md"), fm("A0", "edited in place, now the newest"), { flag: "r+" });
    const scan = await eventually(memory, (s) => s.memories[0]?.path === "a0.md");
    assert.equal(scan.memories[0].path, "a0.md", `${watcher}: the edit was seen`);
    assert.equal(scan.memories[0].description, "edited in place, now the newest");
    memory.close();
  }
});

test("with a trusted watcher, an unchanged turn looks only at its folders; the held files are checked right after the turn", async () => {
  const dir = temp();
  fill(dir, 5);
  await sleep(150);
  const { host, counts } = counted(dir);
  const looks = [];
  const statMany = host.fast.statMany.bind(host.fast);
  host.fast.statMany = async (paths) => {
    looks.push([...paths]);
    return statMany(paths);
  };
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  const first = await memory.scan();
  await sleep(30); // the check after the turn
  looks.length = 0;
  assert.deepEqual(await memory.scan(), first);
  assert.deepEqual(looks, [[""]], "the turn looked at the root folder only");
  await sleep(30);
  assert.deepEqual(looks.slice(1).map((l) => l.sort()), [["a0.md", "a1.md", "a2.md", "a3.md", "a4.md"]], "then at the held files, after the turn");
  assert.equal(counts.heads, 5, "nothing read again");
  memory.close();
});

test("an edit of a held file that the watcher missed: seen one turn late when the watcher is trusted, at once when it is not", async () => {
  for (const trustWatcher of [true, false]) {
    const dir = temp();
    fill(dir, 4);
    await sleep(150);
    const memory = await openMemory({ host: counted(dir, "silent").host, selector: { provider: "lexical" }, cache: { trustWatcher } });
    await memory.scan();
    await sleep(30); // the check after the turn has run: the edit comes after it
    writeFileSync(join(dir, "a2.md"), fm("A2", "edited behind the watcher's back"), { flag: "r+" });
    const next = descriptions(await memory.scan())["a2.md"];
    const after = descriptions(await memory.scan())["a2.md"]; // back to back: the check after a turn runs before the next

    assert.equal(after, "edited behind the watcher's back", `trustWatcher ${trustWatcher}: seen by the second turn`);
    if (!trustWatcher) assert.equal(next, "edited behind the watcher's back", "untrusted: seen by the next turn");
    memory.close();
  }
});

test("a turn with one file changed keeps the other memories as they were and reads the changed one anew, as a fresh scan does", async () => {
  const dir = temp();
  fill(dir, 6);
  await sleep(150);
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const first = await memory.scan();
  const p = join(dir, "a2.md");
  writeFileSync(p, fm("A2", "memory number two, edited"));
  const t = new Date(Date.now() - 3 * 60_000 + 1000);
  utimesSync(p, t, t);
  const second = await eventually(memory, (s) => descriptions(s)["a2.md"] === "memory number two, edited");
  const fresh = await openMemory({ dir, selector: { provider: "lexical" }, cache: false });
  assert.deepEqual(second, await fresh.scan(), "what a scan from scratch gives");
  const before = new Map(first.memories.map((m) => [m.path, m]));
  for (const m of second.memories) {
    if (m.path === "a2.md") assert.notEqual(m, before.get(m.path), "the changed one read anew");
    else assert.equal(m, before.get(m.path), `${m.path}: the same memory, not parsed again`);
  }
  memory.close();
});

test("cache: false starts every scan over", async () => {
  const dir = temp();
  fill(dir, 3);
  const { host, counts } = counted(dir);
  const memory = await openMemory({ host, selector: { provider: "lexical" }, cache: false });
  await memory.scan();
  await memory.scan();
  assert.equal(counts.heads, 6);
  assert.equal(counts.lists, 2);
});

test("the scan's result is the caller's own: changing it changes nothing the cache keeps", async () => {
  const dir = temp();
  fill(dir, 3);
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const first = await memory.scan();
  first.memories.length = 0;
  assert.equal((await memory.scan()).memories.length, 3);
  memory.close();
});

test("a scan of 5,000 files lets the event loop through while it lists (synchronous calls in short slices)", async () => {
  const dir = temp();
  for (let i = 0; i < 5000; i++) writeFileSync(join(dir, `m${i}.md`), fm(`M${i}`, `memory ${i}`));
  const host = new NodeHost(dir, { io: "sync" });
  const memory = await openMemory({ host, selector: { provider: "lexical" }, cache: false });
  let turns = 0;
  let scanning = true;
  const tick = () => {
    turns++;
    if (scanning) setImmediate(tick);
  };
  setImmediate(tick);
  const scan = await memory.scan();
  scanning = false;
  assert.equal(scan.memories.length, 200);
  assert.ok(host.yields > 0, "the listing yielded");
  assert.ok(turns > 1, `other work ran during the scan (${turns} turns of the event loop)`);
});

test("a scan of 20,000 files lets the event loop through between its steps, and gives what a memory without a cache gives", async () => {
  const { InMemoryHost } = await import("memdir");
  const n = 20_000;
  const files = {};
  for (let i = 0; i < n; i++) files[`${i % 7 === 0 ? "team/" : ""}m${i}.md`] = { content: fm(`M${i}`, `memory ${i}`), mtimeMs: 1e12 + ((i * 7919) % n) * 1000 };
  const host = new InMemoryHost(files);
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  const plain = await openMemory({ host, selector: { provider: "lexical" }, cache: false });
  let ticks = 0;
  let scanning = true;
  const tick = () => {
    ticks++;
    if (scanning) setImmediate(tick);
  };
  setImmediate(tick);
  const first = await memory.scan();
  scanning = false;
  assert.ok(ticks >= 2, `the event loop ran during the scan (${ticks} turns)`);
  assert.deepEqual(first, await plain.scan());
  assert.equal(first.memories.length, 200);
  assert.equal(first.dropped.length, n - 200);
  // a newer file: the next turn has it first, as the memory without a cache
  await host.writeFile("team/new.md", new TextEncoder().encode(fm("New", "the newest")));
  const second = await memory.scan();
  assert.equal(second.memories[0].path, "team/new.md");
  assert.deepEqual(second, await plain.scan());
  memory.close();
  plain.close();
});

test("a memory closed while a scan is under way keeps no core session: the scan still answers, and gives the session back", async () => {
  const { ScanSession } = await import("../../pkg/scan-session.js");
  const { InMemoryHost } = await import("memdir");
  const sessions = new Set();
  const { plan } = ScanSession.prototype;
  ScanSession.prototype.plan = function (...args) {
    sessions.add(this);
    return plan.apply(this, args);
  };
  try {
    const files = {};
    for (let i = 0; i < 10; i++) files[`m${i}.md`] = { content: fm(`M${i}`, `memory ${i}`), mtimeMs: 1e12 + i * 1000 };
    const small = await openMemory({ host: new InMemoryHost(files), selector: { provider: "lexical" } });
    const scanning = small.scan();
    small.close();
    assert.equal((await scanning).memories.length, 10);
    assert.ok(sessions.size >= 1);
    for (const s of sessions) assert.equal(s.core, null, "the core's session was freed");
  } finally {
    ScanSession.prototype.plan = plan;
  }
});

test("each core call of a turn starts a task of its own: the event loop runs between the listing and the plan, and between the reads and the scan", async () => {
  const { ScanSession } = await import("../../pkg/scan-session.js");
  const dir = temp();
  fill(dir, 30);
  const { host } = counted(dir, "none");
  const listing = host.fast.listing.bind(host.fast);
  const readHeads = host.fast.readHeads.bind(host.fast);
  // an immediate queued as the I/O ends has run by the next step only if the turn let the loop through
  let afterList = null;
  let afterReads = null;
  const seen = { atReads: null, atScan: null };
  host.fast.listing = async () => {
    const entries = await listing();
    afterList = false;
    setImmediate(() => (afterList = true));
    return entries;
  };
  host.fast.readHeads = async (paths, lines) => {
    seen.atReads = afterList; // the plan came between the listing and this read
    const heads = await readHeads(paths, lines);
    afterReads = false;
    setImmediate(() => (afterReads = true));
    return heads;
  };
  const scan = ScanSession.prototype.scan;
  ScanSession.prototype.scan = function (...args) {
    seen.atScan = afterReads;
    return scan.apply(this, args);
  };
  try {
    const memory = await openMemory({ host, selector: { provider: "lexical" } });
    const result = await memory.scan();
    memory.close();
    assert.equal(result.memories.length, 30);
    assert.deepEqual(seen, { atReads: true, atScan: true });
  } finally {
    ScanSession.prototype.scan = scan;
  }
});

test("a turn whose listing changed only in its times (a held file edited, an older one edited) and one with a file added scan as a fresh memory does", async () => {
  const { ScanCache } = await import("../../pkg/scan-cache.js");
  const { defaultLimits } = await import("memdir");
  const dir = temp();
  fill(dir, 12);
  mkdirSync(join(dir, "sub.md")); // a folder named like a memory: a diagnostic from its kind
  writeFileSync(join(dir, "MEMORY.md"), "- [A1](a1.md) — one\n");
  await sleep(150);
  const limits = { ...defaultLimits(), maxFiles: 5 };
  const cache = new ScanCache(new NodeHost(dir), limits, { trustWatcher: false });
  const fresh = async () => {
    const other = new ScanCache(new NodeHost(dir), limits, { watch: false });
    try {
      return (await other.scan(4)).result;
    } finally {
      other.close();
    }
  };
  const first = (await cache.scan(4)).result;
  assert.deepEqual(first, await fresh());
  const edit = async (name, text) => {
    writeFileSync(join(dir, name), text);
    let got;
    for (let i = 0; i < 100; i++) {
      got = (await cache.scan(4)).result;
      if (got.memories.some((m) => m.path === name && m.description === parseDescription(text))) break;
      await sleep(10);
    }
    assert.deepEqual(got, await fresh(), `after writing ${name}`);
  };
  const parseDescription = (text) => /description: (.*)/.exec(text)[1];
  // a held file edited to a later time; an older file edited; a file added
  await edit("a11.md", fm("A11", "edited eleven"));
  await edit("a2.md", fm("A2", "edited two"));
  await edit("new.md", fm("New", "a new one"));
  cache.close();
});

test("a held file edited to a later time moves up; an older file edited to the newest enters", async () => {
  const { ScanCache } = await import("../../pkg/scan-cache.js");
  const { defaultLimits } = await import("memdir");
  const dir = temp();
  fill(dir, 6);
  await sleep(150);
  const cache = new ScanCache(new NodeHost(dir), { ...defaultLimits(), maxFiles: 3 }, { trustWatcher: false });
  const paths = async () => (await cache.scan(4)).result.memories.map((m) => m.path);
  assert.deepEqual(await paths(), ["a5.md", "a4.md", "a3.md"]);
  writeFileSync(join(dir, "a4.md"), fm("A4", "memory four, edited")); // held: now the newest
  let got;
  for (let i = 0; i < 100 && (got = await paths())[0] !== "a4.md"; i++) await sleep(10);
  assert.deepEqual(got, ["a4.md", "a5.md", "a3.md"]);
  const t = new Date();
  writeFileSync(join(dir, "a0.md"), fm("A0", "memory zero, edited"), { flag: "r+" }); // not held
  utimesSync(join(dir, "a0.md"), t, t);
  for (let i = 0; i < 100 && (got = await paths())[0] !== "a0.md"; i++) await sleep(10);
  assert.deepEqual(got, ["a0.md", "a4.md", "a5.md"], "the older file, now the newest, enters");
  cache.close();
});

test("a file touched (a new time, the same bytes) moves up with its new time, whatever the watcher", async () => {
  for (const watcher of ["real", "silent", "none"]) {
    for (const trustWatcher of [true, false]) {
      const dir = temp();
      fill(dir, 3);
      await sleep(150);
      const memory = await openMemory({ host: counted(dir, watcher).host, selector: { provider: "lexical" }, cache: { trustWatcher, fullCheckMs: 50 } });
      assert.deepEqual((await memory.scan()).memories.map((m) => m.path), ["a2.md", "a1.md", "a0.md"]);
      const t = new Date(Date.now() - 1000);
      utimesSync(join(dir, "a0.md"), t, t);
      const scan = await eventually(memory, (s) => s.memories[0]?.path === "a0.md");
      assert.equal(scan.memories[0]?.path, "a0.md", `${watcher}, trustWatcher ${trustWatcher}: the touched file first`);
      assert.ok(Math.abs(scan.memories[0].mtimeMs - t.getTime()) < 1, `with its new time: ${scan.memories[0].mtimeMs}`);
      memory.close();
    }
  }
});

test("a check that gives up after updating an entry (another name's stat failed) leaves the listing as it was: the edit is seen", async () => {
  const { ScanCache } = await import("../../pkg/scan-cache.js");
  const { defaultLimits } = await import("memdir");
  const encoder = new TextEncoder();
  const files = new Map([
    ["a.md", { mtimeMs: 1000, text: fm("A", "first") }],
    ["b.md", { mtimeMs: 900, text: fm("B", "bee") }],
  ]);
  const root = { path: "", kind: "directory", mtimeMs: 5, size: 0 };
  const entry = (p) => ({ path: p, kind: "file", mtimeMs: files.get(p).mtimeMs, size: files.get(p).text.length });
  const listeners = [];
  let failing = null;
  const host = {
    root: "/fake",
    list: async () => [...files.keys()].map(entry),
    stat: async (p) => (p === "" ? root : files.has(p) ? entry(p) : null),
    fast: { statMany: async (paths) => paths.map((p) => (p === failing ? Object.assign(new Error("EACCES"), { code: "EACCES" }) : p === "" ? root : files.has(p) ? entry(p) : null)) },
    readFile: async (p) => encoder.encode(files.get(p).text),
    watch: (_dir, onChange) => (listeners.push(onChange), { close() {} }),
  };
  const cache = new ScanCache(host, defaultLimits(), {});
  const descriptions = async () => Object.fromEntries((await cache.scan(4)).result.memories.map((m) => [m.path, m.description]));
  assert.deepEqual(await descriptions(), { "a.md": "first", "b.md": "bee" });
  // a.md edited to a later time; the watcher reports it and b.md, whose stat fails this once
  files.set("a.md", { mtimeMs: 2000, text: fm("A", "edited") });
  failing = "b.md";
  for (const onChange of listeners) (onChange("a.md"), onChange("b.md"));
  assert.deepEqual(await descriptions(), { "a.md": "edited", "b.md": "bee" }, "the check gave up: the full listing sees the edit");
  failing = null;
  assert.deepEqual(await descriptions(), { "a.md": "edited", "b.md": "bee" });
  cache.close();
});

test("the offline selector across turns (the terms the core keeps per head) follows an edited body, as a memory without a cache does", async () => {
  const dir = temp();
  const about = { alpha: "release trains and their owners", beta: "the invoicing pipeline", gamma: "office hours of the platform team" };
  const write = (name, body, minutesAgo) => {
    const p = join(dir, `${name}.md`);
    writeFileSync(p, `---\nname: ${name}\ndescription: ${about[name]}\ntype: project\n---\n\n${body}\n`);
    const t = new Date(Date.now() - minutesAgo * 60_000);
    utimesSync(p, t, t);
  };
  write("alpha", "The blue green script deploys.", 5);
  write("beta", "Nothing of note.", 4);
  write("gamma", "Also nothing.", 3);
  await sleep(150);
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const query = "blue green script";
  assert.deepEqual((await memory.recall(query)).memories.map((m) => m.path), ["alpha.md"]);
  write("alpha", "Nothing any more.", 2);
  write("beta", "The blue green script lives here now.", 1);
  let recalled;
  for (const until = Date.now() + 2_000; Date.now() < until; await sleep(20)) {
    recalled = (await memory.recall(query)).memories.map((m) => m.path);
    if (recalled.includes("beta.md")) break;
  }
  assert.deepEqual(recalled, ["beta.md"], "the new body's terms, not the kept ones");
  const fresh = await openMemory({ dir, selector: { provider: "lexical" }, cache: false });
  assert.deepEqual((await fresh.recall(query)).memories.map((m) => m.path), recalled, "as without a cache");
  memory.close();
});

test("memories open on one folder share one cache: the second reads nothing the first read, both see a change once, and the last close releases it", async () => {
  const dir = temp();
  fill(dir, 6);
  await sleep(150);
  const { host, counts } = counted(dir);
  let watches = 0;
  const watch = host.watch.bind(host);
  host.watch = (folder, onChange) => {
    watches++;
    return watch(folder, onChange);
  };
  const a = await openMemory({ host, selector: { provider: "lexical" } });
  const b = await openMemory({ host, selector: { provider: "lexical" } });
  const first = await a.scan();
  assert.equal(counts.heads, 6);
  assert.deepEqual(await b.scan(), first, "the second memory's first turn is the shared cache's");
  assert.equal(counts.heads, 6, "nothing read again");
  assert.equal(watches, 1, "one watcher for the folder");
  writeFileSync(join(dir, "a2.md"), fm("A2", "edited once, seen by both"));
  await sleep(150); // past the racy window: a head read now is trusted at the next turn
  const seen = await eventually(a, (s) => descriptions(s)["a2.md"] === "edited once, seen by both");
  assert.equal(descriptions(seen)["a2.md"], "edited once, seen by both");
  assert.equal(descriptions(await b.scan())["a2.md"], "edited once, seen by both");
  assert.equal(counts.heads, 7, "the edited file read once, for both");
  a.close();
  writeFileSync(join(dir, "a3.md"), fm("A3", "after the first closed"));
  assert.equal(descriptions(await eventually(b, (s) => descriptions(s)["a3.md"] === "after the first closed"))["a3.md"], "after the first closed", "the other still works");
  b.close();
  // other limits are another cache; a folder opened by its path is one host, so one cache
  const c = await openMemory({ host, selector: { provider: "lexical" }, limits: { maxFiles: 2 } });
  assert.equal((await c.scan()).memories.length, 2);
  c.close();
  const [d, e] = [await openMemory({ dir }), await openMemory({ dir })];
  assert.equal(d.host, e.host, "one NodeHost for the folder");
  d.close();
  e.close();
});

test("a burst of watcher reports (every file touched) closes the watchers: the next turn lists everything, sees every change, and watches again", async () => {
  const { ScanCache } = await import("../../pkg/scan-cache.js");
  const { defaultLimits } = await import("memdir");
  const encoder = new TextEncoder();
  const files = new Map(Array.from({ length: 3000 }, (_, i) => [`m${i}.md`, { mtimeMs: 1000 + i, text: fm(`M${i}`, `memory ${i}`) }]));
  const root = { path: "", kind: "directory", mtimeMs: 5, size: 0 };
  const entry = (p) => ({ path: p, kind: "file", mtimeMs: files.get(p).mtimeMs, size: files.get(p).text.length });
  let listings = 0;
  let opened = 0;
  let closed = 0;
  let report = null;
  const host = {
    root: "/fake",
    absolutePath: (p) => `/fake/${p}`,
    list: async () => (listings++, [...files.keys()].map(entry)),
    stat: async (p) => (p === "" ? root : files.has(p) ? entry(p) : null),
    fast: { statMany: async (paths) => paths.map((p) => (p === "" ? root : files.has(p) ? entry(p) : null)) },
    readFile: async (p) => encoder.encode(files.get(p).text),
    watch: (_dir, onChange) => {
      opened++;
      report = onChange;
      return { close: () => closed++ };
    },
  };
  const cache = new ScanCache(host, defaultLimits(), {});
  assert.equal((await cache.scan(4)).result.memories[0].path, "m2999.md");
  assert.equal(opened, 1);
  // every file touched: a report each, older files now the newest
  for (const [p, f] of files) f.mtimeMs += 10_000 - Number(p.slice(1, -3)) * 2;
  const before = listings;
  for (const p of files.keys()) report(p);
  assert.equal(closed, 1, "the watcher closed past the limit of names");
  const after = (await cache.scan(4)).result;
  assert.equal(after.memories[0].path, "m0.md", "the new order seen");
  assert.equal(listings, before + 1, "by a full listing");
  assert.equal(opened, 2, "watched again");
  cache.close();
});
