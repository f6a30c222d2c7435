/**
 * One recall: scan the directory (the newest heads), ask the selector which memories help
 * this turn, and render the chosen ones as `<system-reminder>` blocks. The core decides every
 * rule; this file sequences the I/O, and never throws into an agent's turn for a model,
 * network or file problem (the result says `failed`, and why).
 */
import {
  buildSelectionRequest,
  estimateCost,
  injectReadBytes,
  memoryAgeDays,
  parseSelection,
  renderMemory,
} from "./core.js";
import type { Limits, ProviderName, Rejected, SelectionRequest } from "./core.js";
import type { RecallEvent, RecallOptions, RecallResult, RecalledMemory } from "./api.js";
import { bounded } from "./bounded.js";
import type { MemoryHost } from "./host.js";
import { lexicalSelectAmong } from "./scan-session.js";
import { ScanCache, type Scanned } from "./scan-cache.js";
import { NO_USAGE, queryFunction, queryProvider, type SelectorConfig, type SelectorFunction, type SideQueryResult } from "./selectors.js";

/** What a recall works with: the opened memory's settings. */
export interface RecallContext {
  host: MemoryHost;
  limits: Limits;
  selector: SelectorConfig | SelectorFunction;
  now: () => number;
  concurrency: number;
  onEvent?: (event: RecallEvent) => void;
  /** What the opened memory keeps between turns. */
  cache?: ScanCache;
  /**
   * A memory of several scopes (scopes.ts): the scan of all of them, paths as `<scope>:<path>`,
   * instead of `host`'s; and where each such path is read.
   */
  scoped?: {
    scan(): Promise<Scanned>;
    locate(path: string): { host: MemoryHost; path: string; scope: string };
  };
}

export type { Scanned } from "./scan-cache.js";

function errorCode(error: unknown): string {
  return (error as { code?: string })?.code ?? "";
}

/**
 * Scans: lists, reads the newest heads (a file that cannot be read gives its place to the next),
 * and lets the core decide — through the opened memory's cache when it has one (only what
 * changed since the last turn is read), else from scratch.
 */
export function scanWithHeads({ host, limits, concurrency, cache, scoped }: RecallContext): Promise<Scanned> {
  if (scoped) return scoped.scan();
  return (cache ?? new ScanCache(host, limits, { enabled: false, watch: false })).scan(concurrency);
}

interface Chosen {
  name: string;
  selected: string[];
  rejected: Rejected[];
  side: SideQueryResult | null;
  error?: string;
}

async function select(ctx: RecallContext, request: SelectionRequest, query: string, scanned: Scanned, options: RecallOptions): Promise<Chosen> {
  const { selector, limits } = ctx;
  const lexical = () => {
    const input = { query, memories: scanned.result.memories, heads: scanned.heads, candidates: request.candidates, recentTools: options.recentTools ?? [], limits };
    // through the opened memory's cache, the core keeps each memory's terms between turns
    return (ctx.cache ? ctx.cache.lexicalSelect(input) : lexicalSelectAmong(input)).selected;
  };
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

/** Reads and renders the chosen memories; a file that cannot be read is reported, not thrown. */
async function render(ctx: RecallContext, scanned: Scanned, selected: string[], result: RecallResult): Promise<RecalledMemory[]> {
  const { limits, now, concurrency } = ctx;
  const byPath = new Map(scanned.result.memories.map((m) => [m.path, m]));
  const nowMs = now();
  const readBytes = injectReadBytes(limits);
  const rendered = await bounded(selected, concurrency, async (path) => {
    const memory = byPath.get(path)!;
    // a memory of several scopes is read from its scope's folder
    const at = ctx.scoped ? ctx.scoped.locate(path) : { host: ctx.host, path, scope: undefined };
    try {
      const content = await at.host.readFile(at.path, readBytes);
      const timeMs = memory.timeMs ?? memory.mtimeMs; // the scan always sets it
      const absolutePath = at.host.absolutePath(at.path);
      const r = renderMemory({ path: at.path, absolutePath, mtimeMs: timeMs, content, nowMs, limits });
      return { path, ...(at.scope ? { scope: at.scope } : {}), absolutePath, mtimeMs: memory.mtimeMs, timeMs, ageDays: memoryAgeDays(timeMs, nowMs), header: r.header, content: r.body, utf16Count: r.utf16Count, truncated: r.truncated, text: r.text } satisfies RecalledMemory;
    } catch (error) {
      result.error = [result.error, `${path} could not be read (${errorCode(error) || (error as Error).message})`].filter(Boolean).join("; ");
      return null;
    }
  });
  return rendered.filter((m): m is RecalledMemory => m !== null);
}

/** One recall (see `OpenedMemory.recall`). */
export async function recall(ctx: RecallContext, query: string, turn: RecallOptions = {}): Promise<RecallResult> {
  const started = performance.now();
  const result: RecallResult = { outcome: "failed", selector: null, model: null, memories: [], reminders: [], rejected: [], usage: NO_USAGE, costUsd: null, latencyMs: 0, modelLatencyMs: 0 };
  let candidates = 0;
  try {
    const scanned = await scanWithHeads(ctx);
    const input = {
      query,
      memories: scanned.result.memories,
      alreadySurfaced: turn.alreadySurfaced ?? [],
      recentTools: turn.recentTools ?? [],
      surfacedUtf16: turn.surfacedUtf16 ?? 0,
      limits: ctx.limits,
    };
    // the memories of the opened memory's scan are in the core already: not crossed again
    const request = ctx.cache ? ctx.cache.selectionRequest(input) : buildSelectionRequest(input);
    candidates = request.candidates.length;
    if (request.skip) {
      result.outcome = request.skip === "no_memories" ? "no_memories" : "skipped";
      result.skip = request.skip;
    } else {
      const modelStarted = performance.now();
      const chosen = await select(ctx, request, query, scanned, turn);
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
        result.memories = await render(ctx, scanned, chosen.selected, result);
        result.reminders = result.memories.map((m) => m.text);
        result.outcome = result.memories.length > 0 ? "selected" : "none_selected";
      }
    }
  } catch (error) {
    result.outcome = "failed";
    result.error = `recall failed: ${(error as Error)?.message ?? String(error)}`;
  }
  result.latencyMs = performance.now() - started;
  const event: RecallEvent = { type: "recall", outcome: result.outcome, selector: result.selector, candidates, selected: result.memories.length, ages: result.memories.map((m) => m.ageDays), latencyMs: result.latencyMs, usage: result.usage, costUsd: result.costUsd, ...(result.skip ? { skip: result.skip } : {}), ...(result.error ? { error: result.error } : {}) };
  try {
    ctx.onEvent?.(event);
  } catch {
    // a logging callback must not break recall
  }
  return result;
}
