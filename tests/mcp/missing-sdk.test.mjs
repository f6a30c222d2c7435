// memdir does not depend on @modelcontextprotocol/sdk (an optional peer dependency): only
// `memdir mcp` imports it, from memdir's folder or else from the project it runs in. Without
// it, `memdir mcp` says what to install and exits 4, and the rest of the CLI works. Shown for
// real on a copy of the built package in a folder with no SDK above it (run from a folder
// without one either), and for the loader's other failures with stand-in importers.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, parse } from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { loadSdk, SdkUnavailable } from "../../pkg/mcp/sdk.js";
import { baseEnv, bin, cleanUp, tempDir } from "./connect.mjs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

after(cleanUp);

function run(cli, args, cwd = tempDir()) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", env: baseEnv(), input: "", timeout: 30_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The built package alone, as `npm install memdir` leaves it without the SDK. */
function bareInstall() {
  const root = join(tempDir("memdir-bare-"), "node_modules", "memdir");
  cpSync(fileURLToPath(new URL("../../pkg", import.meta.url)), join(root, "pkg"), { recursive: true });
  cpSync(fileURLToPath(new URL("../../package.json", import.meta.url)), join(root, "package.json"));
  // nothing above it may hold the SDK, or the test would find it
  for (let dir = root; ; dir = dirname(dir)) {
    assert.ok(!existsSync(join(dir, "node_modules", "@modelcontextprotocol", "sdk")), `${dir}/node_modules has the SDK`);
    if (dir === parse(dir).root) break;
  }
  return join(root, "pkg", "cli", "main.js");
}

test("without the SDK: memdir mcp names the package to install and exits 4; the other commands work", () => {
  const cli = bareInstall();
  const dir = tempDir();
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploys](project_deploys.md) — Tuesdays\n");
  const r = run(cli, ["mcp", "--dir", dir]);
  assert.equal(r.code, 4, r.err);
  assert.equal(r.err, "memdir mcp needs @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk\n");
  assert.equal(r.out, "", "nothing on stdout, where a client expects the protocol");
  // the help does not need the SDK
  const help = run(cli, ["mcp", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /Needs @modelcontextprotocol\/sdk: npm install @modelcontextprotocol\/sdk/);
  // memdir help mcp is the same text, and memdir --help lists the command
  assert.equal(run(cli, ["help", "mcp"]).out, help.out);
  assert.match(run(cli, ["--help"]).out, /memdir mcp \[--read-only\] \[--no-index\]\n\s+serve the memory to MCP clients/);
  // and the rest of the CLI never loads it
  const index = run(cli, ["index", "--dir", dir]);
  assert.equal(index.code, 0, index.err);
  assert.match(index.out, /Deploys/);
});

test("the SDK in the project's node_modules (where npx leaves it when the project has it) is used", async () => {
  const cli = bareInstall();
  const project = tempDir("memdir-project-");
  symlinkSync(fileURLToPath(new URL("../../node_modules", import.meta.url)), join(project, "node_modules"), "dir");
  const dir = tempDir();
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "mcp", "--dir", dir], cwd: project, env: baseEnv(), stderr: "pipe" });
  const client = new Client({ name: "memdir-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "memory_create", arguments: { path: "/memories/notes.md", file_text: "hello\n" } });
    assert.equal(result.isError, false, result.content[0].text);
    assert.ok(existsSync(join(dir, "notes.md")));
  } finally {
    await client.close();
  }
  // and a project without it: the install line
  const empty = tempDir("memdir-project-");
  mkdirSync(join(empty, "node_modules"));
  assert.equal(run(cli, ["mcp", "--dir", dir], empty).code, 4);
});

test("bad arguments exit 2, a file where the folder should be exits 3 (the SDK present)", () => {
  const file = join(tempDir(), "not-a-dir");
  writeFileSync(file, "x");
  for (const args of [["--dir", "a", "--project", "b"], ["--bogus"], ["extra"], ["--provider", "gemini"], ["--timeout", "soon"], ["--max-files", "0"], ["--provider", "anthropic"], ["--no-fallback"], ["--json", "x"], ["--fix"]]) {
    const r = run(bin, ["mcp", ...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    // the CLI's parser and checks, word for word: the same message as any command's
    assert.match(r.err, /^memdir: .*\nmemdir: see memdir mcp --help\n$/);
    assert.equal(r.out, "");
  }
  const r = run(bin, ["mcp", "--dir", file]);
  assert.equal(r.code, 3, r.err);
  assert.equal(r.err, `memdir: ${file} is a file, not a memory directory\n`);
});

test("the loader: the package missing, one of its own imports missing, an SDK too old", async () => {
  const notFound = (what, from) => Object.assign(new Error(`Cannot find package '${what}' imported from ${from}`), { code: "ERR_MODULE_NOT_FOUND" });
  const missingHere = async () => {
    throw notFound("@modelcontextprotocol/sdk", "/app/node_modules/memdir/pkg/mcp/sdk.js");
  };
  const missingInProject = async (specifier) => {
    throw Object.assign(new Error(`Cannot find module '${specifier}'\nRequire stack:\n- /project/package.json`), { code: "MODULE_NOT_FOUND" });
  };
  await assert.rejects(
    loadSdk(missingHere, missingInProject),
    (e) => e instanceof SdkUnavailable && e.message === "memdir mcp needs @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk",
  );
  // missing beside memdir, found in the project: used
  const fromProject = await loadSdk(missingHere, (specifier) => import(specifier));
  assert.equal(typeof fromProject.StdioServerTransport, "function");
  // zod missing under the SDK's own folder is not "the SDK is missing": the message says what failed
  await assert.rejects(
    loadSdk(async () => {
      throw notFound("zod", "/app/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js");
    }, missingInProject),
    (e) => e instanceof SdkUnavailable && /^memdir mcp could not load @modelcontextprotocol\/sdk \(Cannot find package 'zod' .*\): npm install @modelcontextprotocol\/sdk@\^1\.32\.2$/.test(e.message),
  );
  await assert.rejects(
    loadSdk(async (specifier) => (specifier.endsWith("/types.js") ? { ErrorCode: {}, McpError: class {} } : { Server: class {}, StdioServerTransport: class {} })),
    (e) => e instanceof SdkUnavailable && /needs a newer @modelcontextprotocol\/sdk \(this one has no CallToolRequestSchema, ListToolsRequestSchema, /.test(e.message),
  );
  // the real one loads
  const sdk = await loadSdk();
  assert.equal(typeof sdk.Server, "function");
  assert.equal(typeof sdk.types.CallToolRequestSchema.parse, "function");
});
