/**
 * The history (rules §4.6): every change memdir makes to the folder, journaled ahead of the
 * change under the write lock, and taken back by `undo` and `restore`. The core decides every
 * step (`historyStep`, `src/history/`); this module reads what a step names and writes what it
 * plans, in this order for a change:
 *
 * 1. `recoverInterrupted`, first thing under the lock: a write killed before its `done` line is
 *    rolled back from its record and marked `aborted`, so every writer plans on a folder the
 *    journal agrees with.
 * 2. `applyJournaled`: the contents before (read as the core asks), the blobs, the record as an
 *    intent in the live segment, the change, the `done` line; then, when a segment was closed,
 *    the history pruned to its bounds. A change that fails half-way is rolled back at once.
 */
import {
  fileReadBytes,
  historyItems,
  historyReadPlan,
  historyRecoveryReadPlan,
  historyReverseReadPlan,
  historySegments,
  planHistoryPrune,
  planHistoryRecord,
  planHistoryRecovery,
  planHistoryReverse,
} from "./core.js";
import type { Effect, HistoryItem, HistoryPolicy, HistoryRecord, HistoryRecoveryPlan, IfMatch, Limits } from "./core.js";
import { MemdirError } from "./errors.js";
import type { HostEntry, MemoryHost } from "./host.js";
import { withIoLock } from "./io.js";
import type { LockOptions } from "./lock.js";
import { applyEffects } from "./snapshot.js";

/** The live segment: where records are appended (`src/history/record.rs`). */
export const LIVE_SEGMENT = ".memdir/history/journal.jsonl";

/** How an opened memory keeps its history (`openMemory({ history })`). */
export interface HistoryOptions {
  /** Who writes, recorded with every change: an agent or session id (`"cli"`, `"mcp"`, `"vscode"` for memdir's own). */
  label?: string;
  /** The bounds (defaults: 16 KiB inline, 64 KiB segments, 32 MiB in all, 90 days). */
  policy?: Partial<HistoryPolicy>;
}

/** What a journaled change records besides its effects. */
export interface Journaling extends HistoryOptions {
  /** The writer: `remember`, `forget`, `tool`, `doctor`, `undo`, `restore`. */
  route: string;
  /** The change this one takes back (`undo`). */
  undoes?: string;
  /** The change goes ahead only if this file's content has this hash now: `CHANGED` otherwise. */
  ifMatch?: IfMatch;
  nowMs: number;
  limits: Limits;
}

/**
 * The most of a segment read: memdir's own segments stay near `segmentBytes` (a record of a
 * doctor fix over 200 files can reach a few MiB); a larger file there is not memdir's (a copy
 * gone wrong, a hostile folder), and is read no further than this instead of whole.
 */
const SEGMENT_READ_BYTES = 64 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const policyOf = (options: HistoryOptions): HistoryPolicy | undefined => (options.policy ? ({ ...options.policy } as HistoryPolicy) : undefined);

/** A read that finds no file to keep: nothing there, a folder, or no regular file (a socket, a FIFO). */
function missing(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null;
  return ["ENOENT", "ENOTDIR", "EISDIR", "EINVAL", "ENXIO"].includes(String(e?.errno ?? e?.code ?? ""));
}

