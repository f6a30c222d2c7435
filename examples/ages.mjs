// Git does not keep modification times, so the example memory's ages live in ages.json (days
// before now) and are applied to a directory holding a copy of examples/memory/ — the demo
// applies them in place, the tests to a temporary copy.
import { cpSync, mkdtempSync, readFileSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const exampleDir = fileURLToPath(new URL("./memory/", import.meta.url));
const ages = JSON.parse(readFileSync(new URL("./ages.json", import.meta.url), "utf8"));

/** Sets each file's mtime to `now` minus its age in ages.json (and one minute). */
export function applyAges(dir, now = Date.now()) {
  for (const [path, days] of Object.entries(ages)) {
    const when = new Date(now - days * 86_400_000 - 60_000);
    utimesSync(join(dir, path), when, when);
  }
  return dir;
}

/** A temporary copy of the example memory with its ages applied. */
export function copyExampleMemory(now = Date.now()) {
  const dir = join(mkdtempSync(join(tmpdir(), "memdir-example-")), "memory");
  cpSync(exampleDir, dir, { recursive: true });
  return applyAges(dir, now);
}
