// memdir in every bundler, both targets, with no configuration: the packed package is
// installed into an empty project, the consumer of app/ is built by esbuild
// (Node CommonJS, Node ESM, browser), webpack 5 (Node as `yo code` sets it up, browser), rollup
// (Node, browser) and vite (SSR, browser, and its dev server), and every result must equal what
// the same consumer does under plain Node: a scan, a lexical recall, a recall through the mock
// model server on 127.0.0.1, and a refusal that is a MemdirError. Node bundles run alone, copied
// to a folder with no node_modules; browser bundles run in headless Chromium. No bundler may
// warn (webpack's size hints aside), and no build may carry a second copy of the module as a
// `.wasm` file.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { FILES } from "./app/exercise.js";
import { launchChromium } from "../browser/chromium.mjs";
import { serveStatic } from "../browser/static-server.mjs";
import { startMockProviders } from "../mock/providers.mjs";
import { BUILDS, buildAll, outputFiles, viteDev, writeConsumer } from "./bundlers.mjs";
import { packAndInstall, spawnText } from "./packed.mjs";

let work, project, memoryDir, mock, browser, builds, wallMs, reference;
const sizes = [];

before(async () => {
  work = mkdtempSync(join(tmpdir(), "memdir-bundlers-"));
  ({ project } = packAndInstall(work));
  writeConsumer(project);
  memoryDir = join(work, "memory");
  mkdirSync(memoryDir);
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(memoryDir, name), text);
  mock = await startMockProviders();
  [{ builds, wallMs }, browser] = await Promise.all([buildAll(project), launchChromium()]);
  reference = JSON.parse(await spawnText(process.execPath, ["src/node-app.js", memoryDir, mock.url], { cwd: project }));
});

after(async () => {
  await browser?.close();
  await mock?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the reference: the consumer under plain Node ESM, from the installed package", () => {
  assert.deepEqual(reference, {
    scanned: ["project_deploy.md", "user_role.md"],
    lexical: { outcome: "selected", paths: ["project_deploy.md"] },
    model: { outcome: "selected", selector: "openai", paths: ["project_deploy.md"], error: null },
    index: true,
    refused: "UNSAFE_PATH",
    nodeHost: "function",
  });
});

/** The build's files; fails on an error, a warning, or a .wasm file next to the JavaScript. */
function checkBuild(name) {
  const build = builds[name];
  assert.ok(build, `${name} did not report`);
  assert.equal(build.error, undefined, `${name} failed:\n${build.error}`);
  // webpack's production mode hints at any asset over 244 KiB; that is a size report, not a problem to fix
  const warnings = build.warnings.filter((w) => !/^(asset size limit|entrypoint size limit|webpack performance recommendations)/.test(w));
  assert.deepEqual(warnings, [], `${name} warned`);
  const files = outputFiles(build.outDir);
  assert.deepEqual(files.filter((f) => f.path.endsWith(".wasm")), [], `${name} emitted the module as a separate file`);
  const js = files.filter((f) => /\.(c|m)?js$/.test(f.path));
  const bytes = js.reduce((n, f) => n + f.bytes, 0);
  const gzip = js.reduce((n, f) => n + gzipSync(readFileSync(join(build.outDir, f.path)), { level: 9 }).length, 0);
  sizes.push({ name, bytes, gzip, ms: Math.round(build.ms) });
  return build;
}

for (const { name, single } of BUILDS.filter((b) => b.target === "node")) {
  test(`${name}: builds without a warning and runs ${single ? "alone, with no node_modules" : "in the project"}`, async () => {
    const build = checkBuild(name);
    let file = join(build.outDir, build.run);
    if (single) {
      const alone = join(work, `alone-${name}`);
      mkdirSync(alone);
      copyFileSync(file, join(alone, basename(file)));
      file = join(alone, basename(file));
    }
    const out = await spawnText(process.execPath, [file, memoryDir, mock.url], { cwd: single ? join(file, "..") : project });
    assert.deepEqual(JSON.parse(out), reference);
  });
}

