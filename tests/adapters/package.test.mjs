// `memdir/ai-sdk` as a user installs it: `ai` is an optional peer dependency, so installing
// memdir never installs it; an app that has `ai` imports the adapter from the packed tarball.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";

const root = fileURLToPath(new URL("../..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "memdir-ai-sdk-pack-"));
after(() => rmSync(work, { recursive: true, force: true }));

test("installing memdir does not install ai; with ai present, memdir/ai-sdk wraps a model", () => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.equal(manifest.peerDependenciesMeta?.ai?.optional, true);
  assert.ok(manifest.peerDependencies?.ai, "ai is a peer dependency");
  assert.equal(manifest.dependencies?.ai, undefined);

  const tgz = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", work], { cwd: root, encoding: "utf8" }).trim().split("\n").pop();
  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(work, tgz)], { cwd: app, stdio: "pipe" });
  assert.ok(existsSync(join(app, "node_modules/memdir/pkg/adapters/ai-sdk/index.js")), "the adapter ships");
  assert.ok(existsSync(join(app, "node_modules/memdir/pkg/adapters/ai-sdk/index.d.ts")), "with its types");
  assert.ok(!existsSync(join(app, "node_modules/ai")), "ai is not installed for an app that does not use it");

  // without ai: the main entry works, the adapter says what is missing
  writeFileSync(join(app, "main.mjs"), `import { openMemory } from "memdir";\nconsole.log(typeof openMemory);\n`);
  assert.equal(execFileSync(process.execPath, ["main.mjs"], { cwd: app, encoding: "utf8" }).trim(), "function");
  writeFileSync(join(app, "adapter.mjs"), `await import("memdir/ai-sdk");\n`);
  const missing = spawnSync(process.execPath, ["adapter.mjs"], { cwd: app, encoding: "utf8" });
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /Cannot find package 'ai'/);

  // with ai (the repository's copy, linked in): the adapter from the tarball wraps a model
  symlinkSync(join(root, "node_modules/ai"), join(app, "node_modules/ai"), "dir");
  writeFileSync(
    join(app, "adapter.mjs"),
    `import { InMemoryHost, openMemory } from "memdir";
import { memoryMiddleware } from "memdir/ai-sdk";
import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
const memory = await openMemory({ host: new InMemoryHost({ "MEMORY.md": "- [A](a.md) — alpha\\n" }, { root: "/m" }), selector: { provider: "lexical" } });
const model = new MockLanguageModelV4({ doGenerate: { content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: "stop" }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }, warnings: [] } });
await generateText({ model: wrapLanguageModel({ model, middleware: memoryMiddleware(memory) }), prompt: "hello there" });
console.log(JSON.stringify(model.doGenerateCalls[0].prompt[0].content.includes("- [A](a.md) — alpha")));
`,
  );
  assert.equal(execFileSync(process.execPath, ["adapter.mjs"], { cwd: app, encoding: "utf8" }).trim(), "true");
});
