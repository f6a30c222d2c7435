/**
 * An opened memory's scan session in the core (`src/scan_session.rs`), as JavaScript drives it.
 * A turn is `plan(listing)` — which entries to read, newest first — then `scan(heads, failed)`
 * with the heads read. Nothing is decided here; this file only moves bytes:
 *
 * - the listing crosses packed (every path in one buffer, the times and kinds in typed arrays),
 *   and by its times alone when its paths, kinds and problems are the ones the session holds;
 * - a head crosses once: one given at the last scan as the very same array is not given again
 *   (the session reads the kept memory from the head it holds);
 * - the memories the core names unchanged are the objects of the last scan, reused;
 * - a call the core refuses, or a session lost with a restarted module, is given again, whole,
 *   to a new session.
 *
 * A listing that cannot be packed (a path with a NUL: only a broken host lists one) goes through
 * the plain `planScan` / `scanMemories` instead.
 */
import { buildSelectionRequest, lexicalSelect, moduleInstance, newScanSession, planScan, scanMemories, sessionCall } from "./core.js";
import type { CoreScanSession, FileHead, Head, LexicalSelection, Limits, Memory, PackedHeads, PackedListing, PackedScan, ScanResult, SelectionInput, SelectionRequest } from "./core.js";
import { lazyProperty } from "./lazy.js";
import type { Listing } from "./listing.js";

const HAS_PROBLEM = 4;
const encoder = new TextEncoder();

/** A listing's entries packed; `text` is compared between turns (a check's new listing shares its paths, and the very string). */
interface Packed extends PackedListing {
  text: string;
}

/** Every path NUL-ended, in one string and its UTF-8 bytes, once a paths array; `null` when a path holds a NUL. */
const joined = new WeakMap<readonly string[], { text: string; bytes: Uint8Array } | null>();

function joinedPaths(paths: readonly string[]): { text: string; bytes: Uint8Array } | null {
  let out = joined.get(paths);
  if (out === undefined) {
    const unpackable = paths.some((p) => p.includes("\0"));
    const text = paths.length ? `${paths.join("\0")}\0` : "";
    out = unpackable ? null : { text, bytes: encoder.encode(text) };
    joined.set(paths, out);
  }
  return out;
}

/** The listing packed, or `null` when it cannot be. */
function pack(listing: Listing): Packed | null {
  const paths = joinedPaths(listing.paths);
  if (paths === null) return null;
  const n = listing.length;
  const kinds = new Uint8Array(n);
  kinds.set(listing.kinds);
  const problems: string[] = [];
  for (const i of [...listing.problems.keys()].sort((a, b) => a - b)) {
    const problem = listing.problems.get(i);
    if (!problem || i >= n) continue;
    kinds[i] = kinds[i]! | HAS_PROBLEM;
    problems.push(`${problem}\0`);
  }
  // a listing is never changed in place (a check makes a new one): its times cross as they are
  return { text: paths.text, paths: paths.bytes, mtimes: listing.mtimesMs, kinds, problems: problems.join("") };
}

function sameEntries(a: Packed | null, b: Packed): boolean {
  if (a === null || a.text !== b.text || a.problems !== b.problems || a.kinds.length !== b.kinds.length) return false;
  for (let i = 0; i < b.kinds.length; i++) if (a.kinds[i] !== b.kinds[i]) return false;
  return true;
}

/** The heads by entry, packed, with the failed reads. */
function packHeads(heads: ReadonlyMap<number, Uint8Array>, failed: ReadonlyMap<number, string>): PackedHeads {
  const order = [...heads.keys()].sort((a, b) => a - b);
  let total = 0;
  for (const i of order) total += heads.get(i)!.length;
  const bytes = new Uint8Array(total);
  const entries = new Uint32Array(order.length);
  const ends = new Uint32Array(order.length);
  let at = 0;
  order.forEach((i, k) => {
    const head = heads.get(i)!;
    bytes.set(head, at);
    at += head.length;
    entries[k] = i;
    ends[k] = at;
  });
  const failedEntries = Uint32Array.from(failed.keys());
  return { bytes, entries, ends, failedEntries, failedProblems: [...failed.values()].map((p) => `${p}\0`).join("") };
}

