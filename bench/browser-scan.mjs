// Per-turn scan time of a browser memory in headless Chromium, at 200 and 1,000 files, listed
// every turn or watched (statMany), for OpfsHost and IndexedDbHost: the median of 15 warm
// turns each. A measurement, not a test: it was a diagnostic in tests/browser/watch.test.mjs
// that asserted nothing. Run it with `node scripts/build.mjs && node --test bench/browser-scan.mjs`
// (it uses the browser tests' shared tabs, which hook into node:test); figures print as `# ` lines.
import { test } from "node:test";
import { inPage, sharedTabs } from "../tests/browser/tabs.mjs";

const { tab } = sharedTabs();

test("per-turn scan time at 200 and 1,000 files, watched or listed every turn (a diagnostic, not asserted)", async (t) => {
  const page = await tab();
  for (const backend of ["OpfsHost", "IndexedDbHost"]) {
    for (const files of [200, 1_000]) {
      const ms = await inPage(
        page,
        async ({ memdir, backends, seedMemories, freshName }, { backend, files }) => {
          const name = freshName("timing");
          await seedMemories(backend, name, files, { gapMs: 0 });
          const out = {};
          for (const [label, cache] of [
            ["listed every turn (no watch)", { watch: false }],
            ["watched (statMany)", { fullCheckMs: 60_000 }],
          ]) {
            const memory = await memdir.openMemory({ host: await backends[backend].open(name), selector: { provider: "lexical" }, cache });
            await memory.scan();
            await new Promise((r) => setTimeout(r, 150));
            await memory.scan();
            const turns = [];
            for (let i = 0; i < 15; i++) {
              const begun = performance.now();
              await memory.scan();
              turns.push(performance.now() - begun);
            }
            memory.close();
            turns.sort((x, y) => x - y);
            out[label] = Math.round(turns[7] * 10) / 10;
          }
          return out;
        },
        { backend, files },
      );
      for (const [label, median] of Object.entries(ms)) t.diagnostic(`${backend}, ${files} files, ${label}: ${median} ms a turn (median of 15)`);
    }
  }
  await page.close();
});
