// The package as a user installs it: `npm pack`, install the tarball into an empty project,
// then import it from plain Node ESM, from CommonJS via require(esm)-free dynamic import, and
// run the `memdir` bin. Checks that `files` ships everything the exports map points at.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";

const root = fileURLToPath(new URL("../..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "memdir-pack-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("npm pack → npm install → import and run", () => {
  const tgz = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", work], { cwd: root, encoding: "utf8" }).trim().split("\n").pop();
  const project = join(work, "app");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(work, tgz)], { cwd: project, stdio: "pipe" });
  const manifest = JSON.parse(readFileSync(join(project, "node_modules/memdir/package.json"), "utf8"));
  assert.deepEqual(manifest.dependencies ?? {}, {}, "no runtime dependencies");
  writeFileSync(join(project, "esm.mjs"), `import { truncateIndex, openMemory, MemdirError } from "memdir";\nconsole.log(JSON.stringify([truncateIndex(" a\\nb ").content, typeof openMemory, new MemdirError("X", "y").code]));\n`);
  assert.equal(execFileSync(process.execPath, ["esm.mjs"], { cwd: project, encoding: "utf8" }).trim(), JSON.stringify(["a\nb", "function", "X"]));
  writeFileSync(join(project, "cjs.cjs"), `import("memdir").then((m) => console.log(m.sanitizePath("/a/b")));\n`);
  assert.equal(execFileSync(process.execPath, ["cjs.cjs"], { cwd: project, encoding: "utf8" }).trim(), "-a-b");
  const help = execFileSync(join(project, "node_modules/.bin/memdir"), ["--help"], { encoding: "utf8" });
  assert.match(help, /^memdir — long-term memory/);
  const files = execFileSync("tar", ["-tzf", join(work, tgz)], { encoding: "utf8" });
  assert.match(files, /package\/pkg\/wasm\/memdir_bg\.wasm/);
  assert.doesNotMatch(files, /package\/(src|tests|js)\//);
});
