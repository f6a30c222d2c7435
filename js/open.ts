/**
 * `openMemory`: a memory directory, read through a host, recalled through a selector, written
 * through the core's rules. This file only wires the pieces: `recall.ts` (one recall),
 * `session.ts` (a conversation), `writes.ts` (remember, forget), `tool.ts` (the memory tool),
 * `doctor.ts`.
 */
import { contentHash, defaultLimits, defaultSelector, indexPrompt, indexReadPlan, memoryInstructions } from "./core.js";
import type { KeepMode, Limits, Memory, ScanResult } from "./core.js";
import type { ExtractOptions } from "./extract.js";
import { bounded } from "./bounded.js";
import type { OpenedMemory, OpenMemoryOptions, ScopedMemory, ScopeOptions } from "./api.js";
import { applyDoctorFixes, doctorFixPlan, doctorReport } from "./doctor.js";
import { MemdirError } from "./errors.js";
import { lazyProperty } from "./lazy.js";
import type { HostFastPaths, MemoryHost, WriteRequest } from "./host.js";
import { recall, scanWithHeads, type RecallContext } from "./recall.js";
import { sharedCache, type ScanCache } from "./scan-cache.js";
import type { SelectorConfig, SelectorFunction } from "./selectors.js";
import { session, type SessionKeeper } from "./session.js";
import { openScoped } from "./scopes.js";
import { memoryTool } from "./tool.js";
import { ifMatchOf, readHistory, recoverAtOpen, restoreAt, undoChange, type HistoryOptions } from "./history.js";
import { ioHost, withIoLock } from "./io.js";
import { forget, remember, touch } from "./writes.js";
import { extract, keepMode, type ExtractContext } from "./extract.js";
import { consolidate, countSession, type ConsolidateContext } from "./consolidate.js";

export function envKey(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name] || undefined;
}

/** The selector when none is given: the core's choice from which keys the environment has. */
export function selectorFromEnv(): SelectorConfig {
  const { provider } = defaultSelector({ anthropicKey: envKey("ANTHROPIC_API_KEY") !== undefined, openaiKey: envKey("OPENAI_API_KEY") !== undefined });
  if (provider === "anthropic") return { provider, apiKey: envKey("ANTHROPIC_API_KEY")! };
  if (provider === "openai") return { provider, apiKey: envKey("OPENAI_API_KEY")! };
  return { provider: "lexical" };
}

// `dir` and `projectRoot` are the Node entry's (node-open.ts turns them into a NodeHost), so
// that nothing here imports a `node:` module into a browser bundle
async function resolveHost(options: OpenMemoryOptions): Promise<MemoryHost> {
  if (options.host) return options.host;
  if (options.dir !== undefined || options.projectRoot !== undefined) {
    throw new MemdirError("INVALID_ARGUMENT", "invalid argument: `dir` and `projectRoot` open a folder through Node (the `node` export of memdir); here pass a `host` (InMemoryHost, VsCodeHost, your own)");
  }
  throw new MemdirError("INVALID_ARGUMENT", "invalid argument: openMemory needs `dir`, `projectRoot` or `host`");
}

/** What a memory of several scopes (scopes.ts) needs of each scope's opened memory. */
export interface OpenedInternals {
  recall: RecallContext;
  keeper: SessionKeeper;
}
const internals = new WeakMap<OpenedMemory, OpenedInternals>();
/** The recall context and session keeper of a memory `openMemory` opened. */
export function internalsOf(memory: OpenedMemory): OpenedInternals | undefined {
  return internals.get(memory);
}

