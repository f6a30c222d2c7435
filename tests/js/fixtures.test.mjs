// The shared fixtures, run through the built package as a user imports it, by the checker the
// Chromium page uses too (tests/fixtures/check.mjs).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as memdir from "memdir";
import { checkCase, fixtureFiles } from "./fixture-runner.mjs";

for (const { file, about, cases } of fixtureFiles()) {
  describe(`${file} — ${about}`, () => {
    for (const c of cases) {
      test(c.name, () => {
        const failures = checkCase(c, memdir);
        if (failures.length) assert.fail(failures.join("\n"));
      });
    }
  });
}
