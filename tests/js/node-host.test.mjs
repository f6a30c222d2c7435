// The Node host on real temporary directories: symlinks in and out, unreadable files,
// invalid UTF-8, a directory named *.md, a FIFO, vanished files, 5,000 files.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openMemory } from "memdir";
import { NodeHost } from "../../pkg/hosts/node.js";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-node-"));
  temps.push(d);
  return d;
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
const fm = (d) => `---\ndescription: ${d}\ntype: project\n---\nbody\n`;

test("symlinks inside are followed, symlinks out are reported, loops end", async () => {
  const root = temp();
  const outside = temp();
  const dir = join(root, "memory");
  mkdirSync(join(dir, "team"), { recursive: true });
  writeFileSync(join(dir, "a.md"), fm("real file"));
  writeFileSync(join(dir, "team", "b.md"), fm("in a folder"));
  writeFileSync(join(outside, "secret.md"), fm("outside the memory"));
  symlinkSync(join(dir, "a.md"), join(dir, "link-in.md"));
  symlinkSync(join(outside, "secret.md"), join(dir, "link-out.md"));
  symlinkSync(outside, join(dir, "outdir"));
  symlinkSync(dir, join(dir, "team", "loop"));
  symlinkSync(join(dir, "missing.md"), join(dir, "dangling.md"));
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const scan = await memory.scan();
  assert.deepEqual(scan.memories.map((m) => m.path).sort(), ["a.md", "link-in.md", "team/b.md"]);
  assert.deepEqual(scan.diagnostics.map((d) => [d.path, d.code]).sort(), [["dangling.md", "symlink_escape"], ["link-out.md", "symlink_escape"]]);
  const listed = (await new NodeHost(dir).list()).map((e) => e.path);
  assert.ok(!listed.some((p) => p.startsWith("outdir/")), "did not descend into a link out");
  assert.ok(!listed.some((p) => p.includes("loop/")), "did not follow the loop");
});

test("the listing in columns is the walker's listing: links in and out, a FIFO, a folder named *.md, nested folders", async () => {
  const root = temp();
  const outside = temp();
  const dir = join(root, "memory");
  mkdirSync(join(dir, "team", "deep"), { recursive: true });
  writeFileSync(join(dir, "a.md"), fm("real file"));
  writeFileSync(join(dir, "team", "b.md"), fm("in a folder"));
  writeFileSync(join(dir, "team", "deep", "c.md"), "x".repeat(5000));
  writeFileSync(join(outside, "secret.md"), fm("outside"));
  symlinkSync(join(dir, "a.md"), join(dir, "link-in.md"));
  symlinkSync(join(dir, "team"), join(dir, "team-link"));
  symlinkSync(join(outside, "secret.md"), join(dir, "link-out.md"));
  symlinkSync(join(dir, "missing.md"), join(dir, "dangling.md"));
  mkdirSync(join(dir, "folder.md"));
  execFileSync("mkfifo", [join(dir, "pipe.md")]);
  const host = new NodeHost(dir);
  const listing = await host.fast.listing();
  assert.ok(listing.mtimesMs instanceof Float64Array && listing.kinds instanceof Uint8Array, "columns");
  assert.equal(listing.length, listing.paths.length);
  assert.deepEqual(listing.toEntries(), await host.list(), "list() (through the promises) is the same listing as objects");
  // the host without its fast paths lists in objects: the same paths, kinds, sizes, times and problems
  const slow = await new NodeHost(dir, { rawFs: null }).list();
  const shape = (entries) => entries.map((e) => [e.path, e.kind, e.kind === "file" ? e.size : 0, Math.round(e.mtimeMs), e.problem ?? null]);
  assert.deepEqual(shape(listing.toEntries()), shape(slow));
  const problems = Object.fromEntries([...listing.problems].map(([i, p]) => [listing.paths[i], p]));
  assert.deepEqual(problems, { "dangling.md": "symlink_escape", "link-out.md": "symlink_escape", "pipe.md": "not_a_file" });
  const c = listing.paths.indexOf("team/deep/c.md");
  assert.equal(listing.sizesBytes[c], 5000);
  assert.equal(listing.inos[c], fs.statSync(join(dir, "team", "deep", "c.md")).ino);
});