/** Opens several memory folders as one (rules §6): see {@link ScopedMemory}. */
export function openMemory(options: OpenMemoryOptions & { scopes: ScopeOptions[] }): Promise<ScopedMemory>;
/** Opens a memory directory. */
export function openMemory(options?: OpenMemoryOptions): Promise<OpenedMemory>;
export async function openMemory(options: OpenMemoryOptions = {}): Promise<OpenedMemory> {
  if (options !== null && typeof options === "object" && options.scopes !== undefined) return openScoped(options, openMemory, internalsOf);
  const host = await resolveHost(options);
  const limits: Limits = { ...defaultLimits(), ...options.limits };
  const indexPlan = indexReadPlan(limits); // the core checks the limits now: an unknown key is an error at open
  const now = options.now ?? Date.now;
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const selector: SelectorConfig | SelectorFunction = options.selector ?? selectorFromEnv();
  const cacheOptions = options.cache === false ? { enabled: false, watch: false } : options.cache === true || options.cache === undefined ? {} : options.cache;
  // memories open on one host share its cache (one listing, one watcher a folder, one core session)
  const { cache, release } = sharedCache(host, limits, cacheOptions);
  const ctx: RecallContext = { host, limits, selector, now, concurrency, cache, ...(options.onEvent ? { onEvent: options.onEvent } : {}) };
  // every write through memdir tells the cache what it touched, before any watcher could, and
  // counts the memory files it wrote (a session skips extraction for a turn that wrote memory)
  let memoryWrites = 0;
  let muted = 0; // while extraction applies its own plan (under the write lock: no other write interleaves)
  const writing = tellingCache(host, cache, (path) => {
    if (muted === 0 && path.endsWith(".md") && !path.startsWith(".memdir/")) memoryWrites++;
  });
  const keep = options.keep ?? {};
  let extractMode: KeepMode | undefined;
  let dreamMode: KeepMode | undefined;
  try {
    extractMode = keep.extract === undefined ? undefined : keepMode(keep.extract, "keep.extract");
    dreamMode = keep.consolidate === undefined ? undefined : keepMode(keep.consolidate.mode ?? "suggest", "keep.consolidate.mode");
  } catch (error) {
    throw new MemdirError("INVALID_ARGUMENT", `invalid argument: ${(error as Error).message}`);
  }
  const history: HistoryOptions = { ...options.history };
  const writes = { host: writing, limits, now, concurrency, cache, history, ...(options.lock ? { lock: options.lock } : {}) };
  const historyCtx = { host: writing, limits, now, ...history, ...(options.lock ? { lock: options.lock } : {}) };
  // a change a kill interrupted is rolled back before this memory reads anything (rules §4.6)
  await recoverAtOpen(historyCtx, ioHost(writing));
  const recallOnce = (query: string, turn = {}) => recall(ctx, query, turn);
  const mute = async <T>(fn: () => Promise<T>): Promise<T> => {
    muted++;
    try {
      return await fn();
    } finally {
      muted--;
    }
  };
  const extractCtx: ExtractContext = { recall: ctx, writes, mute, ...(extractMode ? { mode: extractMode } : {}), ...(options.onEvent ? { onEvent: options.onEvent } : {}) };
  const extractOnce = (opts: ExtractOptions) => extract(extractCtx, keep.confirm && !opts?.confirm ? { ...opts, confirm: keep.confirm } : opts);
  // one extraction at a time per opened memory
  let extracting: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const run = extracting.then(job, job);
    extracting = run.catch(() => {});
    return run;
  };
  const keeper = { extract: extractOnce, writes: () => memoryWrites, serial };
  const dream = keep.consolidate;
  const consolidateCtx: ConsolidateContext = {
    recall: ctx,
    writes,
    mute,
    ...(dream ? { schedule: { ...(dream.minHours !== undefined ? { minHours: dream.minHours } : {}), ...(dream.minSessions !== undefined ? { minSessions: dream.minSessions } : {}) } } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  };
  /** A session counts toward the schedule, and starts a due run in the background (never failing it). */
  const newSession = () => {
    if (dream && dreamMode && dreamMode !== "off") {
      const mode = dreamMode;
      // under the write lock: sessions opened at once (or in other processes) each count
      void withIoLock(writing, () => countSession(ioHost(writing)), options.lock)
        .then(() => consolidate(consolidateCtx, { mode, onlyIfDue: true, ...(dream.confirm ? { confirm: dream.confirm } : {}) }))
        .catch(() => {});
    }
    return session(recallOnce, keeper);
  };
  const opened: OpenedMemory = {
    host,
    dir: host.root,
    remember: (input) => remember(writes, input),
    forget: async (input) => (typeof input === "string" ? forget(writes, input) : forget(writes, forgetFile(input), ifMatchOf((input as { ifMatch?: unknown }).ifMatch, "forget's ifMatch"))),
    touch: async (input) => (typeof input === "string" ? touch(writes, input) : touch(writes, forgetFile(input, "touch"), ifMatchOf((input as { ifMatch?: unknown }).ifMatch, "touch's ifMatch"))),
    tool: () => memoryTool(writing, limits, options.lock, { ...history, now }),
    doctor: (opts) => doctorReport(host, limits, now(), opts),
    planFixes: (opts) => doctorFixPlan(host, limits, now(), opts),
    applyFixes: (plan, opts) => applyDoctorFixes(writing, plan, limits, now(), opts, options.lock, history),
    history: (opts) => readHistory(historyCtx, ioHost(writing), opts),
    undo: (id, opts) => undoChange(historyCtx, ioHost(writing), id, opts),
    restore: (opts) => restoreAt(historyCtx, ioHost(writing), (opts as { at?: number | Date } | undefined)?.at as number, opts),
    close: () => release(),
    async index() {
      let content: Uint8Array = new Uint8Array(0);
      let fileBytes: number | null = null;
      try {
        // only what the limits could keep: a huge index is read no further
        content = await host.readFile(indexPlan.path, indexPlan.readBytes);
        fileBytes = (await host.stat(indexPlan.path))?.size ?? null;
      } catch {
        // missing or unreadable: nothing is injected
      }
      return indexPrompt({ content, fileBytes, absolutePath: host.absolutePath(indexPlan.path), limits, scope: options.scope ?? null });
    },
    instructions: (opts = {}) => memoryInstructions(host.root, opts?.via, opts?.extract ?? extractMode),
    scan: async (opts = {}) => {
      // the cache keeps its scan for the next turn: the caller gets arrays of its own
      const { result } = await scanWithHeads(ctx);
      const own = { memories: opts?.hashes ? await withHashes(host, result.memories, concurrency) : [...result.memories] } as ScanResult;
      lazyProperty(own, "dropped", () => [...result.dropped]); // thousands in a large folder: copied when read
      own.diagnostics = [...result.diagnostics];
      return own;
    },
    recall: recallOnce,
    session: newSession,
    consolidate: (opts = {}) => consolidate(consolidateCtx, dream?.confirm && !opts.confirm ? { ...opts, confirm: dream.confirm } : opts),
    extract: (opts) => serial(() => extractOnce(opts)),
  };
  internals.set(opened, { recall: ctx, keeper });
  return opened;
}

