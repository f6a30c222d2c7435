// `memdir mcp` ends with its client: stdin's end, SIGTERM and SIGINT stop it at once, a
// recall's model call in flight aborted (issue 21, defect 3: it waited for the call's deadline,
// still running 15 s after SIGTERM). And a folder that can never be made, below a file, exits 3
// as the other commands do (defect 6 of the issue: it served and exited 0). The real server
// (pkg/cli/main.js) over raw stdio, the provider the repo's mock on 127.0.0.1, answering never.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startMockProviders } from "../mock/providers.mjs";
import { baseEnv, bin, cleanUp, tempDir } from "./connect.mjs";

const KEY = "sk-ant-lifecycle-7c1e";
/** How long a test waits for the process to end before it calls it hung (a hang guard: the model call's own deadline is 10 minutes). */
const HANG_GUARD_MS = 10_000;

let mock;
before(async () => {
  mock = await startMockProviders({ apiKey: KEY });
});
after(async () => {
  await mock?.close();
  cleanUp();
});

function seeded() {
  const dir = tempDir();
  writeFileSync(join(dir, "project_deploys.md"), "---\nname: Deploys\ndescription: production deploys freeze on Fridays\ntype: project\n---\nNo deploys on Friday.\n");
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploys](project_deploys.md) — production deploys freeze on Fridays\n");
  return dir;
}

const message = (m) => `${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`;

/** `memdir mcp` with a recall in flight: the provider has the request and will never answer. */
async function serverWithRecallInFlight() {
  mock.reset();
  mock.script({ hang: true });
  const dir = seeded();
  const child = spawn(process.execPath, [bin, "mcp", "--dir", dir, "--provider", "anthropic", "--base-url", mock.url, "--timeout", "600000"], {
    env: baseEnv({ ANTHROPIC_API_KEY: KEY }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.stdin.write(message({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }));
  child.stdin.write(message({ method: "notifications/initialized" }));
  child.stdin.write(message({ id: 2, method: "tools/call", params: { name: "recall", arguments: { query: "can we deploy to production on friday" } } }));
  while (mock.requests().length === 0) {
    const early = await Promise.race([exited, new Promise((r) => setTimeout(r, 20))]);
    if (early) assert.fail(`the server exited before its model call: ${JSON.stringify(early)}\n${err}`);
  }
  assert.equal(mock.requests()[0].route, "anthropic");
  return { child, exited, output: () => ({ out, err }) };
}

/** The exit, or a failure (and the process killed) when it has not come within the guard. */
async function exitWithinGuard({ child, exited, output }, what) {
  let timer;
  const hung = new Promise((resolve) => (timer = setTimeout(() => resolve("hung"), HANG_GUARD_MS)));
  const result = await Promise.race([exited, hung]);
  clearTimeout(timer);
  if (result === "hung") {
    child.kill("SIGKILL");
    await exited;
    assert.fail(`memdir mcp was still running ${HANG_GUARD_MS / 1000} s after ${what}, its model call in flight\n${output().err}`);
  }
  return result;
}

test("stdin's end stops the server at once, its recall's model call aborted, exit 0", async () => {
  const server = await serverWithRecallInFlight();
  server.child.stdin.end();
  assert.deepEqual(await exitWithinGuard(server, "stdin ended"), { code: 0, signal: null });
  const { out } = server.output();
  // stdout held the protocol alone, and no answer to the abandoned call
  const replies = out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  assert.deepEqual(replies.map((m) => m.id), [1]);
  while (!mock.requests()[0].aborted) await new Promise((r) => setTimeout(r, 20));
});

for (const signal of ["SIGTERM", "SIGINT"]) {
  test(`${signal} stops the server at once with a model call in flight, exit 0`, async () => {
    const server = await serverWithRecallInFlight();
    server.child.kill(signal);
    assert.deepEqual(await exitWithinGuard(server, signal), { code: 0, signal: null });
    server.child.stdin.destroy();
  });
}

test("a --dir below a file exits 3 with the CLI's words; an empty --dir or --project, or an option given twice, exits 2", () => {
  const root = tempDir();
  const file = join(root, "notes.txt");
  writeFileSync(file, "a file\n");
  const run = (args) => {
    const r = spawnSync(process.execPath, [bin, "mcp", ...args], { encoding: "utf8", env: baseEnv(), input: "", timeout: 30_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  for (const [dir, said] of [
    [join(file, "sub"), `no memory directory at ${join(file, "sub")}: ${file} is a file, not a folder`],
    [join(file, "a", "b"), `no memory directory at ${join(file, "a", "b")}: ${file} is a file, not a folder`],
    [file, `${file} is a file, not a memory directory`],
  ]) {
    const r = run(["--dir", dir]);
    assert.equal(r.code, 3, `--dir ${dir}: ${r.err}`);
    assert.equal(r.err, `memdir: ${said}\n`, "the CLI's words");
    assert.equal(r.out, "", "nothing on stdout, where a client expects the protocol");
  }
  // the CLI's commands say the same of the same folders
  const cli = spawnSync(process.execPath, [bin, "scan", "--dir", file], { encoding: "utf8", env: baseEnv() });
  assert.equal(cli.status, 3);
  assert.equal(cli.stderr, `memdir: ${file} is a file, not a memory directory\n`);
  // an empty path is not the current directory, as the CLI's parser has it
  for (const [args, said] of [
    [["--dir", ""], "--dir needs a path"],
    [["--dir="], "--dir needs a path"],
    [["--project", ""], "--project needs a path"],
    [["--dir", root, "--dir", file], "--dir is given twice"],
    [["--read-only", "--dir", root, "--read-only"], "--read-only is given twice"],
  ]) {
    const r = run(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.equal(r.err, `memdir: ${said}\nmemdir: see memdir mcp --help\n`, "the CLI's parser and words");
  }
});
