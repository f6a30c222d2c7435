// One error type with a stable code, everywhere: arguments are checked by the core before any
// I/O; a host's failure is an IO_ERROR naming the relative path (never the absolute host path);
// the memory tool answers with an error result instead of throwing; recall never throws.
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { InMemoryHost, MemdirError, openMemory } from "memdir";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-errors-"));
  temps.push(d);
  return d;
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const role = { type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "Explain UI in backend terms." };

/**
 * An in-memory host that records every call and fails chosen ones with a Node-style error that
 * names the absolute path: `fail` maps `method` (any path but the lock file) or `method:path`
 * to an errno.
 */
function recordingHost(files = {}, fail = {}) {
  const inner = new InMemoryHost(files, { root: "/home/alice/secret-project/memory" });
  const calls = [];
  const host = { root: inner.root, absolutePath: (p) => inner.absolutePath(p) };
  for (const method of ["list", "stat", "readFile", "writeFile", "remove", "rename", "resolve"]) {
    const on = method === "resolve" ? (host.links = {}) : host;
    on[method] = async (...args) => {
      calls.push([method, args[0]]);
      const path = String(args[0] ?? "");
      const errno = fail[`${method}:${path}`] ?? (path.startsWith(".memdir.lock") ? undefined : fail[method]);
      if (errno) {
        const error = new Error(`${errno}: failed, ${method} '${inner.absolutePath(path)}'`);
        error.code = errno;
        throw error;
      }
      return method === "resolve" ? inner.links.resolve(...args) : inner[method](...args);
    };
  }
  return { host, calls, inner };
}

/** Asserts `promise` rejects with a MemdirError of `code` (and `fields`), returning it. */
async function rejectsWith(promise, code, fields = {}) {
  let caught;
  await assert.rejects(promise, (error) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof MemdirError, `${caught?.name}: ${caught?.message}`);
  assert.equal(caught.code, code, caught.message);
  for (const [k, v] of Object.entries(fields)) assert.deepEqual(caught[k], v, k);
  return caught;
}

test("bad arguments to remember and forget are refused by the core before any I/O", async () => {
  const { host, calls } = recordingHost({ "MEMORY.md": "" });
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  // the open itself reads one file: the history's live segment, for a change a kill interrupted
  assert.deepEqual(calls, [["readFile", ".memdir/history/journal.jsonl"]]);
  calls.length = 0;
  // a NUL reached Node's fs (a TypeError) before the core saw the path; 42 reached `path.split`
  await rejectsWith(memory.remember({ ...role, file: "a\u0000.md" }), "UNSAFE_PATH");
  await rejectsWith(memory.forget("a\u0000.md"), "UNSAFE_PATH");
  await rejectsWith(memory.forget("../outside.md"), "UNSAFE_PATH");
  await rejectsWith(memory.forget(42), "INVALID_ARGUMENT");
  await rejectsWith(memory.forget(undefined), "INVALID_ARGUMENT");
  await rejectsWith(memory.forget("MEMORY.md"), "INDEX_ONLY");
  await rejectsWith(memory.remember(null), "INVALID_ARGUMENT");
  await rejectsWith(memory.remember("remember this"), "INVALID_ARGUMENT");
  await rejectsWith(memory.remember({ ...role, file: 7 }), "INVALID_ARGUMENT");
  await rejectsWith(memory.remember({ ...role, tags: ["x"] }), "INVALID_ARGUMENT");
  await rejectsWith(memory.remember({ ...role, type: "note" }), "INVALID_MEMORY");
  await rejectsWith(memory.remember({ ...role, body: "key AKIAIOSFODNN7EXAMPLE" }), "SECRET_DETECTED");
  await rejectsWith(memory.remember({ ...role, file: "notes/MEMORY.md" }), "INDEX_ONLY");
  assert.deepEqual(calls, [], "not one host call, not even for the lock");
  // a call the directory decides still reads it
  await rejectsWith(memory.forget("gone.md"), "NOT_FOUND");
  assert.ok(calls.length > 0);
});

