/**
 * The Node host's fast reads: listing and reading heads near the cost of the system calls.
 *
 * A read is written once, as a generator that yields the system calls it needs (`IoOp`), and
 * run by an {@link IoDriver} either synchronously — in slices of a few milliseconds with the
 * event loop let through between them, which is where Node's file calls are cheapest (a
 * synchronous `open` costs a microsecond; one through `fs/promises` tens) — or through the
 * callback API, concurrently. The driver starts synchronous and drops to callbacks for a while
 * as soon as one call takes long (a slow disk, a network file system), so no call it makes
 * holds the event loop for long, at any folder size: a slice ends after `SLICE_MS`, and a
 * single call that took `SLOW_CALL_MS` sends the rest to the thread pool.
 */
import * as nodeFs from "node:fs";
import type { Dirent, Stats } from "node:fs";

/** The synchronous and callback forms of the calls the fast reads make (`node:fs`); injectable for tests. */
export interface RawFs {
  openSync(path: string, flags: number, mode?: number): number;
  closeSync(fd: number): void;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  fstatSync(fd: number): Stats;
  lstatSync(path: string): Stats | undefined;
  readdirSync(path: string): string[];
  /** The names with their kinds (`withFileTypes`): a raw fs that gives names alone has each `lstat`ed instead. */
  readdirSync(path: string, options: { withFileTypes: true }): (Dirent | string)[];
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  linkSync(existing: string, target: string): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  readlinkSync(path: string): string;
  open(path: string, flags: number, mode: number, callback: (error: NodeJS.ErrnoException | null, fd: number) => void): void;
  close(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number, callback: (error: NodeJS.ErrnoException | null, bytesRead: number) => void): void;
  fstat(fd: number, callback: (error: NodeJS.ErrnoException | null, stats: Stats) => void): void;
  lstat(path: string, callback: (error: NodeJS.ErrnoException | null, stats: Stats) => void): void;
  readdir(path: string, callback: (error: NodeJS.ErrnoException | null, names: string[]) => void): void;
  /** The names with their kinds; used when the function declares three parameters (`readdir.length >= 3`), as `node:fs`'s does. */
  readdir(path: string, options: { withFileTypes: true }, callback: (error: NodeJS.ErrnoException | null, entries: (Dirent | string)[]) => void): void;
  write(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null, callback: (error: NodeJS.ErrnoException | null, written: number) => void): void;
  /** Always on the thread pool: it waits for the disk. */
  fsync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
  link(existing: string, target: string, callback: (error: NodeJS.ErrnoException | null) => void): void;
  rename(from: string, to: string, callback: (error: NodeJS.ErrnoException | null) => void): void;
  unlink(path: string, callback: (error: NodeJS.ErrnoException | null) => void): void;
  readlink(path: string, callback: (error: NodeJS.ErrnoException | null, target: string) => void): void;
}

export const defaultRawFs: RawFs = nodeFs as unknown as RawFs;

/** One system call, as a read asks for it. */
export type IoOp =
  | { op: "open"; path: string; flags: number }
  | { op: "close"; fd: number }
  | { op: "fstat"; fd: number }
  | { op: "read"; fd: number; buffer: Uint8Array; offset: number; length: number; position: number }
  | { op: "lstat"; path: string }
  /** An `lstat` of each of `names` in the folder at `dir`, in {@link StatColumns} (each error in its place). */
  | { op: "lstatMany"; dir: string; names: string[] }
  /** The names in a folder. `big`: thousands of them, read on the thread pool (one synchronous call would hold the loop). */
  | { op: "readdir"; path: string; big?: boolean }
  /** The names in a folder with their kinds (`Dirent`s; a name alone where the raw fs gives no kind). `big` as for `readdir`. */
  | { op: "readdirKinds"; path: string; big?: boolean }
  | { op: "write"; fd: number; buffer: Uint8Array; offset: number; length: number; position: number | null }
  /** Always on the thread pool: it waits for the disk. */
  | { op: "fsync"; fd: number }
  | { op: "link"; from: string; to: string }
  | { op: "rename"; from: string; to: string }
  | { op: "unlink"; path: string }
  | { op: "readlink"; path: string }
  /** Anything else, awaited (the slower paths a rare case takes: a symbolic link). */
  | { op: "await"; run: () => Promise<unknown> }
  /** No call: lets the event loop through if the slice has run its time (a long loop between calls). */
  | { op: "pause" };

