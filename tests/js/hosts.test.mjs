// One conformance suite for every MemoryHost (tests/js/host-conformance.mjs, shared with the
// browser run in tests/browser/hosts.test.mjs): the same cases run against InMemoryHost,
// VsCodeHost over the fake `workspace.fs` (with VS Code's mkdirp semantics, and as a bare
// FileSystemProvider without them) and NodeHost on a real temporary directory. Then the
// VS Code specifics: symbolic links, the temporary-file protocol, error mapping, the fake itself.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { InMemoryHost } from "../../pkg/hosts/ram.js";
import { VsCodeHost } from "../../pkg/hosts/vscode.js";
import { createFakeVsCode, FileSystemError, FileType, Uri } from "./vscode-fake.mjs";
import { openMemory } from "memdir";
import { headOf, hostCases } from "./host-conformance.mjs";

// NodeHost is loaded dynamically: while pkg/hosts/node.js does not exist its cases are skipped
// (and say so); once it exists, a module that fails to load or lacks NodeHost fails this file.
const nodeHostUrl = new URL("../../pkg/hosts/node.js", import.meta.url);
const NodeHost = existsSync(fileURLToPath(nodeHostUrl)) ? (await import(nodeHostUrl.href)).NodeHost : null;
if (NodeHost !== null) assert.equal(typeof NodeHost, "function", "pkg/hosts/node.js must export the class NodeHost");

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (content) => (typeof content === "string" ? encoder.encode(content) : content);
const text = (data) => decoder.decode(data);
const byPath = (entries) => [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
const paths = (entries) => byPath(entries).map((e) => e.path);
const NOW = 1772714096789;
const ticking = () => {
  let t = NOW;
  return () => (t += 1000);
};

const VS_ROOT = "/work/mem";

/** Seeds the fake without the host: every folder level, then the file (works in raw mode too). */
async function seed(vs, path, content) {
  const parts = path.split("/").filter(Boolean);
  for (let i = 1; i < (content === undefined ? parts.length + 1 : parts.length); i++) {
    await vs.fs.createDirectory(Uri.file(`/${parts.slice(0, i).join("/")}`)).catch((error) => {
      if (error.code !== "FileExists") throw error;
    });
  }
  if (content !== undefined) await vs.fs.writeFile(Uri.file(path), bytes(content));
}

const vscodeBackend = (raw) => async (files, { missing }) => {
  const vs = createFakeVsCode({ now: ticking(), raw });
  await seed(vs, "/work"); // the root's parent always exists, so a bare provider can create the root
  if (!missing) await seed(vs, VS_ROOT);
  for (const [path, content] of Object.entries(files)) await seed(vs, `${VS_ROOT}/${path}`, content);
  const host = new VsCodeHost({ fs: vs.fs, joinPath: Uri.joinPath }, Uri.file(VS_ROOT));
  return { host, root: `file://${VS_ROOT}`, absolute: (path) => `file://${VS_ROOT}/${path}` };
};

const tempDirs = [];
after(async () => {
  await Promise.all(tempDirs.map((dir) => fsp.rm(dir, { recursive: true, force: true })));
});

/** Each backend's `make(files, { missing })` gives `{ host, root, absolute(path) }` over exactly `files`. */
const backends = [
  {
    name: "InMemoryHost",
    async make(files, { missing }) {
      void missing; // no files is the same as no directory
      const host = new InMemoryHost(Object.fromEntries(Object.entries(files).map(([p, c]) => [p, bytes(c)])), { root: "memory:/", now: ticking() });
      return { host, root: "memory:/", absolute: (path) => `memory:/${path}` };
    },
  },
  {
    // a host as its author writes it: the eight required members of MemoryHost and nothing else
    // (no links, locks, watch or fast paths), as a plain object over a Map
    name: "a host of the required members alone",
    async make(files, { missing }) {
      void missing;
      const ram = new InMemoryHost(Object.fromEntries(Object.entries(files).map(([p, c]) => [p, bytes(c)])), { root: "plain:/", now: ticking() });
      const host = {
        root: "plain:/",
        absolutePath: (path) => `plain:/${path}`,
        list: () => ram.list(),
        stat: (path) => ram.stat(path),
        readFile: (path, maxBytes) => ram.readFile(path, maxBytes),
        writeFile: (path, data, options) => ram.writeFile(path, data, options),
        remove: (path) => ram.remove(path),
        rename: (from, to) => ram.rename(from, to),
      };
      return { host, root: "plain:/", absolute: (path) => `plain:/${path}` };
    },
  },
  { name: "VsCodeHost over workspace.fs", make: vscodeBackend(false) },
  { name: "VsCodeHost over a bare FileSystemProvider", make: vscodeBackend(true) },
  {
    name: "NodeHost",
    skip: NodeHost === null && "pkg/hosts/node.js does not exist (js/hosts/node.ts not written or not built)",
    async make(files, { missing }) {
      const base = await fsp.mkdtemp(join(tmpdir(), "memdir-hosts-"));
      tempDirs.push(base);
      const dir = missing ? join(base, "missing") : base;
      for (const [path, content] of Object.entries(files)) {
        await fsp.mkdir(dirname(join(dir, path)), { recursive: true });
        await fsp.writeFile(join(dir, path), bytes(content));
      }
      return { host: new NodeHost(dir), root: dir, absolute: (path) => `${dir}/${path}` };
    },
  },
];

// The shared conformance cases (tests/js/host-conformance.mjs; the browser hosts run them in Chromium).
const cases = hostCases({ assert, openMemory });
for (const backend of backends) {
  describe(backend.name, { skip: backend.skip }, () => {
    const make = (files = {}, options = {}) => backend.make(files, { missing: false, ...options });
    for (const { name, run } of cases) test(name, () => run(make));
  });
}

// ---- VsCodeHost specifics --------------------------------------------------------------------

const vsRoot = Uri.file(VS_ROOT);
const at = (path) => Uri.file(`${VS_ROOT}/${path}`);
const TMP = /^\.(.+)\.tmp-[0-9a-f]{12}$/;

async function vscodeHost(files = {}, options = {}) {
  const vs = createFakeVsCode({ now: ticking(), ...options });
  await seed(vs, VS_ROOT);
  for (const [path, content] of Object.entries(files)) await seed(vs, `${VS_ROOT}/${path}`, content);
  vs.calls.length = 0;
  return { vs, host: new VsCodeHost({ fs: vs.fs, joinPath: Uri.joinPath }, vsRoot) };
}

describe("VsCodeHost", () => {
  test("list reports every symbolic link as symlink_escape and never follows one", async () => {
    const { vs, host } = await vscodeHost({ "a.md": "a", "notes/n.md": "n" });
    await seed(vs, "/work/outside/secret.md", "secret");
    await seed(vs, "/work/outside/dir/x.md", "x");
    vs.symlink(at("linked"), "/work/outside/dir");
    vs.symlink(at("inner"), `${VS_ROOT}/notes`); // inside, but workspace.fs cannot tell
    vs.symlink(at("secret.md"), "/work/outside/secret.md");
    vs.symlink(at("dangling.md"), "/work/nowhere.md");
    vs.special(at("fifo.md"));
    vs.calls.length = 0;
    const entries = byPath(await host.list());
    assert.deepEqual(
      entries.map((e) => [e.path, e.kind, e.problem]),
      [
        ["a.md", "file", undefined],
        ["dangling.md", "other", "symlink_escape"],
        ["fifo.md", "other", "not_a_file"],
        ["inner", "other", "symlink_escape"],
        ["linked", "other", "symlink_escape"],
        ["notes", "directory", undefined],
        ["notes/n.md", "file", undefined],
        ["secret.md", "other", "symlink_escape"],
      ],
    );
    const listed = vs.calls.filter((c) => c.op === "readDirectory").map((c) => c.uri);
    assert.deepEqual(listed.sort(), [vsRoot.toString(), at("notes").toString()]);
    assert.equal((await host.stat("linked")).problem, "symlink_escape");
    assert.equal((await host.stat("secret.md")).problem, "symlink_escape");
    await assert.rejects(host.readFile("fifo.md"), { code: "EINVAL" });
    assert.equal(vs.calls.filter((c) => c.op === "readFile").length, 0, "a FIFO is never opened");
  });

  test("list takes mtimes from stat, and sizes", async () => {
    const vs = createFakeVsCode({ now: () => 1234567890123 });
    await seed(vs, `${VS_ROOT}/a.md`, "abc");
    const host = new VsCodeHost({ fs: vs.fs, joinPath: Uri.joinPath }, vsRoot);
    assert.deepEqual(await host.list(), [{ path: "a.md", kind: "file", mtimeMs: 1234567890123, size: 3 }]);
  });

  test("writeFile goes through .<name>.tmp-<random> and rename", async () => {
    const { vs, host } = await vscodeHost();
    await host.writeFile("notes/a.md", bytes("a"));
    const ops = vs.calls.filter((c) => c.op !== "stat");
    assert.deepEqual(ops.map((c) => c.op), ["createDirectory", "writeFile", "rename"]);
    assert.equal(ops[0].uri, at("notes").toString());
    const tmp = ops[1].uri;
    assert.equal(dirname(tmp), at("notes").toString());
    assert.match(tmp.split("/").pop(), TMP);
    assert.equal(tmp.split("/").pop().match(TMP)[1], "a.md");
    assert.deepEqual(ops[2], { op: "rename", uri: tmp, target: at("notes/a.md").toString(), options: { overwrite: true } });
    vs.calls.length = 0;
    await host.writeFile("notes/b.md", bytes("b"), { exclusive: true });
    const rename = vs.calls.find((c) => c.op === "rename");
    assert.deepEqual(rename.options, { overwrite: false });
    assert.equal(rename.target, at("notes/b.md").toString());
    vs.calls.length = 0;
    await host.writeFile("notes/a.md", bytes("again"));
    assert.equal(vs.calls.some((c) => c.op === "createDirectory"), false, "overwriting: the folder is known to exist");
  });

  test("exclusive writeFile refuses a file that appears after the check", async () => {
    const { vs, host } = await vscodeHost();
    const fs = {
      ...vs.fs,
      async writeFile(uri, content) {
        await vs.fs.writeFile(at("race.md"), bytes("theirs")); // someone else wins the race
        return vs.fs.writeFile(uri, content);
      },
    };
    const racy = new VsCodeHost({ fs, joinPath: Uri.joinPath }, vsRoot);
    await assert.rejects(racy.writeFile("race.md", bytes("mine"), { exclusive: true }), { code: "EEXIST" });
    assert.equal(text(await host.readFile("race.md")), "theirs");
    assert.deepEqual(paths(await host.list()), ["race.md"]);
  });

  test("a failed write removes its temporary file and maps the error", async () => {
    const { vs } = await vscodeHost({ "a.md": "old" });
    const fs = {
      ...vs.fs,
      rename: async () => {
        throw FileSystemError.NoPermissions(at("a.md"));
      },
    };
    const host = new VsCodeHost({ fs, joinPath: Uri.joinPath }, vsRoot);
    const error = await host.writeFile("a.md", bytes("new")).then(
      () => assert.fail("writeFile should fail"),
      (e) => e,
    );
    assert.equal(error.code, "EACCES");
    assert.ok(error.cause instanceof FileSystemError);
    assert.match(error.message, /^a\.md: /);
    const removed = vs.calls.filter((c) => c.op === "delete");
    assert.equal(removed.length, 1);
    assert.match(removed[0].uri.split("/").pop(), TMP);
    assert.deepEqual(paths(await host.list()), ["a.md"]);
    assert.equal(text(await host.readFile("a.md")), "old");
  });

  test("FileSystemError codes become POSIX codes; other errors pass through", async () => {
    const { vs } = await vscodeHost({ "a.md": "a" });
    const failing = (error) => new VsCodeHost({ fs: { ...vs.fs, stat: async () => Promise.reject(error) }, joinPath: Uri.joinPath }, vsRoot);
    const cases = [
      [FileSystemError.NoPermissions(at("a.md")), "EACCES"],
      [FileSystemError.Unavailable(at("a.md")), "EAGAIN"],
      [FileSystemError.FileIsADirectory(at("a.md")), "EISDIR"],
      [FileSystemError.FileExists(at("a.md")), "EEXIST"],
      [new FileSystemError("disk on fire"), "EIO"],
    ];
    for (const [error, code] of cases) {
      await assert.rejects(failing(error).stat("a.md"), (e) => e.code === code && e.cause === error, code);
    }
    const bug = new TypeError("not a file-system error");
    await assert.rejects(failing(bug).stat("a.md"), (e) => e === bug);
    const posix = Object.assign(new Error("from a Node-backed fs"), { code: "ENOSPC" });
    await assert.rejects(failing(posix).stat("a.md"), (e) => e === posix);
    const { host } = await vscodeHost({ "a.md": "a" });
    await assert.rejects(host.readFile("a.md/b.md"), { code: "ENOTDIR" });
  });

  test("list: an unreadable subfolder is flagged, an unreadable root throws", async () => {
    const { vs } = await vscodeHost({ "locked/a.md": "a", "b.md": "b" });
    const deny = (path) => ({
      ...vs.fs,
      readDirectory: async (uri) => (uri.path === path ? Promise.reject(FileSystemError.NoPermissions(uri)) : vs.fs.readDirectory(uri)),
    });
    const host = new VsCodeHost({ fs: deny(`${VS_ROOT}/locked`), joinPath: Uri.joinPath }, vsRoot);
    assert.deepEqual(
      byPath(await host.list()).map((e) => [e.path, e.problem]),
      [
        ["b.md", undefined],
        ["locked", "unreadable"],
      ],
    );
    const rootless = new VsCodeHost({ fs: deny(VS_ROOT), joinPath: Uri.joinPath }, vsRoot);
    await assert.rejects(rootless.list(), { code: "EACCES" });
  });

  test("a head (readFile to 1 MiB, cut) keeps the Nth newline and caps a huge line at 1 MiB", async () => {
    const { host } = await vscodeHost({ "a.md": "a\nb\nc\n", "long.md": `${"y".repeat(3 << 20)}\nz\n` });
    assert.equal(text(await headOf(host, "a.md", 2)), "a\nb\n");
    assert.equal(text(await headOf(host, "a.md", 3)), "a\nb\nc\n");
    assert.equal((await headOf(host, "a.md", 0)).length, 0);
    assert.equal((await headOf(host, "long.md", 30)).length, 1 << 20);
  });
});

describe("the fake workspace.fs", () => {
  test("errors are shaped like VS Code's FileSystemError", async () => {
    const { fs } = createFakeVsCode();
    const error = await fs.stat(Uri.file("/nope.md")).then(assert.fail, (e) => e);
    assert.ok(error instanceof FileSystemError);
    assert.equal(error.code, "FileNotFound");
    assert.equal(error.name, "EntryNotFound (FileSystemError)");
    assert.equal(String(error), "EntryNotFound (FileSystemError): file:///nope.md");
    await assert.rejects(fs.stat(new Uri("vscode-remote", "host", "/x")), { code: "Unavailable" });
  });

  test("workspace.fs creates parents; a bare provider does not", async () => {
    const vs = createFakeVsCode();
    await vs.fs.writeFile(Uri.file("/a/b/c.md"), bytes("c"));
    assert.equal((await vs.fs.stat(Uri.file("/a/b"))).type, FileType.Directory);
    await vs.fs.createDirectory(Uri.file("/a/b")); // an existing folder is fine
    await vs.fs.rename(Uri.file("/a/b/c.md"), Uri.file("/x/y/c.md"));
    assert.equal(text(await vs.fs.readFile(Uri.file("/x/y/c.md"))), "c");
    const bare = createFakeVsCode({ raw: true });
    await assert.rejects(bare.fs.writeFile(Uri.file("/a/c.md"), bytes("c")), { code: "FileNotFound" });
    await assert.rejects(bare.fs.createDirectory(Uri.file("/a/b")), { code: "FileNotFound" });
    await bare.fs.createDirectory(Uri.file("/a"));
    await assert.rejects(bare.fs.createDirectory(Uri.file("/a")), { code: "FileExists" });
  });

  test("delete, rename and readDirectory follow VS Code's rules", async () => {
    const vs = createFakeVsCode();
    const { fs } = vs;
    await fs.writeFile(Uri.file("/d/a.md"), bytes("a"));
    await fs.writeFile(Uri.file("/d/b.md"), bytes("b"));
    await assert.rejects(fs.delete(Uri.file("/d")), (e) => e.code === "Unknown" && /non-empty/.test(e.message));
    await assert.rejects(fs.rename(Uri.file("/d/a.md"), Uri.file("/d/b.md")), { code: "FileExists" });
    await fs.rename(Uri.file("/d/a.md"), Uri.file("/d/b.md"), { overwrite: true });
    assert.equal(text(await fs.readFile(Uri.file("/d/b.md"))), "a");
    await assert.rejects(fs.rename(Uri.file("/d"), Uri.file("/d/sub")), { code: "Unknown" });
    vs.symlink(Uri.file("/d/link"), "/d");
    vs.symlink(Uri.file("/d/file-link"), "/d/b.md");
    assert.deepEqual(await fs.readDirectory(Uri.file("/d")), [
      ["b.md", FileType.File],
      ["link", FileType.Directory | FileType.SymbolicLink],
      ["file-link", FileType.File | FileType.SymbolicLink],
    ]);
    await fs.delete(Uri.file("/d/link"));
    assert.equal((await fs.stat(Uri.file("/d"))).type, FileType.Directory, "deleting a link keeps its target");
    await assert.rejects(fs.readFile(Uri.file("/d")), { code: "FileIsADirectory" });
    await assert.rejects(fs.readDirectory(Uri.file("/d/b.md")), { code: "FileNotADirectory" });
    await fs.delete(Uri.file("/d"), { recursive: true });
    await assert.rejects(fs.stat(Uri.file("/d/b.md")), { code: "FileNotFound" });
    assert.equal(Uri.joinPath(Uri.file("/m"), "a b", "../c.md").toString(), "file:///m/c.md");
    assert.equal(Uri.joinPath(Uri.file("/m"), "a b.md").toString(), "file:///m/a%20b.md");
  });
});

test("VsCodeHost: the next write clears an old temporary file of an interrupted write, and keeps a young one", async () => {
  let clock = Date.now() - 60_000;
  const { vs, host } = await vscodeHost({}, { now: () => clock });
  await vs.fs.writeFile(at(".old.md.tmp-0123456789ab"), bytes("half a memory, a minute old"));
  clock = Date.now();
  await vs.fs.writeFile(at(".young.md.tmp-0123456789ab"), bytes("half a memory, being written"));
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  await memory.remember({ type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "x" });
  assert.deepEqual(paths(await host.list()), [".memdir", ".memdir/history", ".memdir/history/journal.jsonl", ".young.md.tmp-0123456789ab", "MEMORY.md", "user_role.md"]);
});

test("VsCodeHost: writes refuse a path through a link, which workspace.fs cannot resolve", async () => {
  const { vs, host } = await vscodeHost({ "a.md": "a" });
  await seed(vs, "/work/outside/dir/x.md", "x");
  vs.symlink(at("linked"), "/work/outside/dir");
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  const result = await memory.tool().execute({ command: "create", path: "/memories/linked/owned.md", file_text: "owned" });
  assert.deepEqual(result, { content: "Path /memories/linked/owned.md would escape /memories directory via symlink", isError: true });
  await assert.rejects(memory.remember({ type: "user", name: "Owned", description: "Written through a folder link", body: "x", file: "linked/owned.md" }), { code: "UNSAFE_PATH" });
  assert.equal(await vs.fs.stat(Uri.file("/work/outside/dir/owned.md")).then(() => "written", () => "absent"), "absent");
});
