// The browser hosts in headless Chromium: OpfsHost and IndexedDbHost pass the same conformance
// cases as the Node hosts (tests/js/host-conformance.mjs, run in the page), then what only a
// browser has: the secure-context rules, browserHost's choice, tabs writing at once through the
// Web Lock, a tab closed while it holds the lock, a whole memory workflow, a reload.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./chromium.mjs";
import { serveStatic } from "./static-server.mjs";

let server, browser, context;
const errors = [];

before(async () => {
  server = await serveStatic(fileURLToPath(new URL("../..", import.meta.url)));
  browser = await launchChromium();
  context = await browser.newContext();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A new tab of the shared context (tabs of one context share OPFS, IndexedDB and Web Locks), with memdir loaded. */
async function tab() {
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${server.url}/tests/browser/blank.html`);
  await page.evaluate(async () => {
    const m = await import("/tests/browser/host-pages.mjs");
    await m.memdir.init();
  });
  return page;
}

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
