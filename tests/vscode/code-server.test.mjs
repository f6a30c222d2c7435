// The extension in a real VS Code: code-server (scripts/code-server.mjs installs it from npm into
// ~/.cache/memdir; `npm test` does that first and names it in MEMDIR_CODE_SERVER) with the .vsix
// installed, driven through Debian's Chromium. Once in the Node (desktop) extension host and once
// in the web worker extension host (`remote.extensionKind`: web), each in one code-server: the
// Memory view, the Problems panel, every contributed command through the command palette
// (tests/vscode/code-server/scenario.mjs), no error in the extension host's log, and a screenshot
// of each kept in test-results/vscode/. Skipped, with the reason, only where code-server cannot
// be installed (scripts/test.mjs says why in MEMDIR_CODE_SERVER_SKIP); CI never skips it.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { codeServerInstalled, codeServerPaths } from "../../scripts/code-server.mjs";
import { root } from "../../scripts/toolchain.mjs";
import { launchChromium } from "../browser/chromium.mjs";
import { startMockProviders } from "../mock/providers.mjs";
import { API_KEY, FILES, STALE_MS, runScenario } from "./code-server/scenario.mjs";
import { startCodeServer, userSettings } from "./code-server/server.mjs";
import { Workbench } from "./code-server/workbench.mjs";
import { extensionDir, packVsix } from "./setup.mjs";

const EXTENSION_ID = "memdir.memdir-vscode";
const manifest = JSON.parse(readFileSync(join(extensionDir, "package.json"), "utf8"));
const artifacts = join(root, "test-results", "vscode");

function resolvePaths() {
  if (process.env.MEMDIR_CODE_SERVER) return { paths: codeServerPaths(process.env.MEMDIR_CODE_SERVER) };
  const installed = codeServerPaths();
  if (codeServerInstalled(installed)) return { paths: installed };
  return { skip: `code-server is not installed: ${process.env.MEMDIR_CODE_SERVER_SKIP ?? "npm test installs it (scripts/code-server.mjs)"}` };
}
const { paths, skip } = resolvePaths();
if (skip && process.env.CI) throw new Error(`CI must run the real-VS-Code test: ${skip}`);

const work = mkdtempSync(join(tmpdir(), "memdir-code-server-"));
after(() => rmSync(work, { recursive: true, force: true }));

let vsix;
function packedVsix() {
  if (vsix) return vsix;
  vsix = join(work, "memdir.vsix");
  const r = packVsix(vsix);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  return vsix;
}

/** Every line of the extension host's logs that is an error (`[error]`) and names memdir. */
function memdirErrors(text) {
  return text.split("\n").filter((line) => /\[error\]/i.test(line) && /memdir/i.test(line));
}

/** The web worker extension host writes its logs into the page's IndexedDB (vscode-logs-store). */
async function browserLogs(page) {
  return page.evaluate(async () => {
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open("vscode-web-db");
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const store = db.transaction("vscode-logs-store").objectStore("vscode-logs-store");
    const [keys, values] = await Promise.all(["getAllKeys", "getAll"].map((m) => new Promise((resolve) => (store[m]().onsuccess = (e) => resolve(e.target.result)))));
    return Object.fromEntries(keys.map((k, i) => [String(k), typeof values[i] === "string" ? values[i] : new TextDecoder().decode(values[i])]));
  });
}

const HOSTS = [
  { name: "desktop", label: "the Node (desktop) extension host", kind: ["workspace"], log: /remoteexthost\.log$/ },
  { name: "web", label: "the web worker extension host", kind: ["web"], log: /webWorker\/workerexthost\.log$/ },
];