test("listKinds() is list() without times and sizes, read with the names (no lstat an entry), and the same from a raw fs that gives names alone", async () => {
  const root = temp();
  const outside = temp();
  const dir = join(root, "memory");
  mkdirSync(join(dir, "team", "deep"), { recursive: true });
  for (let i = 0; i < 40; i++) writeFileSync(join(dir, `m${i}.md`), fm(`memory ${i}`));
  writeFileSync(join(dir, "team", "deep", "c.md"), "x".repeat(5000));
  writeFileSync(join(outside, "secret.md"), fm("outside"));
  symlinkSync(join(dir, "m1.md"), join(dir, "link-in.md"));
  symlinkSync(join(dir, "team"), join(dir, "team-link"));
  symlinkSync(join(outside, "secret.md"), join(dir, "link-out.md"));
  symlinkSync(join(dir, "missing.md"), join(dir, "dangling.md"));
  mkdirSync(join(dir, "folder.md"));
  execFileSync("mkfifo", [join(dir, "pipe.md")]);
  const shape = (entries) => entries.map((e) => [e.path, e.kind, e.problem ?? null]);
  const full = await new NodeHost(dir).list();
  // a raw fs that counts lstats, and one whose readdir ignores withFileTypes (names alone)
  const counting = (namesOnly) => {
    const counts = { lstat: 0 };
    const raw = Object.create(fs);
    raw.lstatSync = (...a) => (counts.lstat++, fs.lstatSync(...a));
    raw.lstat = (...a) => (counts.lstat++, fs.lstat(...a));
    if (namesOnly) {
      raw.readdirSync = (path) => fs.readdirSync(path);
      raw.readdir = (path, ...rest) => fs.readdir(path, rest.at(-1));
    }
    return { raw, counts };
  };
  // "sync": the raw fs's calls; "async": the same through the promises (`fs`), as once calls turn slow
  const promised = (counts, namesOnly) => ({
    ...fsp,
    lstat: (...a) => (counts.lstat++, fsp.lstat(...a)),
    readdir: (path, ...rest) => (namesOnly ? fsp.readdir(path) : fsp.readdir(path, ...rest)),
  });
  for (const io of ["sync", "async"]) {
    const typed = counting(false);
    const kinds = await new NodeHost(dir, { rawFs: typed.raw, fs: promised(typed.counts, false), io }).fast.listKinds();
    assert.deepEqual(shape(kinds), shape(full), `${io}: the same paths, kinds and problems`);
    // links are followed (what they lead to is looked up); every other entry comes from the names
    const plain = kinds.filter((e) => !e.problem && !["link-in.md", "team-link"].includes(e.path));
    assert.ok(plain.length > 40 && plain.every((e) => e.mtimeMs === 0 && e.size === 0), `${io}: no times or sizes`);
    assert.ok(typed.counts.lstat < 10, `${io}: ${typed.counts.lstat} lstats for ${full.length} entries`);
    const named = counting(true);
    assert.deepEqual(shape(await new NodeHost(dir, { rawFs: named.raw, fs: promised(named.counts, true), io }).fast.listKinds()), shape(full), `${io}: names alone, each lstat'ed`);
    assert.ok(named.counts.lstat >= 45, `${io}: names alone are lstat'ed (${named.counts.lstat})`);
  }
  // a host whose list() is its own gives it here too
  const own = new NodeHost(dir);
  own.list = async () => full.filter((e) => e.path !== "m0.md");
  assert.equal((await own.fast.listKinds()).length, full.length - 1);
});

test("listKinds() reads a large sub-folder on the thread pool as list() does (the kinds give no folder's size: it is looked up)", async () => {
  const dir = temp();
  mkdirSync(join(dir, "many"));
  for (let i = 0; i < 2000; i++) writeFileSync(join(dir, "many", `memory-file-number-${i}.md`), "");
  assert.ok(fs.statSync(join(dir, "many")).size >= 32 * 1024, "a folder past BIG_FOLDER_BYTES");
  for (const kinds of [false, true]) {
    // every other call synchronous: only a folder known to be large goes to the thread pool
    const pooled = [];
    const promised = { ...fsp, readdir: (path, ...rest) => (pooled.push(path), fsp.readdir(path, ...rest)) };
    const host = new NodeHost(dir, { rawFs: fs, fs: promised, io: "sync" });
    const entries = kinds ? await host.fast.listKinds() : (await host.fast.listing()).toEntries();
    assert.equal(entries.length, 2001);
    assert.equal(pooled.length, 1, `${kinds ? "listKinds" : "list"}: the large folder alone, on the thread pool (${pooled.join(", ")})`);
  }
});

