// The host conformance suite: the cases every MemoryHost passes, over whatever storage. Shared,
// like tests/fixtures/check.mjs: Node runs them against InMemoryHost, VsCodeHost and NodeHost
// (tests/js/hosts.test.mjs, with node:assert), and a headless Chromium page against OpfsHost and
// IndexedDbHost (tests/browser/hosts.test.mjs, with tests/js/mini-assert.mjs). No Node APIs here.
//
// `hostCases({ assert, openMemory })` gives `[{ name, run(make) }]`; `make(files, { missing })`
// gives `{ host, root, absolute(path) }` over exactly `files` (path → string or Uint8Array),
// seeded without the host; `missing: true` leaves the memory directory itself out.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const bytes = (content) => (typeof content === "string" ? encoder.encode(content) : content);
export const text = (data) => decoder.decode(data);
const byPath = (entries) => [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
const paths = (entries) => byPath(entries).map((e) => e.path);
const kinds = (entries) => byPath(entries).map((e) => [e.path, e.kind]);

/**
 * A file's head as memdir reads it (js/host.ts `readHead`): `fast.readHeads` where the host has
 * it, else `readFile(path, 1 MiB)` cut after the `maxLines`-th newline. Errors thrown.
 */
export async function headOf(host, path, maxLines) {
  if (host.fast?.readHeads) {
    const [got] = await host.fast.readHeads([path], maxLines);
    if (got instanceof Error) throw got;
    return got.bytes;
  }
  const data = await host.readFile(path, 1 << 20);
  let seen = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 10 && ++seen === maxLines) return data.subarray(0, i + 1);
  return maxLines <= 0 ? data.subarray(0, 0) : data;
}

