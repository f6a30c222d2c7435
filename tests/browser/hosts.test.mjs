// The browser hosts in headless Chromium: OpfsHost and IndexedDbHost pass the same conformance
// cases as the Node hosts (tests/js/host-conformance.mjs, run in the page), then what only a
// browser has: the secure-context rules, browserHost's choice, tabs writing at once through the
// Web Lock, a tab closed while it holds the lock, a whole memory workflow, a reload.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { launchChromium } from "./chromium.mjs";
import { inPage, sharedTabs } from "./tabs.mjs";

const shared = sharedTabs();
const { errors, tab } = shared;

for (const backend of ["OpfsHost", "IndexedDbHost"]) {
  test(`${backend}: the host conformance suite, in Chromium`, async (t) => {
    const page = await tab();
    const results = await page.evaluate(async (backend) => (await import("/tests/browser/host-pages.mjs")).runConformance(backend), backend);
    assert.ok(results.length >= 19, `${results.length} cases ran`);
    for (const { name, error } of results) {
      await t.test(name, () => {
        if (error) assert.fail(error);
      });
    }
    await page.close();
  });
}


test("http://127.0.0.1 is a secure context in Chromium: OPFS and Web Locks are there, and browserHost picks OPFS", async () => {
  const page = await tab();
  const result = await inPage(page, async ({ memdir, freshName }) => {
    const host = await memdir.browserHost(freshName("pick"));
    const inDb = freshName("pick-idb");
    (await memdir.IndexedDbHost.open(inDb)).close();
    const kept = await memdir.browserHost(inDb);
    const refused = [];
    for (const name of ["", "a/b", "..", "x\\y", 5, "n\0"]) {
      try {
        await memdir.browserHost(name);
        refused.push("accepted");
      } catch (e) {
        refused.push(e.code);
      }
    }
    // a browser without OPFS (this page's StorageManager loses getDirectory)
    delete StorageManager.prototype.getDirectory;
    const fallback = await memdir.browserHost(freshName("no-opfs"));
    const opfs = await memdir.OpfsHost.open("x").then(
      () => null,
      (e) => ({ code: e.code, errno: e.errno, message: e.message }),
    );
    return { secure: isSecureContext, locks: typeof navigator.locks?.request, backend: host.backend, root: host.root.replace(/pick-.*/, "pick-…"), kept: kept.backend, refused, fallback: fallback.backend, opfs };
  });
  assert.equal(result.secure, true);
  assert.equal(result.locks, "function");
  assert.equal(result.backend, "opfs");
  assert.equal(result.root, "opfs:/memdir/pick-…");
  assert.equal(result.kept, "indexeddb", "a memory already in IndexedDB stays there");
  assert.deepEqual(result.refused, Array(6).fill("INVALID_ARGUMENT"));
  assert.equal(result.fallback, "indexeddb");
  assert.equal(result.opfs.code, "IO_ERROR");
  assert.equal(result.opfs.errno, "ENOTSUP");
  assert.match(result.opfs.message, /getDirectory is missing/);
  await page.close();
});

