/**
 * The scan's crossing into the core in one piece: a listing and its heads packed into a few
 * flat buffers, and the packed result unpacked into the `ScanResult` the unpacked calls give.
 * Nothing is decided here: which files to read, in which order, and what they hold is the
 * core's (`planScanPacked`, `scanPacked`); this file only moves bytes.
 */
import { buildSelectionRequest, buildSelectionRequestMemo, lexicalSelect, lexicalSelectMemo, planScan, planScanPacked, planScanPackedMemo, planScanPackedMemoPiece, scanMemories, scanMemoClose, scanMemoOpen, scanPacked, scanPackedMemo } from "./core.js";
import type { FileHead, Head, LexicalSelection, Limits, Memory, PackedListing, ScanResult, SelectionInput, SelectionRequest } from "./core.js";
import type { HostEntry } from "./host.js";
import { lazyProperty } from "./lazy.js";
import { Listing } from "./listing.js";

const HAS_PROBLEM = 4;

/** A listing in columns, or as the entries a host lists (put in columns here). */
export type ListingLike = Listing | readonly HostEntry[];

function asListing(listing: ListingLike): Listing {
  return listing instanceof Listing ? listing : Listing.fromEntries(listing);
}

/**
 * `true` when a path cannot be packed (a NUL in it: only a broken host lists one); the unpacked
 * calls take it. Known once a listing's paths are joined.
 */
function unpackable(listing: Listing): boolean {
  return joinedPaths(listing.paths).unpackable;
}

/** A listing's entries packed, without heads: what the plan and the scan of one turn share. */
export interface PackedEntries extends Pick<PackedListing, "mtimes" | "kinds" | "problems"> {
  /** Every path, each ended by NUL (compared between turns). */
  paths: string;
  /** `paths` in UTF-8, as they cross into the core (a string crosses a character at a time). */
  pathBytes?: Uint8Array;
}

/** The listing packed; `heads` by entry position; `packed`: the entries already packed. */
export function packListing(listing: ListingLike, heads?: Map<number, Uint8Array>, packed: PackedEntries = packEntries(listing)): PackedListing {
  const order = heads ? [...heads.keys()].sort((a, b) => a - b) : [];
  let total = 0;
  for (const i of order) total += heads!.get(i)!.length;
  const packedHeads = new Uint8Array(total);
  const headEntries = new Uint32Array(order.length);
  const headEnds = new Uint32Array(order.length);
  let at = 0;
  order.forEach((i, k) => {
    const bytes = heads!.get(i)!;
    packedHeads.set(bytes, at);
    at += bytes.length;
    headEntries[k] = i;
    headEnds[k] = at;
  });
  return { paths: packed.pathBytes ?? packed.paths, mtimes: packed.mtimes, kinds: packed.kinds, problems: packed.problems, heads: packedHeads, headEntries, headEnds };
}

/** The entries packed: paths and problems NUL-ended, times and kinds in typed arrays. */
export function packEntries(listingLike: ListingLike): PackedEntries {
  const listing = asListing(listingLike);
  const n = listing.length;
  // a listing is never changed in place (a check makes a new one): its times cross as they are
  const kinds = new Uint8Array(n);
  kinds.set(listing.kinds);
  const problems: string[] = [];
  for (const i of [...listing.problems.keys()].sort((a, b) => a - b)) {
    if (!listing.problems.get(i) || i >= n) continue;
    kinds[i] = kinds[i]! | HAS_PROBLEM;
    problems.push(listing.problems.get(i)!);
  }
  if (problems.length) problems.push("");
  const { text, bytes } = joinedPaths(listing.paths);
  return { paths: text, pathBytes: bytes, mtimes: listing.mtimesMs, kinds, problems: problems.join("\0") };
}

/**
 * A listing this long or longer is packed and planned in pieces of this many entries, the event
 * loop let through between them (in one go, 200,000 entries held it ~14 ms to pack and ~23 ms
 * to plan).
 */
