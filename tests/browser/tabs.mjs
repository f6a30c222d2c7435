// The Node side of the browser host tests: the repository served on 127.0.0.1, one Chromium
// with one context (its tabs share OPFS, IndexedDB, Web Locks and BroadcastChannels), tabs with
// memdir loaded, and `inPage` to run a function there with tests/browser/host-pages.mjs.
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";
import { launchChromium } from "./chromium.mjs";
import { serveStatic } from "./static-server.mjs";

/** Runs `fn(helpers, arg)` in `page`, with tests/browser/host-pages.mjs as `helpers`. */
export const inPage = (page, fn, arg) =>
  page.evaluate(
    async ({ source, arg }) => {
      const helpers = await import("/tests/browser/host-pages.mjs");
      return (0, eval)(`(${source})`)(helpers, arg);
    },
    { source: fn.toString(), arg },
  );

/** Opens `page` on the blank page of `url` (the served repository) and loads memdir there. */
export async function loadMemdir(page, url) {
  await page.goto(`${url}/tests/browser/blank.html`);
  await page.evaluate(async () => (await import("/tests/browser/host-pages.mjs")).memdir.init());
}

/**
 * Registers `before`/`after` hooks that serve the repository and start Chromium; returns the
 * shared state: `server`, `context` (set once started), `errors` (every tab's page errors) and
 * `tab()`, a new tab of the shared context with memdir loaded.
 */
export function sharedTabs() {
  const shared = { server: null, browser: null, context: null, errors: [] };
  before(async () => {
    shared.server = await serveStatic(fileURLToPath(new URL("../..", import.meta.url)));
    shared.browser = await launchChromium();
    shared.context = await shared.browser.newContext();
  });
  after(async () => {
    await shared.browser?.close();
    await shared.server?.close();
  });
  shared.tab = async () => {
    const page = await shared.context.newPage();
    page.on("pageerror", (e) => shared.errors.push(e.message));
    await loadMemdir(page, shared.server.url);
    return page;
  };
  return shared;
}
