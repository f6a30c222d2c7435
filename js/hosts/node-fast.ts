/// <reference types="node" preserve="true" />
/**
 * The Node host's fast paths (its `fast` group, and its reads and writes while calls are fast):
 * Node's synchronous file calls are its cheapest (a synchronous `open` costs a microsecond, one
 * through `fs/promises` tens), so these make them synchronously, spending the process's one
 * budget a turn of the event loop (`js/slice.ts`, shared by every reader in flight, in one memory
 * or many). Once calls turn slow (a network file system, a disk under load) they go through the
 * base host's promises for a while; a folder of thousands of names is always read so. The walk is
 * the base host's (directory descriptors with `O_NOFOLLOW`, or plain paths checked); a link met
 * is handed to the base host, which follows it inside only.
 */
import * as nodeFs from "node:fs";
import { constants, type Dirent, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { HEAD_READ_BYTES, hostError, type HostEntry, type HostError, type HostFastPaths, type HostHead } from "../host.js";
import { KIND_DIRECTORY, KIND_FILE, KIND_OTHER, Listing, ListingBuilder } from "../listing.js";
import { due, immediate } from "../slice.js";
import { fileEntry, Filling, isCode } from "./node-dirs.js";
import type { NodeHost } from "./node.js";

/** The synchronous calls the fast paths make (`node:fs`); injectable for tests. */
export interface SyncFs {
  openSync(path: string, flags: number, mode?: number): number;
  closeSync(fd: number): void;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  fstatSync(fd: number): Stats;
  lstatSync(path: string): Stats | undefined;
  readdirSync(path: string): string[];
  /** The names with their kinds (`withFileTypes`): a raw fs that gives names alone has each `lstat`ed instead. */
  readdirSync(path: string, options: { withFileTypes: true }): (Dirent | string)[];
  readlinkSync(path: string): string;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  linkSync(existing: string, target: string): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  /** The one call on the thread pool: it waits for the disk. */
  fsync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
}

/** The calls that put a file's bytes in a new file and name it (`NodeHost`'s writes). */
export interface FileWrites {
  /** A new file at `path` (`O_EXCL`, never followed) holding `data`, flushed when `durable`; its own `fstat` when `identify`. */
  create(path: string, data: Uint8Array, durable: boolean, identify: boolean): Promise<Stats | undefined>;
  link(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

export const defaultSyncFs: SyncFs = nodeFs as unknown as SyncFs;

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
/**
 * A synchronous call that took this long is slow; `SLOW_STREAK` slow ones in a row send the
 * following calls through the promises for `COOL_DOWN_MS`. (One alone is more often the process
 * losing its core to another for a moment than a slow disk.)
 */
const SLOW_CALL_MS = 2;
const SLOW_STREAK = 3;
const COOL_DOWN_MS = 5_000;
/** A folder this large (its own size: ext4 ~30 B an entry, tmpfs 20) is read through the promises: one synchronous call would hold the loop. */
const BIG_FOLDER_BYTES = 32 * 1024;
/** More names than this in one folder are stat'ed through its plain path (see `lstatNames`). */
const PLAIN_PATH_FROM = 2;
/** Calls in flight at once through the promises (the thread pool's 4 threads stay busy). */
const AT_ONCE = 64;

const FILE = 1;
const DIRECTORY = 2;
const LINK = 3;

/** A folder open for the walk: its descriptor (descriptor walk) or `null` (plain paths). */
interface WalkDir {
  fd: number | null;
  segments: string[];
  /** The folder's own size in bytes, where known: a large one has thousands of entries. */
  bytes?: number;
}

/** A folder's `lstat`s in columns: each `Stats` (four `Date`s, fourteen boxed numbers) dies young, not across slices (10–18 ms collections at 20,000 files). */
class StatColumns {
  readonly kinds: Uint8Array;
  readonly mtimesMs: Float64Array;
  readonly ctimesMs: Float64Array;
  readonly sizesBytes: Float64Array;
  readonly inos: Float64Array;
  /** The `lstat`s that failed, by position. */
  readonly errors = new Map<number, Error>();

  constructor(length: number) {
    this.kinds = new Uint8Array(length);
    this.mtimesMs = new Float64Array(length);
    this.ctimesMs = new Float64Array(length);
    this.sizesBytes = new Float64Array(length);
    this.inos = new Float64Array(length);
  }

  set(i: number, st: Stats): void {
    this.kinds[i] = st.isFile() ? FILE : st.isDirectory() ? DIRECTORY : st.isSymbolicLink() ? LINK : 0;
    this.mtimesMs[i] = st.mtimeMs;
    this.ctimesMs[i] = st.ctimeMs;
    this.sizesBytes[i] = st.size;
    this.inos[i] = st.ino;
  }

  /** The entry at `i` as `statMany` gives it (a link as itself). */
  entry(i: number, path: string): HostEntry {
    const kind = this.kinds[i];
    const key = { mtimeMs: this.mtimesMs[i]!, ctimeMs: this.ctimesMs[i]!, ino: this.inos[i]! };
    if (kind === FILE) return { path, kind: "file", size: this.sizesBytes[i]!, ...key };
    if (kind === DIRECTORY) return { path, kind: "directory", size: 0, ...key };
    return { path, kind: "other", size: 0, ...key, problem: kind === LINK ? "symlink" : "not_a_file" };
  }
}

const noEntry = (path: string): Error => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

export class NodeFast {
  /** Times the event loop was let through (tests check that a long read yields). */
  yields = 0;
  private slowUntil = 0;
  private streak = 0;

  constructor(
    private readonly host: NodeHost,
    private readonly raw: SyncFs,
      private readonly mode: "auto" | "sync" | "async",
  ) {}

  group(): HostFastPaths {
    return {
      listing: () => this.listing(false),
      listKinds: async () => (await this.listing(true)).toEntries(),
      readHeads: (paths, maxLines) => this.readHeads(paths, maxLines),
      statMany: (paths) => this.statMany(paths),
      writeFiles: (files) => this.host.writeFiles(files),
      hold: (fn) => this.host.hold(fn),
    };
  }

  /** Whether calls go through the promises now. */
  private get slow(): boolean {
    return this.mode === "async" || (this.mode === "auto" && performance.now() < this.slowUntil);
  }

  /** Notes how long a synchronous call that started at `started` took. */
  private took(started: number): void {
    const ended = performance.now();
    if (ended - started <= SLOW_CALL_MS) this.streak = 0;
    else if (++this.streak >= SLOW_STREAK && this.mode === "auto") {
      this.slowUntil = ended + COOL_DOWN_MS;
      this.streak = 0;
    }
  }

  /** One synchronous call, timed. */
  private call<T>(fn: () => T): T {
    const started = performance.now();
    try {
      return fn();
    } finally {
      this.took(started);
    }
  }

  /** @internal A write's own calls, synchronous while calls are fast (the flush alone on the thread pool); `undefined` when slow. */
  writes(): FileWrites | undefined {
    return this.slow ? undefined : this.syncWrites;
  }
  private readonly syncWrites: FileWrites = {
    create: async (path, data, durable, identify) => {
      const raw = this.raw;
      const fd = this.call(() => raw.openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666));
      try {
        for (let at = 0; at < data.length; ) at += this.call(() => raw.writeSync(fd, data, at, data.length - at, at));
        if (durable) await new Promise<void>((resolve, reject) => raw.fsync(fd, (error) => (error ? reject(error) : resolve())));
        return identify ? this.call(() => raw.fstatSync(fd)) : undefined;
      } finally {
        raw.closeSync(fd);
      }
    },
    link: async (from, to) => this.call(() => this.raw.linkSync(from, to)),
    unlink: async (path) => this.call(() => this.raw.unlinkSync(path)),
    rename: async (from, to) => this.call(() => this.raw.renameSync(from, to)),
  };

  /** Lets the event loop through (called when the turn's shared budget is spent: `due()`). */
  private async pass(): Promise<void> {
    this.yields++;
    await immediate();
  }

  /** @internal A path for `name` in `dir` (`Dirs` too). */
  at(dir: WalkDir, name: string): string {
    return dir.fd !== null ? `/proc/self/fd/${dir.fd}/${name}` : join(this.host.root, ...dir.segments, name);
  }

  private self(dir: WalkDir): string {
    return dir.fd !== null ? `/proc/self/fd/${dir.fd}` : join(this.host.root, ...dir.segments);
  }

  /** @internal Closes a folder or file read (`Dirs` too): nothing to lose. */
  closeFd(fd: number | null): void {
    if (fd === null) return;
    try {
      this.raw.closeSync(fd);
    } catch {
      // read only
    }
  }

  /** Opens the root (its descriptor on the descriptor walk), with its size for a listing; throws ENOENT / ENOTDIR when it is missing or not a folder. */
  private async openRoot(sized = false): Promise<WalkDir> {
    const root = this.host.root;
    if (!(await this.host.walkerReady).safe) {
      let st = this.call(() => this.raw.lstatSync(root));
      if (!st) throw noEntry(root);
      // the root may itself be a link (a home folder on another disk): followed, as the walker does
      if (st.isSymbolicLink()) st = await this.host.fs.stat(root);
      if (!st.isDirectory()) throw hostError("ENOTDIR", "the memory directory is not a directory");
      return { fd: null, segments: [], bytes: st.size };
    }
    const fd = this.call(() => this.raw.openSync(root, O_RDONLY | O_DIRECTORY));
    if (!sized) return { fd, segments: [] };
    try {
      return { fd, segments: [], bytes: this.call(() => this.raw.fstatSync(fd)).size };
    } catch {
      return { fd, segments: [] }; // unknown: read synchronously
    }
  }

  /**
   * Every entry below the root, in columns (`list`'s entries; see `js/listing.ts`). `kindsOnly`:
   * each entry's kind as the folder gives it, no `lstat` an entry, times and sizes 0 (`listKinds`).
   * A host whose `list()` is its own (a subclass, or an instance given one) gives that list.
   */
  private async listing(kindsOnly: boolean): Promise<Listing> {
    if (this.host.ownList()) return Listing.fromEntries(await this.host.list());
    if (due()) await this.pass(); // a turn whose budget another reader spent: this one starts on the next
    let root: WalkDir;
    try {
      root = await this.openRoot(true);
    } catch (error) {
      if (isCode(error, "ENOENT", "ENOTDIR")) return new ListingBuilder(0).finish();
      throw error;
    }
    try {
      const out = new ListingBuilder();
      await this.list(root, out, kindsOnly);
      return out.finish();
    } finally {
      this.closeFd(root.fd);
    }
  }

  /**
   * The entries below `dir`, depth first in name order, into `out`. A folder that cannot be
   * read is flagged; the root throws (a write must never decide on a listing that left out
   * files that are there).
   */
  private async list(dir: WalkDir, out: ListingBuilder, kindsOnly: boolean): Promise<void> {
    const prefix = dir.segments.length ? `${dir.segments.join("/")}/` : "";
    let names: string[];
    let stats: StatColumns;
    try {
      const big = (dir.bytes ?? 0) >= BIG_FOLDER_BYTES || this.slow;
      if (kindsOnly) ({ names, stats } = await this.namesWithKinds(dir, big));
      else {
        // a large folder keeps the file system's order (stable while the folder is unchanged):
        // sorting 20,000 names held the event loop 9–14 ms, and the core orders by time and path
        names = big ? await this.host.fs.readdir(this.self(dir)) : this.call(() => this.raw.readdirSync(this.self(dir))).sort();
        stats = await this.lstatNames(dir, names); // a stat only orders and keys the listing
      }
      for (const error of stats.errors.values()) if (!isCode(error, "ENOENT")) throw error;
    } catch (error) {
      if (isCode(error, "ENOENT")) return; // vanished while listing
      if (dir.segments.length === 0) throw error;
      out.push(dir.segments.join("/"), KIND_DIRECTORY, 0, 0, Number.NaN, Number.NaN, "unreadable");
      return;
    }
    out.reserve(names.length);
    const { kinds, mtimesMs, ctimesMs, sizesBytes, inos } = stats;
    for (let i = 0; i < names.length; i++) {
      // thousands of entries are a long loop: the event loop goes through when the budget is spent
      if ((i & 255) === 255 && due()) await this.pass();
      if (stats.errors.has(i)) continue; // vanished between readdir and lstat
      const name = names[i]!;
      const path = prefix + name;
      const kind = kinds[i]!;
      if (kind === LINK) {
        const at = { handle: dir.fd === null ? null : ({ fd: dir.fd } as FileHandle), segments: dir.segments };
        out.pushEntry(await this.host.linkEntry(at, name, path, { mtimeMs: mtimesMs[i]! }));
      } else if (kind === DIRECTORY) {
        let child: WalkDir;
        try {
          // opened without following a link (one swapped in after the lstat fails)
          const fd = dir.fd === null ? null : this.call(() => this.raw.openSync(this.at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
          child = { fd, segments: [...dir.segments, name], bytes: sizesBytes[i]! };
        } catch {
          out.push(path, KIND_DIRECTORY, mtimesMs[i]!, 0, Number.NaN, Number.NaN, "unreadable");
          continue;
        }
        try {
          // the kinds give no folder's size: looked up, so a large one is read through the promises too
          if (kindsOnly) child.bytes = this.call(() => (child.fd !== null ? this.raw.fstatSync(child.fd) : this.raw.lstatSync(this.at(dir, name))))?.size;
        } catch {
          // unknown: read synchronously
        }
        out.push(path, KIND_DIRECTORY, mtimesMs[i]!, 0, ctimesMs[i]!, inos[i]!);
        try {
          await this.list(child, out, kindsOnly);
        } finally {
          this.closeFd(child.fd);
        }
      } else if (kind === FILE) {
        out.push(path, KIND_FILE, mtimesMs[i]!, sizesBytes[i]!, ctimesMs[i]!, inos[i]!);
      } else {
        out.push(path, KIND_OTHER, mtimesMs[i]!, 0, ctimesMs[i]!, inos[i]!, "not_a_file");
      }
    }
  }

  /**
   * A folder's names, sorted, with their kinds as the folder itself gives them (`d_type`). A
   * kind the file system does not give, or a raw fs that gives names alone: that entry is
   * `lstat`ed here.
   */
  private async namesWithKinds(dir: WalkDir, big: boolean): Promise<{ names: string[]; stats: StatColumns }> {
    const path = this.self(dir);
    let read: (Dirent | string)[];
    try {
      read = big ? await this.host.fs.readdir(path, { withFileTypes: true }) : this.call(() => this.raw.readdirSync(path, { withFileTypes: true }));
    } catch (error) {
      // Node `lstat`s an entry whose kind the file system does not give, and fails the whole read
      // with that `lstat`'s error (ENOENT: one entry gone, not the folder): the names alone, each
      // `lstat`ed below (an entry gone is left out); a folder gone fails here again
      if (!isCode(error, "ENOENT")) throw error;
      read = big ? await this.host.fs.readdir(path) : this.call(() => this.raw.readdirSync(path));
    }
    const named = read.map((e) => (typeof e === "string" ? { name: e, kind: -1 } : { name: e.name, kind: e.isFile() ? FILE : e.isDirectory() ? DIRECTORY : e.isSymbolicLink() ? LINK : 0 }));
    if (!big) named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)); // see list()
    const stats = new StatColumns(named.length);
    for (let i = 0; i < named.length; i++) {
      const { name, kind } = named[i]!;
      if (kind >= 0) stats.kinds[i] = kind;
      else if (this.slow) await this.lstatLater(stats, i, this.at(dir, name));
      else {
        this.lstatNow(stats, i, this.at(dir, name));
        if (due()) await this.pass();
      }
    }
    return { names: named.map((e) => e.name), stats };
  }

  /** One synchronous `lstat` into `out` at `i` (its error in its place), timed. */
  private lstatNow(out: StatColumns, i: number, path: string): void {
    const started = performance.now();
    try {
      const st = this.raw.lstatSync(path);
      if (st) out.set(i, st);
      else out.errors.set(i, noEntry(path));
    } catch (error) {
      out.errors.set(i, asError(error));
    }
    this.took(started);
  }

  /** One `lstat` into `out` at `i` through the promises (calls turned slow). */
  private async lstatLater(out: StatColumns, i: number, path: string): Promise<void> {
    await this.host.fs.lstat(path).then((st) => out.set(i, st), (error: unknown) => void out.errors.set(i, asError(error)));
  }

  /**
   * `lstat` of each of `names` in the folder at `dir`: synchronously while calls are fast (each
   * path made as it is stat-ed, nothing awaited between them until the turn's budget is spent:
   * thousands of young objects alive across the slices make each collection copy them), else
   * {@link AT_ONCE} at a time through the promises.
   */
  private async lstatMany(dir: string, names: string[]): Promise<StatColumns> {
    const out = new StatColumns(names.length);
    let i = 0;
    for (; i < names.length && !this.slow; i++) {
      this.lstatNow(out, i, `${dir}/${names[i]!}`);
      if (due()) await this.pass();
    }
    for (; i < names.length; i += AT_ONCE) {
      const batch: Promise<void>[] = [];
      for (let k = i; k < Math.min(names.length, i + AT_ONCE); k++) batch.push(this.lstatLater(out, k, `${dir}/${names[k]!}`));
      await Promise.all(batch);
    }
    return out;
  }

  /**
   * `lstat` of `names` in the folder `dir` holds open: through the folder's plain path when it
   * leads to that folder (an `lstat` through /proc/self/fd costs twice as much). The path is
   * checked before and after; a swap and a swap back between the two could show the stats (never
   * the contents: heads are read through the descriptor) of same-named files elsewhere. Any
   * failure through the plain path (a name too long with it, one that vanished, a link on the
   * way) takes the descriptor for the whole folder.
   */
  private async lstatNames(dir: WalkDir, names: string[]): Promise<StatColumns> {
    // a few names: through the descriptor (the plain path's checks cost more than they save)
    const plain = names.length > PLAIN_PATH_FROM ? this.plainPath(dir) : null;
    if (plain !== null && this.leadsTo(plain, dir)) {
      const stats = await this.lstatMany(plain, names);
      if (stats.errors.size === 0 && this.leadsTo(plain, dir)) return stats;
    }
    return this.lstatMany(this.self(dir), names);
  }

  /** The absolute path the kernel has for a folder held open (`readlink` of its descriptor), or `null`. */
  private plainPath(dir: WalkDir): string | null {
    if (dir.fd === null) return null;
    try {
      const path = this.call(() => this.raw.readlinkSync(this.self(dir)));
      return path.startsWith("/") && !path.endsWith(" (deleted)") && !path.includes("\0") ? path.replace(/\/$/, "") : null;
    } catch {
      return null;
    }
  }

  /** Whether `path` leads to the folder `dir` holds open: no link on its way swapped in, nothing moved. */
  private leadsTo(path: string, dir: WalkDir): boolean {
    try {
      const held = this.call(() => this.raw.fstatSync(dir.fd!));
      const now = this.call(() => this.raw.lstatSync(path || "/"));
      return !!now && now.isDirectory() && now.ino === held.ino && now.dev === held.dev;
    } catch {
      return false;
    }
  }

  /**
   * The first `maxLines` lines of each file (at least; at most `HEAD_READ_BYTES`), and the file
   * as `fstat` saw it when it was opened; a directory is `EISDIR`, a FIFO or device `EINVAL`
   * (opened without blocking, never read). Each error in its place. Once calls turn slow, the
   * rest through the base host.
   */
  private async readHeads(paths: string[], maxLines: number): Promise<(HostHead | HostError)[]> {
    const out: (HostHead | HostError)[] = new Array(paths.length);
    let k = 0;
    if (due()) await this.pass(); // a turn whose budget another reader spent: this one starts on the next
    if (!this.slow) {
      const dirs = new Dirs(this.raw, this, await this.openRoot());
      try {
        for (; k < paths.length && !this.slow; k++) {
          try {
            out[k] = await this.head(dirs, paths[k]!, maxLines);
          } catch (error) {
            out[k] = error as HostError;
          }
          if (due()) await this.pass();
        }
      } finally {
        dirs.close();
      }
    }
    const rest = async () => {
      for (let i = k++; i < paths.length; i = k++) out[i] = await this.host.head(paths[i]!, maxLines).catch((error: HostError) => error);
    };
    await Promise.all(Array.from({ length: Math.min(16, paths.length - k) }, rest));
    return out;
  }

  /** One head by synchronous calls; through the base host where a link is on the way. */
  private async head(dirs: Dirs, path: string, maxLines: number): Promise<HostHead> {
    return this.regular(dirs, path, HEAD_READ_BYTES, maxLines) ?? this.host.head(path, maxLines);
  }

  /**
   * A regular file's first `cap` bytes (or `maxLines` lines) by synchronous calls, and the file
   * as `fstat` saw it; `undefined` where a link is on the way (the base host follows it inside).
   */
  private regular(dirs: Dirs, path: string, cap: number, maxLines?: number): HostHead | undefined {
    const segments = path.split("/");
    const name = segments.pop()!;
    if (name === "") throw hostError("EISDIR", "the memory directory itself is not a file");
    const dir = dirs.get(segments);
    if (dir === null || (dir.fd === null && this.call(() => this.raw.lstatSync(this.at(dir, name)))?.isSymbolicLink())) return undefined;
    let fd: number;
    try {
      fd = this.call(() => this.raw.openSync(this.at(dir, name), O_RDONLY | O_NONBLOCK | O_NOFOLLOW));
    } catch (error) {
      if (isCode(error, "ELOOP")) return undefined;
      throw error;
    }
    try {
      const st = this.call(() => this.raw.fstatSync(fd));
      if (st.isDirectory()) throw hostError("EISDIR", `${path} is a directory`);
      if (!st.isFile()) throw hostError("EINVAL", `${path} is not a regular file`);
      const r = new Filling(st.size, cap, maxLines);
      while (r.room() && r.got(this.call(() => this.raw.readSync(fd, r.buffer, r.total, r.buffer.length - r.total, r.total))));
      return { bytes: r.bytes(), entry: fileEntry(path, st) };
    } finally {
      this.closeFd(fd);
    }
  }

  /**
   * @internal `NodeHost.readFile` by synchronous calls while they are fast: the file's bytes, or
   * `undefined` where the base host must read it (a link on the way, calls slow).
   */
  async readFile(path: string, cap: number): Promise<Uint8Array | undefined> {
    if (this.slow) return undefined;
    if (due()) await this.pass();
    const dirs = new Dirs(this.raw, this, await this.openRoot());
    try {
      return this.regular(dirs, path, cap)?.bytes;
    } finally {
      dirs.close();
    }
  }

  /**
   * @internal `NodeHost.stat` (and `resolve`) by one synchronous `lstat` while calls are fast: a
   * file or folder with no link on its way, `null` when nothing is there, or `undefined` where the
   * base host must say (a link, anything else, a failure, calls slow).
   */
  async plainEntry(path: string): Promise<HostEntry | null | undefined> {
    if (this.slow) return undefined;
    let got: HostEntry | null | HostError | undefined;
    try {
      [got] = await this.statMany([path]);
    } catch {
      return undefined;
    }
    if (got === null) return null;
    if (got === undefined || got instanceof Error || got.problem || (got.kind !== "file" && got.kind !== "directory")) return undefined;
    return got.kind === "directory" ? { path, kind: "directory", mtimeMs: got.mtimeMs, size: 0 } : got;
  }

  /** `lstat` of many paths, one batch a folder (most are in the root); `null` for what is not there. */
  private async statMany(paths: string[]): Promise<(HostEntry | null | HostError)[]> {
    if (this.slow) return Promise.all(paths.map((p) => this.host.lstat(p).catch((error: HostError) => error)));
    if (due()) await this.pass(); // as readHeads; the turn's budget counts from here if no reader started it
    const folders = new Map<string, number[]>();
    paths.forEach((p, i) => {
      const folder = p.slice(0, Math.max(0, p.lastIndexOf("/")));
      const list = folders.get(folder);
      if (list) list.push(i);
      else folders.set(folder, [i]);
    });
    const out: (HostEntry | null | HostError)[] = new Array(paths.length);
    const dirs = new Dirs(this.raw, this, await this.openRoot());
    try {
      for (const [folder, at] of folders) {
        let dir: WalkDir | null;
        try {
          dir = dirs.get(folder === "" ? [] : folder.split("/"));
        } catch (error) {
          if (!isCode(error, "ENOENT", "ENOTDIR")) throw error;
          for (const i of at) out[i] = null;
          continue;
        }
        // a link on the way: changed, as far as a cache can tell
        if (dir === null) {
          for (const i of at) out[i] = { path: paths[i]!, kind: "other", mtimeMs: 0, size: 0, problem: "symlink" };
          continue;
        }
        const stats = await this.lstatNames(dir, at.map((i) => paths[i]!.slice(paths[i]!.lastIndexOf("/") + 1)));
        for (let k = 0; k < at.length; k++) {
          // thousands of entries made in a row: the event loop goes through when the budget is spent
          if ((k & 255) === 255 && due()) await this.pass();
          const i = at[k]!;
          const error = stats.errors.get(k);
          out[i] = error === undefined ? stats.entry(k, paths[i]!) : isCode(error, "ENOENT", "ENOTDIR") ? null : (error as HostError);
        }
      }
    } finally {
      dirs.close();
    }
    return out;
  }
}

/**
 * Folders opened during a batch of reads, by relative path, so that 200 heads in one folder
 * open it once. `null`: the way there has a link (the base host follows it).
 */
class Dirs {
  private readonly open = new Map<string, WalkDir | null>();
  constructor(
    private readonly raw: SyncFs,
    private readonly fast: NodeFast,
    private readonly root: WalkDir,
  ) {}

  get(segments: string[]): WalkDir | null {
    if (segments.length === 0) return this.root;
    const key = segments.join("/");
    const known = this.open.get(key);
    if (known !== undefined) return known;
    const parent = this.get(segments.slice(0, -1));
    let dir: WalkDir | null = null;
    if (parent !== null) {
      const path = this.fast.at(parent, segments.at(-1)!);
      if (parent.fd === null) {
        // plain paths: a link on the way is left to the base host, which checks where it leads
        const st = this.raw.lstatSync(path);
        if (!st) throw noEntry(path);
        if (!st.isSymbolicLink()) {
          if (!st.isDirectory()) throw hostError("ENOTDIR", `${key} is not a directory`);
          dir = { fd: null, segments };
        }
      } else {
        try {
          dir = { fd: this.raw.openSync(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW), segments };
        } catch (error) {
          if (!isCode(error, "ELOOP", "ENOTDIR")) throw error; // a link, or a file on the way: the base host says which
        }
      }
    }
    this.open.set(key, dir);
    return dir;
  }

  close(): void {
    for (const dir of [...this.open.values(), this.root]) this.fast.closeFd(dir?.fd ?? null);
    this.open.clear();
  }
}