test("a plain-http origin that is not loopback is not secure: no OPFS, no Web Locks; IndexedDB and the lock file still keep two tabs' writes", async () => {
  // memdir-insecure.test resolves to 127.0.0.1, but by name it is not potentially trustworthy
  const insecure = await launchChromium({ args: ["--host-resolver-rules=MAP memdir-insecure.test 127.0.0.1"] });
  try {
    const ctx = await insecure.newContext();
    const url = shared.server.url.replace("127.0.0.1", "memdir-insecure.test");
    const open = async () => {
      const page = await ctx.newPage();
      await page.goto(`${url}/tests/browser/blank.html`);
      return page;
    };
    const [a, b] = [await open(), await open()];
    const name = `insecure-${Date.now()}`;
    const start = Date.now() + 1500;
    const write = (page, who) =>
      inPage(
        page,
        async ({ memdir, until }, { name, who, start }) => {
          await memdir.init();
          const host = await memdir.browserHost(name);
          const memory = await memdir.openMemory({ host, selector: { provider: "lexical" } });
          await until(start);
          await Promise.all(["amber", "birch", "cedar", "delta"].map((word) => memory.remember({ type: "project", name: `${who} ${word}`, description: `The ${word} rule that tab ${who} keeps`, body: word })));
          return { secure: isSecureContext, storage: typeof navigator.storage, locks: typeof navigator.locks, backend: host.backend };
        },
        { name, who, start },
      );
    const [ra, rb] = await Promise.all([write(a, "alpha"), write(b, "bravo")]);
    assert.deepEqual(ra, { secure: false, storage: "undefined", locks: "undefined", backend: "indexeddb" });
    assert.deepEqual(rb, ra);
    const after = await inPage(
      a,
      async ({ memdir: { IndexedDbHost } }, name) => {
        const host = await IndexedDbHost.open(name);
        return { index: new TextDecoder().decode(await host.readFile("MEMORY.md")), files: (await host.list()).map((e) => e.path).filter((p) => !p.startsWith(".memdir")) };
      },
      name,
    );
    assert.equal(after.index.trim().split("\n").length, 8, after.index);
    assert.equal(after.files.filter((p) => p.startsWith("project_")).length, 8);
    assert.ok(!after.files.includes(".memdir.lock"));
  } finally {
    await insecure.close();
  }
});

