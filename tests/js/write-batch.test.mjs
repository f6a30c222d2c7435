// Writes in a row (remember's memory, then the index) on the Node host: both files' bytes on the
// disk before either name points at them, the names in order, and a failure before the names
// leaving neither file (nor a temporary one) behind.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openMemory } from "memdir";
import { NodeHost } from "../../pkg/hosts/node.js";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-batch-"));
  temps.push(d);
  return d;
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const bytes = (s) => new TextEncoder().encode(s);
const base = (p) => p.slice(p.lastIndexOf("/") + 1);

/**
 * `rawFs` and `fs` for NodeHost recording the calls that make a write durable and named: its
 * synchronous calls (the fast paths, while calls are fast) and the promises (once they are
 * slow), so either way is seen. `failWrite(name)`: the write of a temporary file for `name`
 * fails with ENOSPC.
 */
function recordingFs(failWrite = () => false) {
  const calls = [];
  const noSpace = () => Object.assign(new Error("no space left"), { code: "ENOSPC" });
  const rawFs = Object.create(fs);
  const names = new Map(); // fd → the temporary file's name
  rawFs.openSync = (path, flags, mode) => {
    const fd = fs.openSync(path, flags, mode);
    names.set(fd, base(path));
    return fd;
  };
  rawFs.writeSync = (fd, ...rest) => {
    if (failWrite(names.get(fd) ?? "")) throw noSpace();
    return fs.writeSync(fd, ...rest);
  };
  rawFs.fsync = (fd, done) => {
    calls.push(`fsync ${names.get(fd)}`);
    fs.fsync(fd, done);
  };
  rawFs.linkSync = (from, to) => (calls.push(`name ${base(to)}`), fs.linkSync(from, to));
  rawFs.renameSync = (from, to) => (calls.push(`name ${base(to)}`), fs.renameSync(from, to));
  const promised = {
    ...fsp,
    open: async (path, ...rest) => {
      const handle = await fsp.open(path, ...rest);
      const name = base(String(path));
      return new Proxy(handle, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target);
          if (prop === "writeFile" || prop === "write") {
            return async (...args) => {
              if (failWrite(name)) throw noSpace();
              return value.apply(target, args);
            };
          }
          if (prop === "sync") return async () => (calls.push(`fsync ${name}`), value.apply(target));
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
    link: async (from, to) => (calls.push(`name ${base(to)}`), fsp.link(from, to)),
    rename: async (from, to) => (calls.push(`name ${base(to)}`), fsp.rename(from, to)),
  };
  return { raw: { fs: promised, rawFs }, calls };
}

// "sync": the fast paths' synchronous calls; "async": the promises, as once calls turn slow
for (const io of ["sync", "async"]) {
  test(`writeFiles (${io}): every file flushed before the first is named, then named in the order given`, async () => {
    const dir = temp();
    writeFileSync(join(dir, "MEMORY.md"), "old index\n");
    const { raw, calls } = recordingFs();
    const host = new NodeHost(dir, { ...raw, io });
    await host.fast.writeFiles([
      { path: "project_a.md", data: bytes("memory a\n"), exclusive: true },
      { path: "MEMORY.md", data: bytes("- [A](project_a.md) — a\n") },
    ]);
    assert.equal(readFileSync(join(dir, "project_a.md"), "utf8"), "memory a\n");
    assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "- [A](project_a.md) — a\n");
    const firstName = calls.findIndex((c) => c.startsWith("name "));
    assert.equal(calls.slice(0, firstName).filter((c) => c.startsWith("fsync ")).length, 2, `both flushed before a name: ${calls}`);
    assert.deepEqual(calls.filter((c) => c.startsWith("name ")), ["name project_a.md", "name MEMORY.md"]);
    assert.deepEqual(readdirSync(dir).sort(), ["MEMORY.md", "project_a.md"], "no temporary file left");
  });

  test(`writeFiles (${io}): a failure before the names leaves neither file, nor a temporary one, and names the file it met`, async () => {
    const dir = temp();
    writeFileSync(join(dir, "MEMORY.md"), "old index\n");
    const { raw, calls } = recordingFs((name) => name.startsWith(".MEMORY.md."));
    const host = new NodeHost(dir, { ...raw, io });
    await assert.rejects(
      host.fast.writeFiles([
        { path: "project_a.md", data: bytes("memory a\n"), exclusive: true },
        { path: "MEMORY.md", data: bytes("new index\n") },
      ]),
      (error) => error.code === "ENOSPC" && error.writePath === "MEMORY.md",
    );
    assert.deepEqual(calls.filter((c) => c.startsWith("name ")), [], "nothing named");
    assert.deepEqual(readdirSync(dir), ["MEMORY.md"], "the memory was not left without its index line, and no temporary file stays");
    assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "old index\n");
  });
}