/** A read: yields the calls it needs, gets each result back (or the error thrown into it). */
export type IoTask<T> = Generator<IoOp, T, unknown>;

/**
 * Work done synchronously before the event loop is let through. With a young-generation
 * collection landing in a slice (1–4 ms), a slice of 2.5 ms keeps the hold under 10 ms where
 * 4 ms did not always (interleaved runs at 200 / 2,000 / 20,000 files: the longest hold 7.5–8.9
 * against 7.3–10.7 ms, p99 5.3–7.2 against 5.4–9.4 ms, and no slower a scan).
 */
const SLICE_MS = 2.5;
/**
 * A synchronous call that took this long is slow; `SLOW_STREAK` slow ones in a row send the
 * following calls to the thread pool. (One alone is more often the process losing its core to
 * another for a moment than a slow disk.)
 */
const SLOW_CALL_MS = 2;
const SLOW_STREAK = 3;
/** For this long after a slow call, the driver stays on the thread pool. */
const COOL_DOWN_MS = 5_000;
/** `lstat`s in flight at once on the thread pool (its 4 threads stay busy). */
const ASYNC_BATCH = 64;

const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

function sync(fs: RawFs, op: IoOp): unknown {
  switch (op.op) {
    case "open":
      return fs.openSync(op.path, op.flags, 0o666);
    case "close":
      return fs.closeSync(op.fd);
    case "fstat":
      return fs.fstatSync(op.fd);
    case "read":
      return fs.readSync(op.fd, op.buffer, op.offset, op.length, op.position);
    case "lstat":
      return fs.lstatSync(op.path);
    case "lstatMany":
      throw new Error("lstatMany runs element by element"); // see IoDriver.lstatMany
    case "readdir":
      return fs.readdirSync(op.path);
    case "readdirKinds":
      return fs.readdirSync(op.path, { withFileTypes: true });
    case "write":
      return fs.writeSync(op.fd, op.buffer, op.offset, op.length, op.position);
    case "link":
      return fs.linkSync(op.from, op.to);
    case "rename":
      return fs.renameSync(op.from, op.to);
    case "unlink":
      return fs.unlinkSync(op.path);
    case "readlink":
      return fs.readlinkSync(op.path);
    case "pause":
      return undefined;
    case "fsync":
    case "await":
      throw new Error(`${op.op} is not run synchronously`);
  }
}

function callback<T>(start: (done: (error: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value as T))));
}

