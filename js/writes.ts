/**
 * `remember`, `forget` and `touch`: read what the core's plan names, let the core decide the writes,
 * apply them under the directory's lock. The arguments are checked by the core against an
 * empty directory first, so a refusal that does not depend on the directory (a bad shape, a
 * secret, an unsafe path) comes before any I/O or lock.
 */
import { forgetReadPlan, planForget, planRemember, planTouch, rememberReadPlan, touchReadPlan } from "./core.js";
import type { Limits, RememberInput, Snapshot, WritePlan } from "./core.js";
import type { WriteResult } from "./api.js";
import { crossing } from "./edge.js";
import { MemdirError } from "./errors.js";
import type { MemoryHost } from "./host.js";
import { applyJournaled, ifMatchOf, recoverInterrupted, type HistoryOptions } from "./history.js";
import { ioHost, withIoLock } from "./io.js";
import type { LockOptions } from "./lock.js";
import type { ScanCache } from "./scan-cache.js";
import { takeSnapshot, type HeldReads } from "./snapshot.js";

/** An empty directory: what `remember` and `forget` are checked against before any I/O. */
const NOTHING: Snapshot = { entries: [], contents: {}, resolved: {} };

export interface WriteContext {
  host: MemoryHost;
  limits: Limits;
  now: () => number;
  concurrency: number;
  lock?: LockOptions;
  /** The opened memory's scan cache: the duplicate check takes the heads it holds. */
  cache?: ScanCache;
  /** Who writes, and the history's bounds. */
  history?: HistoryOptions;
}

async function write(ctx: WriteContext, route: "remember" | "forget" | "touch", plan: (io: MemoryHost) => Promise<WritePlan>, ifMatch?: string): Promise<WriteResult> {
  // reads and writes go through `io`, so a host failure is an IO_ERROR naming a relative path
  const io = ioHost(ctx.host);
  return withIoLock(
    ctx.host,
    async () => {
      await recoverInterrupted(io, ctx.limits);
      const planned = await plan(io);
      await applyJournaled(io, planned.effects, { ...ctx.history, route, nowMs: ctx.now(), limits: ctx.limits, ...(ifMatch ? { ifMatch: { path: planned.file, sha256: ifMatch } } : {}) });
      return { file: planned.file, absolutePath: ctx.host.absolutePath(planned.file), action: planned.action, indexLine: planned.indexLine };
    },
    ctx.lock,
  );
}

export async function remember(ctx: WriteContext, given: RememberInput & { ifMatch?: string }): Promise<WriteResult> {
  let read = crossing({ input: given }).input as RememberInput & { ifMatch?: unknown };
  // `ifMatch` is the history's condition, not the memory's: it is checked as the change is journaled
  let ifMatch: string | undefined;
  if (typeof read === "object" && read !== null && "ifMatch" in read) {
    const { ifMatch: condition, ...rest } = read;
    ifMatch = ifMatchOf(condition, "remember's ifMatch");
    read = rest;
  }
  // the write records its time: `now` is passed in, never read by the core
  const input = typeof read === "object" && read !== null && read.nowMs == null ? { ...read, nowMs: ctx.now() } : read;
  try {
    planRemember(input, NOTHING, ctx.limits);
  } catch (error) {
    // the memory it supersedes is looked for in the directory, not in the empty one
    if (!((error as MemdirError).code === "NOT_FOUND" && typeof input.supersedes === "string")) throw error;
  }
  return write(ctx, "remember", async (io) => {
    const cache = ctx.cache;
    // what the cache holds of files unchanged since its last scan is not read, nor parsed, again
    const held: HeldReads = cache
      ? {
          head: (e, lines) => cache.headFor(e, lines),
          header: (e) => {
            const m = cache.scannedFor(e);
            return m && ([m.name ?? null, m.description ?? null] as const);
          },
        }
      : {};
    const snapshot = await takeSnapshot(io, rememberReadPlan(typeof input.file === "string" ? input.file : null, ctx.limits, typeof input.supersedes === "string" ? input.supersedes : null), ctx.concurrency, held);
    return planRemember(input, snapshot, ctx.limits);
  }, ifMatch);
}

export async function forget(ctx: WriteContext, file: string, ifMatch?: string): Promise<WriteResult> {
  try {
    planForget(file, NOTHING, ctx.limits); // the same dry run: only NOT_FOUND depends on the directory
  } catch (error) {
    if ((error as MemdirError).code !== "NOT_FOUND") throw error;
  }
  return write(ctx, "forget", async (io) => {
    const snapshot = await takeSnapshot(io, forgetReadPlan(file, ctx.limits), ctx.concurrency);
    return planForget(file, snapshot, ctx.limits);
  }, ifMatch);
}

/** `touch` (rules §4.7): the memory confirmed true now — its `metadata.modified`, nothing else. */
export async function touch(ctx: WriteContext, file: string, ifMatch?: string): Promise<WriteResult> {
  try {
    planTouch(file, NOTHING, ctx.now(), ctx.limits); // the same dry run: only NOT_FOUND depends on the directory
  } catch (error) {
    if ((error as MemdirError).code !== "NOT_FOUND") throw error;
  }
  return write(ctx, "touch", async (io) => {
    const snapshot = await takeSnapshot(io, touchReadPlan(file, ctx.limits), ctx.concurrency);
    return planTouch(file, snapshot, ctx.now(), ctx.limits);
  }, ifMatch);
}
