/**
 * Opening the memory a command works on: `--dir`, or Claude Code's folder for `--project`
 * (default: the current directory), and the check that reading commands make first.
 */
import { readFile, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { claudeCodeScopes, openMemory, type Limits, type OpenedMemory, type ScopedMemory, type ScopeOptions, type SelectorConfig, type SelectorFunction } from "../entry/node.js";
import { UsageError, wholeNumber } from "./args.js";
import type { CommandContext } from "./command.js";

import { CliFailure } from "./failure.js";

export { CliFailure };

/** The largest `u32`: what the core takes for a limit. */
const U32_MAX = 4_294_967_295;

/** The limits the command line sets (`--max-files`), checked. */
export function limitsFromArgs(ctx: CommandContext): Partial<Limits> {
  const maxFiles = wholeNumber("max-files", ctx.values["max-files"], "a whole number of files", 1, U32_MAX);
  return maxFiles === undefined ? {} : { maxFiles };
}

/**
 * `--scopes`: `name=path,…` (`name:ro=path` read-only), a `.json` file of scopes (paths
 * relative to it), or `claude` (Claude Code's folders for `--project`, with `--agent`'s first).
 */
export async function scopesFromArgs(ctx: CommandContext): Promise<ScopeOptions[]> {
  const { values } = ctx;
  const spec = values.scopes!;
  if (values.agent !== undefined && spec !== "claude") throw new UsageError("--agent goes with --scopes claude", ctx.command);
  if (spec === "claude") return claudeCodeScopes({ projectRoot: resolve(values.project ?? "."), ...(values.agent ? { agent: values.agent } : {}) });
  if (values.project !== undefined) throw new UsageError("--project goes with --scopes claude; give each scope its folder: --scopes local=./mem,project=~/mem", ctx.command);
  if (spec.endsWith(".json")) {
    const file = resolve(spec);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      throw new UsageError(`--scopes ${spec}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, ctx.command);
    }
    if (!Array.isArray(parsed)) throw new UsageError(`--scopes ${spec}: a JSON list of {"name", "dir", "types"?, "readOnly"?}`, ctx.command);
    return parsed.map((s: ScopeOptions) => (s && typeof s === "object" && typeof s.dir === "string" ? { ...s, dir: resolve(dirname(file), s.dir) } : s));
  }
  return spec.split(",").map((part) => {
    const at = part.indexOf("=");
    if (at <= 0 || at === part.length - 1) throw new UsageError(`--scopes: each scope is name=path (got ${JSON.stringify(part)}): --scopes local=./mem-local,project=./mem`, ctx.command);
    const head = part.slice(0, at);
    const readOnly = head.endsWith(":ro");
    return { name: readOnly ? head.slice(0, -3) : head, dir: resolve(part.slice(at + 1)), ...(readOnly ? { readOnly } : {}) };
  });
}

/**
 * Opens the memory of `--dir`, `--project` or `--scopes`, with `--max-files` when given. A
 * command is one turn: no watchers to start (nor the checks after a turn they bring) unless
 * `watch` (a server). With `--scopes`, `--scope` narrows a command that works on one folder to
 * that scope's (`oneFolder`); the writers take it themselves.
 */
export async function openFromArgs(ctx: CommandContext, selector?: SelectorConfig | SelectorFunction, { watch = false, label = "cli", oneFolder = false } = {}): Promise<OpenedMemory> {
  const { values } = ctx;
  if (values.dir !== undefined && values.project !== undefined) throw new UsageError("give --dir or --project, not both", ctx.command);
  if (values.dir === "") throw new UsageError("--dir needs a path", ctx.command);
  if (values.project === "") throw new UsageError("--project needs a path", ctx.command);
  if (values.scopes === undefined && (values.scope !== undefined || values.agent !== undefined)) throw new UsageError(`--${values.scope !== undefined ? "scope" : "agent"} goes with --scopes`, ctx.command);
  if (values.scopes !== undefined && values.dir !== undefined) throw new UsageError("give --dir or --scopes, not both", ctx.command);
  if (values.layout !== undefined && values.layout !== "memdir" && values.layout !== "sdk") throw new UsageError(`--layout is memdir or sdk, not ${values.layout}`, ctx.command);
  if (values.layout !== undefined && values.dir === undefined) throw new UsageError("--layout goes with --dir", ctx.command);
  const limits = limitsFromArgs(ctx);
  // every change is recorded with who made it: `cli`, or `mcp` for the server
  const common = { limits, cache: { watch }, history: { label }, ...(selector ? { selector } : {}) };
  if (values.scopes !== undefined) {
    const memory: ScopedMemory = await openMemory({ scopes: await scopesFromArgs(ctx), ...common });
    ctx.out.debug(`memory scopes: ${memory.scopes.map((s) => `${s.name}=${s.memory.host.root}`).join(", ")}`);
    return oneFolder && values.scope !== undefined ? memory.scope(values.scope) : memory;
  }
  const layout = values.layout as "memdir" | "sdk" | undefined;
  const memory = await openMemory(values.dir !== undefined ? { dir: resolve(values.dir), ...(layout ? { layout } : {}), ...common } : { projectRoot: resolve(values.project ?? "."), ...common });
  ctx.out.debug(`memory directory: ${memory.host.root}`);
  return memory;
}

/** The memory's scopes, when it has several. */
export function scopesOf(memory: OpenedMemory): ScopedMemory["scopes"] | null {
  return "scopes" in memory ? (memory as ScopedMemory).scopes : null;
}

/** For commands that only read: each folder of the memory must be a directory or missing-but-scoped (a scope not made yet is empty). */
export async function requireFolders(ctx: CommandContext, memory: OpenedMemory): Promise<void> {
  const scopes = scopesOf(memory);
  if (scopes === null) return requireDirectory(ctx, memory.host.root);
  for (const s of scopes) {
    const found = await stat(s.memory.host.root).then((st) => st.isDirectory(), () => null);
    if (found === false) throw new CliFailure(3, `scope ${s.name}: ${s.memory.host.root} is a file, not a memory directory`);
  }
}

/** For commands that only read: exit 3 when the memory directory is missing or is a file. */
export async function requireDirectory(ctx: CommandContext, root: string): Promise<void> {
  const found = await stat(root).then(
    (s) => (s.isDirectory() ? "directory" : "file"),
    (error: NodeJS.ErrnoException) => (error.code === "ENOENT" || error.code === "ENOTDIR" ? "missing" : `unreadable (${error.code ?? error.message})`),
  );
  if (found === "directory") return;
  if (found === "file") throw new CliFailure(3, `${root} is a file, not a memory directory`);
  if (found === "missing") {
    const hint = ctx.values.dir !== undefined ? "" : ` (the memory of project ${resolve(ctx.values.project ?? ".")}; memdir remember creates it, or use --dir to point at another)`;
    throw new CliFailure(3, `no memory directory at ${root}${hint}`);
  }
  throw new CliFailure(3, `the memory directory ${root} is ${found}`);
}
