// The shared fixtures, run through the built package as a user imports it.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as memdir from "memdir";
import { expand, fixtureFiles } from "./fixture-runner.mjs";

for (const { file, about, cases } of fixtureFiles()) {
  describe(`${file} — ${about}`, () => {
    for (const c of cases) {
      test(c.name, () => {
        const fn = memdir[c.call];
        assert.equal(typeof fn, "function", `memdir exports ${c.call}`);
        const args = (c.args ?? []).map(expand);
        if (c.expectError) {
          assert.throws(() => fn(...args), (e) => e instanceof memdir.MemdirError && e.code === c.expectError);
          return;
        }
        const got = fn(...args);
        if ("expect" in c) assert.deepStrictEqual(got ?? null, expand(c.expect));
        const codes = (report) => report.findings.map((f) => [f.code, f.file, f.line ?? null]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
        const sorted = (list) => [...list].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
        if (c.expectCodes) assert.deepStrictEqual(codes(got), sorted(c.expectCodes), "finding codes");
        if (c.expectAfterCodes) assert.deepStrictEqual(codes(got.after), sorted(c.expectAfterCodes), "finding codes after the fixes");
        for (const [key, want] of Object.entries(c.expectFields ?? {})) {
          assert.deepStrictEqual(got[key] ?? null, expand(want), `field ${key}`);
        }
      });
    }
  });
}
