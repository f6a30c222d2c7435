// An opened browser memory keeps its scan across turns (js/scan-cache.ts) with the browser
// hosts' statMany and watch (js/hosts/browser-watch.ts): statMany agrees with list, a folder's
// key changes with its names, a change made in another tab is heard without a full listing, a
// change behind memdir's back is seen by the folder keys, the FileSystemObserver, or at the
// latest the background full listing; a memory of thousands of files scans in a browser.
import assert from "node:assert/strict";
import { test } from "node:test";
import { inPage, sharedTabs } from "./tabs.mjs";

const shared = sharedTabs();
const { errors, tab } = shared;


for (const backend of ["OpfsHost", "IndexedDbHost"]) {
  test(`${backend}: statMany gives what list gives, files and folders, null when missing; a folder's key changes with its names`, async () => {
    const page = await tab();
    const result = await inPage(
      page,
      async ({ backends, seedMemories, writeBehind, freshName }, backend) => {
        const name = freshName("statmany");
        await seedMemories(backend, name, 2, { folders: ["notes", "notes/deep"] });
        const host = await backends[backend].open(name);
        const listed = await host.list();
        const asked = [...listed.map((e) => e.path), "", "nope.md", "notes/nope", "nope/x.md", "a0.md/x.md"];
        const stats = await host.statMany(asked);
        const key = async (path) => (await host.statMany([path]))[0]?.ino;
        const before = { notes: await key("notes"), deep: await key("notes/deep"), root: await key("") };
        await writeBehind(backend, name, "notes/new.md", "x");
        const added = { notes: await key("notes"), deep: await key("notes/deep"), root: await key(""), stat: (await host.stat("notes"))?.ino, listed: (await host.list()).find((e) => e.path === "notes")?.ino };
        await host.remove("notes/new.md");
        const removed = { notes: await key("notes") };
        return { listed, stats, before, added, removed };
      },
      backend,
    );
    const { listed, stats } = result;
    assert.ok(listed.some((e) => e.kind === "directory") && listed.some((e) => e.kind === "file"));
    listed.forEach((e, i) => assert.deepEqual(stats[i], e, `${e.path}: statMany and list agree`));
    for (const e of listed.filter((x) => x.kind === "directory")) assert.equal(typeof e.ino, "number", `${e.path} has a key`);
    const root = stats[listed.length];
    assert.equal(root.kind, "directory");
    assert.equal(typeof root.ino, "number");
    assert.deepEqual(stats.slice(listed.length + 1), [null, null, null, null]);
    assert.notEqual(result.added.notes, result.before.notes, "a file added behind memdir's back changes its folder's key");
    assert.equal(result.added.deep, result.before.deep, "and no other folder's");
    assert.equal(result.added.root, result.before.root);
    assert.equal(result.added.stat, result.added.notes, "stat and statMany agree on a folder");
    assert.equal(result.added.listed, result.added.notes, "list and statMany agree on a folder");
    assert.equal(result.removed.notes, result.before.notes, "removed again: the names, and the key, are as before");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${backend}: an edit in tab A of a memory tab B does not hold is seen by B's next scan without a full listing; one channel a memory`, async () => {
    const [a, b] = [await tab(), await tab()];
    const name = `twotabs-${backend}-${Date.now()}`;
    await inPage(a, ({ seedMemories }, { backend, name }) => seedMemories(backend, name, 6, { folders: ["team", "team/x", "misc"] }), { backend, name });
    // a folder memdir has written before: its history folder (.memdir) exists, so a later write
    // adds no folder to the root (the first write's new folder changes the root's key: one listing)
    await inPage(
      a,
      async ({ memdir, backends }, { backend, name }) => {
        const memory = await memdir.openMemory({ host: await backends[backend].open(name), selector: { provider: "lexical" } });
        await memory.tool().create({ command: "create", path: "/memories/misc/notes.txt", file_text: "not a memory\n" });
      },
      { backend, name },
    );
    const first = await inPage(
      b,
      async ({ memdir, countedHost }, { backend, name }) => {
        const channels = [];
        const Channel = globalThis.BroadcastChannel;
        globalThis.BroadcastChannel = class extends Channel {
          constructor(n) {
            super(n);
            channels.push(n);
          }
        };
        // no FileSystemObserver in tab B: what it hears of tab A comes by the channel
        const { host, counts } = await countedHost(backend, name, { observer: false });
        globalThis.tabB = { counts, channels, memory: await memdir.openMemory({ host, selector: { provider: "lexical" }, limits: { maxFiles: 2 }, cache: { fullCheckMs: 60_000 } }) };
        await new Promise((r) => setTimeout(r, 150)); // past the racy window of the heads read
        const scans = [await globalThis.tabB.memory.scan(), await globalThis.tabB.memory.scan()];
        return { paths: scans.map((s) => s.memories.map((m) => m.path)), counts: { ...counts } };
      },
      { backend, name },
    );
    assert.deepEqual(first.paths[0], ["a5.md", "a4.md"]);
    assert.deepEqual(first.paths[1], first.paths[0]);
    assert.equal(first.counts.lists, 1, "the second turn checked, it did not list");
    assert.ok(first.counts.statMany >= 1);
    await inPage(
      a,
      async ({ memdir, backends }, { backend, name }) => {
        const memory = await memdir.openMemory({ host: await backends[backend].open(name), selector: { provider: "lexical" } });
        await memory.tool().str_replace({ command: "str_replace", path: "/memories/a0.md", old_str: "memory number 0", new_str: "edited in tab A" });
      },
      { backend, name },
    );
    const seen = await inPage(b, async ({ scanUntil }) => {
      const { memory, counts, channels } = globalThis.tabB;
      const scan = await scanUntil(memory, (s) => s.memories[0]?.path === "a0.md");
      return { top: scan.memories[0], counts: { ...counts }, channels };
    });
    assert.equal(seen.top.path, "a0.md");
    assert.equal(seen.top.description, "edited in tab A");
    assert.equal(seen.counts.lists, 1, "heard from tab A: no full listing");
    assert.deepEqual(seen.channels, [`memdir:${backend === "OpfsHost" ? "opfs" : "indexeddb"}:${name}`], "one channel for the memory and its four folders");
    await inPage(
      a,
      async ({ memdir, backends }, { backend, name }) => {
        const memory = await memdir.openMemory({ host: await backends[backend].open(name), selector: { provider: "lexical" } });
        await memory.remember({ type: "project", name: "From A", description: "remembered in tab A", body: "b" });
      },
      { backend, name },
    );
    const added = await inPage(b, async ({ scanUntil }) => (await scanUntil(globalThis.tabB.memory, (s) => s.memories.some((m) => m.path === "project_from_a.md"))).memories.map((m) => m.path));
    assert.ok(added.includes("project_from_a.md"), "a memory tab A created is seen");
    await inPage(b, () => globalThis.tabB.memory.close());
    assert.deepEqual(errors, []);
    await a.close();
    await b.close();
  });

  test(`${backend}: a change behind memdir's back that no event reports: a new file at the next scan (its folder's key), an edit in place by the background listing`, async () => {
    const page = await tab();
    const result = await inPage(
      page,
      async ({ memdir, countedHost, seedMemories, writeBehind, memoryText, scanUntil, freshName }, backend) => {
        const name = freshName("behind");
        await seedMemories(backend, name, 6, { folders: ["team"] });
        const { host, counts } = await countedHost(backend, name, { observer: false });
        const memory = await memdir.openMemory({ host, selector: { provider: "lexical" }, limits: { maxFiles: 2 }, cache: { fullCheckMs: 60_000 } });
        await new Promise((r) => setTimeout(r, 150));
        await memory.scan();
        await memory.scan();
        const quiet = { ...counts };
        // a new file in a folder: its key changes, the next scan lists
        await writeBehind(backend, name, "team/new.md", memoryText("New", "added behind the back"));
        const next = (await memory.scan()).memories.map((m) => m.path);
        const listed = counts.lists;
        memory.close();
        // an edit in place of a file not held: nothing changes a key it checks; the background listing finds it
        const every = await memdir.openMemory({ host, selector: { provider: "lexical" }, limits: { maxFiles: 2 }, cache: { fullCheckMs: 300 } });
        await every.scan();
        const begun = Date.now();
        await writeBehind(backend, name, "a1.md", memoryText("A1", "edited behind the back"));
        const scan = await scanUntil(every, (s) => s.memories.some((m) => m.description === "edited behind the back"), 5_000);
        every.close();
        return { quiet, next, listed, found: scan.memories.find((m) => m.path === "a1.md")?.description ?? null, ms: Date.now() - begun };
      },
      backend,
    );
    assert.equal(result.quiet.lists, 1, "watched: the second turn did not list");
    assert.ok(result.next.includes("team/new.md"), `the new file is seen at once: ${result.next}`);
    assert.equal(result.listed, 2, "by a listing its folder's key asked for");
    assert.equal(result.found, "edited behind the back", "the edit in place is seen after the background listing");
    assert.ok(result.ms < 5_000, `${result.ms} ms`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test("OpfsHost: an edit behind memdir's back through the OPFS API is heard by the FileSystemObserver, without a full listing", async (t) => {
  const page = await tab();
  const result = await inPage(page, async ({ memdir, countedHost, seedMemories, writeBehind, memoryText, scanUntil, freshName }) => {
    if (typeof FileSystemObserver !== "function") return { skipped: "no FileSystemObserver here" };
    const name = freshName("observed");
    await seedMemories("OpfsHost", name, 6, { folders: ["team"] });
    const { host, counts } = await countedHost("OpfsHost", name);
    const memory = await memdir.openMemory({ host, selector: { provider: "lexical" }, limits: { maxFiles: 2 }, cache: { fullCheckMs: 60_000 } });
    await new Promise((r) => setTimeout(r, 150));
    await memory.scan();
    await new Promise((r) => setTimeout(r, 100)); // the observer starts
    await writeBehind("OpfsHost", name, "a1.md", memoryText("A1", "edited behind the back"));
    await writeBehind("OpfsHost", name, "team/keep.md", memoryText("Keep", "team edited behind the back"));
    const scan = await scanUntil(memory, (s) => s.memories.filter((m) => /behind the back/.test(m.description)).length === 2);
    memory.close();
    return { found: scan.memories.filter((m) => /behind the back/.test(m.description)).map((m) => m.path).sort(), counts: { ...counts } };
  });
  if (result.skipped) return t.skip(result.skipped);
  assert.deepEqual(result.found, ["a1.md", "team/keep.md"]);
  assert.equal(result.counts.lists, 1, "heard, not listed");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a browser memory of 2,000 files scans (the cache lets events through without Node's setImmediate)", async () => {
  const page = await tab();
  const result = await inPage(page, async ({ memdir, rawPut, memoryText, freshName }) => {
    const name = freshName("large");
    const now = Date.now();
    await rawPut(name, Array.from({ length: 2_000 }, (_, i) => [`m${i}.md`, memoryText(`M${i}`, `memory ${i}`), now - i * 1000]));
    const memory = await memdir.openMemory({ host: await memdir.IndexedDbHost.open(name), selector: { provider: "lexical" } });
    try {
      const first = await memory.scan();
      const second = await memory.scan();
      return { memories: first.memories.length, newest: first.memories[0].path, same: second.memories.length };
    } catch (e) {
      return { error: `${e.name}: ${e.message}` };
    } finally {
      memory.close();
    }
  });
  assert.deepEqual(result, { memories: 200, newest: "m0.md", same: 200 });
  await page.close();
});
