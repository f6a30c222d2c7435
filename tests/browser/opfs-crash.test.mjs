// What OpfsHost promises when the browser dies in the middle of a write, checked for real:
// Chromium (our own process, on a profile of its own) is killed with SIGKILL while two writes
// are in flight, their bytes written but not committed — one overwriting MEMORY.md, one
// creating a new file — each under memdir's write lock; then it is started again on the same
// profile and origin. The old MEMORY.md must be
// whole, the new file absent (not empty, not half), the browser's swap files never listed, and
// the next write must break the dead tab's lock at once and clear everything the crash left.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "./chromium.mjs";
import { serveStatic } from "./static-server.mjs";
import { inPage, loadMemdir } from "./tabs.mjs";

const BIG_BYTES = 4 << 20;
let server, profile;
const running = new Set();

before(async () => {
  server = await serveStatic(fileURLToPath(new URL("../..", import.meta.url)));
  profile = mkdtempSync(join(tmpdir(), "memdir-opfs-crash-"));
});

after(async () => {
  for (const proc of running) kill(proc);
  await server?.close();
  rmSync(profile, { recursive: true, force: true });
});

/** SIGKILL to the browser's whole process group (it was started detached, as its leader). */
function kill(proc) {
  try {
    process.kill(-proc.pid, "SIGKILL");
  } catch {
    // already gone
  }
  running.delete(proc);
}

/** Starts Chromium on `profile` and connects to it; `{ proc, browser, page }` on the test page. */
async function start() {
  const proc = spawn(process.env.MEMDIR_CHROMIUM || "/usr/bin/chromium", [...CHROMIUM_ARGS, "--headless", `--user-data-dir=${profile}`, "--remote-debugging-port=0", "about:blank"], { detached: true, stdio: ["ignore", "ignore", "pipe"] });
  running.add(proc);
  const endpoint = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${seen}`)), 30_000);
    proc.stderr.on("data", (chunk) => {
      seen += chunk;
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    proc.once("exit", (code) => reject(new Error(`Chromium exited (${code}): ${seen}`)));
  });
  const browser = await chromium.connectOverCDP(endpoint);
  const page = await browser.contexts()[0].newPage();
  await loadMemdir(page, server.url);
  return { proc, browser, page };
}


test("OpfsHost: a browser killed in the middle of two writes leaves the old file whole and no new file; the next write clears the rest", async () => {
  const first = await start();
  await inPage(first.page, async ({ memdir }) => {
    const old = await memdir.OpfsHost.open("crash-old");
    await old.writeFile("MEMORY.md", new TextEncoder().encode("- [Old](old.md) — the index before the crash\n"));
    await old.writeFile("old.md", new TextEncoder().encode("---\nname: Old\ndescription: the index before the crash\ntype: project\n---\n"));
  });
  // both writes start, under the write lock; each stops after its bytes are written, before
  // close() commits them (this page's FileSystemWritableFileStream.write never returns), so the
  // kill lands in the middle of both, every time
  const midWrite = await inPage(
    first.page,
    async ({ memdir, rawOpfsNames }, bytes) => {
      const write = FileSystemWritableFileStream.prototype.write;
      let written = 0;
      FileSystemWritableFileStream.prototype.write = async function (...args) {
        await write.apply(this, args);
        if (args[0]?.byteLength !== bytes) return; // the lock file
        written++;
        return new Promise(() => {});
      };
      const [old, fresh] = [await memdir.OpfsHost.open("crash-old"), await memdir.OpfsHost.open("crash-new")];
      void memdir.withLock(old, () => old.writeFile("MEMORY.md", new Uint8Array(bytes).fill(120)));
      void memdir.withLock(fresh, () => fresh.writeFile("big.md", new Uint8Array(bytes).fill(121)));
      const began = Date.now();
      while (written < 2 && Date.now() - began < 20_000) await new Promise((r) => setTimeout(r, 5));
      return { written, old: await rawOpfsNames("crash-old"), fresh: await rawOpfsNames("crash-new") };
    },
    BIG_BYTES,
  );
  assert.equal(midWrite.written, 2, "both writes wrote their bytes");
  assert.ok(midWrite.old.includes("MEMORY.md.crswap") && midWrite.fresh.some((n) => n.endsWith(".crswap")), JSON.stringify(midWrite));
  kill(first.proc);
  await new Promise((resolve) => (first.proc.exitCode !== null || first.proc.signalCode !== null ? resolve() : first.proc.once("exit", resolve)));

  const second = await start();
  try {
    const after = await inPage(second.page, async ({ memdir, rawOpfsNames }) => {
      const text = (bytes) => new TextDecoder().decode(bytes);
      const [old, fresh] = [await memdir.OpfsHost.open("crash-old"), await memdir.OpfsHost.open("crash-new")];
      const out = {
        rawOld: await rawOpfsNames("crash-old"),
        rawNew: await rawOpfsNames("crash-new"),
        listedOld: (await old.list()).map((e) => e.path).sort(),
        listedNew: (await fresh.list()).map((e) => [e.path, e.size]).sort(),
        index: text(await old.readFile("MEMORY.md")),
        big: await fresh.stat("big.md"),
      };
      const begun = Date.now();
      const input = { type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "x" };
      await (await memdir.openMemory({ host: old, selector: { provider: "lexical" }, lock: { timeoutMs: 5000 } })).remember(input);
      await (await memdir.openMemory({ host: fresh, selector: { provider: "lexical" }, lock: { timeoutMs: 5000 } })).remember(input);
      out.ms = Date.now() - begun;
      out.cleanOld = await rawOpfsNames("crash-old");
      out.cleanNew = await rawOpfsNames("crash-new");
      out.indexAfter = text(await old.readFile("MEMORY.md"));
      return out;
    });
    // what the crash left: the lock files of a tab that is gone, and the browser's swap files
    assert.deepEqual(after.rawOld, [".memdir.lock", "MEMORY.md", "MEMORY.md.crswap", "old.md"]);
    const temp = after.rawNew.find((n) => /^\.big\.md\.tmp-[0-9a-f]{12}$/.test(n));
    assert.ok(temp, `the new file's temporary file: ${after.rawNew}`);
    assert.deepEqual(after.rawNew, [".memdir.lock", temp, `${temp}.crswap`].sort());
    // what the host shows: the old index whole, no new file, no swap file
    assert.equal(after.index, "- [Old](old.md) — the index before the crash\n");
    assert.deepEqual(after.listedOld, [".memdir.lock", "MEMORY.md", "old.md"]);
    assert.deepEqual(after.listedNew.map(([path]) => path), [".memdir.lock", temp].sort());
    assert.equal(after.listedNew.find(([path]) => path === temp)[1], 0, "the temporary file is empty: its bytes were in the swap file");
    assert.equal(after.big, null, "the new file never appeared");
    // the next write: the dead tab's lock broken at once (its tab lock died with it), everything cleared
    assert.ok(after.ms < 3000, `${after.ms} ms for both writes`);
    assert.deepEqual(after.cleanOld, [".memdir", "MEMORY.md", "old.md", "user_role.md"], "nothing temporary left; .memdir holds the history");
    assert.deepEqual(after.cleanNew, [".memdir", "MEMORY.md", "user_role.md"]);
    assert.equal(after.indexAfter, "- [Old](old.md) — the index before the crash\n- [Role](user_role.md) — The user is a Go engineer new to React\n");
  } finally {
    await second.browser.close().catch(() => {});
    kill(second.proc);
  }
});