test("listKinds() where Node's read with kinds fails because one entry of unknown kind vanished (its lstat ENOENT): the folder is listed, not taken as gone, and a create keeps MEMORY.md's entries", async () => {
  const dir = temp();
  for (const n of ["a", "b"]) writeFileSync(join(dir, `project_${n}.md`), fm(n));
  const index = "- [A](project_a.md) — a\n- [B](project_b.md) — b\n";
  writeFileSync(join(dir, "MEMORY.md"), index);
  // as Node's readdir with file types fails on a file system without d_type when a temporary
  // file is renamed away between the read and Node's own lstat of it
  const gone = (path) => Object.assign(new Error(`ENOENT: no such file or directory, lstat '${path}/.tmp'`), { code: "ENOENT", errno: -2, syscall: "lstat", path: `${path}/.tmp` });
  const raw = Object.create(fs);
  raw.readdirSync = (path, options) => {
    if (options?.withFileTypes) throw gone(path);
    return fs.readdirSync(path, options);
  };
  const promised = { ...fsp, readdir: (path, options) => (options?.withFileTypes ? Promise.reject(gone(path)) : fsp.readdir(path, options)) };
  const shape = (entries) => entries.map((e) => [e.path, e.kind, e.problem ?? null]);
  for (const io of ["sync", "async"]) assert.deepEqual(shape(await new NodeHost(dir, { rawFs: raw, fs: promised, io }).fast.listKinds()), shape(await new NodeHost(dir).list()), io);
  const memory = await openMemory({ host: new NodeHost(dir, { rawFs: raw }), selector: { provider: "lexical" } });
  assert.match(await memory.tool().create({ command: "create", path: "/memories/project_c.md", file_text: fm("c") }), /File created successfully/);
  memory.close();
  assert.ok(fs.readFileSync(join(dir, "MEMORY.md"), "utf8").startsWith(index), "the index's entries kept");
});

test("the memory tool's create counts the folder by its kinds: no lstat an entry, and still refused at the cap", async () => {
  const dir = temp();
  for (let i = 0; i < 60; i++) writeFileSync(join(dir, `project_m${i}.md`), fm(`memory ${i}`));
  writeFileSync(join(dir, "MEMORY.md"), "- [M0](project_m0.md) — memory 0\n");
  const counts = { lstat: 0 };
  const raw = Object.create(fs);
  raw.lstatSync = (...a) => (counts.lstat++, fs.lstatSync(...a));
  const memory = await openMemory({ host: new NodeHost(dir, { rawFs: raw }), selector: { provider: "lexical" }, limits: { maxFiles: 62 } });
  const tool = memory.tool();
  // the first write also sweeps abandoned temporary files (a full listing, once a minute)
  assert.match(await tool.create({ command: "create", path: "/memories/project_a.md", file_text: fm("a") }), /File created successfully/);
  counts.lstat = 0;
  assert.match(await tool.create({ command: "create", path: "/memories/project_b.md", file_text: fm("b") }), /File created successfully/);
  assert.ok(counts.lstat < 20, `${counts.lstat} lstats to create in a folder of 62 entries`);
  await assert.rejects(tool.create({ command: "create", path: "/memories/project_c.md", file_text: fm("one too many") }), /holds 62 topic files/);
  memory.close();
});

