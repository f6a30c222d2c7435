// Running the real `memdir` binary as a user runs it, on real temporary folders.
// MEMDIR_CLI_BIN points the tests at another build of the binary (an older one, to see a
// regression test fail on the code it guards against).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const bin = process.env.MEMDIR_CLI_BIN ?? fileURLToPath(new URL("../../pkg/cli/main.js", import.meta.url));

/** No key from the developer's shell leaks into a test. */
const cleanEnv = (env) => ({ ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", MEMDIR_DEBUG: "", ...env });

/** Runs memdir and waits (blocks this process: not for tests whose mock server lives here). */
export function memdir(args, { env = {}, input } = {}) {
  const r = spawnSync(bin, args, { encoding: "utf8", env: cleanEnv(env), input });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Runs memdir without blocking (for a mock provider in this process). */
export function memdirAsync(args, { env = {}, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env: cleanEnv(env), stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
    child.stdin.end(input);
  });
}

/** Spawns memdir with its stdout on a pipe, for tests that read it their own way. */
export function spawnMemdir(args, { env = {} } = {}) {
  return spawn(bin, args, { env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
}

const temps = [];
/** Removes the folders made by `tempDir` (call from `after`). */
export function removeTemps() {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function tempDir(prefix = "memdir-cli-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** A memory folder: `{path: [content, daysAgo]}`. */
export function tempMemory(files) {
  const dir = tempDir();
  for (const [path, [content, daysAgo]] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
    const t = new Date(Date.now() - daysAgo * 86_400_000 - 60_000);
    utimesSync(join(dir, path), t, t);
  }
  return dir;
}

export const fm = (description, type) => `---\ndescription: ${description}\ntype: ${type}\n---\nbody\n`;

/** A port on 127.0.0.1 where nothing listens (connections are refused). */
export function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs memdir in this process, for the cases where spawning is not the point (arguments, help,
 * what a command prints and writes): `runCli` with the same clean environment, writing to
 * strings instead of the process's streams. The same `{code, out, err}` as `memdir`, without a
 * process a call. No stdin: a case that pipes one spawns.
 */
export async function memdirIn(args, { env = {} } = {}) {
  const { runCli } = await import("../../pkg/cli/cli.js");
  let out = "";
  let err = "";
  const code = await runCli(args, cleanEnv(env), { stdout: { write: (t) => (out += t) }, stderr: { write: (t) => (err += t) } });
  return { code, out, err };
}
