// The package as npm users get it: `npm pack`, installed from the tarball alone into an empty
// project, then each documented way in: Node ESM (a relative `dir` named absolutely
// everywhere), `require("memdir")`, a CommonJS bundle that runs with no node_modules, and
// `initSync(bytes)` with the bytes of `memdir/memdir.wasm` read by the host itself. Also what
// the tarball and its package.json hold.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, before, test } from "node:test";
import { installTarball, packAndInstall, root, spawnText } from "./packed.mjs";

let work, tgz, project, installed, manifest;

before(() => {
  work = mkdtempSync(join(tmpdir(), "memdir-install-"));
  ({ tgz, project } = packAndInstall(work));
  installed = join(project, "node_modules/memdir");
  manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const node = (args, options = {}) => spawnText(process.execPath, args, { cwd: project, ...options });

test("the tarball: LICENSE, CHANGELOG, README, the entries and both copies of the module; no sources, stamp or glue types", () => {
  const files = execFileSync("tar", ["-tzf", tgz], { encoding: "utf8" }).trim().split("\n").map((f) => f.replace(/^package\//, ""));
  for (const file of ["LICENSE", "CHANGELOG.md", "README.md", "package.json", "pkg/entry/node.js", "pkg/entry/node.d.ts", "pkg/entry/node.d.cts", "pkg/entry/browser.js", "pkg/entry/browser.d.ts", "pkg/entry/browser.d.cts", "pkg/wasm/inline.js", "pkg/wasm/memdir_bg.wasm", "pkg/wasm/memdir.wasm.d.ts", "pkg/cli/main.js"]) {
    assert.ok(files.includes(file), `${file} is in the tarball`);
  }
  assert.deepEqual(files.filter((f) => /^(src|js|tests|scripts)\//.test(f) || f === "pkg/.stamp" || f === "pkg/wasm/memdir.d.ts"), []);
  assert.match(readFileSync(join(installed, "LICENSE"), "utf8"), /^MIT License\n\nCopyright \(c\) \d{4} memdir contributors\n/);
  assert.equal(readFileSync(join(installed, "CHANGELOG.md"), "utf8"), readFileSync(join(root, "CHANGELOG.md"), "utf8"));
});

/** Every file path an exports map names, at any depth. */
function targets(value) {
  if (typeof value === "string") return [value];
  return Object.values(value).flatMap(targets);
}

test("package.json: where it lives, what it is, what it needs, and every export and side effect exists", () => {
  assert.equal(manifest.license, "MIT");
  assert.match(manifest.repository.url, /^git\+https:\/\/github\.com\/.+\.git$/);
  assert.match(manifest.homepage, /^https:\/\//);
  assert.match(manifest.bugs.url, /^https:\/\/.+\/issues$/);
  assert.ok(manifest.keywords.length >= 5);
  assert.deepEqual(manifest.dependencies ?? {}, {}, "no runtime dependencies");
  assert.ok(satisfies(process.versions.node, manifest.engines.node), `Node ${process.versions.node} satisfies engines ${manifest.engines.node}`);
  // require(esm) arrived unflagged in 20.19 and 22.12: engines must not promise it earlier
  for (const early of ["20.0.0", "20.18.3", "21.7.0", "22.11.0"]) assert.ok(!satisfies(early, manifest.engines.node), `engines excludes ${early}`);
  for (const ok of ["20.19.0", "22.12.0", "24.0.0"]) assert.ok(satisfies(ok, manifest.engines.node), `engines includes ${ok}`);
  for (const target of targets(manifest.exports)) assert.ok(existsSync(join(installed, target)), `${target} exists`);
  assert.ok(Array.isArray(manifest.sideEffects), "sideEffects names the entries (false let bundlers drop the Node entry's loading)");
  assert.ok(manifest.sideEffects.includes("./pkg/entry/node.js"));
  for (const file of manifest.sideEffects) assert.ok(existsSync(join(installed, file)), `${file} exists`);
});

/** `version` against a range of `||`-joined `^x.y.z` / `>=x.y.z` (all engines uses). */
function satisfies(version, range) {
  const parse = (v) => v.split(".").map(Number);
  const cmp = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const v = parse(version);
  return range.split("||").some((part) => {
    const [, op, bound] = /^\s*(\^|>=)(\d+\.\d+\.\d+)\s*$/.exec(part) ?? assert.fail(`unexpected range part ${part}`);
    const b = parse(bound);
    return op === ">=" ? cmp(v, b) >= 0 : v[0] === b[0] && cmp(v, b) >= 0;
  });
}

const REMEMBER = `{ type: "project", name: "Deploy", description: "staging deploy checklist", body: "Smoke tests first." }`;

test("Node ESM with a relative dir: absolutePath, the index, instructions() and recall all name the absolute folder", async () => {
  writeFileSync(
    join(project, "esm.mjs"),
    `import { openMemory } from "memdir";
const memory = await openMemory({ dir: "notes/memory", selector: { provider: "lexical" } });
const written = await memory.remember(${REMEMBER});
const recalled = await memory.recall("how do we deploy to staging?");
console.log(JSON.stringify({ root: memory.host.root, written: written.absolutePath, index: (await memory.index()).prompt.split("\\n")[0], instructions: memory.instructions(), recalled: recalled.memories.map((m) => m.absolutePath) }));
`,
  );
  const out = JSON.parse(await node(["esm.mjs"]));
  const dir = join(project, "notes/memory");
  assert.equal(out.root, dir);
  assert.equal(out.written, join(dir, "project_deploy.md"));
  assert.ok(out.index.includes(join(dir, "MEMORY.md")), out.index);
  assert.ok(out.instructions.includes(`\`${dir}\``), "instructions() tell the model the absolute folder");
  assert.ok(!/`\.?\/?notes\/memory/.test(out.instructions), "and never the relative one");
  assert.deepEqual(out.recalled, [join(dir, "project_deploy.md")]);
});

test("require('memdir') from CommonJS (Node 20.19+): the same module as import, loaded, with NodeHost", async () => {
  writeFileSync(
    join(project, "cjs.cjs"),
    `const memdir = require("memdir");
import("memdir").then(async (esm) => {
  const memory = await memdir.openMemory({ dir: "cjs-memory" });
  const written = await memory.remember(${REMEMBER});
  console.log(JSON.stringify({ same: esm.MemdirError === memdir.MemdirError && esm.openMemory === memdir.openMemory, ready: memdir.isReady(), nodeHost: typeof memdir.NodeHost, file: written.file, path: memdir.sanitizePath("/a/b") }));
});
`,
  );
  assert.deepEqual(JSON.parse(await node(["cjs.cjs"])), { same: true, ready: true, nodeHost: "function", file: "project_deploy.md", path: "-a-b" });
});

test("a CommonJS bundle (esbuild, platform node) runs alone, with no node_modules and no .wasm beside it", async () => {
  writeFileSync(join(project, "bundle-me.js"), `import { openMemory } from "memdir";\nopenMemory({ dir: process.argv[2] }).then(async (m) => console.log((await m.remember(${REMEMBER})).absolutePath));\n`);
  const esbuild = createRequire(import.meta.url)("esbuild");
  const result = await esbuild.build({ absWorkingDir: project, entryPoints: ["bundle-me.js"], bundle: true, platform: "node", format: "cjs", outfile: join(project, "out/extension.js"), logLevel: "silent" });
  assert.deepEqual(result.warnings, []);
  const alone = join(work, "alone");
  mkdirSync(alone);
  copyFileSync(join(project, "out/extension.js"), join(alone, "extension.js"));
  assert.equal((await node([join(alone, "extension.js"), join(work, "bundled-memory")], { cwd: alone })).trim(), join(work, "bundled-memory/project_deploy.md"));
});

test("initSync(bytes) with memdir/memdir.wasm read by the host (as a VS Code web extension through workspace.fs)", async () => {
  writeFileSync(
    join(project, "init-sync.mjs"),
    `import { readFile } from "node:fs/promises";
import { builtinModules, createRequire } from "node:module";
import { initSync, isReady, truncateIndex, MemdirError } from "memdir/browser";
const code = (f) => { try { f(); return "ok"; } catch (e) { return e instanceof MemdirError ? e.code : String(e); } };
const before = code(() => truncateIndex("x"));
const bytes = await readFile(createRequire(import.meta.url).resolve("memdir/memdir.wasm"));
const notBytes = code(() => initSync("memdir.wasm"));
const notTheModule = code(() => initSync(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])));
initSync(bytes);
console.log(JSON.stringify({ before, notBytes, notTheModule, ready: isReady(), view: truncateIndex(" a\\nb ").content }));
`,
  );
  assert.deepEqual(JSON.parse(await node(["init-sync.mjs"])), { before: "NOT_INITIALIZED", notBytes: "INVALID_ARGUMENT", notTheModule: "IO_ERROR", ready: true, view: "a\nb" });
});

test("the browser entry: a bare init() loads the module it carries (DecompressionStream, in Node too); dir needs Node", async () => {
  writeFileSync(
    join(project, "init.mjs"),
    `import { init, isReady, openMemory, sanitizePath, MemdirError } from "memdir/browser";
const code = async (f) => { try { await f(); return "ok"; } catch (e) { return e instanceof MemdirError ? [e.code, e.message] : String(e); } };
const bad = await code(() => init(42));
await init();
const dir = await code(() => openMemory({ dir: "memory" }));
console.log(JSON.stringify({ bad: bad[0], ready: isReady(), path: sanitizePath("/x/y"), dir }));
`,
  );
  const out = JSON.parse(await node(["init.mjs"]));
  assert.deepEqual({ ...out, dir: out.dir[0] }, { bad: "INVALID_ARGUMENT", ready: true, path: "-x-y", dir: "INVALID_ARGUMENT" });
  assert.match(out.dir[1], /`dir` and `projectRoot` open a folder through Node.*pass a `host`/, "openMemory({dir}) outside Node says what to do");
});

/** Every module reachable from `entry` through relative static or dynamic imports, with the specifiers it imports. */
function graph(entry) {
  const seen = new Map();
  const visit = (file) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, ""); // code, not comments
    const specifiers = [...text.matchAll(/(?:^|[;\s})])(?:import|export)\s*(?:[\w*{}\s,$]*?\bfrom\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? m[2]);
    seen.set(file, { text, specifiers });
    for (const s of specifiers) if (s.startsWith(".")) visit(join(dirname(file), s));
  };
  visit(entry);
  return seen;
}

test("the browser entry's module graph imports nothing from Node; only Node's own entry uses import.meta", () => {
  const browser = graph(join(installed, "pkg/entry/browser.js"));
  assert.ok(browser.size > 20, "the walk follows the imports");
  const nodeOnly = (s) => s.startsWith("node:") || builtinModules.includes(s.split("/")[0]);
  const fromNode = [...browser].flatMap(([file, { specifiers }]) => specifiers.filter(nodeOnly).map((s) => `${relative(installed, file)}: ${s}`));
  assert.deepEqual(fromNode, []);
  const metaUsers = (entry) => [...graph(join(installed, `pkg/entry/${entry}.js`))].filter(([, { text }]) => /\bimport\.meta\b/.test(text)).map(([file]) => relative(installed, file));
  // what bundlers take (the module condition, or no node condition): import.meta is empty in a CommonJS bundle
  assert.deepEqual(metaUsers("browser"), []);
  assert.deepEqual(metaUsers("node-bundled"), []);
  assert.deepEqual(metaUsers("node"), ["pkg/entry/node.js"], "Node's own entry finds memdir.wasm next to itself");
  const nodeGraph = graph(join(installed, "pkg/entry/node-bundled.js"));
  assert.ok([...nodeGraph.values()].some(({ specifiers }) => specifiers.includes("node:zlib")), "the check sees node: imports where there are some");
});

test("the memdir bin is the bundled CLI: a few files of its own, not the library's modules; it recalls from the tarball", async () => {
  assert.deepEqual(manifest.bin, { memdir: "./pkg/cli/main.js" });
  const cli = graph(join(installed, "pkg/cli/main.js"));
  const files = [...cli.keys()].map((file) => relative(installed, file));
  assert.ok(files.every((file) => dirname(file) === "pkg/cli"), `the CLI imports only its own chunks: ${files.join(", ")}`);
  // main.js (arguments, help), the commands with the core, the MCP server, the PostgreSQL host
  // (loaded only by --database), what they share; unbundled it was some 45 modules
  assert.ok(files.length >= 3 && files.length <= 9, `${files.length} files: ${files.join(", ")}`);
  const postgres = files.filter((file) => cli.get(join(installed, file)).text.includes("pg_try_advisory_lock"));
  assert.equal(postgres.length, 1, "the PostgreSQL host is in one chunk of its own");
  assert.ok(!cli.get(join(installed, postgres[0])).text.includes("lexicalSelect"), "and not in the core's");
  const core = files.filter((file) => cli.get(join(installed, file)).text.includes("lexicalSelect"));
  assert.equal(core.length, 1, "the core's glue is in one chunk");
  assert.ok(!cli.get(join(installed, "pkg/cli/main.js")).text.includes("lexicalSelect"), "--help and --version load no core");
  const dir = join(work, "bin-memory");
  mkdirSync(dir);
  writeFileSync(join(dir, "project_deploys.md"), "---\nname: Deploy freeze\ndescription: production deploys freeze on Fridays after 14:00\ntype: project\n---\n\nAsk the release manager first.\n");
  writeFileSync(join(dir, "user_tea.md"), "---\nname: Tea\ndescription: the user likes green tea\ntype: user\n---\n");
  const bin = join(project, "node_modules/.bin/memdir");
  const out = JSON.parse(await spawnText(bin, ["recall", "can we deploy to production on friday afternoon", "--dir", dir, "--json"], { cwd: project, env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } }));
  assert.equal(out.selector, "lexical");
  assert.deepEqual(out.memories.map((m) => m.path), ["project_deploys.md"]);
  assert.match(await spawnText(bin, ["--version"], { cwd: project }), new RegExp(`^memdir ${manifest.version.replaceAll(".", "\\.")}\n$`));
});

test("a newcomer's install (README, Install): the example memory travels; recall on it, and the MCP server as a client configuration starts it (absolute bin, stdio, the real MCP SDK client)", async () => {
  const examples = join(installed, "examples/memory");
  for (const file of readdirSync(join(root, "examples/memory"), { recursive: true }).filter((f) => f.endsWith(".md"))) {
    assert.equal(readFileSync(join(examples, file), "utf8"), readFileSync(join(root, "examples/memory", file), "utf8"), `examples/memory/${file} travels unchanged`);
  }
  // a project of its own: the tarball, then `npm install @modelcontextprotocol/sdk` — here the
  // repository's copy and its dependencies alone, linked (offline), so the bin can reach nothing else
  const app = installTarball(tgz, work, "newcomer");
  const bin = join(app, "node_modules/.bin/memdir");
  const env = { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" };
  const query = "a customer says their invoice total is a few cents off — where do I start?";
  const out = JSON.parse(await spawnText(bin, ["recall", query, "--dir", "node_modules/memdir/examples/memory", "--json"], { cwd: app, env }));
  assert.equal(out.outcome, "selected");
  assert.ok(out.memories.some((m) => m.path === "feedback_money_integer_cents.md"), out.memories.map((m) => m.path).join(", "));
  const closure = new Set();
  const visit = (name) => {
    if (closure.has(name)) return;
    closure.add(name);
    const meta = JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8"));
    for (const dep of Object.keys({ ...meta.dependencies, ...meta.peerDependencies })) if (existsSync(join(root, "node_modules", dep, "package.json"))) visit(dep);
  };
  visit("@modelcontextprotocol/sdk");
  for (const name of closure) {
    if (existsSync(join(app, "node_modules", name))) continue;
    mkdirSync(dirname(join(app, "node_modules", name)), { recursive: true });
    symlinkSync(join(root, "node_modules", name), join(app, "node_modules", name), "dir");
  }
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  // what Claude Desktop does with {"command": "<project>/node_modules/.bin/memdir", "args": ["mcp", "--dir", …]}: no cwd of ours
  const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--dir", examples], env, cwd: tmpdir(), stderr: "pipe" });
  const client = new Client({ name: "newcomer", version: "1.0.0" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ["recall", "remember", "doctor", "memory_view"]) assert.ok(tools.includes(name), `${name} in ${tools.join(", ")}`);
    const recalled = await client.callTool({ name: "recall", arguments: { query } });
    assert.equal(recalled.isError, false);
    assert.match(recalled.content[0].text, /chosen by the lexical selector: .*feedback_money_integer_cents\.md/);
  } finally {
    await client.close();
  }
});

test("a bundle that skipped the module condition: calls say why (NOT_INITIALIZED) until initSync(bytes of memdir/memdir.wasm)", async () => {
  writeFileSync(
    join(project, "no-module-condition.js"),
    `import { initSync, isReady, sanitizePath, MemdirError } from "memdir";
import { readFileSync } from "node:fs";
let before;
try { sanitizePath("/a"); } catch (e) { before = e instanceof MemdirError ? [e.code, e.message] : String(e); }
initSync(readFileSync(process.argv[2]));
console.log(JSON.stringify({ before, ready: isReady(), path: sanitizePath("/a/b") }));
`,
  );
  const esbuild = createRequire(import.meta.url)("esbuild");
  // custom conditions replace esbuild's default ones, `module` among them
  await esbuild.build({ absWorkingDir: project, entryPoints: ["no-module-condition.js"], bundle: true, platform: "node", format: "cjs", conditions: ["production"], outfile: join(project, "out/plain.cjs"), logLevel: "silent" });
  assert.ok(!readFileSync(join(project, "out/plain.cjs"), "utf8").includes("wasmDeflatedBase64"), "it took Node's entry, which reads the file");
  const out = JSON.parse(await node([join(project, "out/plain.cjs"), join(installed, "pkg/wasm/memdir_bg.wasm")]));
  assert.equal(out.before[0], "NOT_INITIALIZED");
  assert.match(out.before[1], /could not read memdir\.wasm next to its Node entry .*initSync\(bytes\)/);
  assert.deepEqual({ ready: out.ready, path: out.path }, { ready: true, path: "-a-b" });
});