test("the memory tool's create and rename on a UNIX socket (or a link to one) answer as with the whole listing: a look-up of the named path that cannot open it does not stop them", async (t) => {
  const { createServer } = await import("node:net");
  const dir = temp();
  writeFileSync(join(dir, "MEMORY.md"), "");
  const server = createServer().listen(join(dir, "sock.md"));
  await new Promise((resolve) => server.on("listening", resolve));
  t.after(() => server.close());
  symlinkSync("sock.md", join(dir, "to-sock.md"));
  const memory = await openMemory({ host: new NodeHost(dir), selector: { provider: "lexical" } });
  t.after(() => memory.close());
  const run = async (command) => (await memory.tool().execute(command)).content;
  assert.equal(await run({ command: "create", path: "/memories/sock.md", file_text: fm("a") }), "File /memories/sock.md already exists");
  assert.match(await run({ command: "create", path: "/memories/to-sock.md", file_text: fm("a") }), /would escape \/memories directory via symlink/);
  assert.match(await run({ command: "rename", old_path: "/memories/to-sock.md", new_path: "/memories/b.md" }), /would escape \/memories directory via symlink/);
  assert.match(await run({ command: "rename", old_path: "/memories/sock.md", new_path: "/memories/moved.md" }), /Successfully renamed/);
  assert.ok(fs.lstatSync(join(dir, "moved.md")).isSocket());
  // a file to be read whole whose look-up fails still stops the write (its size checks the read)
  const failing = new NodeHost(dir);
  failing.stat = async (path) => {
    if (path === "MEMORY.md") throw Object.assign(new Error("EIO: the disk"), { code: "EIO" });
    return NodeHost.prototype.stat.call(failing, path);
  };
  const other = await openMemory({ host: failing, selector: { provider: "lexical" } });
  t.after(() => other.close());
  const failed = await other.tool().execute({ command: "create", path: "/memories/c.md", file_text: fm("c") });
  assert.ok(failed.isError && /EIO/.test(failed.content), failed.content);
  assert.ok(!fs.existsSync(join(dir, "c.md")));
});

test("a NodeHost whose list() is its own (a subclass filtering it) is listed by it, in columns too; a builder cannot change a listing it gave", async () => {
  const { ListingBuilder } = await import("../../pkg/internal.js");
  const dir = temp();
  writeFileSync(join(dir, "a.md"), fm("kept"));
  writeFileSync(join(dir, "private_b.md"), fm("filtered out"));
  class Filtered extends NodeHost {
    async list() {
      return (await super.list()).filter((e) => !e.path.startsWith("private_"));
    }
  }
  const host = new Filtered(dir);
  assert.deepEqual((await host.fast.listing()).paths, ["a.md"]);
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  assert.deepEqual((await memory.scan()).memories.map((m) => m.path), ["a.md"]);
  memory.close();
  // an instance's own list() as well
  const patched = new NodeHost(dir);
  patched.list = async () => [];
  assert.equal((await patched.fast.listing()).length, 0);
  // a scan cache given a look-alike of a Listing takes list() instead
  const lookAlike = new NodeHost(dir);
  lookAlike.fast.listing = async () => ({ paths: ["nope.md"], length: 1 });
  const other = await openMemory({ host: lookAlike, selector: { provider: "lexical" } });
  assert.deepEqual((await other.scan()).memories.map((m) => m.path).sort(), ["a.md", "private_b.md"]);
  other.close();
  const builder = new ListingBuilder();
  builder.push("x.md", 0, 1, 1, Number.NaN, Number.NaN);
  const given = builder.finish();
  assert.throws(() => builder.push("y.md", 0, 1, 1, Number.NaN, Number.NaN), /after finish/);
  assert.deepEqual(given.paths, ["x.md"]);
});

