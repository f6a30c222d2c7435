// The built bundles as VS Code loads them: dist/desktop.js required in Node with `vscode`
// answered by a fake (a Module._load hook), dist/web.js evaluated in a Chromium web worker with
// only `vscode` requirable. Both activate and run the same scenario (scenario.mjs); the commands
// and the view they register are the ones the manifest contributes.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { projectMemoryDir } from "memdir";
import { root } from "../../scripts/toolchain.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { serveStatic } from "../browser/static-server.mjs";
import { runScenario } from "./scenario.mjs";
import { extensionDir, sizes } from "./setup.mjs";

const manifest = JSON.parse(readFileSync(join(extensionDir, "package.json"), "utf8"));
const contributed = manifest.contributes.commands.map((c) => c.command).sort();

function checkScenario(out, memoryDir) {
  assert.deepEqual(out.errors, []);
  assert.deepEqual(out.commands, contributed);
  assert.deepEqual(out.trees, manifest.contributes.views.explorer.map((v) => v.id));
  assert.deepEqual(out.groups, [
    ["Feedback", "1", ["feedback_tests.md"]],
    ["No type", "1", ["project_broken.md"]],
  ]);
  assert.deepEqual(out.item, { label: "Integration tests", description: "feedback · today", resourceUri: `file://${memoryDir}/feedback_tests.md`, command: "vscode.open", icon: "note" });
  assert.deepEqual(out.diagnostics, {
    "MEMORY.md": [["dead_link", 1, "- [Gone](gone.md) — was here".length, 0]],
    "project_broken.md": [["frontmatter_malformed", 3, "type: *d".length, 0]],
  });
  // the first doctor's diagnostics replaced in one go: never a cleared or half-set collection on screen
  assert.ok(out.glimpses.seen.length >= 1, "doctor ran and cleared");
  assert.deepEqual(out.glimpses.seen, out.glimpses.seen.map(() => out.glimpses.final), JSON.stringify(out.glimpses));
  assert.equal(out.recall.uri, "memdir:/Recall.md");
  assert.equal(out.recall.language, "markdown");
  assert.match(out.recall.text, /\*\*selected\*\* by `lexical`[\s\S]*- `feedback_tests.md` — today[\s\S]*<system-reminder>/);
  assert.match(out.remembered, /^---\nname: Editor\ndescription: The user edits with vim keys\n[\s\S]*Prefers vim keybindings\.\n$/);
  assert.match(out.indexAfterRemember, /- \[Editor\]\(user_editor\.md\) — The user edits with vim keys\n$/);
  assert.equal(out.fixDeclined.diffLanguage, "diff");
  assert.match(out.fixDeclined.diff, /^--- a\/MEMORY\.md\n\+\+\+ b\/MEMORY\.md\n[\s\S]*\n-- \[Gone\]\(gone\.md\) — was here\n/);
  assert.equal(out.fixDeclined.unchanged, true);
  assert.deepEqual(out.fixDeclined.question.rest, [{ modal: true }, "Apply"]);
  assert.doesNotMatch(out.indexAfterFix, /gone\.md/);
  assert.match(out.indexAfterFix, /\[Integration tests\]\(feedback_tests\.md\)/);
  assert.deepEqual(out.diagnosticsAfterFix, { "project_broken.md": ["frontmatter_malformed"] });
  assert.deepEqual(out.secrets, { "memdir.apiKey.anthropic": "sk-ant-from-the-prompt" });
  assert.equal(out.failedDoctor, "resolved");
  assert.match(out.failedDoctorMessage, /^memdir: .*EACCES/);
  assert.equal(out.commandsAfterDispose, 0);
}

describe("the desktop bundle in Node, with a stubbed vscode module", () => {
  test("activates, registers the manifest's commands and view, and every command works", async () => {
    const home = join("/", "home", "tester");
    const previous = process.env.CLAUDE_CONFIG_DIR;
    process.env.CLAUDE_CONFIG_DIR = join(home, ".claude-config");
    const memoryDir = projectMemoryDir({ homeDir: home, projectRoot: "/work/project", configDir: process.env.CLAUDE_CONFIG_DIR }).replace(/\/$/, "");
    const realLoad = Module._load;
    const bundle = join(extensionDir, "dist", "desktop.js");
    try {
      const out = await runScenario({
        memoryDir,
        load(vscode) {
          Module._load = function (request, parent, isMain) {
            if (request === "vscode") return vscode;
            return realLoad.call(this, request, parent, isMain);
          };
          const require = createRequire(import.meta.url);
          delete require.cache[bundle];
          return require(bundle);
        },
      });
      checkScenario(out, memoryDir);
      console.log(`desktop bundle ${sizes["dist/desktop.js"]} B: require ${out.loadMs.toFixed(1)} ms (the wasm compiled on load), activate ${out.activateMs.toFixed(1)} ms`);
    } finally {
      Module._load = realLoad;
      if (previous === undefined) delete process.env.CLAUDE_CONFIG_DIR;
      else process.env.CLAUDE_CONFIG_DIR = previous;
    }
  });

  test("the manifest points at the bundles, which are CommonJS and leave vscode to the host", () => {
    assert.equal(manifest.main, "./dist/desktop.js");
    assert.equal(manifest.browser, "./dist/web.js");
    const desktop = readFileSync(join(extensionDir, "dist", "desktop.js"), "utf8");
    assert.match(desktop, /require\("vscode"\)/);
    assert.doesNotMatch(desktop, /^import |import\.meta/m);
  });
});

describe("the web bundle", () => {
  test("requires nothing but vscode: no node: module, no Node built-in", () => {
    const web = readFileSync(join(extensionDir, "dist", "web.js"), "utf8");
    const required = [...web.matchAll(/require\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(required)], ["vscode"]);
    assert.doesNotMatch(web, /["'`]node:[a-z]/);
  });

  let server, browser;
  before(async () => {
    server = await serveStatic(root);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test("activates in a Chromium web worker and every command works", async () => {
    const page = await browser.newPage();
    const pageErrors = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${server.url}/tests/browser/blank.html`);
    const result = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const worker = new Worker("/tests/vscode/web-worker.mjs", { type: "module" });
          worker.onmessage = (e) => resolve(e.data);
          worker.onerror = (e) => resolve({ ok: false, error: e.message ?? "worker error" });
          worker.postMessage("go");
        }),
    );
    assert.ok(result.ok, result.error);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual([...new Set(result.out.required)], ["vscode"]);
    assert.equal(result.out.hasProcess, false);
    checkScenario(result.out, "/work/project/memory");
    console.log(`web bundle ${sizes["dist/web.js"]} B: evaluate ${result.out.loadMs.toFixed(1)} ms, activate (init() inflates and compiles the wasm) ${result.out.activateMs.toFixed(1)} ms`);
  });
});
