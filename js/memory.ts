/**
 * `openMemory`: a memory directory, read through a host, recalled through a selector.
 * The core decides every rule; this file sequences the I/O and never throws into an agent's
 * turn for a model, network or file problem.
 */
import {
  buildSelectionRequest,
  estimateCost,
  indexPrompt,
  indexReadBytes,
  lexicalSelect,
  memoryAgeDays,
  memoryInstructions,
  parseSelection,
  planScan,
  projectMemoryDir,
  renderMemory,
  scanMemories,
} from "./core.js";
import type { FileHead, IndexPrompt, Limits, ProviderName, Rejected, RenderedMemory, ScanResult, SelectionRequest, Usage } from "./core.js";
import { defaultLimits } from "./core.js";
import type { MemoryHost } from "./host.js";
import { NO_USAGE, queryFunction, queryProvider, type SelectorConfig, type SelectorFunction, type SideQueryResult } from "./selectors.js";
import { bounded } from "./bounded.js";
import { planForget, planRemember } from "./core.js";
import type { DoctorReport, FixPlan, RememberInput, Snapshot, WritePlan } from "./core.js";
import { applyDoctorFixes, doctorFixPlan, doctorReport, type DoctorOptions } from "./doctor.js";
import type { LockOptions } from "./lock.js";
import { crossing } from "./edge.js";
import { MemdirError } from "./errors.js";
import { ioHost, withIoLock } from "./io.js";
import { applyEffects, takeSnapshot } from "./snapshot.js";
import { memoryTool, type MemoryTool } from "./tool.js";

export type { SelectorConfig, SelectorFunction, SelectorRequest } from "./selectors.js";

/** How to open a memory. */
export interface OpenMemoryOptions {
  /** The memory directory (Node). */
  dir?: string;
  /** Or the project: memory then lives in `~/.claude/projects/<key>/memory/` as in Claude Code (Node). */
  projectRoot?: string;
  /** Or any storage: in memory, VS Code, your own. */
  host?: MemoryHost;
  /** Default: `{provider: "anthropic"}` when `ANTHROPIC_API_KEY` is set (Node), else `{provider: "lexical"}`. */
  selector?: SelectorConfig | SelectorFunction;
  limits?: Partial<Limits>;
  /** The clock, for ages. Default `Date.now`. */
  now?: () => number;
  /** Called once per recall with what happened. */
  onEvent?: (event: RecallEvent) => void;
  /** Files read at once. Default 16. */
  concurrency?: number;
  /** How long a write waits for another writer's lock, and when a lock counts as abandoned. */
  lock?: LockOptions;
}

/** What `remember` / `forget` did. */
export interface WriteResult {
  /** The topic file, relative. */
  file: string;
  absolutePath: string;
  action: "created" | "updated" | "forgotten";
  /** The index line written (`null` for forget). */
  indexLine: string | null;
}

/** One recalled memory. */
export interface RecalledMemory {
  /** Relative path: what `alreadySurfaced` takes. */
  path: string;
  absolutePath: string;
  /** The file's modification time. */
  mtimeMs: number;
  /** The memory's time (the older of the mtime and a recorded `metadata.modified`): its age is from this. */
  timeMs: number;
  ageDays: number;
  /** Fixed when surfaced; keep it, so a cached prompt stays byte-identical. */
  header: string;
  /** The content as injected (cut to the limits, with a note when cut). */
  content: string;
  truncated: "lines" | "bytes" | null;
  /** The `<system-reminder>` block. */
  text: string;
}

export type RecallOutcome = "selected" | "none_selected" | "no_memories" | "skipped" | "failed";

/** What `recall` returns. */
export interface RecallResult {
  outcome: RecallOutcome;
  /** Which selector chose: `anthropic`, `openai`, `ollama`, `lexical`, `function`; `null` when none ran. */
  selector: string | null;
  /** The model whose answer was used, when a model was called. */
  model: string | null;
  memories: RecalledMemory[];
  /** The blocks to inject, in order. */
  reminders: string[];
  /** Names the model returned that were refused, with reasons. */
  rejected: Rejected[];
  usage: Required<Usage>;
  /** US dollars of the side query; null when the model is not in the price table. */
  costUsd: number | null;
  /** Wall time of the whole recall, model call included. */
  latencyMs: number;
  /** Wall time of the model call alone. */
  modelLatencyMs: number;
  /** Why: the skip reason, the model failure (also when the lexical fallback chose), or unreadable files. */
  error?: string;
}