test("invalid UTF-8, a directory named *.md, a FIFO and an unreadable file are diagnostics", async () => {
  const dir = temp();
  writeFileSync(join(dir, "latin1.md"), Buffer.from("---\ndescription: caf\xe9\n---\n", "latin1"));
  mkdirSync(join(dir, "folder.md"));
  execFileSync("mkfifo", [join(dir, "pipe.md")]);
  writeFileSync(join(dir, "locked.md"), fm("cannot be read"));
  writeFileSync(join(dir, "ok.md"), fm("fine"));
  // root ignores file modes, so the permission error is injected into the real file system
  const fs = { ...fsp, open: async (p, ...rest) => (String(p).endsWith("locked.md") ? Promise.reject(Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" })) : fsp.open(p, ...rest)) };
  const memory = await openMemory({ host: new NodeHost(dir, { fs }), selector: { provider: "lexical" } });
  const scan = await memory.scan();
  assert.deepEqual(scan.memories.map((m) => [m.path, m.description ?? null]).sort(), [["latin1.md", "caf\ufffd"], ["ok.md", "fine"]]);
  assert.deepEqual(scan.diagnostics.map((d) => [d.path, d.code]).sort(), [["folder.md", "not_a_file"], ["latin1.md", "invalid_utf8"], ["locked.md", "unreadable"], ["pipe.md", "not_a_file"]]);
});

test("a file that vanishes between listing and reading is a diagnostic, and the next file takes its place", async () => {
  const dir = temp();
  for (let i = 0; i < 4; i++) {
    writeFileSync(join(dir, `f${i}.md`), fm(`file ${i}`));
    utimesSync(join(dir, `f${i}.md`), 1000 + i, 1000 + i);
  }
  const host = new NodeHost(dir);
  // the scan reads heads in batches (readHeads): f3.md goes just before its batch is read
  const readHeads = host.fast.readHeads;
  host.fast.readHeads = async (paths, lines) => {
    if (paths.includes("f3.md")) rmSync(join(dir, "f3.md"), { force: true });
    return readHeads(paths, lines);
  };
  const memory = await openMemory({ host, limits: { maxFiles: 2 }, selector: { provider: "lexical" } });
  const scan = await memory.scan();
  assert.deepEqual(scan.memories.map((m) => m.path), ["f2.md", "f1.md"]);
  assert.deepEqual(scan.dropped.map((m) => m.path), ["f0.md"]);
  assert.deepEqual(scan.diagnostics.map((d) => [d.path, d.code]), [["f3.md", "vanished"]]);
});

test("a missing directory means no memories", async () => {
  const memory = await openMemory({ dir: join(temp(), "nope"), selector: async () => assert.fail("no model call") });
  assert.deepEqual(await memory.scan(), { memories: [], dropped: [], diagnostics: [] });
  assert.equal((await memory.recall("deploy to staging")).outcome, "no_memories");
  assert.equal((await memory.index()).prompt, "");
});

test("5,000 files: only the newest 200 heads are read, and only their first lines", async () => {
  const dir = temp();
  const body = "x".repeat(100) + "\n";
  for (let i = 0; i < 5000; i++) {
    const p = join(dir, `m${String(i).padStart(4, "0")}.md`);
    writeFileSync(p, fm(`memory ${i}`) + body.repeat(i % 50 === 0 ? 2000 : 5));
    utimesSync(p, 1_000_000 + i, 1_000_000 + i);
  }
  const host = new NodeHost(dir);
  const read = [];
  const readHeads = host.fast.readHeads;
  host.fast.readHeads = async (paths, lines) => {
    const heads = await readHeads(paths, lines);
    paths.forEach((path, i) => read.push([path, heads[i].bytes.length]));
    return heads;
  };
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  const scan = await memory.scan();
  assert.equal(scan.memories.length, 200);
  assert.equal(scan.dropped.length, 4800);
  assert.equal(scan.memories[0].path, "m4999.md");
  assert.equal(read.length, 200);
  assert.ok(read.every(([p]) => Number(p.slice(1, 5)) >= 4800));
  // big files (200 KB) were read only as far as their first 30 lines
  assert.ok(Math.max(...read.map(([, n]) => n)) <= 8192, `read at most 8 KB of a head, read ${Math.max(...read.map(([, n]) => n))}`);
});

test("atomic writes leave no temporary file and replace whole files", async () => {
  const dir = temp();
  const host = new NodeHost(dir);
  await host.writeFile("team/x.md", new TextEncoder().encode("one"));
  await host.writeFile("team/x.md", new TextEncoder().encode("two"));
  await assert.rejects(host.writeFile("team/x.md", new TextEncoder().encode("three"), { exclusive: true }), { code: "EEXIST" });
  assert.equal(new TextDecoder().decode(await host.readFile("team/x.md")), "two");
  assert.deepEqual((await host.list()).map((e) => e.path), ["team", "team/x.md"]);
});

test("resolve: where a path really leads, for the write rules", async () => {
  const root = temp();
  const outside = temp();
  const dir = join(root, "memory");
  mkdirSync(join(dir, "notes"), { recursive: true });
  symlinkSync(join(dir, "notes"), join(dir, "alias"));
  symlinkSync(outside, join(dir, "out"));
  symlinkSync(join(outside, "gone.md"), join(dir, "dangling.md"));
  const host = new NodeHost(dir);
  assert.equal(await host.resolve("a.md"), "a.md", "a path that does not exist yet is where it says");
  assert.equal(await host.resolve("notes/new/deep.md"), "notes/new/deep.md");
  assert.equal(await host.resolve("alias/x.md"), "notes/x.md", "a link inside is followed");
  assert.equal(await host.resolve("out/x.md"), null, "a link out leads nowhere allowed");
  assert.equal(await host.resolve("out"), null);
  assert.equal(await host.resolve("dangling.md"), null, "a dangling link is refused too");
  assert.equal(await new NodeHost(join(root, "missing")).resolve("a.md"), "a.md", "a memory directory not created yet");
});

test("lookOutside: relative links from the directory, ~/ from the home folder; ~name and Windows paths cannot be looked up", async () => {
  const root = temp();
  const home = temp();
  const dir = join(root, "projects", "key", "memory");
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(root, "plans"));
  writeFileSync(join(root, "plans", "x.md"), "plan\n");
  mkdirSync(join(home, ".claude", "plans"), { recursive: true });
  writeFileSync(join(home, ".claude", "plans", "y.md"), "plan\n");
  const host = new NodeHost(dir);
  const realHome = process.env.HOME;
  process.env.HOME = home;
  try {
    assert.equal(await host.lookOutside("../../../plans/x.md"), true);
    assert.equal(await host.lookOutside("../../../plans/gone.md"), false);
    assert.equal(await host.lookOutside(join(root, "plans", "x.md")), true);
    assert.equal(await host.lookOutside("~/.claude/plans/y.md"), true);
    assert.equal(await host.lookOutside("~/.claude/plans/gone.md"), false);
    assert.equal(await host.lookOutside("~sam/.claude/plans/y.md"), null);
    if (process.platform !== "win32") assert.equal(await host.lookOutside("C:\\Users\\sam\\plans\\y.md"), null);
  } finally {
    process.env.HOME = realHome;
  }
});

/**
 * The listing stats entries through the folder's plain path, then checks that path still leads
 * to the folder it holds open. `onFirstPlainLstat(dir)` runs once, when the first entry is
 * stat'ed through the plain path: it moves the folder, or swaps a link to another in its place.
 */
function listingWhile(dir, onFirstPlainLstat) {
  let done = false;
  const counts = { plain: 0, descriptor: 0 };
  const rawFs = Object.create(fs);
  rawFs.lstatSync = (path, ...rest) => {
    if (path.startsWith("/proc/self/fd/")) counts.descriptor++;
    else if (path.startsWith(`${dir}/`)) {
      counts.plain++;
      if (!done) {
        done = true;
        onFirstPlainLstat();
      }
    }
    return fs.lstatSync(path, ...rest);
  };
  return { host: new NodeHost(dir, { rawFs, io: "sync" }), counts };
}

test("the listing's stats go through the folder's plain path, and through its descriptor once that path leads elsewhere", async (t) => {
  if (process.platform !== "linux") return t.skip("/proc/self/fd is Linux's");
  const names = ["a.md", "b.md", "c.md"];
  const fill = (dir, description, time) => {
    mkdirSync(dir, { recursive: true });
    for (const n of names) {
      writeFileSync(join(dir, n), fm(description));
      utimesSync(join(dir, n), time, time);
    }
  };
  const realTime = new Date("2026-05-01T00:00:00Z");
  const otherTime = new Date("2001-01-01T00:00:00Z");

  // nothing happens: every entry stat'ed through the plain path, none through the descriptor
  const quiet = join(temp(), "memory");
  fill(quiet, "quiet", realTime);
  const calm = listingWhile(quiet, () => {});
  assert.deepEqual(((await calm.host.fast.listing()).toEntries()).map((e) => e.path), names);
  assert.equal(calm.counts.plain >= names.length, true);
  assert.equal(calm.counts.descriptor, 0);

  // the folder moved while it was listed: the stats are taken again through the descriptor
  const moving = join(temp(), "memory");
  fill(moving, "moving", realTime);
  const moved = listingWhile(moving, () => fs.renameSync(moving, `${moving}-moved`));
  const listed = (await moved.host.fast.listing()).toEntries();
  assert.deepEqual(listed.map((e) => e.path), names, "no entry lost to the move");
  assert.ok(moved.counts.descriptor >= names.length);

  /** A folder that, at its first plain-path stat, is swapped for a link to another folder of the same names. */
  const swappedWhile = () => {
    const base = temp();
    const swapped = join(base, "memory");
    const other = join(base, "other");
    fill(swapped, "real", realTime);
    fill(other, "other", otherTime);
    return listingWhile(swapped, () => {
      fs.renameSync(swapped, join(base, "memory-real"));
      fs.symlinkSync(other, swapped);
    });
  };

  // a link to another folder swapped in: its files' times never reach the listing
  const entries = (await swappedWhile().host.fast.listing()).toEntries();
  assert.deepEqual(entries.map((e) => e.path), names);
  for (const e of entries) assert.equal(e.mtimeMs, realTime.getTime(), `${e.path}: the held folder's file, not the other's`);

  // the cache's checks (statMany) the same way
  const checked = listingWhile(quiet, () => {});
  assert.deepEqual((await checked.host.fast.statMany(names)).map((e) => e.path), names);
  assert.equal(checked.counts.descriptor, 0, "the plain path only");
  for (const e of await swappedWhile().host.fast.statMany(names)) assert.equal(e.mtimeMs, realTime.getTime(), `statMany ${e.path}: the held folder's file`);
});

test("a folder whose path with an entry's name is past PATH_MAX lists all the same (found in review)", async (t) => {
  if (process.platform !== "linux") return t.skip("/proc/self/fd is Linux's");
  // built from inside (chdir), as nothing can name the file by its whole path
  const cwd = process.cwd();
  const base = mkdtempSync(join(tmpdir(), "memdir-node-long-"));
  t.after(() => execFileSync("rm", ["-rf", base])); // rm walks by descriptor: the path is too long for rmSync
  let root = base;
  try {
    process.chdir(root);
    while (root.length < 4000) {
      const part = "d".repeat(Math.min(250, 4000 - root.length));
      mkdirSync(part);
      process.chdir(part);
      root = `${root}/${part}`;
    }
    const name = `${"x".repeat(240)}.md`;
    writeFileSync(name, fm("deep down"));
    writeFileSync("short.md", fm("short"));
  } finally {
    process.chdir(cwd);
  }
  const host = new NodeHost(root);
  let listed;
  try {
    listed = (await host.list()).map((e) => e.path).sort();
  } catch (error) {
    assert.fail(`list failed: ${error.code} ${error.message.slice(0, 80)}`);
  }
  assert.deepEqual(listed, ["short.md", `${"x".repeat(240)}.md`]);
});

test("a flood of changes (every file touched at once) is heard as 'cannot say', not name by name, and the watch goes on", async (t) => {
  const dir = temp();
  const n = 3000;
  for (let i = 0; i < n; i++) writeFileSync(join(dir, `m${i}.md`), "x\n");
  const host = new NodeHost(dir);
  const heard = [];
  const watch = host.watch("", (name) => heard.push(name));
  if (watch === null) return t.skip("this platform cannot watch");
  t.after(() => watch.close());
  const until = async (check) => {
    for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  };
  const time = new Date(Date.now() - 3_600_000);
  for (let i = 0; i < n; i++) utimesSync(join(dir, `m${i}.md`), time, time);
  await until(() => heard.includes(null));
  assert.ok(heard.includes(null), "the flood is reported as a change it cannot name");
  assert.ok(heard.length < 1000, `${heard.length} calls for ${n} changed names, not one a name`);
  // watched again after the flood: a single change is heard by its name
  heard.length = 0;
  writeFileSync(join(dir, "after.md"), "y\n");
  await until(() => heard.includes("after.md"));
  assert.ok(heard.includes("after.md"), `heard ${JSON.stringify(heard.slice(0, 5))}`);
});