/** The offline selector's input for one scan: its memories and heads, and the candidates among them. */
export interface LexicalAmong {
  query: string;
  memories: Memory[];
  /** The heads the scan read, by path. */
  heads: Record<string, Head>;
  /** A selection request's `candidates`: the paths chosen among, in the memories' order. */
  candidates: string[];
  recentTools: string[];
  limits: Partial<Limits>;
}

/** `lexicalSelect` among `candidates` of a scan, its memories and heads crossing into the core. */
export function lexicalSelectAmong(input: LexicalAmong): LexicalSelection {
  const wanted = new Set(input.candidates);
  const memories = input.memories.filter((m) => wanted.has(m.path));
  const heads = Object.fromEntries(memories.filter((m) => m.path in input.heads).map((m) => [m.path, input.heads[m.path]!]));
  return lexicalSelect({ query: input.query, memories, recentTools: input.recentTools, heads, limits: input.limits });
}

/** The topic files of a listing, newest first (the core's plan), as positions. */
export function topicOrder(listing: Listing, limits: Partial<Limits> = {}): number[] {
  const session = new ScanSession(limits);
  try {
    return Array.from(session.plan(listing));
  } finally {
    session.close();
  }
}

function fileHeads(listing: Listing, heads?: ReadonlyMap<number, Uint8Array>, failed?: ReadonlyMap<number, string>): FileHead[] {
  return listing.toEntries().map((e, i) => ({ path: e.path, mtimeMs: e.mtimeMs, kind: e.kind, problem: failed?.get(i) ?? e.problem ?? null, ...(heads?.has(i) ? { head: heads.get(i)! } : {}) }));
}

export class ScanSession {
  private core: CoreScanSession | null = null;
  /** The module instance `core` lives in. */
  private instance = -1;
  /** The listing of the last plan, and as the core holds it (`null`: it cannot be packed). */
  private listing: Listing | null = null;
  private packed: Packed | null = null;
  /** The core holds this listing's entries (a plan by times alone is possible). */
  private held: Packed | null = null;
  /** The heads of the memories the last scan kept (the core holds them), by path: the arrays themselves. */
  private lastHeads = new Map<string, Uint8Array>();
  private lastMemories: Memory[] | null = null;
  /** Listings and scans given whole, and plans by times alone (tests count them). */
  readonly crossings = { whole: 0, timesOnly: 0 };

  constructor(private readonly limits: Partial<Limits>) {}

  /** A core session that is alive: a new one when none was made or the module restarted since. */
  private session(): CoreScanSession {
    if (this.core === null || this.instance !== moduleInstance()) {
      this.core = newScanSession(this.limits);
      this.instance = moduleInstance();
      this.held = null;
      this.lastHeads.clear();
      this.lastMemories = null;
    }
    return this.core;
  }

  /** Starts over with a new core session (the old one refused a call, or its module is gone). */
  private renew(): CoreScanSession {
    this.free();
    return this.session();
  }

  /**
   * Packs `listing` for the next {@link plan} (a large listing's packing is a step of its own:
   * the caller may let the event loop through between the two).
   */
  prepare(listing: Listing): void {
    if (this.listing !== listing) {
      this.listing = listing;
      this.packed = pack(listing);
    }
  }

  /** The entries to read, newest first (positions in `listing`); the session keeps the listing for the scan. */
  plan(listing: Listing): Uint32Array {
    this.prepare(listing);
    const packed = this.packed;
    if (packed === null) {
      const at = new Map(listing.paths.map((p, i) => [p, i] as const));
      return Uint32Array.from(planScan(fileHeads(listing)).read.map((p) => at.get(p)!));
    }
    const timesOnly = sameEntries(this.held, packed) && this.instance === moduleInstance();
    const give = (core: CoreScanSession, times: boolean) => sessionCall({ packed, times }, (a) => core.plan(a.packed, a.times));
    let order: Uint32Array;
    try {
      order = give(this.session(), timesOnly);
    } catch {
      order = give(this.renew(), false);
    }
    this.crossings[timesOnly ? "timesOnly" : "whole"]++;
    this.held = packed;
    return order;
  }

