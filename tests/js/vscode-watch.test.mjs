// VsCodeHost with `watchTree` (VS Code's `workspace.createFileSystemWatcher`): one watcher for the
// whole memory folder, fanned out to the folders an opened memory watches, and `statMany`; with
// them the scan cache stops listing the folder every turn, and still sees every change.
import assert from "node:assert/strict";
import { test } from "node:test";
import { VsCodeHost } from "../../pkg/hosts/vscode.js";
import { openMemory } from "memdir";
import { createFakeVsCode, Uri } from "./vscode-fake.mjs";

const ROOT = "/work/mem";
const bytes = (s) => new TextEncoder().encode(s);
const fm = (name, description) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\nbody\n`;

/** A stand-in for `vscode.FileSystemWatcher`: the test fires its events. */
function fakeWatchers() {
  const made = [];
  const watchTree = (base) => {
    const listeners = { create: [], change: [], delete: [] };
    const w = {
      base,
      disposed: false,
      onDidCreate: (f) => listeners.create.push(f),
      onDidChange: (f) => listeners.change.push(f),
      onDidDelete: (f) => listeners.delete.push(f),
      dispose: () => void (w.disposed = true),
      fire: (kind, path) => listeners[kind].forEach((f) => f(Uri.file(path))),
    };
    made.push(w);
    return w;
  };
  return { made, watchTree };
}

async function folder(files) {
  let t = 1772714096789;
  const vs = createFakeVsCode({ now: () => (t += 1000) });
  for (const dir of ["/work", ROOT, `${ROOT}/team`]) await vs.fs.createDirectory(Uri.file(dir));
  for (const [path, text] of Object.entries(files)) await vs.fs.writeFile(Uri.file(`${ROOT}/${path}`), bytes(text));
  return vs;
}

function counted(host) {
  const counts = { lists: 0 };
  const list = host.list.bind(host);
  host.list = async () => (counts.lists++, list());
  return counts;
}

test("watch: one watcher for the folder, each change told to the folders that hold it, disposed with the last watch", async () => {
  const vs = await folder({ "a.md": fm("A", "first memory here"), "team/b.md": fm("B", "second memory here") });
  const { made, watchTree } = fakeWatchers();
  const host = new VsCodeHost({ fs: vs.fs, joinPath: Uri.joinPath, watchTree }, Uri.file(ROOT));
  const heard = { root: [], team: [] };
  const root = host.watch("", (name) => heard.root.push(name));
  const team = host.watch("team", (name) => heard.team.push(name));
  assert.equal(made.length, 1, "one watcher for every folder");
  assert.equal(made[0].base.path, ROOT);
  made[0].fire("change", `${ROOT}/team/b.md`);
  made[0].fire("create", `${ROOT}/c.md`);
  made[0].fire("delete", `${ROOT}/team`);
  made[0].fire("change", "/elsewhere/x.md"); // not under the memory: nobody hears it
  assert.deepEqual(heard, { root: ["team", "c.md", "team"], team: ["b.md"] });
  root.close();
  assert.equal(made[0].disposed, false);
  team.close();
  team.close(); // twice is harmless
  assert.equal(made[0].disposed, true);
  // without watchTree there is no watcher
  assert.equal(new VsCodeHost({ fs: vs.fs, joinPath: Uri.joinPath }, Uri.file(ROOT)).watch("", () => {}), null);
});

test("statMany: entries in order, null for what is not there", async () => {
  const vs = await folder({ "a.md": fm("A", "first memory here") });
  const host = new VsCodeHost({ fs: vs.fs, joinPath: Uri.joinPath }, Uri.file(ROOT));
  const got = await host.statMany(["a.md", "team", "gone.md", "a.md/under"]);
  assert.equal(got[0].kind, "file");
  assert.equal(got[0].size, fm("A", "first memory here").length);
  assert.equal(got[1].kind, "directory");
  assert.equal(got[2], null);
  assert.ok(got[3] === null || got[3] instanceof Error);
});

for (const watched of [true, false]) {
  test(`an opened memory over workspace.fs ${watched ? "with a watcher lists once, then checks" : "without a watcher lists every turn"}, and sees every change`, async () => {
    const vs = await folder({ "a.md": fm("A", "first memory here"), "team/b.md": fm("B", "second memory here") });
    const { made, watchTree } = fakeWatchers();
    const host = new VsCodeHost({ fs: vs.fs, joinPath: Uri.joinPath, ...(watched ? { watchTree } : {}) }, Uri.file(ROOT));
    const counts = counted(host);
    const memory = await openMemory({ host });
    try {
      const paths = async () => (await memory.scan()).memories.map((m) => m.path).sort();
      assert.deepEqual(await paths(), ["a.md", "team/b.md"]);
      await paths();
      await paths();
      assert.equal(counts.lists, watched ? 1 : 3);
      // a file added behind memdir's back: its folder's mtime changed, and the watcher says so
      await vs.fs.writeFile(Uri.file(`${ROOT}/team/c.md`), bytes(fm("C", "third memory here")));
      if (watched) made[0].fire("create", `${ROOT}/team/c.md`);
      assert.deepEqual(await paths(), ["a.md", "team/b.md", "team/c.md"]);
      // an edit of a memory: seen with or without an event
      await vs.fs.writeFile(Uri.file(`${ROOT}/a.md`), bytes(fm("A", "first memory, edited")));
      assert.equal((await memory.scan()).memories.find((m) => m.path === "a.md").description, "first memory, edited");
    } finally {
      memory.close();
    }
    if (watched) assert.equal(made[0].disposed, true, "closing the memory disposes the watcher");
  });
}