/**
 * `scan({ hashes: true })`: each memory with the SHA-256 of its whole file, what a write passes
 * back as `ifMatch` (a copy: the scan's memories are the cache's). A file that can no longer be
 * read has none.
 */
async function withHashes(host: MemoryHost, memories: readonly Memory[], concurrency: number): Promise<Memory[]> {
  return bounded([...memories], concurrency, async (m) => {
    try {
      return { ...m, sha256: contentHash(await host.readFile(m.path)) };
    } catch {
      return { ...m };
    }
  });
}

/** The file of `forget({ file })` and `touch({ file })`; anything else is `INVALID_ARGUMENT`. */
function forgetFile(input: unknown, what = "forget"): string {
  const file = (input as { file?: unknown } | null)?.file;
  if (typeof file !== "string") throw new MemdirError("INVALID_ARGUMENT", `invalid argument: ${what} takes { file } (or the file as a string)`);
  return file;
}

/** `host`, telling `cache` of every write, removal and rename (also when it fails: it may have half happened). */
function tellingCache(host: MemoryHost, cache: ScanCache, wrote: (path: string) => void): MemoryHost {
  const told = <T>(paths: string[], run: () => Promise<T>): Promise<T> =>
    run().finally(() => {
      cache.touched(...paths);
      for (const p of paths) wrote(p);
    });
  const overrides: Partial<MemoryHost> = {
    writeFile: (path, data, opts) => told([path], () => host.writeFile(path, data, opts)),
    remove: (path) => told([path], () => host.remove(path)),
    rename: (from, to) => told([from, to], () => host.rename(from, to)),
  };
  const fast = host.fast;
  // the fast group as the host's, with its writeFiles told (a group that is a class keeps its methods)
  if (fast?.writeFiles) overrides.fast = Object.assign(Object.create(fast) as HostFastPaths, { writeFiles: (files: WriteRequest[]) => told(files.map((f) => f.path), () => fast.writeFiles!(files)) });
  // every other member read from the host itself (so a class with #private fields works)
  return new Proxy(host, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof MemoryHost];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
