// `npm run demo`: memdir on the bundled example memory. Git does not keep modification times,
// so each file's age is first set from examples/ages.json (days before now): that is what
// makes some memories stale, as they would be in a real memory directory.
import { readFileSync, readdirSync, statSync, utimesSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as memdir from "memdir";

const dir = fileURLToPath(new URL("../examples/memory/", import.meta.url));
const ages = JSON.parse(readFileSync(new URL("../examples/ages.json", import.meta.url), "utf8"));
const now = Date.now();
for (const [path, days] of Object.entries(ages)) {
  const when = new Date(now - days * 86_400_000 - 60_000);
  utimesSync(join(dir, path), when, when);
}

const walk = (d) => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
const files = walk(dir).map((abs) => ({
  path: relative(dir, abs).split("\\").join("/"),
  mtimeMs: statSync(abs).mtimeMs,
  head: readFileSync(abs, "utf8").split("\n").slice(0, 30).join("\n"),
}));

const index = memdir.truncateIndex(readFileSync(join(dir, "MEMORY.md"), "utf8"));
console.log(`# MEMORY.md: ${index.lineCount} lines, ${index.utf16Count} UTF-16 units${index.wasLineTruncated || index.wasSizeTruncated ? " (cut)" : ""}\n`);
console.log(index.content);
const scan = memdir.scanMemories(files);
console.log(`\n# Manifest: ${scan.memories.length} memories, ${scan.dropped.length} dropped, ${scan.diagnostics.length} diagnostics\n`);
console.log(memdir.formatManifest(scan.memories));
const oldest = scan.memories.at(-1);
const rendered = memdir.renderMemory({
  path: oldest.path,
  absolutePath: join(dir, oldest.path),
  mtimeMs: oldest.mtimeMs,
  content: readFileSync(join(dir, oldest.path), "utf8"),
  nowMs: now,
});
console.log(`\n# The oldest memory, as it would be injected (${rendered.utf16Count} UTF-16 units)\n`);
console.log(rendered.text);