/** Sent to `onEvent` after every recall. */
export interface RecallEvent {
  type: "recall";
  outcome: RecallOutcome;
  selector: string | null;
  candidates: number;
  selected: number;
  /** Ages in days of the selected memories. */
  ages: number[];
  latencyMs: number;
  usage: Required<Usage>;
  costUsd: number | null;
  error?: string;
}

export interface RecallOptions {
  /** Relative paths surfaced earlier (from `RecalledMemory.path`). */
  alreadySurfaced?: string[];
  /** Tools the agent used successfully in the previous turn. */
  recentTools?: string[];
  signal?: AbortSignal;
  timeoutMs?: number;
  /** UTF-16 units surfaced so far this session (sessions track this for you). */
  surfacedUtf16?: number;
}

/** A memory opened with `openMemory`. */
export interface Memory {
  readonly host: MemoryHost;
  /** MEMORY.md, truncated, and `prompt`: the ready-to-inject block ("" when the index is missing or empty). */
  index(): Promise<IndexPrompt>;
  /** The system-prompt section that teaches the main model to keep this memory. */
  instructions(): string;
  scan(): Promise<ScanResult>;
  recall(query: string, options?: RecallOptions): Promise<RecallResult>;
  session(): MemorySession;
  /**
   * Writes a topic file with valid frontmatter and its one line in MEMORY.md (added, or
   * updated in place). Throws a `MemdirError` — `INVALID_ARGUMENT`, `INVALID_MEMORY`,
   * `SECRET_DETECTED`, `LIMIT_EXCEEDED`, `DUPLICATE_MEMORY`, `INDEX_ONLY`, `UNSAFE_PATH`,
   * `TOO_LARGE`, `INVALID_UTF8` — and writes nothing when a rule refuses it; `LOCKED` or
   * `IO_ERROR` when the directory could not be written, `NOT_A_DIRECTORY` when it is a file.
   */
  remember(input: RememberInput): Promise<WriteResult>;
  /**
   * Removes a topic file and every index line linking to it; `NOT_FOUND` when neither exists,
   * and the same errors as `remember` otherwise.
   */
  forget(file: string): Promise<WriteResult>;
  /** Handlers for Anthropic's `memory_20250818` memory tool, over this directory. */
  tool(): MemoryTool;
  /** Every doctor check (SPEC §5). */
  doctor(options?: DoctorOptions): Promise<DoctorReport>;
  /** The safe fixes doctor can make: effects, a unified diff, and the report before and after. */
  planFixes(options?: DoctorOptions): Promise<FixPlan>;
  /** Applies a plan from `planFixes` if nothing changed since; returns the report after. */
  applyFixes(plan: FixPlan, options?: DoctorOptions): Promise<DoctorReport>;
}

/** A prefetched recall: started at the start of a turn, taken later without waiting. */
export interface Prefetch {
  /** `true` once the result is ready. */
  readonly settled: boolean;
  /** The result if settled (and marks its memories surfaced), else `undefined`. Never waits. */
  take(): RecallResult | undefined;
  /** Resolves with the result (not marked surfaced until `take`). */
  readonly promise: Promise<RecallResult>;
  /** Ends the turn: aborts the side query if it is still running. */
  end(): void;
}

/** A stateful recall across the turns of one conversation. */
export interface MemorySession {
  recall(query: string, options?: Omit<RecallOptions, "alreadySurfaced" | "surfacedUtf16">): Promise<RecallResult>;
  prefetch(query: string, options?: Omit<RecallOptions, "alreadySurfaced" | "surfacedUtf16">): Prefetch;
  /** Paths surfaced so far. */
  readonly surfaced: readonly string[];
  /** UTF-16 units surfaced so far; recall stops at `maxSessionUtf16`. */
  readonly surfacedUtf16: number;
  /** After compaction: memories may surface again and the budget starts over. */
  reset(): void;
}


