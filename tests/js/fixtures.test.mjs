// The shared fixtures, run through the built package as a user imports it, by the checker the
// Chromium page uses too (tests/fixtures/check.mjs).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import "memdir";
import * as memdir from "../../pkg/internal.js";
import { checkCase, fixtureFiles } from "./fixture-runner.mjs";

const files = fixtureFiles();

for (const { file, about, cases } of files) {
  describe(`${file} — ${about}`, () => {
    for (const c of cases) {
      test(c.name, () => {
        const failures = checkCase(c, memdir);
        if (failures.length) assert.fail(failures.join("\n"));
      });
    }
  });
}

test("every pure core function (the synchronous exports of js/core.ts) has fixture cases", () => {
  const source = readFileSync(new URL("../../js/core.ts", import.meta.url), "utf8");
  const exported = [...source.matchAll(/^export function (\w+)/gm)].map((m) => m[1]).filter((n) => !["initSync", "isReady", "moduleInstance", "newScanSession", "sessionCall"].includes(n)); // the scan session's plumbing: tests/js/scan-session.test.mjs
  const called = new Set(files.flatMap((f) => f.cases.map((c) => c.call)));
  assert.ok(exported.length > 30, "the exports were found");
  assert.deepEqual(exported.filter((n) => !called.has(n)), []);
});