test("writeFiles: an exclusive name that exists fails at its name, and the files after it are not written", async () => {
  const dir = temp();
  writeFileSync(join(dir, "MEMORY.md"), "old index\n");
  writeFileSync(join(dir, "project_a.md"), "already here\n");
  const host = new NodeHost(dir, { io: "sync" });
  await assert.rejects(
    host.fast.writeFiles([
      { path: "project_a.md", data: bytes("memory a\n"), exclusive: true },
      { path: "MEMORY.md", data: bytes("new index\n") },
    ]),
    (error) => error.code === "EEXIST" && error.writePath === "project_a.md",
  );
  assert.equal(readFileSync(join(dir, "project_a.md"), "utf8"), "already here\n");
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "old index\n");
  assert.deepEqual(readdirSync(dir).sort(), ["MEMORY.md", "project_a.md"], "no temporary file left");
});

test("remember: the memory and its index line are flushed together, and a failed index write leaves no memory without its line", async () => {
  const dir = temp();
  writeFileSync(join(dir, "MEMORY.md"), "");
  const ok = recordingFs();
  const memory = await openMemory({ host: new NodeHost(dir, { ...ok.raw, io: "sync" }), selector: { provider: "lexical" } });
  try {
    const written = await memory.remember({ type: "project", name: "Deploys", description: "deploys go out on Tuesdays", body: "Why: the freeze." });
    // the history's record is named before the change and its `done` line after it
    const names = ok.calls.filter((c) => c.startsWith("name ") && !c.includes(".memdir.lock"));
    assert.deepEqual(names, ["name journal.jsonl", `name ${written.file}`, "name MEMORY.md", "name journal.jsonl"]);
    const firstName = ok.calls.findIndex((c) => c === `name ${written.file}`);
    const intent = ok.calls.indexOf("name journal.jsonl");
    assert.equal(ok.calls.slice(intent, firstName).filter((c) => c.startsWith("fsync ")).length, 2, `the memory and the index flushed together: ${ok.calls}`);
    assert.match(readFileSync(join(dir, "MEMORY.md"), "utf8"), new RegExp(written.file.replace(".", "\\.")));
  } finally {
    memory.close();
  }

  const failing = recordingFs((name) => name.startsWith(".MEMORY.md."));
  const again = await openMemory({ host: new NodeHost(dir, { ...failing.raw, io: "sync" }), selector: { provider: "lexical" } });
  try {
    await assert.rejects(again.remember({ type: "project", name: "On-call", description: "on-call rotates weekly", body: "b" }), (error) => error.code === "IO_ERROR" && error.path === "MEMORY.md");
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.includes("on-call") || n.includes(".tmp")),
      [],
      "no memory file without its index line, no temporary file",
    );
  } finally {
    again.close();
  }
});

test("writeFiles: a batch of hundreds of files (doctor's fixes) holds a few descriptors at a time, not two a file", { skip: process.platform !== "linux" }, () => {
  const dir = temp();
  for (let i = 0; i < 300; i++) mkdirSync(join(dir, `t${i}`));
  // a process allowed 200 descriptors writes 300 files, each in a folder of its own
  const script = `
    const { NodeHost } = await import(${JSON.stringify(import.meta.resolve("memdir"))});
    const host = new NodeHost(${JSON.stringify(dir)});
    const files = Array.from({ length: 300 }, (_, i) => ({ path: "t" + i + "/m.md", data: new TextEncoder().encode("memory " + i + "\\n") }));
    try {
      await host.fast.writeFiles(files);
      console.log("written");
    } catch (error) {
      console.log(error.code + " at " + error.writePath);
    }`;
  const out = execFileSync("sh", ["-c", 'ulimit -n 200 && exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: "utf8" }).trim();
  assert.equal(out, "written");
  for (let i = 0; i < 300; i++) assert.deepEqual(readdirSync(join(dir, `t${i}`)), ["m.md"], `t${i}: written, no temporary file`);
});
