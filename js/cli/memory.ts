/**
 * Opening the memory a command works on: `--dir`, or Claude Code's folder for `--project`
 * (default: the current directory), and the check that reading commands make first.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { openMemory, type Limits, type OpenedMemory, type SelectorConfig, type SelectorFunction } from "../entry/node.js";
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
 * Opens the memory of `--dir` or `--project`, with `--max-files` when given. A command is one
 * turn: no watchers to start (nor the checks after a turn they bring) unless `watch` (a server).
 */
export async function openFromArgs(ctx: CommandContext, selector?: SelectorConfig | SelectorFunction, { watch = false, label = "cli" } = {}): Promise<OpenedMemory> {
  const { values } = ctx;
  if (values.dir !== undefined && values.project !== undefined) throw new UsageError("give --dir or --project, not both", ctx.command);
  if (values.dir === "") throw new UsageError("--dir needs a path", ctx.command);
  if (values.project === "") throw new UsageError("--project needs a path", ctx.command);
  const limits = limitsFromArgs(ctx);
  // every change is recorded with who made it: `cli`, or `mcp` for the server
  const common = { limits, cache: { watch }, history: { label }, ...(selector ? { selector } : {}) };
  const memory = await openMemory(values.dir !== undefined ? { dir: resolve(values.dir), ...common } : { projectRoot: resolve(values.project ?? "."), ...common });
  ctx.out.debug(`memory directory: ${memory.host.root}`);
  return memory;
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
