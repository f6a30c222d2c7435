// Opt-in (MEMDIR_WORKBENCH=1; ~80 MB of packages and a 7 MB vite build): the web extension in
// VS Code's own workbench code, from npm (monaco-vscode-api, tests/vscode/workbench/), in
// Chromium. dist/web.js runs in the real web worker extension host; a local extension drives it
// through the real `vscode` API: the manifest's commands are registered, `memdir.doctor` reads
// the memory through `workspace.fs` (an in-memory `file://` workspace on the main thread) and
// its diagnostics reach the main thread with their ranges.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { after, test } from "node:test";
import { root, step } from "../../scripts/toolchain.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { extensionDir } from "./setup.mjs";

const enabled = process.env.MEMDIR_WORKBENCH === "1";
const harness = join(root, "tests", "vscode", "workbench");
const TYPES = { ".js": "text/javascript", ".json": "application/json", ".wasm": "application/wasm", ".html": "text/html", ".css": "text/css", ".svg": "image/svg+xml" };
const out = mkdtempSync(join(tmpdir(), "memdir-workbench-"));
after(() => rmSync(out, { recursive: true, force: true }));

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")}\n${r.stdout}\n${r.stderr}`);
}

test("the web extension in VS Code's workbench (monaco-vscode-api): commands, doctor over workspace.fs, diagnostics", { skip: !enabled && "set MEMDIR_WORKBENCH=1 to run it", timeout: 180_000 }, async () => {
  const hash = createHash("sha256").update(readFileSync(join(harness, "package-lock.json"))).digest("hex");
  const stamp = join(harness, "node_modules", ".memdir-lock-sha256");
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== hash) {
    step("npm ci (tests/vscode/workbench)", () => run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], harness));
    writeFileSync(stamp, hash);
  }
  step("vite build (tests/vscode/workbench)", () => run(process.execPath, [join(root, "node_modules", "vite", "bin", "vite.js"), "build", "--outDir", out, "--emptyOutDir"], harness));
  const server = createServer(async (req, res) => {
    let path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path === "/") path = "/index.html";
    const file = path === "/ext/package.json" ? join(extensionDir, "package.json") : path === "/ext/dist/web.js" ? join(extensionDir, "dist", "web.js") : join(out, path);
    if (path.includes("..")) return res.writeHead(403).end();
    const body = await readFile(file).catch(() => null);
    if (body === null) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const result = await page.evaluate(() => window.__result);
    assert.equal(result.error, undefined, `${result.error}\n${result.log?.join("\n")}`);
    assert.equal(result.doctor, "ran", result.log.join("\n"));
    const manifest = JSON.parse(readFileSync(join(extensionDir, "package.json"), "utf8"));
    assert.deepEqual(result.commands, manifest.contributes.commands.map((c) => c.command).sort());
    assert.deepEqual(result.diagnostics, [
      ["file:///workspace/memory/MEMORY.md", [{ code: "dead_link", source: "memdir", severity: 0, range: [1, 0, 1, "- [Gone](gone.md) — was here".length], message: "the entry links to gone.md, which does not exist (fix: remove line 2)" }]],
    ]);
  } finally {
    await browser.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
