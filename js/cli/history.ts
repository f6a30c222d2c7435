/**
 * `memdir log`, `memdir undo`, `memdir restore`: the folder's history (rules §4.6). Undo and
 * restore show the diff first, then ask on a terminal (`--yes` applies without asking, `--dry-run`
 * only shows; with no terminal and no `--yes`, nothing is written and the exit is 2).
 */
import type { HistoryItem } from "../core.js";
import type { OpenedMemory } from "../entry/node.js";
import { ask } from "./ask.js";
import { UsageError } from "./args.js";
import type { CommandContext } from "./command.js";
import { CliFailure } from "./failure.js";
import { openFromArgs, requireDirectory } from "./memory.js";

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** One change on one line: id, time, route (label), status, each file and what happened to it. */
export function formatItem(h: HistoryItem): string {
  const who = h.label ? `${h.route} (${h.label})` : h.route;
  const status = h.status === "done" ? "" : ` [${h.status}]`;
  const undoes = h.undoes ? ` undoes ${h.undoes}` : "";
  return `${h.id}  ${when(h.atMs)}  ${who}${status}${undoes}: ${h.changes.map((c) => `${c.path} ${c.action}`).join(", ")}`;
}

/** `--at` and `--since`: an ISO 8601 date or time (`2026-12-04`, `2026-12-04T15:30Z`) or ms since 1970. */
export function timeArg(name: "at" | "since", raw: string | undefined, command: string): number | undefined {
  if (raw === undefined) return undefined;
  const ms = /^\d{1,16}$/.test(raw) ? Number(raw) : /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`--${name} takes a time: an ISO date or time (2026-12-04, 2026-12-04T15:30:00Z) or milliseconds since 1970, not ${JSON.stringify(raw)}`, command);
  return ms;
}

async function opened(ctx: CommandContext): Promise<OpenedMemory> {
  const memory = await openFromArgs(ctx, undefined, { oneFolder: true });
  await requireDirectory(ctx, memory.dir);
  return memory;
}

/** `memdir log [file]`. */
export async function log(ctx: CommandContext): Promise<number> {
  const since = timeArg("since", ctx.values.since, "log");
  const memory = await opened(ctx);
  const file = ctx.positionals[0];
  const items = await memory.history({ ...(file !== undefined ? { file } : {}), ...(since !== undefined ? { since } : {}) });
  ctx.out.result(items, () => (items.length === 0 ? `no change recorded${file ? ` for ${file}` : ""}` : items.map(formatItem).join("\n")));
  return 0;
}

/** The change `undo --last` takes back: the newest made, not itself an undo, not undone since. */
function lastUndoable(items: HistoryItem[]): HistoryItem | undefined {
  const undone = new Set(items.filter((h) => h.status === "done" && h.undoes).map((h) => h.undoes));
  return items.find((h) => h.status === "done" && h.route !== "undo" && !undone.has(h.id) && h.changes.length > 0);
}

/** Shows the diff, asks (or takes `--yes`, or stops at `--dry-run`), then applies. */
async function reverse(ctx: CommandContext, what: string, run: (options: { dryRun?: boolean; force?: boolean }) => ReturnType<OpenedMemory["undo"]>): Promise<number> {
  const { values: o, out } = ctx;
  if (o.yes && o["dry-run"]) throw new UsageError("--yes and --dry-run say opposite things: choose one", ctx.command);
  const force = Boolean(o.force);
  const plan = await run({ dryRun: true, force });
  if (!out.json) out.write(plan.files.length > 0 ? `${plan.diff}${plan.diff ? "\n" : ""}${plan.files.length} file${plan.files.length === 1 ? "" : "s"}: ${plan.files.join(", ")}\n` : "nothing to change: the files are already so\n");
  let apply = plan.files.length > 0 && !o["dry-run"];
  if (apply && !o.yes) {
    if (!process.stdin.isTTY) {
      ctx.out.err(`memdir: nothing written: ${ctx.command} asks before it changes files, and there is no terminal to ask on; pass --yes to apply, or --dry-run to only look\n`);
      if (out.json) out.result({ diff: plan.diff, applied: false, record: null }, () => "");
      return 2;
    }
    apply = await ask(`${what}? [y/N] `);
    if (!apply) ctx.out.err("memdir: nothing written\n");
  }
  const done = apply ? await run({ force }) : { ...plan, applied: false, record: null };
  if (done.applied || out.json) out.result({ diff: done.diff, applied: done.applied, record: done.record }, () => `done: recorded as ${done.record?.id ?? "no change"}`);
  return 0;
}

/** `memdir undo <id> | --last`. */
export async function undo(ctx: CommandContext): Promise<number> {
  const given = ctx.positionals[0];
  if (given !== undefined && ctx.values.last) throw new UsageError("give a change's id or --last, not both", "undo");
  if (given === undefined && !ctx.values.last) throw new UsageError("undo takes a change's id (memdir log lists them) or --last", "undo");
  const memory = await opened(ctx);
  let id = given;
  if (id === undefined) {
    const last = lastUndoable(await memory.history());
    if (!last) throw new CliFailure(1, "nothing to undo: no change in the history that is not undone already");
    id = last.id;
  }
  if (!ctx.out.json) ctx.out.write(`undo ${id}\n`);
  return reverse(ctx, `Undo change ${id}`, (options) => memory.undo(id, options));
}

/** `memdir restore --at <time>`. */
export async function restore(ctx: CommandContext): Promise<number> {
  const at = timeArg("at", ctx.values.at, "restore");
  if (at === undefined) throw new UsageError("restore needs --at <time>: memdir restore --at 2026-12-04T15:30:00Z", "restore");
  const memory = await opened(ctx);
  const probe = await memory.restore({ at, dryRun: true, force: true }).catch(() => null);
  if (probe?.reachesMs != null && at < probe.reachesMs) ctx.out.err(`memdir: the history reaches back to ${when(probe.reachesMs)}: files are restored as far as it goes\n`);
  return reverse(ctx, `Restore the folder to ${when(at)}`, (options) => memory.restore({ at, ...options }));
}