async function later(fs: RawFs, op: IoOp): Promise<unknown> {
  switch (op.op) {
    case "open":
      return callback<number>((done) => fs.open(op.path, op.flags, 0o666, done));
    case "close":
      return callback<void>((done) => fs.close(op.fd, done));
    case "fstat":
      return callback<Stats>((done) => fs.fstat(op.fd, done));
    case "read":
      return callback<number>((done) => fs.read(op.fd, op.buffer, op.offset, op.length, op.position, done));
    case "lstat":
      return callback<Stats>((done) => fs.lstat(op.path, done));
    case "lstatMany":
      return lstatManyLater(fs, op.dir, op.names, new StatColumns(op.names.length), 0);
    case "readdir":
      return callback<string[]>((done) => fs.readdir(op.path, done));
    case "readdirKinds":
      // a raw fs written against the two-argument form gets no options: its names are lstat'ed
      return callback<(Dirent | string)[]>((done) => (fs.readdir.length >= 3 ? fs.readdir(op.path, { withFileTypes: true }, done) : fs.readdir(op.path, done)));
    case "write":
      return callback<number>((done) => fs.write(op.fd, op.buffer, op.offset, op.length, op.position, done));
    case "fsync":
      return callback<void>((done) => fs.fsync(op.fd, done));
    case "link":
      return callback<void>((done) => fs.link(op.from, op.to, done));
    case "rename":
      return callback<void>((done) => fs.rename(op.from, op.to, done));
    case "unlink":
      return callback<void>((done) => fs.unlink(op.path, done));
    case "readlink":
      return callback<string>((done) => fs.readlink(op.path, done));
    case "await":
      return op.run();
    case "pause":
      return undefined;
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: Error };

/** What a listing keeps of an `lstat`: the kind, the times, the size and the inode. */
export interface StatLike {
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  ino: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

const FILE = 1;
const DIRECTORY = 2;
const LINK = 3;

/** The kind code of a `Stats`: {@link StatColumns.FILE}, `DIRECTORY`, `LINK`, or 0 for anything else. */
function kindOf(st: Stats): number {
  return st.isFile() ? FILE : st.isDirectory() ? DIRECTORY : st.isSymbolicLink() ? LINK : 0;
}

/** One `lstat` of a listing as an object (a link followed, a cache's check): the kind, the times, the size and the inode. */
export class StatLite implements StatLike {
  constructor(
    readonly mtimeMs: number,
    readonly ctimeMs: number,
    readonly size: number,
    readonly ino: number,
    private readonly kind: number,
  ) {}
  isFile(): boolean {
    return this.kind === FILE;
  }
  isDirectory(): boolean {
    return this.kind === DIRECTORY;
  }
  isSymbolicLink(): boolean {
    return this.kind === LINK;
  }
}

/**
 * The `lstat`s of a listing, in columns. Node 20's `Stats` carries four `Date`s and fourteen
 * boxed numbers, and even a small object an entry is several young objects (the boxed times):
 * thousands of them alive across the listing's slices made each young-generation collection copy
 * them (10–18 ms pauses at 20,000 files with `Stats`, 2–5 ms with small objects). Each `Stats`
 * is copied into the columns at once and dies young; the columns are a few buffers.
 */
export class StatColumns {
  static readonly FILE = FILE;
  static readonly DIRECTORY = DIRECTORY;
  static readonly LINK = LINK;
  readonly kinds: Uint8Array;
  readonly mtimesMs: Float64Array;
  readonly ctimesMs: Float64Array;
  readonly sizesBytes: Float64Array;
  readonly inos: Float64Array;
  /** The `lstat`s that failed, by position. */
  readonly errors = new Map<number, Error>();

  constructor(readonly length: number) {
    this.kinds = new Uint8Array(length);
    this.mtimesMs = new Float64Array(length);
    this.ctimesMs = new Float64Array(length);
    this.sizesBytes = new Float64Array(length);
    this.inos = new Float64Array(length);
  }

  set(i: number, st: Stats): void {
    this.kinds[i] = kindOf(st);
    this.mtimesMs[i] = st.mtimeMs;
    this.ctimesMs[i] = st.ctimeMs;
    this.sizesBytes[i] = st.size;
    this.inos[i] = st.ino;
  }

  /** The `lstat` at position `i` as an object, or the error it met. */
  at(i: number): StatLite | Error {
    return this.errors.get(i) ?? new StatLite(this.mtimesMs[i]!, this.ctimesMs[i]!, this.sizesBytes[i]!, this.inos[i]!, this.kinds[i]!);
  }
}

/** `lstat`s of `paths[from..]` into `out` on the thread pool, `ASYNC_BATCH` at a time. */
async function lstatManyLater(fs: RawFs, dir: string, names: string[], out: StatColumns, from: number): Promise<StatColumns> {
  for (let i = from; i < names.length; i += ASYNC_BATCH) {
    const end = Math.min(names.length, i + ASYNC_BATCH);
    const batch: Promise<void>[] = [];
    for (let k = i; k < end; k++) {
      batch.push(
        callback<Stats>((done) => fs.lstat(`${dir}/${names[k]!}`, done)).then(
          (st) => out.set(k, st),
          (error: Error) => void out.errors.set(k, error),
        ),
      );
    }
    await Promise.all(batch);
  }
  return out;
}

/** Runs reads: synchronously in short slices while calls are fast, on the thread pool when they are not. */
export class IoDriver {
  /** Until then, every call goes to the thread pool. */
  private asyncUntil = 0;
  private sliceStart = 0;
  private slowStreak = 0;
  /** Times the event loop was let through (tests check that a long read yields). */
  yields = 0;

  constructor(
    readonly fs: RawFs,
    /** `"auto"` (the default), or always one way (tests, and the benchmark's comparisons). */
    readonly mode: "auto" | "sync" | "async" = "auto",
  ) {}

  /** Whether calls run synchronously now. */
  get synchronous(): boolean {
    return this.mode === "sync" || (this.mode === "auto" && performance.now() >= this.asyncUntil);
  }

  /** Whether this slice has run long enough to let the event loop through. */
  private get due(): boolean {
    return performance.now() - this.sliceStart >= SLICE_MS;
  }

  private async breathe(): Promise<void> {
    this.yields++;
    await immediate();
    this.sliceStart = performance.now();
  }

  /** One synchronous call, timed: a slow one sends the next calls to the thread pool. */
  private timed(call: () => unknown): Outcome {
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = { ok: true, value: call() };
    } catch (error) {
      outcome = { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
    const ended = performance.now();
    this.note(ended - started, ended);
    return outcome;
  }

  /**
   * Each path made as it is stat-ed: thousands of them made at once would live through the
   * slices, young objects every collection copies.
   */
  private async lstatMany(dir: string, names: string[]): Promise<StatColumns> {
    const out = new StatColumns(names.length);
    for (let i = 0; i < names.length; i++) {
      if (!this.synchronous) return lstatManyLater(this.fs, dir, names, out, i);
      const path = `${dir}/${names[i]!}`;
      const outcome = this.timed(() => this.fs.lstatSync(path));
      if (!outcome.ok) out.errors.set(i, outcome.error);
      else if (outcome.value) out.set(i, outcome.value as Stats);
      else out.errors.set(i, Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" }));
      if (this.due) await this.breathe();
    }
    return out;
  }

  private async later(op: IoOp): Promise<Outcome> {
    try {
      return { ok: true, value: op.op === "lstatMany" && this.synchronous ? await this.lstatMany(op.dir, op.names) : await later(this.fs, op) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
    }
  }

  /** Runs one read to its end. */
  async run<T>(task: IoTask<T>): Promise<T> {
    let now = performance.now();
    // a slice starts with the first call after the event loop had its turn
    if (now - this.sliceStart > SLICE_MS * 4) this.sliceStart = now;
    let next = task.next();
    while (!next.done) {
      const op = next.value;
      if (op.op === "pause") {
        now = performance.now(); // the loop before the pause took time of its own
        if (now - this.sliceStart >= SLICE_MS) {
          await this.breathe();
          now = performance.now();
        }
        next = task.next();
        continue;
      }
      if (op.op === "await" || op.op === "lstatMany" || op.op === "fsync" || ((op.op === "readdir" || op.op === "readdirKinds") && op.big) || !(this.mode === "sync" || (this.mode === "auto" && now >= this.asyncUntil))) {
        const outcome = await this.later(op);
        now = performance.now();
        next = outcome.ok ? task.next(outcome.value) : task.throw(outcome.error);
        continue;
      }
      // the hot path: one synchronous call, timed, without allocating
      let value: unknown;
      let error: unknown = null;
      const started = now;
      try {
        value = sync(this.fs, op);
      } catch (e) {
        error = e ?? new Error("failed");
      }
      now = performance.now();
      this.note(now - started, now);
      if (now - this.sliceStart >= SLICE_MS) {
        await this.breathe();
        now = performance.now();
      }
      next = error === null ? task.next(value) : task.throw(error);
    }
    return next.value;
  }

  /** Counts slow calls; `SLOW_STREAK` in a row send the next calls to the thread pool. */
  private note(tookMs: number, nowMs: number): void {
    if (tookMs <= SLOW_CALL_MS) this.slowStreak = 0;
    else if (++this.slowStreak >= SLOW_STREAK && this.mode === "auto") {
      this.asyncUntil = nowMs + COOL_DOWN_MS;
      this.slowStreak = 0;
    }
  }

  /**
   * Runs reads, each to its end: one after the other while synchronous, `concurrency` at once on
   * the thread pool. A read that throws gives its error in its place.
   */
  async runAll<T>(tasks: (() => IoTask<T>)[], concurrency = 16): Promise<(T | Error)[]> {
    const out: (T | Error)[] = new Array(tasks.length);
    let next = 0;
    const one = async (i: number) => {
      try {
        out[i] = await this.run(tasks[i]!());
      } catch (error) {
        out[i] = error instanceof Error ? error : new Error(String(error));
      }
    };
    while (next < tasks.length && this.synchronous) await one(next++);
    const worker = async () => {
      while (next < tasks.length) await one(next++);
    };
    await Promise.all(Array.from({ length: Math.max(0, Math.min(concurrency, tasks.length - next)) }, worker));
    return out;
  }
}
