/**
 * Consolidation (rules §4.7): the folder read whole, the side query over the memories that look
 * alike, the core's plan of what loses no word, then — by the mode — the diff returned, a
 * callback asked, or the plan applied as one change in the history (`undo` takes the run back).
 * One run at a time per folder (`.memdir/consolidate.lock`); when it runs on its own, the
 * schedule in `.memdir/consolidate.json` decides. Never throws for a model, network or file
 * problem: the result says `failed`, and why.
 */
import { buildConsolidationRequest, consolidationDue, doctorReadPlan, planConsolidation } from "./core.js";
import type { ConsolidationChange, ConsolidationPlan, ConsolidationSchedule, ConsolidationState, KeepMode, Rejected, Usage } from "./core.js";
import { applyJournaled, recoverInterrupted } from "./history.js";
import type { MemoryHost } from "./host.js";
import { encodeLock, inspectLock, judgeLock, sameLock, type LockBody } from "./lock-file.js";
import { ioError, ioHost, withIoLock } from "./io.js";
import type { RecallContext } from "./recall.js";
import { askModel, NO_USAGE } from "./selectors.js";
import { takeSnapshot } from "./snapshot.js";
import type { WriteContext } from "./writes.js";

const STATE_FILE = ".memdir/consolidate.json";
const LOCK_FILE = ".memdir/consolidate.lock";
/** A run's lock older than this is a dead run's: taken over (a side query's deadline is 2 minutes). */
const LOCK_STALE_MS = 10 * 60_000;

/** What the whole run would change, for a `confirm` callback. */
export interface ConsolidationPreview {
  changes: ConsolidationChange[];
  diff: string;
  filesChanged: string[];
}

/** How one consolidation runs. */
export interface ConsolidateOptions {
  /** `suggest` (the default): the diff, nothing written; `confirm`: `confirm` decides; `auto`: applied. */
  mode?: KeepMode;
  /** Only the diff, whatever the mode. */
  dryRun?: boolean;
  /** `confirm` mode: approves the whole run, seen as its diff; a throw is a no. */
  confirm?: (preview: ConsolidationPreview) => boolean | Promise<boolean>;
  /** Files a run may change (default 10). */
  maxFilesChanged?: number;
  /** Run only when the schedule says it is due (what the automatic runs do). */
  onlyIfDue?: boolean;
  /**
   * Ask the model even when no memories look alike (it sees the list of every memory and the
   * index, and may regroup the index or mark a replaced memory); also runs when `onlyIfDue`
   * says it is not due.
   */
  force?: boolean;
  signal?: AbortSignal;
  /** Deadline of the side query, retries included. Default: the selector's `timeoutMs`, else 120,000 ms. */
  timeoutMs?: number;
}

export type ConsolidateOutcome = "consolidated" | "proposed" | "nothing" | "not_due" | "busy" | "declined" | "skipped" | "failed";

/** What a consolidation did. */
export interface ConsolidateResult {
  outcome: ConsolidateOutcome;
  mode: KeepMode;
  changes: ConsolidationChange[];
  /** Operations refused, with the reason (`would_lose_text`, `over_limit`, `unknown_file`, …). */
  rejected: Rejected[];
  /** The unified diff of the run (applied or not). */
  diff: string;
  filesChanged: string[];
  /** The change in the history (`undo(historyId)` takes the run back). */
  historyId: string | null;
  /** Why it was or was not due (`onlyIfDue`). */
  due?: string;
  selector: string | null;
  model: string | null;
  usage: Required<Usage>;
  costUsd: number | null;
  latencyMs: number;
  error?: string;
}

/** Sent to `onEvent` after every consolidation. */
export interface ConsolidateEvent {
  type: "consolidate";
  outcome: ConsolidateOutcome;
  changes: number;
  rejected: number;
  latencyMs: number;
  usage: Required<Usage>;
  costUsd: number | null;
  /** The diff of a run that only proposed (an automatic run in `suggest` mode: where to show it). */
  diff?: string;
  error?: string;
}