test("a name too long for the file system: IO_ERROR with the errno and the relative path, never the host path", async () => {
  const dir = temp();
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const file = `${"a".repeat(300)}.md`;
  for (const call of [() => memory.remember({ ...role, file }), () => memory.forget(file)]) {
    const error = await rejectsWith(call(), "IO_ERROR", { errno: "ENAMETOOLONG", path: file });
    assert.ok(!error.message.includes(dir), error.message);
    assert.match(error.message, new RegExp(`^could not resolve a+\\.md: the name is too long for the file system \\(ENAMETOOLONG\\)$`));
    assert.equal(error.cause.code, "ENAMETOOLONG", "the host's own error is kept for logs");
  }
  const tool = memory.tool();
  for (const input of [
    { command: "create", path: `/memories/${file}`, file_text: "x" },
    { command: "view", path: `/memories/${file}` },
    { command: "str_replace", path: `/memories/${file}`, old_str: "a", new_str: "b" },
  ]) {
    const result = await tool.execute(input);
    assert.equal(result.isError, true);
    assert.ok(!result.content.includes(dir), result.content);
    assert.match(result.content, new RegExp(`^The memory tool could not finish the ${input.command}: could not [a-z ]+ /memories/a+\\.md: the name is too long for the file system \\(ENAMETOOLONG\\)$`));
  }
  assert.deepEqual(readdirSync(dir), [], "nothing written, no lock left behind");
});

test("host failures become IO_ERROR everywhere: remember, forget, doctor, the tool (as results), never the raw error", async () => {
  const cases = [
    // the history is written first (ahead of the change): its failure stops the write
    ["writeFile", "EACCES", (m) => m.remember(role), /^could not write \.memdir\/history\/journal\.jsonl: permission denied \(EACCES\)$/],
    // and read first: a write a kill interrupted must be rolled back before another plans
    ["readFile", "EIO", (m) => m.remember(role), /^could not read \.memdir\/history\/journal\.jsonl: an input\/output error \(EIO\)$/],
    ["list", "EACCES", (m) => m.doctor(), /^could not list the memory directory: permission denied \(EACCES\)$/],
    ["remove", "EROFS", (m) => m.forget("user_old.md"), /^could not remove user_old\.md: the file system is read-only \(EROFS\)$/],
  ];
  for (const [method, errno, call, message] of cases) {
    const { host } = recordingHost({ "MEMORY.md": "- [Old](user_old.md) — old\n", "user_old.md": "---\nname: Old\ndescription: old\ntype: user\n---\nx\n" }, { [method]: errno });
    const memory = await openMemory({ host, selector: { provider: "lexical" } });
    const error = await rejectsWith(call(memory), "IO_ERROR", { errno });
    assert.match(error.message, message);
    assert.ok(!error.message.includes("/home/alice"), error.message);
  }
  // the memory tool: an error result naming /memories paths, never a throw
  for (const [method, input] of [
    ["list", { command: "view", path: "/memories" }],
    ["readFile", { command: "view", path: "/memories/user_old.md" }],
    ["writeFile", { command: "create", path: "/memories/a.md", file_text: "x" }],
    ["rename", { command: "rename", old_path: "/memories/user_old.md", new_path: "/memories/user_new.md" }],
  ]) {
    const { host } = recordingHost({ "user_old.md": "x\n" }, { [method]: "EACCES" });
    const result = await (await openMemory({ host, selector: { provider: "lexical" } })).tool().execute(input);
    assert.equal(result.isError, true, `${method}: ${result.content}`);
    assert.ok(!result.content.includes("/home/alice"), result.content);
    assert.match(result.content, /^The memory tool could not finish the [a-z_]+: could not [a-z ]+ \/memories(\/[a-z_./]+( to \/memories\/[a-z_.]+)?)?: permission denied \(EACCES\)$/);
  }
  // the lock itself: its failure is an IO_ERROR on .memdir.lock
  const { host } = recordingHost({}, { "writeFile:.memdir.lock": "ENOSPC" });
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  await rejectsWith(memory.remember(role), "IO_ERROR", { errno: "ENOSPC", path: ".memdir.lock" });
  // recall still never throws: the failure is its outcome
  const { host: broken } = recordingHost({}, { list: "EACCES" });
  const r = await (await openMemory({ host: broken, selector: { provider: "lexical" } })).recall("what does the user know");
  assert.equal(r.outcome, "failed");
});