/** An empty directory: what `remember` and `forget` are checked against before any I/O. */
const NOTHING: Snapshot = { entries: [], contents: {}, resolved: {} };

function envKey(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name] || undefined;
}

async function resolveHost(options: OpenMemoryOptions): Promise<MemoryHost> {
  if (options.host) return options.host;
  for (const key of ["dir", "projectRoot"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value.includes("\0"))) throw new MemdirError("INVALID_ARGUMENT", `invalid argument: \`${key}\` must be a path (a string without NUL)`);
  }
  const { NodeHost } = await import("./hosts/node.js");
  if (options.dir) return new NodeHost(options.dir);
  if (options.projectRoot) {
    const { findProjectRoot } = await import("./git.js");
    const { homedir } = await import("node:os");
    const dir = projectMemoryDir({ homeDir: homedir(), projectRoot: await findProjectRoot(options.projectRoot), configDir: envKey("CLAUDE_CONFIG_DIR") ?? null });
    return new NodeHost(dir);
  }
  throw new MemdirError("INVALID_ARGUMENT", "invalid argument: openMemory needs `dir`, `projectRoot` or `host`");
}


function errorCode(error: unknown): string {
  return (error as { code?: string })?.code ?? "";
}

/** Opens a memory directory. */
export async function openMemory(options: OpenMemoryOptions = {}): Promise<Memory> {
  const host = await resolveHost(options);
  const limits: Limits = { ...defaultLimits(), ...options.limits };
  indexReadBytes(limits); // the core checks the limits now: an unknown key is an error at open
  const now = options.now ?? Date.now;
  const concurrency = Math.max(1, options.concurrency ?? 16);
  const selector: SelectorConfig | SelectorFunction =
    options.selector ?? (envKey("ANTHROPIC_API_KEY") ? { provider: "anthropic", apiKey: envKey("ANTHROPIC_API_KEY")! } : { provider: "lexical" });

  // a host failure is an IO_ERROR naming a relative path, never the host's own message
  const io = ioHost(host);

  async function scan(): Promise<ScanResult> {
    const listed = await io.list();
    const files: FileHead[] = listed.map((e) => ({ path: e.path, mtimeMs: e.mtimeMs, kind: e.kind, problem: e.problem ?? null }));
    const byPath = new Map(files.map((f) => [f.path, f]));
    const plan = planScan(files, limits);
    // read the newest heads; a file that cannot be read gives its place to the next one
    let good = 0;
    let cursor = 0;
    while (good < plan.maxFiles && cursor < plan.read.length) {
      const batch = plan.read.slice(cursor, cursor + (plan.maxFiles - good));
      cursor += batch.length;
      const results = await bounded(batch, concurrency, async (path) => {
        const file = byPath.get(path)!;
        try {
          file.head = await host.readHead(path, limits.maxHeaderLines);
          return true;
        } catch (error) {
          file.problem = errorCode(error) || "unreadable"; // the core names it (ENOENT → vanished, …)
          return false;
        }
      });
      good += results.filter(Boolean).length;
    }
    return scanMemories(files, limits);
  }

  async function select(request: SelectionRequest, query: string, scanResult: ScanResult, options: RecallOptions): Promise<{ name: string; selected: string[]; rejected: Rejected[]; side: SideQueryResult | null; error?: string }> {
    const lexical = () => lexicalSelect({ query, memories: scanResult.memories.filter((m) => request.candidates.includes(m.path)), limits }).selected;
    if (typeof selector !== "function" && selector.provider === "lexical") return { name: "lexical", selected: lexical(), rejected: [], side: null };
    const timeoutMs = options.timeoutMs ?? (typeof selector === "function" ? undefined : selector.timeoutMs);
    const side =
      typeof selector === "function"
        ? await queryFunction(selector, request, timeoutMs, options.signal)
        : await queryProvider({ ...selector, provider: selector.provider as ProviderName, timeoutMs }, request, options.signal);
    const name = typeof selector === "function" ? "function" : selector.provider;
    let failure = side.failure ? `${side.failure.code}: ${side.failure.message}` : undefined;
    if (side.text !== null) {
      const parsed = parseSelection(side.text, request.candidates, options.alreadySurfaced ?? [], limits);
      if (!parsed.failure) return { name, selected: parsed.selected, rejected: parsed.rejected, side };
      failure = `${parsed.failure.code}: ${parsed.failure.message}`;
    }
    const fallback = typeof selector !== "function" && selector.fallback;
    if (fallback && !options.signal?.aborted) return { name: "lexical", selected: lexical(), rejected: [], side, error: `${name} failed (${failure}); the lexical selector chose` };
    return { name, selected: [], rejected: [], side, error: failure };
  }

  async function recall(query: string, turn: RecallOptions = {}): Promise<RecallResult> {
    const started = performance.now();
    const result: RecallResult = { outcome: "failed", selector: null, model: null, memories: [], reminders: [], rejected: [], usage: NO_USAGE, costUsd: null, latencyMs: 0, modelLatencyMs: 0 };
    let candidates = 0;
    try {
      const scanned = await scan();
      const request = buildSelectionRequest({
        query,
        memories: scanned.memories,
        alreadySurfaced: turn.alreadySurfaced ?? [],
        recentTools: turn.recentTools ?? [],
        surfacedUtf16: turn.surfacedUtf16 ?? 0,
        limits,
      });
      candidates = request.candidates.length;
      if (request.skip) {
        result.outcome = request.skip === "no_memories" ? "no_memories" : "skipped";
        result.error = request.skip;
      } else {
        const modelStarted = performance.now();
        const chosen = await select(request, query, scanned, turn);
        result.modelLatencyMs = performance.now() - modelStarted;
        result.selector = chosen.name;
        result.rejected = chosen.rejected;
        if (chosen.side) {
          result.usage = chosen.side.usage;
          result.model = chosen.side.model;
          result.costUsd = estimateCost({ model: chosen.side.model, usage: chosen.side.usage }).usd;
        }
        if (chosen.error) result.error = chosen.error;
        if (chosen.error && chosen.name !== "lexical") {
          result.outcome = "failed";
        } else {
          const byPath = new Map(scanned.memories.map((m) => [m.path, m]));
          const nowMs = now();
          const rendered = await bounded(chosen.selected, concurrency, async (path) => {
            const memory = byPath.get(path)!;
            try {
              const content = await host.readFile(path, limits.maxInjectBytes + 8);
              const timeMs = memory.timeMs ?? memory.mtimeMs; // the scan always sets it
              const r: RenderedMemory = renderMemory({ path, absolutePath: host.absolutePath(path), mtimeMs: timeMs, content, nowMs, limits });
              return { path, absolutePath: host.absolutePath(path), mtimeMs: memory.mtimeMs, timeMs, ageDays: memoryAgeDays(timeMs, nowMs), header: r.header, content: r.body, truncated: r.truncated, text: r.text } satisfies RecalledMemory;
            } catch (error) {
              result.error = [result.error, `${path} could not be read (${errorCode(error) || (error as Error).message})`].filter(Boolean).join("; ");
              return null;
            }
          });
          result.memories = rendered.filter((m): m is RecalledMemory => m !== null);
          result.reminders = result.memories.map((m) => m.text);
          result.outcome = result.memories.length > 0 ? "selected" : "none_selected";
        }
      }
    } catch (error) {
      result.outcome = "failed";
      result.error = `recall failed: ${(error as Error)?.message ?? String(error)}`;
    }
    result.latencyMs = performance.now() - started;
    const event: RecallEvent = { type: "recall", outcome: result.outcome, selector: result.selector, candidates, selected: result.memories.length, ages: result.memories.map((m) => m.ageDays), latencyMs: result.latencyMs, usage: result.usage, costUsd: result.costUsd, ...(result.error ? { error: result.error } : {}) };
    try {
      options.onEvent?.(event);
    } catch {
      // a logging callback must not break recall
    }
    return result;
  }

  function session(): MemorySession {
    let surfaced: string[] = [];
    let surfacedUtf16 = 0;
    let generation = 0;
    const mark = (result: RecallResult, gen: number) => {
      if (gen !== generation) return; // reset() since this recall started
      for (const m of result.memories) {
        if (!surfaced.includes(m.path)) surfaced.push(m.path);
        surfacedUtf16 += m.content.length;
      }
    };
    const run = (query: string, opts: RecallOptions) => recall(query, { ...opts, alreadySurfaced: [...surfaced], surfacedUtf16 });
    return {
      async recall(query, opts = {}) {
        const gen = generation;
        const result = await run(query, opts);
        mark(result, gen);
        return result;
      },
      prefetch(query, opts = {}) {
        const controller = new AbortController();
        const signal = opts.signal ? AbortSignal.any([opts.signal, controller.signal]) : controller.signal;
        const gen = generation;
        let value: RecallResult | undefined;
        let taken = false;
        const promise = run(query, { ...opts, signal }).then((r) => (value = r));
        return {
          get settled() {
            return value !== undefined;
          },
          take() {
            if (value === undefined || taken) return taken ? undefined : value;
            taken = true;
            mark(value, gen);
            return value;
          },
          promise,
          end() {
            if (value === undefined) controller.abort(new Error("the turn ended"));
          },
        };
      },
      get surfaced() {
        return surfaced;
      },
      get surfacedUtf16() {
        return surfacedUtf16;
      },
      reset() {
        surfaced = [];
        surfacedUtf16 = 0;
        generation++;
      },
    };
  }

  // writes read and write through `io` too
  async function write(plan: () => Promise<WritePlan>): Promise<WriteResult> {
    return withIoLock(
      host,
      async () => {
        const planned = await plan();
        await applyEffects(io, planned.effects);
        return { file: planned.file, absolutePath: host.absolutePath(planned.file), action: planned.action, indexLine: planned.indexLine };
      },
      options.lock,
    );
  }

  return {
    host,
    async remember(given) {
      // read once, then checked by the core before any I/O or lock: a refusal that does not
      // depend on the directory (shape, type, secrets, an unsafe `file`) comes from this dry run
      const read = crossing({ input: given }).input as RememberInput;
      // the write records its time: `now` is passed in, never read by the core
      const input = typeof read === "object" && read !== null && read.nowMs == null ? { ...read, nowMs: now() } : read;
      planRemember(input, NOTHING, limits);
      return write(async () => {
        const resolve = ["MEMORY.md", ...(typeof input.file === "string" ? [input.file] : [])];
        const snapshot = await takeSnapshot(io, { read: ["MEMORY.md"], heads: limits.maxHeaderLines, resolve, maxFileBytes: limits.maxFileBytes }, concurrency);
        return planRemember(input, snapshot, limits);
      });
    },
    async forget(file) {
      try {
        planForget(file, NOTHING, limits); // the same dry run: only NOT_FOUND depends on the directory
      } catch (error) {
        if ((error as MemdirError).code !== "NOT_FOUND") throw error;
      }
      return write(async () => {
        const snapshot = await takeSnapshot(io, { read: ["MEMORY.md"], resolve: ["MEMORY.md", file], maxFileBytes: limits.maxFileBytes }, concurrency);
        return planForget(file, snapshot, limits);
      });
    },
    tool: () => memoryTool(host, limits, options.lock),
    doctor: (opts) => doctorReport(host, limits, now(), opts),
    planFixes: (opts) => doctorFixPlan(host, limits, now(), opts),
    applyFixes: (plan, opts) => applyDoctorFixes(host, plan, limits, now(), opts, options.lock),
    async index() {
      let content: Uint8Array = new Uint8Array(0);
      let fileBytes: number | null = null;
      try {
        // only what the limits could keep: a huge index is read no further
        content = await host.readFile("MEMORY.md", indexReadBytes(limits));
        fileBytes = (await host.stat("MEMORY.md"))?.size ?? null;
      } catch {
        // missing or unreadable: nothing is injected
      }
      return indexPrompt({ content, fileBytes, absolutePath: host.absolutePath("MEMORY.md"), limits });
    },
    instructions: () => memoryInstructions(host.root),
    scan,
    recall,
    session,
  };
}