export const PLAN_PIECE_ENTRIES = 16_384;

/** A listing packed in pieces: the whole (as {@link packEntries} gives it) and each piece. */
export interface PackedInPieces extends PackedEntries {
  pieces: PackedEntries[];
}

/**
 * {@link packEntries} a piece of `pieceEntries` entries at a time, `pause()` awaited between
 * them; each piece packed on its own, for {@link ScanMemo.planInPieces}. The whole listing's
 * buffers are the pieces' put together (a copy).
 */
export async function packEntriesInPieces(listingLike: ListingLike, pause: () => Promise<void>, pieceEntries = PLAN_PIECE_ENTRIES): Promise<PackedInPieces> {
  const listing = asListing(listingLike);
  const n = listing.length;
  const kinds = new Uint8Array(n);
  kinds.set(listing.kinds);
  const withProblem = [...listing.problems.keys()].filter((i) => listing.problems.get(i) && i < n).sort((a, b) => a - b);
  const pieces: PackedEntries[] = [];
  const allProblems: string[] = [];
  let unpackable = false;
  let next = 0; // into withProblem
  for (let start = 0; start < n || (n === 0 && pieces.length === 0); start += pieceEntries) {
    const end = Math.min(n, start + pieceEntries);
    const paths = listing.paths.slice(start, end);
    for (const path of paths) if (path.includes("\0")) unpackable = true;
    const problems: string[] = [];
    for (; next < withProblem.length && withProblem[next]! < end; next++) {
      const i = withProblem[next]!;
      kinds[i] = kinds[i]! | HAS_PROBLEM;
      problems.push(listing.problems.get(i)!);
    }
    allProblems.push(...problems);
    const text = paths.length && !unpackable ? `${paths.join("\0")}\0` : "";
    pieces.push({ paths: text, pathBytes: unpackable ? new Uint8Array(0) : encoder.encode(text), mtimes: listing.mtimesMs.subarray(start, end), kinds: kinds.subarray(start, end), problems: problems.length ? `${problems.join("\0")}\0` : "" });
    if (end < n) await pause();
  }
  let whole = joined.get(listing.paths);
  if (whole === undefined) {
    let total = 0;
    // the pieces' texts put together as a rope: nothing is copied until it is compared
    let text = "";
    for (const piece of pieces) {
      total += piece.pathBytes!.length;
      text += piece.paths;
    }
    const bytes = new Uint8Array(unpackable ? 0 : total);
    if (!unpackable) {
      let at = 0;
      for (const piece of pieces) {
        bytes.set(piece.pathBytes!, at);
        at += piece.pathBytes!.length;
      }
    }
    whole = { text: unpackable ? "" : text, bytes, unpackable };
    joined.set(listing.paths, whole);
  }
  return { paths: whole.text, pathBytes: whole.bytes, mtimes: listing.mtimesMs, kinds, problems: allProblems.length ? `${allProblems.join("\0")}\0` : "", pieces };
}

/** The paths joined, by the array they were joined from (a check's new listing shares its paths). */
const joined = new WeakMap<readonly string[], { text: string; bytes: Uint8Array; unpackable: boolean }>();
const encoder = new TextEncoder();

/**
 * Every path NUL-ended, in one flat string and in its UTF-8 bytes: joined once (`+=` in a loop
 * builds a rope of as many pieces, each a young object the collector copies until it is
 * flattened), and once a listing: a listing with the same paths array gives the very same
 * string, which compares at once, and the same bytes.
 */
function joinedPaths(paths: readonly string[]): { text: string; bytes: Uint8Array; unpackable: boolean } {
  let out = joined.get(paths);
  if (out === undefined) {
    let unpackable = false;
    for (const path of paths) if (path.includes("\0")) unpackable = true;
    // not encoded when it cannot cross packed (the NULs would not end the paths)
    const text = paths.length && !unpackable ? `${paths.join("\0")}\0` : "";
    out = { text, bytes: unpackable ? new Uint8Array(0) : encoder.encode(text), unpackable };
    joined.set(paths, out);
  }
  return out;
}

