// Reads tests/fixtures/*.json, the cases shared with tests/fixtures.rs.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export { expand } from "./expand.mjs";

export const fixturesDir = fileURLToPath(new URL("../fixtures/", import.meta.url));

export function fixtureFiles() {
  return readdirSync(fixturesDir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(fixturesDir + file, "utf8")) }));
}