/** Every conformance case; `assert` is node:assert/strict or tests/js/mini-assert.mjs, `openMemory` memdir's. */
export function hostCases({ assert, openMemory }) {
  const case_ = (name, run) => ({ name, run });
  return [
    case_("list: files and nested folders, recursively", async (make) => {
      const { host } = await make({ "a.md": "alpha", "notes/b.md": "bravo!", "notes/deep/c.md": "c", "z.txt": "" });
      const entries = await host.list();
      assert.deepEqual(kinds(entries), [
        ["a.md", "file"],
        ["notes", "directory"],
        ["notes/b.md", "file"],
        ["notes/deep", "directory"],
        ["notes/deep/c.md", "file"],
        ["z.txt", "file"],
      ]);
      const sizes = Object.fromEntries(entries.filter((e) => e.kind === "file").map((e) => [e.path, e.size]));
      assert.deepEqual(sizes, { "a.md": 5, "notes/b.md": 6, "notes/deep/c.md": 1, "z.txt": 0 });
      for (const e of entries) {
        assert.equal(e.problem, undefined, e.path);
        assert.ok(Number.isFinite(e.mtimeMs), e.path);
        if (e.kind === "file") assert.ok(e.mtimeMs > 0, e.path);
      }
    }),
    case_("fast.listing (where a host has it): list's entries in columns, in the same order", async (make) => {
      const { host } = await make({ "a.md": "alpha", "notes/b.md": "bravo!", "notes/deep/c.md": "c", "z.txt": "" });
      if (typeof host.fast?.listing !== "function") return;
      const listing = await host.fast.listing();
      assert.deepEqual(listing.toEntries(), await host.list());
      assert.deepEqual(listing.paths, ["a.md", "notes", "notes/b.md", "notes/deep", "notes/deep/c.md", "z.txt"]);
      assert.deepEqual([...listing.sizesBytes].filter((_, i) => listing.kinds[i] === 0), [5, 6, 1, 0]);
    }),
    case_("list: an empty root gives []", async (make) => {
      const { host } = await make({});
      assert.deepEqual(await host.list(), []);
    }),
    case_("list: a missing root gives []", async (make) => {
      const { host } = await make({}, { missing: true });
      assert.deepEqual(await host.list(), []);
    }),
    case_("stat: a file, a folder, null when missing", async (make) => {
      const { host } = await make({ "notes/b.md": "bravo!" });
      const file = await host.stat("notes/b.md");
      assert.equal(file.path, "notes/b.md");
      assert.equal(file.kind, "file");
      assert.equal(file.size, 6);
      assert.equal(file.problem, undefined);
      assert.ok(file.mtimeMs > 0);
      assert.equal(file.mtimeMs, (await host.list()).find((e) => e.path === "notes/b.md").mtimeMs, "stat and list agree");
      const dir = await host.stat("notes");
      assert.equal(dir.path, "notes");
      assert.equal(dir.kind, "directory");
      assert.equal(await host.stat("nope.md"), null);
      assert.equal(await host.stat("nope/x.md"), null);
      assert.equal(await host.stat("notes/b.md/x.md"), null, "below a file");
    }),
    case_("fast.statMany (where a host has it): in order, what list gives, files and folders; null when missing", async (make) => {
      const { host } = await make({ "a.md": "alpha", "notes/b.md": "bravo!", "notes/deep/c.md": "c" });
      if (typeof host.fast?.statMany !== "function") return;
      const listed = byPath(await host.list());
      const asked = [...listed].reverse();
      const got = await host.fast.statMany([...asked.map((e) => e.path), "nope.md", "nope/x.md", "notes/nope"]);
      assert.equal(got.length, asked.length + 3);
      asked.forEach((e, i) => {
        const s = got[i];
        assert.equal(s?.path, e.path);
        assert.equal(s.kind, e.kind, e.path);
        assert.equal(s.mtimeMs, e.mtimeMs, e.path);
        assert.equal(s.ctimeMs, e.ctimeMs, e.path);
        assert.equal(s.ino, e.ino, `${e.path}: the same key`);
        if (e.kind === "file") assert.equal(s.size, e.size, e.path);
      });
      assert.deepEqual(got.slice(asked.length), [null, null, null]);
      const [root] = await host.fast.statMany([""]);
      assert.equal(root.kind, "directory", "the root is a folder");
    }),
    case_("a head (fast.readHeads, else readFile to 1 MiB): at least the first N lines", async (make) => {
      const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`);
      const { host } = await make({ "h.md": `${lines.join("\n")}\n`, "short.md": "one\ntwo" });
      assert.deepEqual(text(await headOf(host, "h.md", 3)).split("\n").slice(0, 3), lines.slice(0, 3));
      assert.equal(text(await headOf(host, "short.md", 30)), "one\ntwo", "fewer lines than asked: all of it");
    }),
    case_("a head of a file over 1 MiB: its first lines", async (make) => {
      const body = `---\ndescription: big\n---\n${`${"x".repeat(99)}\n`.repeat(10_500)}`;
      assert.ok(body.length > 1_000_000);
      const { host } = await make({ "big.md": body });
      const head = await headOf(host, "big.md", 30);
      assert.ok(head.length < body.length / 10, `${head.length} bytes of ${body.length}`);
      assert.deepEqual(text(head).split("\n").slice(0, 30), body.split("\n").slice(0, 30));
    }),
    case_("fast.readHeads (where a host has it): each head or its error in place, ENOENT when missing, EISDIR for a folder", async (make) => {
      const { host } = await make({ "a.md": "a1\na2\na3\n", "notes/b.md": "b" });
      if (typeof host.fast?.readHeads !== "function") return;
      const got = await host.fast.readHeads(["a.md", "nope.md", "notes", "notes/b.md"], 2);
      assert.equal(text(got[0].bytes).split("\n").slice(0, 2).join("\n"), "a1\na2");
      assert.equal(got[1].code, "ENOENT");
      assert.equal(got[2].code, "EISDIR");
      assert.equal(text(got[3].bytes), "b");
    }),
    case_("readFile: all bytes, or the first maxBytes", async (make) => {
      const data = Uint8Array.from([0, 1, 2, 0xff, 0xfe, 10, 13, 200]);
      const { host } = await make({ "bin.md": data, "notes/b.md": "b" });
      const all = await host.readFile("bin.md");
      assert.ok(all instanceof Uint8Array);
      assert.deepEqual([...all], [...data]);
      assert.deepEqual([...(await host.readFile("bin.md", 3))], [0, 1, 2]);
      assert.deepEqual([...(await host.readFile("bin.md", 0))], []);
      assert.deepEqual([...(await host.readFile("bin.md", 100))], [...data]);
      await assert.rejects(host.readFile("nope.md"), { code: "ENOENT" });
      await assert.rejects(host.readFile("notes"), { code: "EISDIR" });
    }),
    case_("writeFile: creates, then overwrites", async (make) => {
      const { host } = await make({ "keep.md": "keep" });
      const input = bytes("first version, the longer one");
      await host.writeFile("a.md", input);
      input.fill(0); // the host must not hold on to the caller's buffer
      assert.equal(text(await host.readFile("a.md")), "first version, the longer one");
      await host.writeFile("a.md", bytes("second"));
      assert.equal(text(await host.readFile("a.md")), "second");
      assert.equal((await host.stat("a.md")).size, 6);
      assert.equal(text(await host.readFile("keep.md")), "keep");
    }),
    case_("writeFile: exclusive fails with EEXIST and keeps the file", async (make) => {
      const { host } = await make({ "a.md": "old" });
      await assert.rejects(host.writeFile("a.md", bytes("new"), { exclusive: true }), { code: "EEXIST" });
      assert.equal(text(await host.readFile("a.md")), "old");
      await host.writeFile("b.md", bytes("fresh"), { exclusive: true });
      assert.equal(text(await host.readFile("b.md")), "fresh");
    }),
    case_("writeFile: creates parent folders, the root included", async (make) => {
      const { host } = await make({}, { missing: true });
      await host.writeFile("x/y/z.md", bytes("deep"));
      assert.equal(text(await host.readFile("x/y/z.md")), "deep");
      assert.deepEqual(kinds(await host.list()), [
        ["x", "directory"],
        ["x/y", "directory"],
        ["x/y/z.md", "file"],
      ]);
    }),
    case_("writeFile: EISDIR over a folder, which survives", async (make) => {
      const { host } = await make({ "notes/b.md": "b" });
      await assert.rejects(host.writeFile("notes", bytes("x")), { code: "EISDIR" });
      assert.equal((await host.stat("notes")).kind, "directory");
      assert.equal(text(await host.readFile("notes/b.md")), "b");
    }),
    case_("writeFile: atomic, no temporary file left behind", async (make) => {
      const { host } = await make({ "old.md": "o" });
      await host.writeFile("a.md", bytes("1"));
      await host.writeFile("a.md", bytes("2"));
      await host.writeFile("notes/n.md", bytes("n"), { exclusive: true });
      await assert.rejects(host.writeFile("old.md", bytes("x"), { exclusive: true }), { code: "EEXIST" });
      await assert.rejects(host.writeFile("notes", bytes("x")), { code: "EISDIR" });
      assert.deepEqual(paths(await host.list()), ["a.md", "notes", "notes/n.md", "old.md"]);
    }),
    case_("writeFile with mtimeMs (a copy keeps its files' ages): the time kept to the millisecond, or the host's own; the bytes written all the same", async (make) => {
      const { host } = await make({});
      const then = Date.UTC(2024, 1, 29, 12, 34, 56, 789) + 0.25;
      await host.writeFile("old.md", bytes("aged"), { mtimeMs: then });
      await host.writeFile("notes/old.md", bytes("aged too"), { mtimeMs: then, exclusive: true });
      assert.equal(text(await host.readFile("old.md")), "aged");
      assert.equal(text(await host.readFile("notes/old.md")), "aged too");
      const times = (await host.list()).filter((e) => e.kind === "file").map((e) => e.mtimeMs);
      // a host that sets times sets them all; one that cannot gives its own
      const kept = times.map((t) => Math.abs(t - then) < 1);
      assert.ok(kept.every((k) => k) || kept.every((k) => !k), `times ${times.join(", ")}`);
      assert.deepEqual(paths(await host.list()), ["notes", "notes/old.md", "old.md"]);
    }),
    case_("remove: a file, a folder with everything in it, ENOENT when missing", async (make) => {
      const { host } = await make({ "a.md": "a", "notes/b.md": "b", "notes/deep/c.md": "c", "other.md": "o" });
      await host.remove("a.md");
      assert.equal(await host.stat("a.md"), null);
      await host.remove("notes");
      assert.equal(await host.stat("notes"), null);
      assert.equal(await host.stat("notes/deep/c.md"), null);
      assert.deepEqual(paths(await host.list()), ["other.md"]);
      await assert.rejects(host.remove("a.md"), { code: "ENOENT" });
      await assert.rejects(host.remove("nope/x.md"), { code: "ENOENT" });
      assert.deepEqual(paths(await host.list()), ["other.md"]);
    }),
    case_("rename: a file and a folder", async (make) => {
      const { host } = await make({ "a.md": "alpha", "notes/b.md": "b", "notes/deep/c.md": "c" });
      await host.rename("a.md", "moved.md");
      assert.equal(await host.stat("a.md"), null);
      assert.equal(text(await host.readFile("moved.md")), "alpha");
      await host.rename("notes", "archive");
      assert.deepEqual(paths(await host.list()), ["archive", "archive/b.md", "archive/deep", "archive/deep/c.md", "moved.md"]);
      assert.equal(text(await host.readFile("archive/deep/c.md")), "c");
    }),
    case_("rename: EEXIST onto an existing file or folder, ENOENT from a missing source", async (make) => {
      const { host } = await make({ "a.md": "alpha", "taken.md": "taken", "notes/b.md": "b" });
      await assert.rejects(host.rename("a.md", "taken.md"), { code: "EEXIST" });
      await assert.rejects(host.rename("a.md", "notes"), { code: "EEXIST" });
      await assert.rejects(host.rename("notes", "taken.md"), { code: "EEXIST" });
      assert.equal(text(await host.readFile("a.md")), "alpha");
      assert.equal(text(await host.readFile("taken.md")), "taken");
      assert.equal(text(await host.readFile("notes/b.md")), "b");
      await assert.rejects(host.rename("nope.md", "x.md"), { code: "ENOENT" });
      assert.equal(await host.stat("x.md"), null);
      assert.deepEqual(paths(await host.list()), ["a.md", "notes", "notes/b.md", "taken.md"]);
    }),
    case_("root and absolutePath", async (make) => {
      const { host, root, absolute } = await make({});
      assert.equal(host.root, root);
      assert.equal(host.absolutePath("MEMORY.md"), absolute("MEMORY.md"));
      assert.equal(host.absolutePath("notes/a.md"), absolute("notes/a.md"));
    }),
    case_("remember, the memory tool and forget", async (make) => {
      const { host } = await make({ "MEMORY.md": "- [Old](old.md) — an old memory\n", "old.md": "---\nname: Old\ndescription: an old memory about billing\ntype: project\n---\n\nx\n" });
      const memory = await openMemory({ host, selector: { provider: "lexical" } });
      const done = await memory.remember({ type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "Explain UI in backend terms." });
      assert.equal(done.action, "created");
      const tool = memory.tool();
      assert.equal(await tool.create({ command: "create", path: "/memories/notes/n.md", file_text: "n\n" }), "File created successfully at: /memories/notes/n.md");
      assert.equal(await tool.str_replace({ command: "str_replace", path: "/memories/notes/n.md", old_str: "n", new_str: "m" }), "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tm\n     2\t");
      assert.match(await tool.delete({ command: "delete", path: "/memories/old.md" }), /Also removed 1 entry/);
      await memory.forget("user_role.md");
      assert.equal(text(await host.readFile("MEMORY.md")), "");
      assert.deepEqual(paths((await host.list()).filter((e) => e.kind === "file")), [".memdir/history/journal.jsonl", "MEMORY.md", "notes/n.md"], "no lock or temporary file left; the history kept");
      // every route recorded its change, on every host: remember, the tool's three, forget
      const history = await memory.history();
      assert.deepEqual(history.map((h) => h.route), ["forget", "tool", "tool", "tool", "remember"]);
      assert.ok(history.every((h) => h.status === "done"));
      // and takes the last one back: the memory and its index line return
      const undone = await memory.undo(history[0].id);
      assert.equal(undone.applied, true);
      assert.match(text(await host.readFile("MEMORY.md")), /user_role\.md/);
      assert.ok(await host.stat("user_role.md"));
    }),
    case_("the lock: a fresh one refuses, an old one and something that is not a lock are broken", async (make) => {
      const { host } = await make({});
      const open = async (timeoutMs) => openMemory({ host, selector: { provider: "lexical" }, lock: { timeoutMs } });
      const theirs = (at) => bytes(JSON.stringify({ pid: null, host: null, at, token: "theirs" }));
      const input = (n) => ({ type: "project", name: `Lock ${n}`, description: `Lock case ${n} about the ${["harbor", "quartz", "falcon"][n]} rules`, body: "x" });
      await host.writeFile(".memdir.lock", theirs(Date.now()));
      await assert.rejects((await open(200)).remember(input(0)), { code: "LOCKED" });
      assert.equal(JSON.parse(text(await host.readFile(".memdir.lock"))).token, "theirs", "a fresh lock is left alone");
      await host.remove(".memdir.lock");
      await host.writeFile(".memdir.lock", theirs(Date.now() - 60_000));
      assert.equal((await (await open(1000)).remember(input(1))).action, "created");
      // judged by its mtime: at once where the host's clock says it is old, else after the 2 s grace
      await host.writeFile(".memdir.lock", bytes("not a lock"));
      assert.equal((await (await open(4000)).remember(input(2))).action, "created");
      assert.deepEqual(paths(await host.list()), [".memdir", ".memdir/history", ".memdir/history/journal.jsonl", "MEMORY.md", "project_lock_1.md", "project_lock_2.md"], "no lock, breaker or temporary file left");
    }),
  ];
}