/** What a consolidation works with. */
export interface ConsolidateContext {
  recall: RecallContext;
  writes: WriteContext;
  schedule?: Partial<ConsolidationSchedule>;
  onEvent?: (event: ConsolidateEvent) => void;
  /** Runs the consolidation's own write so that a session does not count it as its turn's. */
  mute?: <T>(fn: () => Promise<T>) => Promise<T>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The schedule's state; none yet (or unreadable) is a fresh one. */
export async function readState(host: MemoryHost): Promise<ConsolidationState> {
  try {
    const value: unknown = JSON.parse(decoder.decode(await host.readFile(STATE_FILE, 4096)));
    const v = value as { lastRunMs?: unknown; sessionsSince?: unknown };
    return {
      lastRunMs: typeof v.lastRunMs === "number" && Number.isFinite(v.lastRunMs) ? v.lastRunMs : null,
      sessionsSince: typeof v.sessionsSince === "number" && Number.isSafeInteger(v.sessionsSince) && v.sessionsSince >= 0 ? Math.min(v.sessionsSince, 2 ** 31) : 0,
    };
  } catch {
    return { lastRunMs: null, sessionsSince: 0 };
  }
}

export async function writeState(host: MemoryHost, state: ConsolidationState): Promise<void> {
  await host.writeFile(STATE_FILE, encoder.encode(`${JSON.stringify(state)}\n`), { durable: false });
}

/** Counts a session for the schedule (best effort: a folder that cannot be written counts nothing). */
export async function countSession(host: MemoryHost): Promise<ConsolidationState> {
  const state = await readState(host);
  const next = { ...state, sessionsSince: state.sessionsSince + 1 };
  await writeState(host, next).catch(() => {});
  return next;
}

function newToken(): string {
  const random = new Uint8Array(9);
  if (typeof globalThis.crypto?.getRandomValues === "function") globalThis.crypto.getRandomValues(random);
  else for (let i = 0; i < random.length; i++) random[i] = Math.floor(Math.random() * 256);
  return `${Date.now().toString(36)}-${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * The run's lock (the write lock's body: pid, machine, boot, token): taken when free, when its
 * holder is provably gone (a dead pid on this machine, an earlier boot: at once), or when it is
 * older than {@link LOCK_STALE_MS}; `null` when another run holds it, else the token to release.
 * A lock is removed only if it is still the one judged, so two takers cannot both break it.
 */
async function takeLock(host: MemoryHost): Promise<string | null> {
  const owner = host.locks?.owner ? await host.locks.owner().catch(() => null) : null;
  const body: LockBody = { pid: owner?.pid ?? null, host: owner?.host ?? null, boot: owner?.boot ?? null, pidns: owner?.pidns ?? null, at: Date.now(), token: newToken() };
  const limits = { staleMs: LOCK_STALE_MS, graceMs: LOCK_STALE_MS };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      body.at = Date.now();
      await host.writeFile(LOCK_FILE, encodeLock(body), { exclusive: true, durable: false });
      return body.token;
    } catch (error) {
      if ((error as { code?: string } | null)?.code !== "EEXIST") throw ioError("write", LOCK_FILE, error);
    }
    const found = await inspectLock(host, LOCK_FILE);
    if (found === null) continue; // released meanwhile
    if (!(await judgeLock(host, found, limits, Date.now())).stale) return null;
    const again = await inspectLock(host, LOCK_FILE);
    if (again !== null && !sameLock(found, again)) return null; // another taker was first
    await host.remove(LOCK_FILE).catch(() => {});
  }
  return null;
}

/** Removes the run's lock if it is still ours. */
async function releaseLock(host: MemoryHost, token: string): Promise<void> {
  const found = await inspectLock(host, LOCK_FILE).catch(() => null);
  if (found?.body?.token === token) await host.remove(LOCK_FILE).catch(() => {});
}

function empty(mode: KeepMode): ConsolidateResult {
  return { outcome: "failed", mode, changes: [], rejected: [], diff: "", filesChanged: [], historyId: null, selector: null, model: null, usage: NO_USAGE, costUsd: null, latencyMs: 0 };
}

/** One consolidation (see `OpenedMemory.consolidate`). */
export async function consolidate(ctx: ConsolidateContext, opts: ConsolidateOptions = {}): Promise<ConsolidateResult> {
  const started = performance.now();
  const mode = opts.mode ?? "suggest";
  const result = empty(mode);
  const { writes } = ctx;
  let token: string | null = null;
  try {
    if (mode === "off") {
      result.outcome = "skipped";
    } else if (opts.onlyIfDue && !opts.force && !(await due(ctx, result))) {
      result.outcome = "not_due";
    } else if ((token = await takeLock(writes.host)) === null) {
      result.outcome = "busy";
      result.error = "another consolidation of this folder is running";
    } else if (opts.maxFilesChanged !== undefined && !(Number.isSafeInteger(opts.maxFilesChanged) && opts.maxFilesChanged >= 1 && opts.maxFilesChanged <= 2 ** 32 - 1)) {
      // before the model is asked (and paid)
      result.error = `invalid argument: maxFilesChanged must be a whole number of files, 1 or more, got ${String(opts.maxFilesChanged)}`;
    } else if (mode === "confirm" && !opts.dryRun && !opts.confirm) {
      throw new TypeError("confirm mode needs a `confirm` callback that approves the run");
    } else {
      await run(ctx, opts, mode, result);
      // a run counts for the schedule once it wrote, or, run on its own, once it finished (a
      // proposal is not asked for again at every session)
      const finished = ["nothing", "proposed", "declined"].includes(result.outcome);
      if (result.outcome === "consolidated" || (opts.onlyIfDue && finished)) {
        await writeState(ioHost(writes.host), { lastRunMs: writes.now(), sessionsSince: 0 }).catch(() => {});
      }
    }
  } catch (error) {
    result.outcome = "failed";
    result.error = `consolidation failed: ${(error as Error)?.message ?? String(error)}`;
  } finally {
    if (token !== null) await releaseLock(writes.host, token);
  }
  result.latencyMs = performance.now() - started;
  const event: ConsolidateEvent = { type: "consolidate", outcome: result.outcome, changes: result.changes.length, rejected: result.rejected.length, latencyMs: result.latencyMs, usage: result.usage, costUsd: result.costUsd, ...(result.outcome === "proposed" ? { diff: result.diff } : {}), ...(result.error ? { error: result.error } : {}) };
  try {
    ctx.onEvent?.(event);
  } catch {
    // a logging callback must not break consolidation
  }
  return result;
}

async function due(ctx: ConsolidateContext, result: ConsolidateResult): Promise<boolean> {
  const d = consolidationDue(await readState(ctx.writes.host), ctx.writes.now(), ctx.schedule ?? null);
  result.due = d.reason;
  return d.due;
}

async function plan(ctx: ConsolidateContext, answer: string, maxFilesChanged: number | undefined, nowMs: number): Promise<ConsolidationPlan> {
  const { writes } = ctx;
  const snapshot = await takeSnapshot(ioHost(writes.host), doctorReadPlan(writes.limits), writes.concurrency);
  return planConsolidation(answer, snapshot, writes.limits, nowMs, maxFilesChanged ?? null);
}

function show(result: ConsolidateResult, p: ConsolidationPlan): void {
  result.changes = p.changes;
  result.rejected = p.rejected;
  result.diff = p.diff;
  result.filesChanged = p.filesChanged;
}

async function run(ctx: ConsolidateContext, opts: ConsolidateOptions, mode: KeepMode, result: ConsolidateResult): Promise<void> {
  const { writes, recall } = ctx;
  const io = ioHost(writes.host);
  const snapshot = await takeSnapshot(io, doctorReadPlan(writes.limits), writes.concurrency);
  const built = buildConsolidationRequest(snapshot, writes.limits, opts.force === true);
  if (built.skip) {
    result.outcome = "nothing";
    return;
  }
  const asked = await askModel(recall.selector, built.request, { what: "consolidation", timeoutMs: opts.timeoutMs, defaultTimeoutMs: 120_000, signal: opts.signal });
  Object.assign(result, { selector: asked.selector, model: asked.model, usage: asked.usage, costUsd: asked.costUsd });
  if (asked.text === null) {
    result.error = asked.error;
    return;
  }
  const answer = asked.text;
  // one time for the run: the plan made again under the lock must give the same diff
  const nowMs = writes.now();
  const first = await plan(ctx, answer, opts.maxFilesChanged, nowMs);
  if (first.failure) {
    result.error = `${first.failure.code}: ${first.failure.message}`;
    return;
  }
  show(result, first);
  if (first.effects.length === 0) {
    result.outcome = "nothing";
    return;
  }
  if (opts.dryRun || mode === "suggest") {
    result.outcome = "proposed";
    return;
  }
  if (mode === "confirm") {
    if (!opts.confirm) throw new TypeError("confirm mode needs a `confirm` callback that approves the run");
    let yes = false;
    try {
      yes = (await opts.confirm({ changes: first.changes, diff: first.diff, filesChanged: first.filesChanged })) === true;
    } catch {
      yes = false;
    }
    if (!yes) {
      result.outcome = "declined";
      return;
    }
  }
  let changedSince = false;
  const own = ctx.mute ?? (<T>(fn: () => Promise<T>) => fn());
  await own(() => withIoLock(
    writes.host,
    async () => {
      await recoverInterrupted(io, writes.limits);
      // planned again on the folder as it is now: what changed since is never overwritten, and
      // what someone approved is what is written (else nothing is)
      const now = await plan(ctx, answer, opts.maxFilesChanged, nowMs);
      if (mode === "confirm" && JSON.stringify(now.effects) !== JSON.stringify(first.effects)) {
        changedSince = true;
        return;
      }
      show(result, now);
      const record = await applyJournaled(io, now.effects, { ...writes.history, route: "consolidate", nowMs: writes.now(), limits: writes.limits });
      result.historyId = record?.id ?? null;
    },
    writes.lock,
  ));
  if (changedSince) {
    result.error = "CHANGED: the memory changed after the diff was shown; nothing was written (run it again to see the new diff)";
    return;
  }
  result.outcome = result.historyId ? "consolidated" : "nothing";
}
