/**
 * A listing in columns: the paths in one array, each other field in a typed array. What an
 * opened memory keeps between turns and packs for the core. At 20,000 entries, a listing of
 * objects is 100,000 young objects (an entry and its boxed times) that every young-generation
 * collection copied while the listing was taken (2–5 ms pauses, and a 9 ms full collection once
 * they were promoted); in columns it is the path strings and a few buffers.
 */
import type { HostEntry } from "./host.js";

/** Kind codes, as the core's packed listing has them. */
export const KIND_FILE = 0;
export const KIND_DIRECTORY = 1;
export const KIND_OTHER = 2;

const KIND_CODE = { file: KIND_FILE, directory: KIND_DIRECTORY, other: KIND_OTHER } as const;
const KIND_NAME = ["file", "directory", "other"] as const;

/** Every entry below a memory directory, in columns; `NaN` for a ctime or inode the host does not have. */
export class Listing {
  constructor(
    /** Relative, `/`-separated, as {@link HostEntry.path}. */
    readonly paths: string[],
    /** {@link KIND_FILE}, {@link KIND_DIRECTORY} or {@link KIND_OTHER}. */
    readonly kinds: Uint8Array,
    readonly mtimesMs: Float64Array,
    /** Bytes; 0 for what is not a file. */
    readonly sizesBytes: Float64Array,
    readonly ctimesMs: Float64Array,
    readonly inos: Float64Array,
    /** {@link HostEntry.problem} by position, for the few entries that have one. */
    readonly problems: ReadonlyMap<number, string> = new Map(),
  ) {}

  get length(): number {
    return this.paths.length;
  }

  /** A listing of `entries` (hosts that list in objects). */
  static fromEntries(entries: readonly HostEntry[]): Listing {
    const b = new ListingBuilder(entries.length);
    for (const e of entries) b.pushEntry(e);
    return b.finish();
  }

  /** The entry at position `i` as an object. */
  entry(i: number): HostEntry {
    const kind = KIND_NAME[this.kinds[i]!] ?? "other";
    const e: HostEntry = { path: this.paths[i]!, kind, mtimeMs: this.mtimesMs[i]!, size: this.sizesBytes[i]! };
    const ctime = this.ctimesMs[i]!;
    const ino = this.inos[i]!;
    if (!Number.isNaN(ctime)) e.ctimeMs = ctime;
    if (!Number.isNaN(ino)) e.ino = ino;
    const problem = this.problems.get(i);
    if (problem !== undefined) e.problem = problem;
    return e;
  }

  /** Every entry as an object (what `MemoryHost.list` returns). */
  toEntries(): HostEntry[] {
    const out = new Array<HostEntry>(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.entry(i);
    return out;
  }

  /** Whether the entry at `i` is a folder that can be read (no problem). */
  isFolder(i: number): boolean {
    return this.kinds[i] === KIND_DIRECTORY && !this.problems.has(i);
  }

  /** Whether `other` lists the same entries, unchanged (see `sameFile`), in the same order. */
  sameAs(other: Listing): boolean {
    if (other === this) return true;
    if (other.length !== this.length) return false;
    for (let i = 0; i < this.length; i++) {
      const same =
        this.paths[i] === other.paths[i] &&
        this.mtimesMs[i] === other.mtimesMs[i] &&
        this.sizesBytes[i] === other.sizesBytes[i] &&
        Object.is(this.ctimesMs[i], other.ctimesMs[i]) &&
        Object.is(this.inos[i], other.inos[i]) &&
        this.kinds[i] === other.kinds[i] &&
        this.problems.get(i) === other.problems.get(i);
      if (!same) return false;
    }
    return true;
  }

  /** A copy in which the entries at the given positions are as given (their paths kept). */
  withUpdates(updates: ReadonlyMap<number, HostEntry>): Listing {
    const kinds = this.kinds.slice();
    const mtimes = this.mtimesMs.slice();
    const sizes = this.sizesBytes.slice();
    const ctimes = this.ctimesMs.slice();
    const inos = this.inos.slice();
    const problems = new Map(this.problems);
    for (const [i, e] of updates) {
      kinds[i] = KIND_CODE[e.kind] ?? KIND_OTHER;
      mtimes[i] = e.mtimeMs;
      sizes[i] = e.size;
      ctimes[i] = e.ctimeMs ?? Number.NaN;
      inos[i] = e.ino ?? Number.NaN;
      if (e.problem) problems.set(i, e.problem);
      else problems.delete(i);
    }
    return new Listing(this.paths, kinds, mtimes, sizes, ctimes, inos, problems);
  }
}

/** A {@link Listing} built one entry at a time, its columns grown as needed. */
export class ListingBuilder {
  private readonly paths: string[] = [];
  private kinds: Uint8Array;
  private mtimes: Float64Array;
  private sizes: Float64Array;
  private ctimes: Float64Array;
  private inos: Float64Array;
  private readonly problems = new Map<number, string>();
  private n = 0;
  /** The listing is given out: its paths and problems are its own from then on. */
  private finished = false;

  constructor(capacity = 64) {
    const c = Math.max(1, capacity);
    this.kinds = new Uint8Array(c);
    this.mtimes = new Float64Array(c);
    this.sizes = new Float64Array(c);
    this.ctimes = new Float64Array(c);
    this.inos = new Float64Array(c);
  }

  get length(): number {
    return this.n;
  }

  /** Makes room for `more` entries. */
  reserve(more: number): void {
    const need = this.n + more;
    if (need <= this.kinds.length) return;
    const c = Math.max(need, this.kinds.length * 2);
    const grow = <T extends Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(c);
      b.set(a);
      return b;
    };
    this.kinds = grow(this.kinds, (k) => new Uint8Array(k));
    this.mtimes = grow(this.mtimes, (k) => new Float64Array(k));
    this.sizes = grow(this.sizes, (k) => new Float64Array(k));
    this.ctimes = grow(this.ctimes, (k) => new Float64Array(k));
    this.inos = grow(this.inos, (k) => new Float64Array(k));
  }

  /** One entry; `ctimeMs` and `ino` `NaN` when unknown. */
  push(path: string, kind: number, mtimeMs: number, sizeBytes: number, ctimeMs: number, ino: number, problem?: string): void {
    if (this.finished) throw new Error("ListingBuilder: push after finish() (the listing it gave would change)");
    this.reserve(1);
    const i = this.n++;
    this.paths.push(path);
    this.kinds[i] = kind;
    this.mtimes[i] = mtimeMs;
    this.sizes[i] = sizeBytes;
    this.ctimes[i] = ctimeMs;
    this.inos[i] = ino;
    if (problem) this.problems.set(i, problem);
  }

  pushEntry(e: HostEntry): void {
    this.push(e.path, KIND_CODE[e.kind] ?? KIND_OTHER, e.mtimeMs, e.size, e.ctimeMs ?? Number.NaN, e.ino ?? Number.NaN, e.problem);
  }

  /**
   * The listing; its columns are views of the builder's (no copy: at 200,000 entries five copies
   * held the event loop ~10 ms), which no push can change any more.
   */
  finish(): Listing {
    this.finished = true;
    const n = this.n;
    return new Listing(this.paths, this.kinds.subarray(0, n), this.mtimes.subarray(0, n), this.sizes.subarray(0, n), this.ctimes.subarray(0, n), this.inos.subarray(0, n), this.problems);
  }
}
