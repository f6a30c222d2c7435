// The browser build in headless Chromium: loaded with explicit `await init()`, then every
// shared fixture case is run in the page and its result compared here.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { fixtureFiles } from "../js/fixture-runner.mjs";
import { launchChromium } from "./chromium.mjs";
import { serveStatic } from "./static-server.mjs";
import { startMockProviders } from "../mock/providers.mjs";

let server, browser, page, mock;
const errors = [];

before(async () => {
  mock = await startMockProviders();
  server = await serveStatic(fileURLToPath(new URL("../..", import.meta.url)));
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${server.url}/tests/browser/blank.html`);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await mock?.close();
});

test("calls before init() throw NOT_INITIALIZED; init() loads the module", async () => {
  const result = await page.evaluate(async () => {
    const m = { ...(await import("/pkg/core.js")), ...(await import("/pkg/entry/browser.js")) }; // the core's functions beyond the public entry too
    let before;
    try { m.truncateIndex("x"); } catch (e) { before = { name: e.name, code: e.code }; }
    await m.init();
    return { before, ready: m.isReady(), view: m.truncateIndex(" a\nb ") };
  });
  assert.deepEqual(result.before, { name: "MemdirError", code: "NOT_INITIALIZED" });
  assert.equal(result.ready, true);
  assert.deepEqual(result.view, { content: "a\nb", lineCount: 2, utf16Count: 3, wasLineTruncated: false, wasSizeTruncated: false });
});

test("after a trap the module is re-instantiated in the page: the next call is exact", async () => {
  const result = await page.evaluate(async () => {
    const m = { ...(await import("/pkg/core.js")), ...(await import("/pkg/entry/browser.js")) }; // the core's functions beyond the public entry too
    const raw = await import("/pkg/wasm/memdir.js"); // the glue the facade uses, unbounded
    await m.init();
    let deep = [];
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const out = { traps: 0, tries: 0, answers: [] };
    for (let round = 0; round < 5; round++) {
      // the raw glue, past the facade's bounds: the core's stack runs out (a trap), or first
      // the engine's (a RangeError that leaves the module's stack pointer moved, so the next traps)
      for (let i = 0; i < 100; i++) {
        out.tries++;
        try {
          raw.planToolCommand({ command: "view", path: "/memories", x: deep });
        } catch (e) {
          if (e instanceof WebAssembly.RuntimeError) break;
        }
      }
      try {
        raw.memoryAgeDays(0, 0);
      } catch (e) {
        if (e instanceof WebAssembly.RuntimeError) out.traps++;
      }
      out.answers.push([m.memoryAgeDays(0, 3 * 86_400_000), m.truncateIndex("a\nb\nc", { maxIndexLines: 2 }).content.split("\n\n")[0]]);
    }
    try {
      m.planToolCommand({ command: "view", path: "/memories", x: deep });
    } catch (e) {
      out.facade = { name: e.name, code: e.code };
    }
    out.ready = m.isReady();
    return out;
  });
  assert.equal(result.traps, 5, "each round left the instance trapping");
  assert.deepEqual(result.answers, Array(5).fill([3, "a\nb"]));
  assert.deepEqual(result.facade, { name: "MemdirError", code: "INVALID_ARGUMENT" });
  assert.equal(result.ready, true);
});

test("every shared fixture case holds in Chromium, checked in the page by the shared checker", async () => {
  const files = fixtureFiles();
  const result = await page.evaluate(async (files) => {
    const m = { ...(await import("/pkg/core.js")), ...(await import("/pkg/entry/browser.js")) }; // the core's functions beyond the public entry too
    const { checkFiles } = await import("/tests/fixtures/check.mjs");
    await m.init();
    return checkFiles(files, m);
  }, files);
  const total = files.reduce((n, f) => n + f.cases.length, 0);
  assert.ok(total > 100);
  assert.equal(result.count, total, "every case ran in the page");
  assert.deepEqual(result.failures, []);
  assert.deepEqual(errors, []);
});

test("a recall in the browser reaches Anthropic with the direct-browser-access header, across origins", async () => {
  const result = await page.evaluate(async (baseUrl) => {
    const m = { ...(await import("/pkg/core.js")), ...(await import("/pkg/entry/browser.js")) }; // the core's functions beyond the public entry too
    await m.init();
    const host = new m.InMemoryHost({
      "MEMORY.md": "- [Deploy](project_deploy.md) — staging checklist",
      "project_deploy.md": "---\ndescription: staging deploy checklist\ntype: project\n---\nRun the smoke tests first.\n",
      "user_role.md": "---\ndescription: the user is a Go engineer\ntype: user\n---\n",
    });
    const memory = await m.openMemory({ host, selector: { provider: "anthropic", apiKey: "sk-ant-test", baseUrl } });
    const r = await memory.recall("how do we deploy to staging?");
    return { outcome: r.outcome, error: r.error ?? null, paths: r.memories.map((x) => x.path), origin: location.origin };
  }, mock.url);
  assert.deepEqual(result.paths, ["project_deploy.md"], result.error);
  assert.equal(result.outcome, "selected");
  const req = mock.requests().find((r) => r.method === "POST" && r.path === "/v1/messages");
  assert.equal(req.headers.origin, result.origin);
  assert.equal(req.headers["anthropic-dangerous-direct-browser-access"], "true");
});

test("in a web worker (a VS Code web extension's host: no window, no document) Anthropic gets the direct-browser-access header too", async () => {
  mock.reset();
  const result = await page.evaluate(async (baseUrl) => {
    const source = `
      const m = await import("${location.origin}/pkg/entry/browser.js");
      await m.init();
      const host = new m.InMemoryHost({
        "MEMORY.md": "- [Deploy](project_deploy.md) — staging checklist",
        "project_deploy.md": "---\\ndescription: staging deploy checklist\\ntype: project\\n---\\nRun the smoke tests first.\\n",
      });
      const memory = await m.openMemory({ host, selector: { provider: "anthropic", apiKey: "sk-ant-test", baseUrl: ${JSON.stringify(baseUrl)} } });
      const r = await memory.recall("how do we deploy to staging?");
      postMessage({ outcome: r.outcome, selector: r.selector, error: r.error ?? null, paths: r.memories.map((x) => x.path), hasWindow: typeof window !== "undefined" });
    `;
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })), { type: "module" });
    return await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(e.message));
      setTimeout(() => reject(new Error("the worker did not answer in 20 s")), 20_000);
    });
  }, mock.url);
  assert.equal(result.hasWindow, false);
  assert.deepEqual([result.outcome, result.selector, result.paths], ["selected", "anthropic", ["project_deploy.md"]], result.error);
  const req = mock.requests().find((r) => r.method === "POST" && r.path === "/v1/messages");
  assert.equal(req.headers["anthropic-dangerous-direct-browser-access"], "true");
});

test("writing in the browser: the memory tool, remember, forget and doctor over in-page storage", async () => {
  const result = await page.evaluate(async () => {
    const m = { ...(await import("/pkg/core.js")), ...(await import("/pkg/entry/browser.js")) }; // the core's functions beyond the public entry too
    await m.init();
    const host = new m.InMemoryHost();
    const memory = await m.openMemory({ host, selector: { provider: "lexical" } });
    const tool = memory.tool();
    const created = await tool.create({ command: "create", path: "/memories/project_deploy.md", file_text: "---\nname: Deploy\ndescription: The staging deploy checklist and who signs off\ntype: project\n---\n\nSmoke tests first.\n" });
    const refused = await tool.execute({ command: "create", path: "/memories/../x.md", file_text: "x" });
    const remembered = await memory.remember({ type: "user", name: "Role", description: "The user is a Go engineer new to React", body: "Explain UI in backend terms." });
    const before = await memory.doctor();
    const plan = await memory.planFixes();
    const after = await memory.applyFixes(plan);
    const forgotten = await memory.forget("user_role.md");
    const index = new TextDecoder().decode(host.files.get("MEMORY.md").data);
    const history = (await memory.history()).map((h) => `${h.route} ${h.status}`);
    const files = [...host.files.keys()].sort();
    // and the forget taken back in the page: the memory and its line return
    const undone = (await memory.undo((await memory.history())[0].id)).applied && new TextDecoder().decode(host.files.get("MEMORY.md").data);
    return { created, refused, remembered: remembered.indexLine, before: before.findings.map((f) => f.code), after: after.findings.length, forgotten: forgotten.action, index, files, history, undone };
  });
  assert.equal(result.created, "File created successfully at: /memories/project_deploy.md\nAlso added its entry to /memories/MEMORY.md: - [Deploy](project_deploy.md) — The staging deploy checklist and who signs off");
  assert.deepEqual(result.refused, { content: "Path /memories/../x.md would escape /memories directory (the path has a '.' or '..' segment)", isError: true });
  assert.equal(result.remembered, "- [Role](user_role.md) — The user is a Go engineer new to React");
  assert.deepEqual(result.before, [], "the tool indexed the memory it created: doctor finds nothing not_indexed");
  assert.equal(result.after, 0);
  assert.equal(result.forgotten, "forgotten");
  assert.equal(result.index, "- [Deploy](project_deploy.md) — The staging deploy checklist and who signs off\n");
  assert.deepEqual(result.files, [".memdir/history/journal.jsonl", "MEMORY.md", "project_deploy.md"]);
  assert.deepEqual(result.history, ["forget done", "remember done", "tool done"], "every write in the history (doctor had nothing to fix)");
  assert.match(result.undone, /\(user_role\.md\)/);
  assert.deepEqual(errors, []);
});