describe("two tabs at once", () => {
  for (const backend of ["OpfsHost", "IndexedDbHost"]) {
    test(`${backend}: two tabs remembering at once lose no update (they queue on the Web Lock)`, async () => {
      const [a, b] = [await tab(), await tab()];
      const name = `together-${backend}-${Date.now()}`;
      const start = Date.now() + 1000;
      const write = (page, who) =>
        inPage(
          page,
          async ({ memdir, backends, until }, { backend, name, who, start }) => {
            const host = await backends[backend].open(name);
            const memory = await memdir.openMemory({ host, selector: { provider: "lexical" } });
            await until(start);
            const words = ["amber", "birch", "cedar", "delta", "ember", "fjord"];
            const spans = await Promise.all(
              words.map(async (word) => {
                const begun = Date.now();
                const done = await memory.remember({ type: "project", name: `${who} ${word}`, description: `The ${word} rule that tab ${who} keeps`, body: word });
                return { begun, ended: Date.now(), file: done.file, action: done.action };
              }),
            );
            return spans;
          },
          { backend, name, who, start },
        );
      const [sa, sb] = await Promise.all([write(a, "alpha"), write(b, "bravo")]);
      const all = [...sa, ...sb];
      assert.deepEqual(new Set(all.map((s) => s.action)), new Set(["created"]));
      // the two tabs really wrote at the same time
      const span = (s) => [Math.min(...s.map((x) => x.begun)), Math.max(...s.map((x) => x.ended))];
      const [[a0, a1], [b0, b1]] = [span(sa), span(sb)];
      assert.ok(a0 < b1 && b0 < a1, "the tabs' writes overlapped in time");
      const after = await inPage(
        a,
        async ({ backends }, { backend, name }) => {
          const host = await backends[backend].open(name);
          return { index: new TextDecoder().decode(await host.readFile("MEMORY.md")), files: (await host.list()).map((e) => e.path).filter((p) => !p.startsWith(".memdir")).sort() };
        },
        { backend, name },
      );
      const lines = after.index.trim().split("\n");
      assert.equal(lines.length, 12, after.index);
      for (const { file } of all) assert.ok(lines.some((l) => l.includes(`](${file})`)), `${file} is in the index`);
      assert.deepEqual(after.files, ["MEMORY.md", ...all.map((s) => s.file)].sort(), "every memory, and no lock or temporary file left");
      await a.close();
      await b.close();
    });

    test(`${backend}: an exclusive create is exclusive across tabs: exactly one tab wins each file`, async () => {
      const [a, b] = [await tab(), await tab()];
      const name = `race-${backend}-${Date.now()}`;
      const start = Date.now() + 1000;
      const race = (page, who) =>
        inPage(
          page,
          async ({ backends, until }, { backend, name, who, start }) => {
            const host = await backends[backend].open(name);
            await until(start);
            // all at once, one tab from the first file, the other from the last (without the
            // host's Web Lock around its check-and-create, OPFS lets both tabs win a file)
            const order = Array.from({ length: 40 }, (_, i) => (who === "alpha" ? i : 39 - i));
            const outcome = [];
            await Promise.all(
              order.map(async (i) => {
                outcome[i] = await host.writeFile(`race-${i}.md`, new TextEncoder().encode(who), { exclusive: true }).then(
                  () => "won",
                  (e) => e.code,
                );
              }),
            );
            return outcome;
          },
          { backend, name, who, start },
        );
      const [ra, rb] = await Promise.all([race(a, "alpha"), race(b, "bravo")]);
      const contents = await inPage(
        a,
        async ({ backends }, { backend, name }) => {
          const host = await backends[backend].open(name);
          return Promise.all(Array.from({ length: 40 }, async (_, i) => new TextDecoder().decode(await host.readFile(`race-${i}.md`))));
        },
        { backend, name },
      );
      for (let i = 0; i < 40; i++) {
        assert.deepEqual([ra[i], rb[i]].sort(), ["EEXIST", "won"], `race-${i}.md: one winner`);
        assert.equal(contents[i], ra[i] === "won" ? "alpha" : "bravo", `race-${i}.md holds the winner's bytes`);
      }
      await a.close();
      await b.close();
    });

    for (const how of ["closed", "crashed"]) {
      test(`${backend}: a tab ${how} while it holds the write lock frees it at once, not after staleMs`, async () => {
        const [a, b] = [await tab(), await tab()];
        const name = `holder-${backend}-${how}-${Date.now()}`;
        const lockBody = await inPage(
          a,
          async ({ memdir, backends }, { backend, name }) => {
            const host = await backends[backend].open(name);
            await new Promise((held) => memdir.withLock(host, () => (held(), new Promise(() => {}))));
            return JSON.parse(new TextDecoder().decode(await host.readFile(".memdir.lock")));
          },
          { backend, name },
        );
        assert.equal(lockBody.host, "browser tab (Web Locks)");
        assert.ok(Number.isSafeInteger(lockBody.pid) && lockBody.pid > 0);
        const remember = (page, timeoutMs) =>
          inPage(
            page,
            async ({ memdir, backends }, { backend, name, timeoutMs }) => {
              const host = await backends[backend].open(name);
              const memory = await memdir.openMemory({ host, selector: { provider: "lexical" }, lock: { timeoutMs } });
              const begun = Date.now();
              try {
                const done = await memory.remember({ type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "x" });
                return { action: done.action, ms: Date.now() - begun, files: (await host.list()).map((e) => e.path).filter((p) => !p.startsWith(".memdir")).sort() };
              } catch (e) {
                return { code: e.code, ms: Date.now() - begun };
              }
            },
            { backend, name, timeoutMs },
          );
        const alive = () => inPage(b, async ({ backends }, { backend, name, owner }) => (await backends[backend].open(name)).locks.ownerAlive(owner), { backend, name, owner: lockBody });
        const refused = await remember(b, 300);
        assert.equal(refused.code, "LOCKED", "held by the open tab");
        assert.equal(await alive(), true, "another tab sees the holder's tab lock");
        if (how === "closed") await a.close();
        else {
          const crashed = new Promise((resolve) => a.once("crash", resolve));
          const cdp = await shared.context.newCDPSession(a);
          cdp.send("Page.crash").catch(() => {});
          await crashed;
        }
        let gone = await alive();
        for (const began = Date.now(); gone !== false && Date.now() - began < 2000; ) gone = await alive(); // released as the tab goes
        assert.equal(gone, false, `the ${how} tab's tab lock is gone`);
        const done = await remember(b, 5000);
        assert.equal(done.action, "created", JSON.stringify(done));
        assert.ok(done.ms < 3000, `taken in ${done.ms} ms: the lock file of a gone tab is broken at once (staleMs is 30 s)`);
        assert.deepEqual(done.files, ["MEMORY.md", "user_role.md"], "the dead tab's lock file is gone");
        if (how === "crashed") await a.close();
        await b.close();
      });
    }
  }
});

