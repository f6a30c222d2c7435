// Reads tests/fixtures/*.json, the cases shared with tests/fixtures.rs. The checking itself is
// tests/fixtures/check.mjs, which the Chromium page loads too.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export { checkCase, checkFiles, expand } from "../fixtures/check.mjs";

export const fixturesDir = fileURLToPath(new URL("../fixtures/", import.meta.url));

export function fixtureFiles() {
  return readdirSync(fixturesDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(fixturesDir + file, "utf8")) }));
}
