/**
 * A conversation's recalls: what was surfaced (never surfaced twice) and the session budget,
 * counted in the UTF-16 units the core measured for each rendered memory, and prefetches that
 * start a side query with the turn and are taken later without waiting.
 */
import type { MemorySession, RecallOptions, RecallResult } from "./api.js";
import { emptyResult, type ConversationMessage, type ExtractOptions, type ExtractResult } from "./extract.js";

/** What a session needs to extract: the memory's extraction, and how many writes it has seen. */
export interface SessionKeeper {
  extract(options: ExtractOptions): Promise<ExtractResult>;
  /** Writes made through this memory by any route but extraction (the turn wrote memory when it grew). */
  writes(): number;
  /** One extraction at a time per memory: runs `job` after the one running, if any. */
  serial<T>(job: () => Promise<T>): Promise<T>;
}

export function session(recall: (query: string, options: RecallOptions) => Promise<RecallResult>, keeper?: SessionKeeper): MemorySession {
  // extraction's cursor: the messages read so far, and the writes seen when it last ran
  let extracted = 0;
  let writesSeen = keeper?.writes() ?? 0;
  let pending: { messages: readonly ConversationMessage[]; options: Omit<ExtractOptions, "messages"> } | null = null;
  let running: Promise<ExtractResult> | null = null;
  const extractNow = (messages: readonly ConversationMessage[], options: Omit<ExtractOptions, "messages"> = {}): Promise<ExtractResult> => {
    if (!keeper) throw new TypeError("this session has no memory to extract into");
    const k = keeper;
    return k.serial(async () => {
      const all = Array.isArray(messages) ? messages : [];
      if (all.length < extracted) extracted = 0; // a new or compacted conversation: read it again
      const since = all.slice(extracted);
      const writes = k.writes();
      const result = await k.extract({ ...options, messages: since, wroteMemory: options.wroteMemory === true || writes !== writesSeen });
      // a failed run leaves the cursor: its messages are read again next time
      if (result.outcome !== "failed") {
        extracted = all.length;
        writesSeen = k.writes();
      }
      return result;
    });
  };
  let surfaced: string[] = [];
  let surfacedUtf16 = 0;
  let generation = 0;
  const mark = (result: RecallResult, gen: number) => {
    if (gen !== generation) return; // reset() since this recall started
    for (const m of result.memories) {
      if (!surfaced.includes(m.path)) surfaced.push(m.path);
      surfacedUtf16 += m.utf16Count;
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
    extract: (messages, options) => extractNow(messages, options),
    afterTurn(messages, options = {}) {
      // in the background: never delays or fails the turn; overlapping turns coalesce into one
      // trailing run over the newest messages
      if (running) {
        pending = { messages, options };
        return running;
      }
      const loop = async (): Promise<ExtractResult> => {
        let last: ExtractResult = await extractNow(messages, options).catch((error) => failedRun(error, options.mode));
        while (pending) {
          const next = pending;
          pending = null;
          last = await extractNow(next.messages, next.options).catch((error) => failedRun(error, next.options.mode));
        }
        running = null;
        return last;
      };
      running = loop();
      return running;
    },
    reset() {
      extracted = 0;
      surfaced = [];
      surfacedUtf16 = 0;
      generation++;
    },
  };
}

function failedRun(error: unknown, mode: ExtractResult["mode"] = "suggest"): ExtractResult {
  return emptyResult(mode, `extraction failed: ${(error as Error)?.message ?? String(error)}`);
}