for (const backend of ["OpfsHost", "IndexedDbHost"]) {
  test(`${backend}: recall, remember, the memory tool, doctor --fix and forget through openMemory`, async () => {
    const page = await tab();
    const result = await inPage(
      page,
      async ({ memdir, backends, freshName }, backend) => {
        const host = await backends[backend].open(freshName("workflow"));
        const memory = await memdir.openMemory({ host, selector: { provider: "lexical" } });
        const text = async (path) => new TextDecoder().decode(await host.readFile(path));
        await memory.remember({ type: "project", name: "Deploy", description: "The staging deploy checklist and who signs off", body: "Run the smoke tests first." });
        await memory.remember({ type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "Explain UI in backend terms." });
        const created = await memory.tool().create({ command: "create", path: "/memories/reference_dashboards.md", file_text: "---\nname: Dashboards\ndescription: Where the Grafana dashboards of the billing service live\ntype: reference\n---\n\nSee grafana/billing.\n" });
        // a file written behind memdir's back (another tool, a sync): not indexed until doctor --fix
        await host.writeFile("reference_oncall.md", new TextEncoder().encode("---\nname: On-call\ndescription: Who is on call for billing and how to page them\ntype: reference\n---\n\nSee the rota.\n"));
        const before = (await memory.doctor()).findings.map((f) => f.code);
        const fixed = await memory.applyFixes(await memory.planFixes());
        const recalled = await memory.recall("how do we deploy to staging?");
        const forgotten = await memory.forget("user_role.md");
        const prompt = (await memory.index()).prompt;
        return {
          created,
          before,
          after: fixed.findings.length,
          recalled: recalled.memories.map((m) => m.path),
          outcome: recalled.outcome,
          forgotten: forgotten.action,
          index: await text("MEMORY.md"),
          prompt: prompt.includes("[Deploy](project_deploy.md)"),
          files: (await host.list()).map((e) => e.path).filter((p) => !p.startsWith(".memdir")).sort(),
          history: (await memory.history()).map((h) => h.route),
        };
      },
      backend,
    );
    assert.equal(result.created, "File created successfully at: /memories/reference_dashboards.md\nAlso added its entry to /memories/MEMORY.md: - [Dashboards](reference_dashboards.md) — Where the Grafana dashboards of the billing service live");
    assert.deepEqual(result.before, ["not_indexed"]);
    assert.equal(result.after, 0);
    assert.deepEqual(result.recalled, ["project_deploy.md"]);
    assert.equal(result.forgotten, "forgotten");
    assert.equal(result.index, "- [Deploy](project_deploy.md) — The staging deploy checklist and who signs off\n- [Dashboards](reference_dashboards.md) — Where the Grafana dashboards of the billing service live\n- [On-call](reference_oncall.md) — Who is on call for billing and how to page them\n");
    assert.equal(result.prompt, true);
    assert.deepEqual(result.files, ["MEMORY.md", "project_deploy.md", "reference_dashboards.md", "reference_oncall.md"]);
    assert.ok(result.history.length >= 3 && result.history.includes("forget") && result.history.includes("tool"), `every write in the history, in this storage: ${result.history}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test(`${backend}: a memory outlives a reload, and another tab sees it`, async () => {
    const page = await tab();
    const name = `reload-${backend}-${Date.now()}`;
    const read = (p) =>
      inPage(
        p,
        async ({ memdir, backends }, { backend, name }) => {
          await memdir.init();
          const host = await backends[backend].open(name);
          return { index: new TextDecoder().decode(await host.readFile("MEMORY.md")), files: (await host.list()).map((e) => [e.path, e.kind, e.size]).sort() };
        },
        { backend, name },
      );
    await inPage(
      page,
      async ({ memdir, backends }, { backend, name }) => {
        const memory = await memdir.openMemory({ host: await backends[backend].open(name), selector: { provider: "lexical" } });
        await memory.remember({ type: "feedback", name: "Tests", description: "Integration tests hit a real database, never mocks", body: "We got burned by a mock once." });
      },
      { backend, name },
    );
    const before = await read(page);
    await page.reload();
    const after = await read(page);
    const other = await tab();
    assert.equal(before.index, "- [Tests](feedback_tests.md) — Integration tests hit a real database, never mocks\n");
    assert.deepEqual(after, before);
    assert.deepEqual(await read(other), before);
    await page.close();
    await other.close();
  });

  test(`${backend}: a reader in another tab sees a file old or new, never a mix, while it is rewritten`, async () => {
    const [writer, reader] = [await tab(), await tab()];
    const name = `atomic-${backend}-${Date.now()}`;
    await inPage(writer, async ({ backends }, { backend, name }) => (await backends[backend].open(name)).writeFile("big.md", new TextEncoder().encode("a".repeat(300_000))), { backend, name });
    const start = Date.now() + 800;
    const [, seen] = await Promise.all([
      inPage(
        writer,
        async ({ backends, until }, { backend, name, start }) => {
          const host = await backends[backend].open(name);
          await until(start);
          // 40 rounds, and for a second and a half at least: a reader slowed by a loaded machine
          // still sees both versions
          const writeUntil = Date.now() + 1500;
          for (let round = 0; round < 40 || Date.now() < writeUntil; round++) await host.writeFile("big.md", new TextEncoder().encode(round % 2 ? "a".repeat(300_000) : `${"b".repeat(200_000)}\n`));
          await host.writeFile("done.md", new Uint8Array(0));
        },
        { backend, name, start },
      ),
      inPage(
        reader,
        async ({ backends, until }, { backend, name, start }) => {
          const host = await backends[backend].open(name);
          await until(start);
          const seen = { a: 0, b: 0, mixed: 0, errors: [] };
          const whole = (t) => (t.length === 300_000 && !/[^a]/.test(t) ? "a" : t.length === 200_001 && /^b+\n$/.test(t) ? "b" : "mixed");
          while ((await host.stat("done.md")) === null) {
            try {
              seen[whole(new TextDecoder().decode(await host.readFile("big.md")))]++;
              // a head as memdir reads it from a host without fast.readHeads: readFile to 1 MiB, cut after its first line
              const bytes = await host.readFile("big.md", 1 << 20);
              const head = new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(10) + 1 || bytes.length));
              if (!/^(a+|b+\n)$/.test(head)) seen.mixed++;
            } catch (e) {
              seen.errors.push(`${e.name} ${e.code}: ${e.message}`);
            }
          }
          return seen;
        },
        { backend, name, start },
      ),
    ]);
    assert.deepEqual(seen.errors, []);
    assert.equal(seen.mixed, 0);
    assert.ok(seen.a > 0 && seen.b > 0, `read both versions while they changed: ${JSON.stringify(seen)}`);
    await writer.close();
    await reader.close();
  });
}

test("OpfsHost: the browser's swap files (*.crswap) are never listed, and a dead tab's are cleared by the next write or removal", async () => {
  const page = await tab();
  const result = await inPage(page, async ({ memdir, seedOpfs, rawOpfsNames, freshName }) => {
    const name = freshName("swap");
    // what a tab killed in the middle of two writes leaves (tests/browser/opfs-crash.test.mjs)
    await seedOpfs(name, { "a.md": "old", "a.md.crswap": "half of new", "notes/b.md": "b", "notes/b.md.crswap": "half" });
    const host = await memdir.OpfsHost.open(name);
    const out = { listed: (await host.list()).map((e) => e.path).filter((p) => !p.startsWith(".memdir")).sort(), stat: await host.stat("a.md.crswap") };
    out.read = await host.readFile("a.md.crswap").then(() => "read", (e) => e.code);
    out.write = await host.writeFile("x.md.crswap", new Uint8Array(1)).then(() => "written", (e) => e.code);
    await host.writeFile("a.md", new TextEncoder().encode("new"));
    out.afterWrite = await rawOpfsNames(name);
    out.a = new TextDecoder().decode(await host.readFile("a.md"));
    await host.remove("notes/b.md");
    out.afterRemove = await rawOpfsNames(name, ["notes"]);
    return out;
  });
  assert.deepEqual(result.listed, ["a.md", "notes", "notes/b.md"]);
  assert.equal(result.stat, null);
  assert.equal(result.read, "ENOENT");
  assert.equal(result.write, "EINVAL");
  assert.deepEqual(result.afterWrite, ["a.md", "notes"]);
  assert.equal(result.a, "new");
  assert.deepEqual(result.afterRemove, []);
  await page.close();
});

test("in a worker: browserHost, remember and the page sees it; the worker's lock is judged by the same Web Locks", async () => {
  const page = await tab();
  const result = await inPage(page, async ({ memdir, freshName }) => {
    const name = freshName("worker");
    const source = `
      import * as memdir from "${location.origin}/pkg/entry/browser.js";
      onmessage = async ({ data: name }) => {
        try {
          await memdir.init();
          const host = await memdir.browserHost(name);
          const memory = await memdir.openMemory({ host, selector: { provider: "lexical" } });
          await memory.remember({ type: "project", name: "Worker", description: "Written from a dedicated worker", body: "x" });
          // then hold the write lock until terminated
          memdir.withLock(host, () => (postMessage({ backend: host.backend }), new Promise(() => {})));
        } catch (e) {
          postMessage({ error: String(e) });
        }
      };`;
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
    const reply = await new Promise((resolve) => {
      worker.onmessage = ({ data }) => resolve(data);
      worker.onerror = (e) => resolve({ error: e.message });
      worker.postMessage(name);
    });
    const host = await memdir.browserHost(name);
    const input = { type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "x" };
    const whileHeld = await (await memdir.openMemory({ host, selector: { provider: "lexical" }, lock: { timeoutMs: 300 } })).remember(input).then(
      () => "written",
      (e) => e.code,
    );
    const lock = JSON.parse(new TextDecoder().decode(await host.readFile(".memdir.lock")));
    worker.terminate();
    const begun = Date.now();
    const after = await (await memdir.openMemory({ host, selector: { provider: "lexical" }, lock: { timeoutMs: 5000 } })).remember(input);
    return { reply, whileHeld, lockHost: lock.host, ms: Date.now() - begun, action: after.action, index: new TextDecoder().decode(await host.readFile("MEMORY.md")) };
  });
  assert.deepEqual(result.reply, { backend: "opfs" });
  assert.equal(result.whileHeld, "LOCKED");
  assert.equal(result.lockHost, "browser tab (Web Locks)");
  assert.equal(result.action, "created");
  assert.ok(result.ms < 3000, `${result.ms} ms: the terminated worker's lock was broken at once`);
  assert.equal(result.index, "- [Worker](project_worker.md) — Written from a dedicated worker\n- [Role](user_role.md) — The user is a Go engineer new to React\n");
  await page.close();
});

test("OpfsHost: a memory folder removed and made again by another tab is seen as it is now", async () => {
  const [a, b] = [await tab(), await tab()];
  const name = `remade-${Date.now()}`;
  const look = () =>
    inPage(
      a,
      async ({ memdir }, name) => {
        const host = (globalThis.remade ??= await memdir.OpfsHost.open(name));
        return { list: (await host.list()).map((e) => e.path).filter((p) => !p.startsWith(".memdir")), a: await host.readFile("a.md").then((x) => new TextDecoder().decode(x), (e) => e.code), b: await host.stat("b.md").then((e) => e?.size ?? null) };
      },
      name,
    );
  await inPage(b, ({ seedOpfs }, name) => seedOpfs(name, { "a.md": "first" }), name);
  const before = await look();
  await inPage(b, async (_, name) => (await (await navigator.storage.getDirectory()).getDirectoryHandle("memdir")).removeEntry(name, { recursive: true }), name);
  const removed = await look();
  await inPage(b, ({ seedOpfs }, name) => seedOpfs(name, { "b.md": "second" }), name);
  const remade = await look();
  const written = await inPage(
    a,
    async ({ rawOpfsNames }, name) => {
      await (await navigator.storage.getDirectory()).getDirectoryHandle("memdir").then((d) => d.removeEntry(name, { recursive: true }));
      await globalThis.remade.writeFile("c.md", new TextEncoder().encode("third"));
      return rawOpfsNames(name);
    },
    name,
  );
  assert.deepEqual(before, { list: ["a.md"], a: "first", b: null });
  assert.deepEqual(removed, { list: [], a: "ENOENT", b: null });
  assert.deepEqual(remade, { list: ["b.md"], a: "ENOENT", b: 6 });
  assert.deepEqual(written, ["c.md"], "a write makes the folder again");
  await a.close();
  await b.close();
});
