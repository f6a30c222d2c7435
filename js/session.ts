/**
 * A conversation's recalls: what was surfaced (never surfaced twice) and the session budget,
 * counted in the UTF-16 units the core measured for each rendered memory, and prefetches that
 * start a side query with the turn and are taken later without waiting.
 */
import type { MemorySession, RecallOptions, RecallResult } from "./api.js";

export function session(recall: (query: string, options: RecallOptions) => Promise<RecallResult>): MemorySession {
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
    reset() {
      surfaced = [];
      surfacedUtf16 = 0;
      generation++;
    },
  };
}
