// Builds the extension the way extensions ship, with esbuild: `dist/desktop.js` (CommonJS for
// the Node extension host) and `dist/web.js` (CommonJS for the web worker host of vscode.dev),
// each one file carrying memdir and its wasm, `vscode` left to the host. `--test` also writes
// `out/logic.mjs`: the vscode-free logic as an ES module for tests/vscode/ (memdir external).
import { build } from "esbuild";
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));

/** Builds both bundles (and the logic for the tests with `test: true`); returns esbuild's metafiles' output sizes. */
export async function buildExtension({ test = false, minify = true } = {}) {
  const common = { absWorkingDir: dir, bundle: true, format: "cjs", external: ["vscode"], minify, sourcemap: false, target: "es2022", logLevel: "warning", metafile: true, legalComments: "none", write: false };
  const results = await Promise.all([
    build({ ...common, entryPoints: ["src/desktop.ts"], outfile: "dist/desktop.js", platform: "node" }),
    // a web worker: no `node:` module, `process` and `Buffer` are not there
    build({ ...common, entryPoints: ["src/web.ts"], outfile: "dist/web.js", platform: "browser", mainFields: ["browser", "module", "main"], define: { "process.env.NODE_ENV": '"production"' } }),
    ...(test ? [build({ ...common, entryPoints: ["src/logic/index.ts"], outfile: "out/logic.mjs", platform: "node", format: "esm", external: ["memdir", "memdir/*"], minify: false })] : []),
  ]);
  // written whole under a temporary name, then renamed: test files build at once in parallel
  for (const file of results.flatMap((r) => r.outputFiles)) {
    mkdirSync(dirname(file.path), { recursive: true });
    const tmp = `${file.path}.tmp-${process.pid}`;
    writeFileSync(tmp, file.contents);
    renameSync(tmp, file.path);
  }
  return Object.fromEntries(results.flatMap((r) => Object.entries(r.metafile.outputs).map(([file, o]) => [file, o.bytes])));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = await buildExtension({ test: process.argv.includes("--test") });
  for (const [file, bytes] of Object.entries(sizes)) console.log(`${file}: ${bytes.toLocaleString("en")} bytes`);
}