describe("the extension in a real VS Code (code-server)", () => {
  for (const host of HOSTS) {
    test(`${host.label}: Memory view, diagnostics, every command, no error in the log`, { skip, timeout: 360_000 }, async (t) => {
      const log = (line) => t.diagnostic(line);
      const dir = join(work, host.name);
      const workspace = join(dir, "workspace");
      const memoryDir = join(workspace, "memory");
      mkdirSync(memoryDir, { recursive: true });
      for (const [file, text] of Object.entries(FILES)) writeFileSync(join(memoryDir, file), text);
      utimesSync(join(memoryDir, "feedback_tests.md"), STALE_MS / 1000, STALE_MS / 1000);
      // the model provider is the local mock (tests/mock/providers.mjs), reached from the host's
      // process (desktop) or from the browser's worker (web)
      const mock = await startMockProviders({ apiKey: API_KEY });
      const settings = userSettings({ "memdir.folder": "memory", "memdir.provider": "anthropic", "memdir.baseUrl": mock.url, "remote.extensionKind": { [EXTENSION_ID]: host.kind } });
      let server;
      try {
        server = await startCodeServer({ paths, vsix: packedVsix(), dir, workspace, settings });
      } catch (error) {
        await mock.close();
        throw error;
      }
      let browser;
      let wb;
      try {
        browser = await launchChromium();
        const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
        // nothing leaves 127.0.0.1: any other request is refused and reported
        const offLoopback = [];
        await context.route("**/*", (route) => {
          const url = new URL(route.request().url());
          if (url.hostname === "127.0.0.1" || url.protocol === "data:" || url.protocol === "blob:") return route.continue();
          offLoopback.push(url.href);
          return route.abort();
        });
        const page = await context.newPage();
        const consoleErrors = [];
        page.on("console", (m) => m.type() === "error" && /memdir/i.test(m.text()) && consoleErrors.push(m.text()));
        page.on("pageerror", (e) => /memdir/i.test(String(e?.stack ?? e)) && consoleErrors.push(String(e)));
        await page.goto(server.url);
        wb = new Workbench(page);
        await wb.ready();
        try {
          const seen = await runScenario({ wb, page, memoryDir, workspace, mock, log, hostKind: host.name });
          log(`doctor: ${seen.doctor}`);
          log(`extract: ${seen.extract}; consolidate: ${seen.consolidate}`);
        } finally {
          mkdirSync(artifacts, { recursive: true });
          const shot = join(artifacts, `code-server-${host.name}.png`);
          await page.screenshot({ path: shot }).catch(() => {});
          log(`screenshot: ${relative(root, shot)}`);
        }

        // where the extension ran, and its host's log: no error from memdir
        const logsDir = join(server.userDataDir, "logs");
        const serverLogs = Object.fromEntries(readdirSync(logsDir, { recursive: true }).filter((f) => f.endsWith(".log")).map((f) => [f, readFileSync(join(logsDir, f), "utf8")]));
        const logs = { ...serverLogs, ...(await browserLogs(page)) };
        const hostLog = Object.entries(logs).find(([f]) => host.log.test(f));
        assert.ok(hostLog, `no ${host.log} among ${Object.keys(logs).join(", ")}`);
        writeFileSync(join(artifacts, `code-server-${host.name}-exthost.log`), hostLog[1]);
        assert.match(hostLog[1], new RegExp(`ExtensionService#_doActivateExtension ${EXTENSION_ID.replace(".", "\\.")}`), "memdir activated in this host");
        const other = Object.entries(logs).filter(([f]) => /exthost\.log$/.test(f) && f !== hostLog[0]);
        for (const [f, text] of other) assert.doesNotMatch(text, new RegExp(`_doActivateExtension ${EXTENSION_ID.replace(".", "\\.")}`), `memdir activated in ${f} too`);
        assert.deepEqual(Object.entries(logs).flatMap(([f, text]) => memdirErrors(text).map((l) => `${f}: ${l}`)), []);
        assert.deepEqual(consoleErrors, []);
        assert.deepEqual(offLoopback, []);
        const contributed = manifest.contributes.commands.map((c) => `${c.category}: ${c.title}`);
        assert.deepEqual(contributed.filter((label) => !wb.ran.has(label)), [], "every command the manifest contributes was run from the palette");
      } finally {
        await browser?.close().catch(() => {});
        await server.stop();
        await mock.close();
      }
    });
  }
});
