// MemoryHost.locks.exclusive: a host's own lock (a Web Lock in the browser hosts), which withLock takes
// around the lock file. Here over InMemoryHost with a scripted locks.exclusive; the browser hosts' real
// Web Locks are tested in Chromium (tests/browser/hosts.test.mjs).
import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemoryHost } from "../../pkg/hosts/ram.js";
import { openMemory, withLock } from "memdir";

const input = { type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "x" };
const timedOut = () => Object.assign(new Error("not granted"), { code: "ETIMEDOUT" });

test("withLock takes the host's write lock first, then the lock file inside it, with the lock's timeout", async () => {
  const host = new InMemoryHost();
  const seen = [];
  host.locks = {};
  host.locks.exclusive = async (fn, timeoutMs) => {
    seen.push(["enter", timeoutMs, host.files.has(".memdir.lock")]);
    const result = await fn();
    seen.push(["leave", host.files.has(".memdir.lock")]);
    return result;
  };
  const inside = await withLock(host, async () => host.files.has(".memdir.lock"), { timeoutMs: 1234 });
  assert.equal(inside, true, "the lock file is held while fn runs");
  assert.deepEqual(seen, [
    ["enter", 1234, false],
    ["leave", false],
  ]);
  seen.length = 0;
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  assert.equal((await memory.remember(input)).action, "created");
  assert.deepEqual(seen, [
    ["enter", 10_000, false],
    ["leave", false],
  ]);
});

test("a host lock not granted in time is LOCKED, and nothing is written", async () => {
  const host = new InMemoryHost();
  host.locks = {};
  host.locks.exclusive = async () => {
    throw timedOut();
  };
  const memory = await openMemory({ host, selector: { provider: "lexical" }, lock: { timeoutMs: 50 } });
  await assert.rejects(memory.remember(input), (e) => e.name === "MemdirError" && e.code === "LOCKED" && /for over 50 ms/.test(e.message) && !e.message.includes("memory:/"));
  const result = await memory.tool().execute({ command: "create", path: "/memories/a.md", file_text: "a" });
  assert.equal(result.isError, true);
  assert.match(result.content, /locked by another writer/);
  assert.deepEqual([...host.files.keys()], []);
});

test("once the host lock is granted, a failure inside it passes through unchanged, ETIMEDOUT included", async () => {
  const host = new InMemoryHost();
  host.locks = { exclusive: (fn) => fn() };
  const inner = timedOut();
  await assert.rejects(
    withLock(host, async () => {
      throw inner;
    }),
    (e) => e === inner,
  );
  assert.deepEqual([...host.files.keys()], [], "the lock file is released");
  // a host lock that fails for another reason before it is granted: its own error
  const denied = Object.assign(new Error("no locks here"), { code: "EACCES" });
  host.locks = {};
  host.locks.exclusive = async () => {
    throw denied;
  };
  await assert.rejects(withLock(host, async () => "never"), (e) => e === denied);
});