  /**
   * The scan of the last plan's listing with `heads` (by entry, every kept file's: read this turn
   * or held) and `failed` (entries whose read failed, with the host's problem).
   */
  scan(heads: ReadonlyMap<number, Uint8Array>, failed: ReadonlyMap<number, string> = new Map()): ScanResult {
    const listing = this.listing;
    if (listing === null) throw new Error("scan before plan");
    if (this.packed === null) return scanMemories(fileHeads(listing, heads, failed), this.limits);
    // a head given at the last scan as this very array does not cross again: the core holds it
    const fresh = new Map<number, Uint8Array>();
    for (const [i, bytes] of heads) if (this.lastHeads.get(listing.paths[i]!) !== bytes) fresh.set(i, bytes);
    const give = (core: CoreScanSession, given: ReadonlyMap<number, Uint8Array>) => {
      const packed = packHeads(given, failed);
      return sessionCall({ packed }, (a) => core.scan(a.packed));
    };
    let out: PackedScan;
    try {
      if (this.instance !== moduleInstance()) throw new Error("the module restarted");
      out = give(this.session(), fresh);
    } catch {
      // the core refused (a head it no longer holds) or its module restarted: all of it, whole
      const core = this.renew();
      sessionCall({ packed: this.packed }, (a) => core.plan(a.packed, false));
      this.held = this.packed;
      this.crossings.whole++;
      out = give(core, heads);
    }
    const result = this.unpack(listing, out);
    this.lastMemories = result.memories;
    // the core holds the heads of the memories it kept
    const kept = new Set(result.memories.map((m) => m.path));
    this.lastHeads = new Map();
    for (const [i, bytes] of heads) if (kept.has(listing.paths[i]!)) this.lastHeads.set(listing.paths[i]!, bytes);
    return result;
  }

  /** A packed scan as the `ScanResult` the plain call gives; the memories named unchanged are the last scan's objects. */
  private unpack(listing: Listing, out: PackedScan): ScanResult {
    const parsed = JSON.parse(out.json) as { memories: (Memory | null)[]; diagnostics: ScanResult["diagnostics"]; droppedFull: [number, Memory][] };
    if (out.same.length) {
      const last = new Map((this.lastMemories ?? []).map((m) => [m.path, m] as const));
      for (let k = 0; k < out.same.length; k++) parsed.memories[out.same[k]!] = last.get(listing.paths[out.sameEntries[k]!]!) ?? null;
    }
    // the dropped memories (thousands in a large folder) are made when first read
    const { droppedEntries, droppedMtimes } = out;
    const { paths } = listing;
    const result = { memories: parsed.memories as Memory[] } as ScanResult;
    lazyProperty(result, "dropped", () => {
      const list: Memory[] = new Array(droppedEntries.length);
      for (let k = 0; k < list.length; k++) {
        const t = droppedMtimes[k]!;
        list[k] = { path: paths[droppedEntries[k]!]!, mtimeMs: t, timeMs: t };
      }
      for (const [position, memory] of parsed.droppedFull) list[position] = memory;
      return list;
    });
    result.diagnostics = parsed.diagnostics;
    return result;
  }

  /** `buildSelectionRequest`; for the memories of the last scan, the core takes them from the session. */
  selectionRequest(input: SelectionInput): SelectionRequest {
    const core = this.core;
    if (core !== null && this.instance === moduleInstance() && input.memories.length > 0 && input.memories === this.lastMemories) {
      try {
        return sessionCall({ input: { ...input, memories: [] } }, (a) => core.selectionRequest(a.input));
      } catch {
        // the module restarted (the session is gone): the memories cross after all
      }
    }
    return buildSelectionRequest(input);
  }

  /** `lexicalSelect` among `candidates` of the last scan: the core makes each memory's terms once per head and keeps them. */
  lexicalSelect(input: LexicalAmong): LexicalSelection {
    const core = this.core;
    if (core !== null && this.instance === moduleInstance() && input.memories.length > 0 && input.memories === this.lastMemories) {
      const { query, candidates, recentTools, limits } = input;
      try {
        return sessionCall({ query, candidates, recentTools, limits }, (a) => core.lexicalSelect(a.query, a.candidates, a.recentTools, a.limits));
      } catch {
        // the module restarted (the session is gone): the memories and heads cross after all
      }
    }
    return lexicalSelectAmong(input);
  }

  private free(): void {
    if (this.core !== null && this.instance === moduleInstance()) this.core.free();
    this.core = null;
    this.held = null;
    this.lastHeads.clear();
    this.lastMemories = null;
  }

  /** Gives the core's memory back (a later call makes a new session). */
  close(): void {
    this.free();
  }
}