function fileHeads(listing: Listing, heads?: Map<number, Uint8Array>): FileHead[] {
  return listing.toEntries().map((e, i) => ({ path: e.path, mtimeMs: e.mtimeMs, kind: e.kind, problem: e.problem ?? null, ...(heads?.has(i) ? { head: heads.get(i)! } : {}) }));
}

/** The positions of the topic files to read, newest first (the core's `planScan`). */
export function scanOrder(listingLike: ListingLike, packed?: PackedEntries): number[] {
  const listing = asListing(listingLike);
  if (unpackable(listing)) {
    const at = new Map(listing.paths.map((p, i) => [p, i] as const));
    return planScan(fileHeads(listing)).read.map((p) => at.get(p)!);
  }
  return Array.from(planScanPacked(packListing(listing, undefined, packed)));
}

/**
 * A scan memo in the core and the memories its last scan gave, by path: a turn's scan parses
 * only the heads that changed, and keeps the memory objects of the others.
 */
/** `run()`'s result, or `null` when it threw. */
function attempt<T>(run: () => T): T | null {
  try {
    return run();
  } catch {
    return null;
  }
}

/**
 * Handles of scan memos: unique for the life of the page or process, across restarts of the
 * core (which forget every memo), so a handle from before a restart is never another memory's.
 */
let nextMemoHandle = 1;

/** No kinds: a listing given by its times alone (`pathsSame`). */
const NO_KINDS = new Uint8Array(0);

/** `packed` given by its times alone (`pathsSame`). */
function timesOnly(packed: PackedEntries): PackedEntries {
  return { paths: "", mtimes: packed.mtimes, kinds: NO_KINDS, problems: "" };
}

