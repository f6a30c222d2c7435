/**
 * `openMemory` as the Node entry exports it: `dir` (resolved against the working directory,
 * so every `absolutePath` and `instructions()` name an absolute path) or `projectRoot` (the
 * memory folder Claude Code keeps for that project) become a `NodeHost`; the rest is the
 * shared `openMemory`. Kept apart from open.ts so the browser entry imports no `node:` module.
 */
import { resolve } from "node:path";
import type { OpenedMemory, OpenMemoryOptions, ScopedMemory, ScopeOptions } from "./api.js";
import { MemdirError } from "./errors.js";
import { NodeHost } from "./hosts/node.js";
import { internalsOf, openMemory as openOn } from "./open.js";
import { openScoped } from "./scopes.js";
import { claudeMemoryDir } from "./claude-settings.js";

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

/** Opens several memory folders as one (rules §6), each scope by its `dir`, `projectRoot` or `host`: see {@link ScopedMemory}. */
export function openMemory(options: OpenMemoryOptions & { scopes: ScopeOptions[] }): Promise<ScopedMemory>;
/** Opens a memory directory: `dir`, `projectRoot` (Node) or any `host`. */
export function openMemory(options?: OpenMemoryOptions): Promise<OpenedMemory>;
export async function openMemory(options: OpenMemoryOptions = {}): Promise<OpenedMemory> {
  if (options !== null && typeof options === "object" && options.layout !== undefined && (options.host || options.scopes !== undefined)) {
    throw new MemdirError("INVALID_ARGUMENT", "invalid argument: `layout` places the memory inside `dir`: it goes with `dir`, not with `host` or `scopes`");
  }
  if (options === null || typeof options !== "object" || options.host) return openOn(options);
  // several folders: each scope opened here (its `dir` or `projectRoot` through Node)
  if (options.scopes !== undefined) return openScoped(options, openMemory, internalsOf);
  for (const key of ["dir", "projectRoot"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value.includes("\0"))) throw new MemdirError("INVALID_ARGUMENT", `invalid argument: \`${key}\` must be a path (a string without NUL)`);
  }
  const layout = options.layout ?? "memdir";
  if (layout !== "memdir" && layout !== "sdk") throw new MemdirError("INVALID_ARGUMENT", `invalid argument: \`layout\` must be "memdir" or "sdk", not ${JSON.stringify(layout)}`);
  if (layout === "sdk" && !options.dir) throw new MemdirError("INVALID_ARGUMENT", "invalid argument: `layout: \"sdk\"` places the memory in `<dir>/memories`: it needs `dir`");
  // the SDK's BetaLocalFilesystemMemoryTool.init(dir) keeps `/memories/x.md` at <dir>/memories/x.md
  if (options.dir) return openOn({ ...options, host: hostFor(layout === "sdk" ? resolve(options.dir, "memories") : resolve(options.dir)) });
  if (options.projectRoot) {
    return openOn({ ...options, host: hostFor(await claudeMemoryDir(options.projectRoot)) });
  }
  throw new MemdirError("INVALID_ARGUMENT", "invalid argument: openMemory needs `dir`, `projectRoot` or `host`");
}
