/**
 * `openMemory` as the Node entry exports it: `dir` (resolved against the working directory,
 * so every `absolutePath` and `instructions()` name an absolute path) or `projectRoot` (the
 * memory folder Claude Code keeps for that project) become a `NodeHost`; the rest is the
 * shared `openMemory`. Kept apart from open.ts so the browser entry imports no `node:` module.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { OpenedMemory, OpenMemoryOptions } from "./api.js";
import { projectMemoryDir } from "./core.js";
import { MemdirError } from "./errors.js";
import { findProjectRoot } from "./git.js";
import { NodeHost } from "./hosts/node.js";
import { envKey, openMemory as openOn } from "./open.js";

/**
 * One `NodeHost` a folder in this process, while any memory holds it: memories opened on the same
 * folder share it, and with it their cache (one listing, one watcher a folder, one core session).
 */
const hosts = new Map<string, WeakRef<NodeHost>>();
const forgotten = new FinalizationRegistry<string>((dir) => {
  if (hosts.get(dir)?.deref() === undefined) hosts.delete(dir);
});

function hostFor(dir: string): NodeHost {
  const held = hosts.get(dir)?.deref();
  if (held) return held;
  const host = new NodeHost(dir);
  hosts.set(dir, new WeakRef(host));
  forgotten.register(host, dir);
  return host;
}

/** Opens a memory directory: `dir`, `projectRoot` (Node) or any `host`. */
export async function openMemory(options: OpenMemoryOptions = {}): Promise<OpenedMemory> {
  if (options === null || typeof options !== "object" || options.host) return openOn(options);
  for (const key of ["dir", "projectRoot"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value.includes("\0"))) throw new MemdirError("INVALID_ARGUMENT", `invalid argument: \`${key}\` must be a path (a string without NUL)`);
  }
  if (options.dir) return openOn({ ...options, host: hostFor(resolve(options.dir)) });
  if (options.projectRoot) {
    const dir = projectMemoryDir({ homeDir: homedir(), projectRoot: await findProjectRoot(options.projectRoot), configDir: envKey("CLAUDE_CONFIG_DIR") ?? null });
    return openOn({ ...options, host: hostFor(dir) });
  }
  throw new MemdirError("INVALID_ARGUMENT", "invalid argument: openMemory needs `dir`, `projectRoot` or `host`");
}
