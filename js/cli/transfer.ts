/**
 * `memdir export` and `memdir import`: a memory copied byte for byte (`copyMemory`,
 * js/transfer.ts) between a PostgreSQL store (`--database <url> --memory <id>`) or a memory
 * folder (`--dir`, `--project`) and a plain folder. Export: the memory → the folder. Import: the
 * folder → the memory. A target that holds files is refused unless `--replace`.
 */
import { resolve } from "node:path";
import { MemdirError, NodeHost, type MemoryHost } from "../entry/node.js";
import { copyMemory, type CopyResult } from "../transfer.js";
import { UsageError } from "./args.js";
import type { CommandContext } from "./command.js";
import { CliFailure } from "./failure.js";
import { openFromArgs, requireDirectory } from "./memory.js";
import { openStore, type Store } from "./store.js";

/** The exit status when `pg`, the PostgreSQL client, cannot be loaded (as `memdir mcp`'s SDK). */
export const EXIT_NO_PG = 4;

/** A connection string as it may be shown: its password replaced. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "the database"; // a keyword string (host=… password=…): not shown
  }
}

/** One side of a copy: its host, how it is named, and how it is let go. */
interface Side {
  host: MemoryHost;
  label: string;
  close(): Promise<void>;
}

/** `--database` with `--memory`, checked; `undefined` when there is no `--database`. */
function databaseArgs(ctx: CommandContext): { url: string; memory: string } | undefined {
  const { values: o, command } = ctx;
  if (o.database === undefined) {
    if (o.memory !== undefined) throw new UsageError("--memory names a memory of a database: give --database <url> with it", command);
    return undefined;
  }
  if (o.dir !== undefined || o.project !== undefined) throw new UsageError("give --database or --dir/--project, not both: the memory is in one of them", command);
  if (o.database.trim() === "") throw new UsageError("--database needs a connection string: --database postgres://user@host/db", command);
  if (o.memory === undefined || o.memory === "") throw new UsageError(`--database needs --memory <id>: which memory of the database (one per user or tenant), e.g. memdir ${command} … --memory alice`, command);
  return { url: o.database, memory: o.memory };
}

/** The memory of a PostgreSQL store; exit 4 when `pg` is not installed. */
async function storeSide(ctx: CommandContext, url: string, memory: string, mustExist: boolean): Promise<Side> {
  let store: Store;
  try {
    store = await openStore(url);
  } catch (error) {
    const code = (error as { code?: string } | null)?.code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") {
      if (error instanceof MemdirError) throw error;
      throw new CliFailure(1, `could not open ${shownUrl(url)}: ${(error as Error)?.message ?? String(error)}`);
    }
    throw new CliFailure(EXIT_NO_PG, `memdir ${ctx.command} --database needs the PostgreSQL client pg, which is not installed: npm install pg`);
  }
  try {
    const label = `memory ${JSON.stringify(memory)} of ${shownUrl(url)}`;
    if (mustExist && !(await store.memories()).includes(memory)) {
      const known = await store.memories();
      const some = known.slice(0, 5).map((m) => JSON.stringify(m)).join(", ");
      throw new CliFailure(3, `no ${label}${known.length > 0 ? ` (it has ${known.length}: ${some}${known.length > 5 ? ", …" : ""})` : " (it has none yet)"}`);
    }
    return { host: store.host(memory), label, close: () => store.close() };
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

/** The memory of `--dir` or `--project`, as every command finds it. */
async function folderMemorySide(ctx: CommandContext, mustExist: boolean): Promise<Side> {
  if ((ctx.values as Record<string, unknown>).scopes !== undefined) throw new UsageError(`${ctx.command} copies one memory: --dir, --project or --database, not --scopes`, ctx.command);
  const memory = await openFromArgs(ctx);
  memory.close();
  if (mustExist) await requireDirectory(ctx, memory.dir);
  return { host: memory.host, label: memory.dir, close: async () => {} };
}

/** The plain folder named on the command line. */
async function folderSide(ctx: CommandContext, mustExist: boolean): Promise<Side> {
  const given = ctx.positionals[0]!;
  const dir = resolve(given);
  if (mustExist) {
    // the same sentences as a memory folder's (exit 3), naming the folder given
    await requireDirectory({ ...ctx, values: { ...ctx.values, dir: given } }, dir);
  }
  return { host: new NodeHost(dir), label: dir, close: async () => {} };
}

async function memorySide(ctx: CommandContext, mustExist: boolean): Promise<Side> {
  const db = databaseArgs(ctx);
  return db ? storeSide(ctx, db.url, db.memory, mustExist) : folderMemorySide(ctx, mustExist);
}

function report(ctx: CommandContext, verb: string, from: Side, to: Side, result: CopyResult): void {
  const { out } = ctx;
  out.result({ from: from.label, to: to.label, ...result }, () => {
    const lines = [`${verb} ${result.files} file${result.files === 1 ? "" : "s"} (${result.bytes.toLocaleString("en")} bytes) from ${from.label} to ${to.label}`];
    if (result.files > 0) lines.push(result.timesNotKept === 0 ? "modification times kept" : `modification times kept for ${result.timesKept}; ${result.timesNotKept} have the target's own time (it cannot set one)`);
    if (!result.sourceLocked && result.files > 0) lines.push("the source could not be locked (read-only?): it was read as it was");
    if (result.removed.length > 0) lines.push(`removed from the target (not in the source): ${result.removed.join(", ")}`);
    for (const s of result.skipped) lines.push(`skipped ${s.path}: ${s.reason}`);
    return lines.join("\n");
  });
}

async function transfer(ctx: CommandContext, verb: string, from: () => Promise<Side>, to: () => Promise<Side>): Promise<number> {
  const source = await from();
  try {
    const target = await to();
    try {
      const result = await copyMemory(source.host, target.host, { replace: Boolean(ctx.values.replace) });
      report(ctx, verb, source, target, result);
      return 0;
    } finally {
      await target.close();
    }
  } catch (error) {
    if (error instanceof MemdirError && error.code === "INVALID_ARGUMENT") throw new CliFailure(1, `${ctx.command} refused: ${error.message}`);
    throw error;
  } finally {
    await source.close();
  }
}

/** `memdir export <folder>`: the memory (`--database`/`--memory`, or `--dir`/`--project`) → the folder. */
export function exportMemory(ctx: CommandContext): Promise<number> {
  return transfer(ctx, "exported", () => memorySide(ctx, true), () => folderSide(ctx, false));
}

/** `memdir import <folder>`: the folder → the memory (`--database`/`--memory`, or `--dir`/`--project`). */
export function importMemory(ctx: CommandContext): Promise<number> {
  return transfer(ctx, "imported", () => folderSide(ctx, true), () => memorySide(ctx, false));
}