test("an index that cannot be read is never rewritten without its entries (it was: remember kept one line)", async () => {
  const index = "- [Old](user_old.md) — old\n- [Other](user_other.md) — other\n";
  for (const errno of ["EIO", "EMFILE", "EACCES"]) {
    const { host, inner } = recordingHost({ "MEMORY.md": index, "user_old.md": "x\n", "user_other.md": "y\n" }, { "readFile:MEMORY.md": errno });
    const memory = await openMemory({ host, selector: { provider: "lexical" } });
    await rejectsWith(memory.remember(role), "IO_ERROR", { errno, path: "MEMORY.md" });
    await rejectsWith(memory.forget("user_old.md"), "IO_ERROR", { errno, path: "MEMORY.md" });
    const result = await memory.tool().execute({ command: "delete", path: "/memories/user_old.md" });
    assert.equal(result.isError, true, result.content);
    assert.equal(new TextDecoder().decode(inner.files.get("MEMORY.md").data), index);
    assert.deepEqual([...inner.files.keys()].sort(), ["MEMORY.md", "user_old.md", "user_other.md"]);
  }
  // a topic file that cannot be read is not edited as if it were missing or empty
  const { host, inner } = recordingHost({ "a.md": "keep\n" }, { "readFile:a.md": "EACCES" });
  const result = await (await openMemory({ host, selector: { provider: "lexical" } })).tool().execute({ command: "str_replace", path: "/memories/a.md", old_str: "keep", new_str: "lost" });
  assert.equal(result.content, "The memory tool could not finish the str_replace: could not read /memories/a.md: permission denied (EACCES)");
  assert.equal(new TextDecoder().decode(inner.files.get("a.md").data), "keep\n");
});

test("doctor's fixes refused because the directory changed: CHANGED, a MemdirError (was a bare HostError)", async () => {
  const host = new InMemoryHost({ "MEMORY.md": "- [A](a.md) — a\n", "a.md": "---\nname: A\ndescription: the alpha memory of this test\ntype: user\n---\nx\n", "b.md": "---\nname: B\ndescription: the beta memory of this test\ntype: user\n---\ny\n" });
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  const plan = await memory.planFixes();
  assert.ok(plan.effects.length > 0);
  host.files.set("c.md", { data: new TextEncoder().encode("---\nname: C\ndescription: the gamma memory of this test\ntype: user\n---\nz\n"), mtimeMs: Date.now() });
  await rejectsWith(memory.applyFixes(plan), "CHANGED");
  await rejectsWith(memory.applyFixes(null), "INVALID_ARGUMENT");
});

test("openMemory's own argument errors are MemdirErrors (were TypeErrors), found when it opens", async () => {
  await rejectsWith(openMemory({}), "INVALID_ARGUMENT");
  await rejectsWith(openMemory({ dir: 42 }), "INVALID_ARGUMENT");
  await rejectsWith(openMemory({ dir: "/tmp/a\u0000b" }), "INVALID_ARGUMENT");
  // an unknown limit is refused at once, not at the first recall or write
  await rejectsWith(openMemory({ host: new InMemoryHost(), limits: { maxIndexBytes: 1 } }), "INVALID_ARGUMENT");
});