/** Whether the core's memo holds `held` as the listing `packed` is but for its times. */
function sameListing(held: PackedEntries | null, packed: PackedEntries): boolean {
  if (held === null) return false;
  if (held === packed) return true;
  if (held.paths !== packed.paths || held.problems !== packed.problems || held.kinds.length !== packed.kinds.length) return false;
  for (let i = 0; i < packed.kinds.length; i++) if (held.kinds[i] !== packed.kinds[i]) return false;
  return true;
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

export class ScanMemo {
  private handle: number | null = null;
  /**
   * The listing the core's memo holds (from this side's last plan or scan through it), or
   * `null` when unknown: a scan of the same paths, kinds and problems gives its times alone.
   */
  private held: PackedEntries | null = null;
  /** Plans and scans that gave the core the whole listing, and scans that gave its times alone (tests count them). */
  readonly crossings = { whole: 0, timesOnly: 0 };
  /** The memories of the last scan through this memo, as that scan returned them. */
  private lastMemories: Memory[] | null = null;
  /** The heads given at the last scan through this memo, by path (the arrays themselves). */
  private lastHeads = new Map<string, Uint8Array>();

  /** A memo opened in the core under a new handle. */
  private open(): number {
    const handle = nextMemoHandle++;
    scanMemoOpen(handle);
    this.handle = handle;
    return handle;
  }

  /**
   * The core's plan (`scanOrder`) through the memo, which then holds the listing: the scan of
   * the same turn gives its times alone.
   */
  plan(listingLike: ListingLike, packed: PackedEntries = packEntries(listingLike)): number[] {
    const listing = asListing(listingLike);
    if (!unpackable(listing)) {
      const handle = this.handle ?? this.open();
      // the listing the memo holds but for its times: the times alone cross
      let order = sameListing(this.held, packed) ? attempt(() => planScanPackedMemo(packListing(listing, undefined, timesOnly(packed)), handle, true)) : null;
      if (order) this.crossings.timesOnly++;
      else {
        order = attempt(() => planScanPackedMemo(packListing(listing, undefined, packed), handle));
        if (order) this.crossings.whole++;
      }
      if (order) {
        this.held = packed;
        return Array.from(order);
      }
      this.held = null; // the memo is gone (a restart): the scan starts it over
    }
    return scanOrder(listing, packed);
  }

  /**
   * {@link plan} for a listing packed in pieces ({@link packEntriesInPieces}): the core plans it
   * a piece a call, `pause()` awaited between them, and gives the order of the whole. The times
   * alone cross when the memo holds the listing; a memo that is gone (a restart) starts over.
   */
  async planInPieces(listingLike: ListingLike, packed: PackedInPieces, pause: () => Promise<void>): Promise<number[] | Uint32Array> {
    const listing = asListing(listingLike);
    if (unpackable(listing) || packed.pieces.length < 2) return this.plan(listing, packed);
    const inPieces = async (pathsSame: boolean): Promise<Uint32Array | null> => {
      const handle = this.handle ?? this.open();
      const last = packed.pieces.length - 1;
      let order: Uint32Array | null = null;
      for (let k = 0; k <= last; k++) {
        const piece = pathsSame ? timesOnly(packed.pieces[k]!) : packed.pieces[k]!;
        order = attempt(() => planScanPackedMemoPiece(packListing(listing, undefined, piece), handle, pathsSame, k === 0, k === last));
        if (order === null) return null;
        if (k < last) await pause();
      }
      return order;
    };
    let order = sameListing(this.held, packed) ? await inPieces(true) : null;
    if (order) this.crossings.timesOnly++;
    else {
      order = await inPieces(false);
      if (order) this.crossings.whole++;
    }
    if (order) {
      this.held = packed;
      return order;
    }
    this.held = null; // the memo is gone (a restart): the scan starts it over
    return scanOrder(listing, packed);
  }

  /** The core's `scanMemories` through the memo (see {@link scanListing}). */
  scan(listingLike: ListingLike, heads: Map<number, Uint8Array>, limits: Partial<Limits>, packed?: PackedEntries): ScanResult {
    const listing = asListing(listingLike);
    if (unpackable(listing)) return scanMemories(fileHeads(listing, heads), limits);
    const handle = this.handle ?? this.open();
    const base = packed ?? packEntries(listing);
    // the listing the memo holds but for its times: the times alone cross (and the heads)
    const timesAlone = sameListing(this.held, base) ? timesOnly(base) : null;
    // a head given last time as this very array does not cross again: the core kept its bytes
    const given = new Map<number, Uint8Array>();
    const same: number[] = [];
    for (const [i, bytes] of heads) {
      if (this.lastHeads.get(listing.paths[i]!) === bytes) same.push(i);
      else given.set(i, bytes);
    }
    const full = () => packListing(listing, heads, base);
    // the core may no longer hold a head named the same (another limit), the listing, or the
    // memo (a restart): each attempt gives more, the times alone before the whole listing
    let out = null;
    for (const crossing of timesAlone ? [timesAlone, base] : [base]) {
      const pathsSame = crossing === timesAlone;
      if (same.length > 0) out ??= attempt(() => scanPackedMemo(packListing(listing, given, crossing), limits, handle, Uint32Array.from(same), pathsSame));
      out ??= attempt(() => scanPackedMemo(packListing(listing, heads, crossing), limits, handle, undefined, pathsSame));
      if (out) {
        this.crossings[pathsSame ? "timesOnly" : "whole"]++;
        break;
      }
    }
    let reused = out && this.reuse(listing, out);
    if (!out || !reused) {
      // the memo is gone, or the core remembers what this side does not have (a failed turn
      // between them): start over with a new one (a listing the core refuses throws here)
      this.close();
      this.crossings.whole++;
      out = scanPackedMemo(full(), limits, this.open());
      reused = this.reuse(listing, out) ?? new Map();
    }
    this.held = base;
    const result = unpackScan(listing, out, reused);
    this.lastMemories = result.memories;
    this.lastHeads = new Map([...heads].map(([i, bytes]) => [listing.paths[i]!, bytes] as const));
    return result;
  }

  /**
   * `buildSelectionRequest`; for the memories of this memo's last scan, the core takes them
   * from the memo instead of across the boundary again (~3 ms at 200 files).
   */
  selectionRequest(input: SelectionInput): SelectionRequest {
    if (this.handle !== null && input.memories.length > 0 && input.memories === this.lastMemories) {
      try {
        return buildSelectionRequestMemo({ ...input, memories: [] }, this.handle);
      } catch {
        // the module restarted since (the memo is gone): the memories cross after all
      }
    }
    return buildSelectionRequest(input);
  }

  /**
   * `lexicalSelect` among `candidates` of this memo's last scan (`memories` must be that scan's,
   * `heads` the heads it read): the core makes each memory's terms once per head and keeps them,
   * so a turn where nothing changed reads no body again (~15 ms a turn at 200 files, in wasm).
   */
  lexicalSelect(input: LexicalAmong): LexicalSelection {
    const { query, candidates, recentTools, limits } = input;
    if (this.handle !== null && input.memories.length > 0 && input.memories === this.lastMemories) {
      try {
        return lexicalSelectMemo(query, candidates, recentTools, limits, this.handle);
      } catch {
        // the module restarted since (the memo is gone): the memories and heads cross after all
      }
    }
    return lexicalSelectAmong(input);
  }

  /** The memories the core says are unchanged, by position; `null` when one is not at hand. */
  private reuse(listing: Listing, out: { same: Uint32Array; sameEntries: Uint32Array }): Map<number, Memory> | null {
    const reused = new Map<number, Memory>();
    if (out.same.length === 0) return reused;
    const last = new Map((this.lastMemories ?? []).map((m) => [m.path, m] as const));
    for (let k = 0; k < out.same.length; k++) {
      const memory = last.get(listing.paths[out.sameEntries[k]!] ?? "");
      if (!memory) return null;
      reused.set(out.same[k]!, memory);
    }
    return reused;
  }

  /** Drops the core's memo (a later scan opens a new one). */
  close(): void {
    if (this.handle !== null) scanMemoClose(this.handle);
    this.handle = null;
    this.held = null;
    this.lastMemories = null;
    this.lastHeads.clear();
  }
}

/** The core's `scanMemories` over the listing and the heads read (by entry position); `packed`: the entries already packed. */
export function scanListing(listingLike: ListingLike, heads: Map<number, Uint8Array>, limits: Partial<Limits>, packed?: PackedEntries): ScanResult {
  const listing = asListing(listingLike);
  if (unpackable(listing)) return scanMemories(fileHeads(listing, heads), limits);
  return unpackScan(listing, scanPacked(packListing(listing, heads, packed), limits));
}

/** A packed scan as the `ScanResult` the unpacked calls give; `reused`: the memories the core left `null`, by position. */
function unpackScan(listing: Listing, out: { json: string; droppedEntries: Uint32Array; droppedMtimes: Float64Array }, reused?: Map<number, Memory>): ScanResult {
  const parsed = JSON.parse(out.json) as { memories: (Memory | null)[]; diagnostics: ScanResult["diagnostics"]; droppedFull: [number, Memory][] };
  if (reused) for (const [k, memory] of reused) parsed.memories[k] = memory;
  // the dropped memories (thousands in a large folder) are made when first read
  const { droppedEntries, droppedMtimes } = out;
  const { paths } = listing;
  const dropped = (): Memory[] => {
    const list: Memory[] = new Array(droppedEntries.length);
    for (let k = 0; k < list.length; k++) {
      const t = droppedMtimes[k]!;
      list[k] = { path: paths[droppedEntries[k]!]!, mtimeMs: t, timeMs: t };
    }
    for (const [position, memory] of parsed.droppedFull) list[position] = memory;
    return list;
  };
  const result = { memories: parsed.memories as Memory[] } as ScanResult;
  lazyProperty(result, "dropped", dropped);
  result.diagnostics = parsed.diagnostics;
  return result;
}