/** A file's bytes, or `undefined` when it is not there. */
async function readIfThere(io: MemoryHost, path: string, maxBytes?: number): Promise<Uint8Array | undefined> {
  try {
    return await io.readFile(path, maxBytes);
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

/** The files a step named, by path; the missing ones left out. */
async function readAll(io: MemoryHost, paths: readonly string[], maxBytes: number): Promise<Record<string, Uint8Array>> {
  const contents: Record<string, Uint8Array> = {};
  for (const path of paths) {
    const bytes = await readIfThere(io, path, maxBytes);
    if (bytes !== undefined) contents[path] = bytes;
  }
  return contents;
}

/** Every segment of the journal, oldest first, as text. */
async function readSegments(io: MemoryHost): Promise<string[]> {
  const paths = historySegments(await io.list());
  const texts: string[] = [];
  for (const path of paths) {
    const bytes = await readIfThere(io, path, SEGMENT_READ_BYTES);
    if (bytes !== undefined) texts.push(decoder.decode(bytes));
  }
  return texts;
}

/**
 * Rolls back the writes a kill interrupted (an intent without its `done` line) and marks them
 * `aborted`; `null` when there were none. Runs under the write lock, before a writer plans.
 */
export async function recoverInterrupted(io: MemoryHost, limits: Limits): Promise<HistoryRecoveryPlan | null> {
  const live = await readIfThere(io, LIVE_SEGMENT, SEGMENT_READ_BYTES);
  if (live === undefined) return null;
  const segment = decoder.decode(live);
  const read = historyRecoveryReadPlan(segment);
  if (read.length === 0) return null;
  const contents = await readAll(io, read, fileReadBytes(limits));
  const plan = planHistoryRecovery(segment, contents);
  if (plan.aborted.length === 0) return null;
  await applyEffects(io, plan.effects);
  await io.writeFile(LIVE_SEGMENT, encoder.encode(plan.segmentText));
  return plan;
}

/**
 * At open: when the live segment ends with a change a kill interrupted, takes the lock and rolls
 * it back, so even a reader that never writes sees the folder as before that change. One small
 * read otherwise. A folder that cannot be written (read-only) is left for the next writer.
 */
export async function recoverAtOpen(ctx: HistoryContext, io: MemoryHost): Promise<void> {
  try {
    const live = await readIfThere(io, LIVE_SEGMENT, SEGMENT_READ_BYTES);
    if (live === undefined || historyRecoveryReadPlan(decoder.decode(live)).length === 0) return;
    await withIoLock(ctx.host, () => recoverInterrupted(io, ctx.limits), ctx.lock);
  } catch {
    // the next write (or history()) tries again, and reports what stops it
  }
}

/**
 * Applies `effects` journaled: the record ahead of the change, the `done` line after it, the
 * history held to its bounds. Returns the record (`null` for no effects).
 */
export async function applyJournaled(io: MemoryHost, effects: Effect[], j: Journaling): Promise<HistoryRecord | null> {
  if (effects.length === 0 && !j.ifMatch) return null;
  const { limits } = j;
  const segment = decoder.decode((await readIfThere(io, LIVE_SEGMENT, SEGMENT_READ_BYTES)) ?? new Uint8Array(0));
  let entries: HostEntry[] = [];
  const ifMatchPath = j.ifMatch?.path ?? null;
  let plan = historyReadPlan(effects, null, ifMatchPath, limits);
  if (plan.list) {
    // a remove or rename may name a folder: look the targets up, and list only for a folder
    const targets = effects.flatMap((e) => (e.op === "remove" ? [e.path] : e.op === "rename" ? [e.from] : []));
    const found = await Promise.all(targets.map((p) => io.stat(p).catch(() => null)));
    entries = found.some((e) => e?.kind === "directory") ? await io.list() : found.filter((e): e is HostEntry => e !== null);
    plan = historyReadPlan(effects, entries, ifMatchPath, limits);
  }
  const contents = await readAll(io, plan.read, plan.readBytes);
  const record = planHistoryRecord(
    { effects, entries, contents, segment, route: j.route, label: j.label ?? null, undoes: j.undoes ?? null, nowMs: j.nowMs, policy: policyOf(j) ?? null, ifMatch: j.ifMatch ?? null },
    limits,
  );
  if (record.record.changes.length === 0) {
    await applyEffects(io, effects); // nothing changes: nothing to record
    return null;
  }
  for (const blob of record.blobs) await io.writeFile(blob.to, contents[blob.from]!);
  if (record.rotateTo) await io.rename(LIVE_SEGMENT, record.rotateTo);
  // the record, ahead of the change; not flushed (as the `done` line below): a killed process
  // leaves both in the page cache, and the files it rewrites are flushed themselves
  await io.writeFile(LIVE_SEGMENT, encoder.encode(record.intentText), { durable: false });
  try {
    await applyEffects(io, effects);
    // the commit: a change is made when its `done` line is written, not before
    await io.writeFile(LIVE_SEGMENT, encoder.encode(record.doneText), { durable: false });
  } catch (error) {
    // half a change is no state to leave: take back what was made now, as the next write
    // would (a failed rollback is left to it)
    await recoverInterrupted(io, limits).catch(() => {});
    // a host can fail a call whose bytes landed: a `done` line on disk is a change made
    if (!(await committed(io, record.record.id))) throw error;
  }
  if (record.rotateTo) {
    // the bounds are kept on a best effort: what a failure leaves, the next closed segment takes
    try {
      for (const path of planHistoryPrune(await io.list(), record.doneText, j.nowMs, policyOf(j) ?? null)) await io.remove(path);
    } catch {
      // kept for the next time
    }
  }
  return record.record;
}

/** Whether the record `id` is committed in the live segment (`false` when it cannot be read). */
async function committed(io: MemoryHost, id: string): Promise<boolean> {
  try {
    const live = await readIfThere(io, LIVE_SEGMENT, SEGMENT_READ_BYTES);
    return live !== undefined && historyItems([decoder.decode(live)], null, null).some((item) => item.id === id && item.status === "done");
  } catch {
    return false;
  }
}

/**
 * The history, newest first (`memory.history()`). A write a kill interrupted is rolled back
 * first (under the lock), so what is listed is what the folder holds.
 */
export async function readHistory(ctx: HistoryContext, io: MemoryHost, options: { file?: string; since?: number | Date } = {}): Promise<HistoryItem[]> {
  const since = options.since instanceof Date ? options.since.getTime() : options.since;
  if (since !== undefined && !Number.isFinite(since)) throw new MemdirError("INVALID_ARGUMENT", "invalid argument: history's `since` is a time (ms or a Date)");
  const items = () => readSegments(io).then((segments) => historyItems(segments, options.file ?? null, since ?? null));
  const first = await items();
  if (!first.some((item) => item.status === "interrupted")) return first;
  await withIoLock(ctx.host, () => recoverInterrupted(io, ctx.limits), ctx.lock);
  return items();
}

/** What `undo` and `restore` did (or, with `dryRun`, would do). */
export interface ReverseResult {
  /** Unified diff of every file, from now to after. */
  diff: string;
  /** The files the plan changes (or changed): created, rewritten or removed. */
  files: string[];
  /** Whether the files were changed (`false` for `dryRun` or when nothing differs). */
  applied: boolean;
  /** The record of the change made, in the history like any other. */
  record: HistoryRecord | null;
  /** How far back the history reaches (ms). */
  reachesMs: number | null;
}

export interface ReverseOptions {
  /** Overwrite files changed since (a later edit is otherwise never overwritten: `CHANGED`). */
  force?: boolean;
  /** Plan and show the diff; change nothing. */
  dryRun?: boolean;
}

export interface HistoryContext extends HistoryOptions {
  host: MemoryHost;
  limits: Limits;
  now: () => number;
  lock?: LockOptions;
}

async function reverse(ctx: HistoryContext, io: MemoryHost, kind: "undo" | "restore", target: { id?: string; atMs?: number }, options: ReverseOptions): Promise<ReverseResult> {
  const { limits } = ctx;
  const run = async (): Promise<ReverseResult> => {
    if (!options.dryRun) await recoverInterrupted(io, limits);
    const segments = await readSegments(io);
    const read = historyReverseReadPlan(segments, target.id ?? null, target.atMs ?? null);
    const contents = await readAll(io, read, fileReadBytes(limits));
    const plan = planHistoryReverse({ segments, contents, id: target.id ?? null, atMs: target.atMs ?? null, force: options.force === true });
    const files = [...new Set(plan.effects.map((e) => ("path" in e ? e.path : e.to)))];
    const result: ReverseResult = { diff: plan.diff, files, applied: false, record: null, reachesMs: plan.reachesMs ?? null };
    if (options.dryRun || plan.effects.length === 0) return result;
    result.record = await applyJournaled(io, plan.effects, { ...ctx, route: kind, ...(target.id ? { undoes: target.id } : {}), nowMs: ctx.now() });
    result.applied = true;
    return result;
  };
  return options.dryRun ? run() : withIoLock(ctx.host, run, ctx.lock);
}

/** `memory.undo(id)`: the files of one change brought back to before it. */
export function undoChange(ctx: HistoryContext, io: MemoryHost, id: string, options: ReverseOptions = {}): Promise<ReverseResult> {
  if (typeof id !== "string" || id === "") throw new MemdirError("INVALID_ARGUMENT", "invalid argument: undo takes the id of a change (memory.history() lists them)");
  return reverse(ctx, io, "undo", { id }, options);
}

/** `memory.restore({ at })`: every file changed since `at` brought back to how it was then. */
export function restoreAt(ctx: HistoryContext, io: MemoryHost, at: number | Date, options: ReverseOptions = {}): Promise<ReverseResult> {
  const atMs = at instanceof Date ? at.getTime() : at;
  if (typeof atMs !== "number" || !Number.isFinite(atMs)) throw new MemdirError("INVALID_ARGUMENT", "invalid argument: restore takes `at`, a time (ms or a Date)");
  return reverse(ctx, io, "restore", { atMs }, options);
}

/**
 * The `ifMatch` a caller gave (a SHA-256 in hex of the file it read: `contentHash`, `scan({ hashes:
 * true })`, a view), checked for its type here and for its form and truth by the core.
 */
export function ifMatchOf(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new MemdirError("INVALID_ARGUMENT", `invalid argument: ${what} is the SHA-256 (hex) of the file as it was read, not ${typeof value}`);
  return value;
}