/** Opens `url` in a fresh page and returns what the consumer computed, with the page's errors and failed requests. */
async function runPage(url) {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  try {
    await page.goto(`${url}${url.includes("?") ? "&" : "?"}mock=${encodeURIComponent(mock.url)}`);
    await page.waitForFunction(() => globalThis.memdirResult !== undefined, null, { timeout: 30_000 });
    const result = await page.evaluate(() => globalThis.memdirResult.then((r) => r, (e) => ({ threw: `${e?.name}: ${e?.message}` })));
    return { result, problems };
  } finally {
    await page.close();
  }
}

for (const { name } of BUILDS.filter((b) => b.target === "browser")) {
  test(`${name}: builds without a warning and runs in Chromium after a bare init()`, async () => {
    const build = checkBuild(name);
    const server = await serveStatic(build.outDir);
    try {
      const { result, problems } = await runPage(`${server.url}/index.html`);
      const { nodeHost, ...expected } = reference;
      assert.equal(nodeHost, "function");
      assert.deepEqual(result, expected);
      assert.deepEqual(problems, []);
    } finally {
      await server.close();
    }
  });
}

test("vite's dev server (dependencies pre-bundled) serves it to Chromium without a warning", async () => {
  const dev = await viteDev(project);
  try {
    const { result, problems } = await runPage(`${dev.url}/index.html`);
    const { nodeHost, ...expected } = reference;
    assert.ok(nodeHost);
    assert.deepEqual(result, expected);
    assert.deepEqual(problems, []);
    assert.deepEqual(dev.warnings, []);
  } finally {
    await dev.close();
  }
});

test("in Chromium, the module loaded by the page itself: init(url), init(Response), initSync(bytes); a missing file is IO_ERROR", async () => {
  const server = await serveStatic(join(project, "node_modules/memdir"));
  const result = {};
  try {
    for (const how of ["url", "string", "response", "bytes", "missing"]) {
      const page = await browser.newPage(); // one module instance per page
      try {
        await page.goto(`${server.url}/package.json`);
        result[how] = await page.evaluate(async (how) => {
          const m = await import("/pkg/entry/browser.js");
          const wasm = new URL("/pkg/wasm/memdir_bg.wasm", location.href);
          try {
            if (how === "url") await m.init(wasm);
            if (how === "string") await m.init(wasm.pathname);
            if (how === "response") await m.init(fetch(wasm));
            if (how === "bytes") m.initSync(new Uint8Array(await (await fetch(wasm)).arrayBuffer()));
            if (how === "missing") await m.init("/pkg/wasm/missing.wasm");
            return m.sanitizePath("/a/b");
          } catch (e) {
            return e instanceof m.MemdirError ? e.code : String(e);
          }
        }, how);
      } finally {
        await page.close();
      }
    }
  } finally {
    await server.close();
  }
  assert.deepEqual(result, { url: "-a-b", string: "-a-b", response: "-a-b", bytes: "-a-b", missing: "IO_ERROR" });
});

test("bundle sizes (the consumer plus memdir, the module inline most of it)", (t) => {
  assert.ok(sizes.length > 0);
  const inline = statSync(join(project, "node_modules", "memdir", "pkg", "wasm", "inline.js")).size;
  t.diagnostic(`the module inline (deflated, base64): ${inline.toLocaleString("en")} bytes`);
  for (const s of sizes.sort((a, b) => a.name.localeCompare(b.name))) {
    t.diagnostic(`${s.name.padEnd(18)} ${s.bytes.toLocaleString("en").padStart(9)} bytes, ${s.gzip.toLocaleString("en").padStart(9)} gzip -9, built in ${s.ms} ms`);
  }
  t.diagnostic(`all builds: ${Math.round(wallMs)} ms wall, two processes`);
});
