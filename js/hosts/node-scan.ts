/**
 * The Node host's listing and head reads as {@link IoTask}s, run by the host's `IoDriver`:
 * the same walk as the rest of the host — through directory descriptors (`/proc/self/fd/<fd>/<name>`)
 * with `O_NOFOLLOW` where Linux has them, plain paths checked otherwise, a symbolic link
 * followed only inside — with as few calls as the answer needs: one `readdir` with types a
 * folder, one `lstat` an entry, and `open`, `fstat`, `read`, `close` a head.
 */
import { constants } from "node:fs";
import type { Dirent, Stats } from "node:fs";
import { join } from "node:path";
import { hostError, type HostEntry, type HostHead } from "../host.js";
import { isCode } from "./node-dirs.js";
import { KIND_DIRECTORY, KIND_FILE, KIND_OTHER, ListingBuilder } from "../listing.js";
import { StatColumns, type IoTask, type StatLike } from "./node-io.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
/** Bytes read at a time for a head; most heads fit in one read. */
export const HEAD_CHUNK_BYTES = 4096;
/** A header longer than this is cut: the core reads 30 lines, and a line can be huge. */
export const MAX_HEAD_BYTES = 1 << 20;

/** A folder open for the walk: its descriptor (descriptor walk) or `null` (plain paths). */
export interface WalkDir {
  fd: number | null;
  segments: string[];
  /** The folder's own size in bytes, where known: a large one has thousands of entries. */
  bytes?: number;
}

/** A folder this large (its own size: ext4 ~30 B an entry, tmpfs 20) is read on the thread pool. */
const BIG_FOLDER_BYTES = 32 * 1024;

/** What the tasks need from the host. */
export interface WalkContext {
  root: string;
  /** Descriptor walk (`/proc/self/fd`) or plain paths. */
  safe: boolean;
  /** An entry for a symbolic link (followed inside only), by the host's slower path. */
  linkEntry(dir: WalkDir, name: string, path: string, st: StatLike): Promise<HostEntry>;
  /** A head by the host's slower path (a link on the way). */
  readHeadSlowly(path: string, maxLines: number): Promise<HostHead>;
  /** A file by the host's slower path (a link on the way). */
  readFileSlowly(path: string, cap: number): Promise<Uint8Array>;
}

export function at(ctx: WalkContext, dir: WalkDir, name: string): string {
  return dir.fd !== null ? `/proc/self/fd/${dir.fd}/${name}` : join(ctx.root, ...dir.segments, name);
}

function self(ctx: WalkContext, dir: WalkDir): string {
  return dir.fd !== null ? `/proc/self/fd/${dir.fd}` : join(ctx.root, ...dir.segments);
}

/**
 * The absolute path the kernel has for a folder held open (`readlink` of its descriptor), or
 * `null` (no descriptor, a folder deleted meanwhile, a path that is not plain).
 */
function* plainPath(ctx: WalkContext, dir: WalkDir): IoTask<string | null> {
  if (dir.fd === null) return null;
  try {
    const path = (yield { op: "readlink", path: self(ctx, dir) }) as string;
    return path.startsWith("/") && !path.endsWith(" (deleted)") && !path.includes("\0") ? path.replace(/\/$/, "") : null;
  } catch {
    return null;
  }
}

/** Whether `path` leads to the folder `dir` holds open: no link on its way swapped in, nothing moved. */
function* leadsTo(path: string, dir: WalkDir): IoTask<boolean> {
  try {
    const held = (yield { op: "fstat", fd: dir.fd! }) as Stats;
    const now = (yield { op: "lstat", path: path || "/" }) as Stats;
    return now.isDirectory() && now.ino === held.ino && now.dev === held.dev;
  } catch {
    return false;
  }
}

/**
 * `lstat` of `names` in the folder `dir` holds open: through the folder's plain path when it
 * leads to that folder (an `lstat` through /proc/self/fd costs twice as much). The path is
 * checked before and after; a swap and a swap back between the two could show the stats (never
 * the contents: heads are read through the descriptor) of same-named files elsewhere. Any
 * failure through the plain path (a name too long with it, one that vanished, a link on the
 * way) takes the descriptor for the whole folder.
 */
function* lstatNames(ctx: WalkContext, dir: WalkDir, names: string[]): IoTask<StatColumns> {
  const plain = yield* plainPath(ctx, dir);
  if (plain !== null && (yield* leadsTo(plain, dir))) {
    const stats = (yield { op: "lstatMany", dir: plain, names }) as StatColumns;
    if (stats.errors.size === 0 && (yield* leadsTo(plain, dir))) return stats;
  }
  return (yield { op: "lstatMany", dir: self(ctx, dir), names }) as StatColumns;
}

/** An entry from `lstat` (or `fstat`) of what is not a link. */
export function statEntry(path: string, st: StatLike): HostEntry {
  // one shape for every entry (a scan compares thousands of them)
  const kind = st.isFile() ? "file" : st.isDirectory() ? "directory" : "other";
  const entry: HostEntry = { path, kind, mtimeMs: st.mtimeMs, size: kind === "file" ? st.size : 0, ctimeMs: st.ctimeMs, ino: st.ino };
  if (kind === "other") entry.problem = "not_a_file";
  return entry;
}

/** Opens the root: its descriptor on the descriptor walk; throws ENOENT / ENOTDIR when it is missing or not a folder. */
export function* openRoot(ctx: WalkContext): IoTask<WalkDir> {
  if (!ctx.safe) {
    const st = (yield { op: "lstat", path: ctx.root }) as Stats;
    // the root may itself be a link (a home folder on another disk): followed, as the walker does
    const real = st.isSymbolicLink() ? ((yield { op: "await", run: async () => (await import("node:fs/promises")).stat(ctx.root) }) as Stats) : st;
    if (!real.isDirectory()) throw hostError("ENOTDIR", "the memory directory is not a directory");
    return { fd: null, segments: [], bytes: real.size };
  }
  return { fd: (yield { op: "open", path: ctx.root, flags: O_RDONLY | O_DIRECTORY }) as number, segments: [] };
}

/** The root opened for a listing, with its size (a listing of a large folder reads it on the thread pool). */
export function* openRootForListing(ctx: WalkContext): IoTask<WalkDir> {
  const root = yield* openRoot(ctx);
  if (root.fd === null) return root;
  try {
    root.bytes = ((yield { op: "fstat", fd: root.fd }) as Stats).size;
  } catch {
    // unknown: read synchronously
  }
  return root;
}

export function* closeDir(dir: WalkDir | null): IoTask<void> {
  if (dir?.fd == null) return;
  try {
    yield { op: "close", fd: dir.fd };
  } catch {
    // read only: nothing to lose
  }
}

/**
 * A folder's names, sorted, with their kinds as the folder itself gives them (`d_type`): no
 * `lstat` an entry, and times and sizes left 0. A kind the file system does not give (Node then
 * `lstat`s it itself) or a raw fs that gives names alone: that entry is `lstat`ed here.
 */
function* namesWithKinds(ctx: WalkContext, dir: WalkDir, big: boolean): IoTask<{ names: string[]; stats: StatColumns }> {
  let read: (Dirent | string)[];
  try {
    read = (yield { op: "readdirKinds", path: self(ctx, dir), big }) as (Dirent | string)[];
  } catch (error) {
    // Node `lstat`s an entry whose kind the file system does not give, and fails the whole read
    // with that `lstat`'s error (ENOENT: one entry gone, not the folder): the names alone, each
    // `lstat`ed below (an entry gone is left out); a folder gone fails here again
    if (!isCode(error, "ENOENT")) throw error;
    read = (yield { op: "readdir", path: self(ctx, dir), big }) as string[];
  }
  const named = read.map((e) => (typeof e === "string" ? { name: e, kind: -1 } : { name: e.name, kind: e.isFile() ? StatColumns.FILE : e.isDirectory() ? StatColumns.DIRECTORY : e.isSymbolicLink() ? StatColumns.LINK : 0 }));
  named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const stats = new StatColumns(named.length);
  for (let i = 0; i < named.length; i++) {
    const kind = named[i]!.kind;
    if (kind >= 0) stats.kinds[i] = kind;
    else {
      try {
        stats.set(i, (yield { op: "lstat", path: at(ctx, dir, named[i]!.name) }) as Stats);
      } catch (error) {
        stats.errors.set(i, error as Error);
      }
    }
  }
  return { names: named.map((e) => e.name), stats };
}

/** A sub-folder's own size in bytes (`fstat` of its descriptor, else `lstat`), or `undefined` when it cannot be looked up. */
function* folderBytes(ctx: WalkContext, parent: WalkDir, name: string, child: WalkDir): IoTask<number | undefined> {
  try {
    const st = (child.fd !== null ? yield { op: "fstat", fd: child.fd } : yield { op: "lstat", path: at(ctx, parent, name) }) as Stats;
    return st.size;
  } catch {
    return undefined; // unknown: read synchronously
  }
}

/**
 * Every entry below `dir`, depth first in name order, as `NodeHost.list` reports them, into the
 * columns of `out`. A folder that cannot be read is flagged; the root throws (a write must never
 * decide on a listing that left out files that are there).
 */
export function* listTask(ctx: WalkContext, dir: WalkDir, out: ListingBuilder = new ListingBuilder(), kindsOnly = false): IoTask<ListingBuilder> {
  const prefix = dir.segments.length ? `${dir.segments.join("/")}/` : "";
  let names: string[];
  let stats: StatColumns;
  try {
    const big = (dir.bytes ?? 0) >= BIG_FOLDER_BYTES;
    if (kindsOnly) ({ names, stats } = yield* namesWithKinds(ctx, dir, big));
    else {
      names = ((yield { op: "readdir", path: self(ctx, dir), big }) as string[]).sort();
      stats = yield* lstatNames(ctx, dir, names); // a stat only orders and keys the listing
    }
    for (const error of stats.errors.values()) if (!isCode(error, "ENOENT")) throw error;
  } catch (error) {
    if (isCode(error, "ENOENT")) return out; // vanished while listing
    if (dir.segments.length === 0) throw error;
    out.push(dir.segments.join("/"), KIND_DIRECTORY, 0, 0, Number.NaN, Number.NaN, "unreadable");
    return out;
  }
  out.reserve(names.length);
  const { kinds, mtimesMs, ctimesMs, sizesBytes, inos } = stats;
  for (let i = 0; i < names.length; i++) {
    // thousands of entries are a long loop: the event loop goes through when the slice is up
    if ((i & 255) === 255) yield { op: "pause" };
    if (stats.errors.has(i)) continue; // vanished between readdir and lstat
    const name = names[i]!;
    const path = prefix + name;
    const kind = kinds[i]!;
    if (kind === StatColumns.LINK) {
      out.pushEntry((yield { op: "await", run: () => ctx.linkEntry(dir, name, path, stats.at(i) as StatLike) }) as HostEntry);
    } else if (kind === StatColumns.DIRECTORY) {
      let child: WalkDir;
      try {
        // opened without following a link (one swapped in after the lstat fails)
        child = { fd: ctx.safe ? ((yield { op: "open", path: at(ctx, dir, name), flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW }) as number) : null, segments: [...dir.segments, name], bytes: sizesBytes[i]! };
      } catch {
        out.push(path, KIND_DIRECTORY, mtimesMs[i]!, 0, Number.NaN, Number.NaN, "unreadable");
        continue;
      }
      // the kinds alone give no folder's size: looked up, so a large one is read on the thread pool too
      if (kindsOnly) child.bytes = yield* folderBytes(ctx, dir, name, child);
      out.push(path, KIND_DIRECTORY, mtimesMs[i]!, 0, ctimesMs[i]!, inos[i]!);
      try {
        yield* listTask(ctx, child, out, kindsOnly);
      } finally {
        yield* closeDir(child);
      }
    } else if (kind === StatColumns.FILE) {
      out.push(path, KIND_FILE, mtimesMs[i]!, sizesBytes[i]!, ctimesMs[i]!, inos[i]!);
    } else {
      out.push(path, KIND_OTHER, mtimesMs[i]!, 0, ctimesMs[i]!, inos[i]!, "not_a_file");
    }
  }
  return out;
}

/**
 * Folders opened during a batch of reads, by relative path, so that 200 heads in one folder
 * open it once. `null`: the way there has a link (the slower path follows it).
 */
export class DirCache {
  private readonly open = new Map<string, WalkDir | null>();
  constructor(private readonly root: WalkDir) {}

  *get(ctx: WalkContext, segments: string[]): IoTask<WalkDir | null> {
    if (segments.length === 0) return this.root;
    const key = segments.join("/");
    if (this.open.has(key)) return this.open.get(key)!;
    const parent = yield* this.get(ctx, segments.slice(0, -1));
    let dir: WalkDir | null = null;
    if (parent !== null) {
      if (!ctx.safe) {
        // plain paths: a link on the way is left to the slower path, which checks where it leads
        const st = (yield { op: "lstat", path: at(ctx, parent, segments.at(-1)!) }) as Stats;
        if (!st.isSymbolicLink()) {
          if (!st.isDirectory()) throw hostError("ENOTDIR", `${key} is not a directory`);
          dir = { fd: null, segments };
        }
      } else {
        try {
          dir = { fd: (yield { op: "open", path: at(ctx, parent, segments.at(-1)!), flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW }) as number, segments };
        } catch (error) {
          if (!isCode(error, "ELOOP", "ENOTDIR")) throw error; // a link, or a file on the way: the slower path says which
        }
      }
    }
    this.open.set(key, dir);
    return dir;
  }

  *close(): IoTask<void> {
    for (const dir of this.open.values()) yield* closeDir(dir);
    this.open.clear();
  }
}

/** Where the `count`-th newline is in `bytes[0..end]`, or -1 (counting from `seen` already seen). */
function lineEnd(bytes: Uint8Array, end: number, from: number, lines: { seen: number }, maxLines: number): boolean {
  let at = from;
  while (lines.seen < maxLines) {
    const i = bytes.indexOf(10, at);
    if (i < 0 || i >= end) return false;
    lines.seen++;
    at = i + 1;
  }
  return true;
}

/**
 * `end`, or where the character that `bytes[0..end]` cuts short begins: a head that stops
 * before its file's end stops on a character boundary (the core leaves a cut character out
 * all the same; this keeps it off the crossing).
 */
export function utf8Boundary(bytes: Uint8Array, end: number): number {
  for (let i = end - 1; i >= 0 && i >= end - 4; i--) {
    const b = bytes[i]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + length > end ? i : end;
  }
  return end;
}

/**
 * The first `maxLines` lines of a regular file (at least; at most `MAX_HEAD_BYTES`), and the
 * file as `fstat` saw it when it was opened. A directory is `EISDIR`, a FIFO or device `EINVAL`
 * (opened without blocking, never read).
 */
export function* headTask(ctx: WalkContext, dirs: DirCache, path: string, maxLines: number): IoTask<HostHead> {
  const segments = path.split("/");
  const name = segments.pop()!;
  const dir = yield* dirs.get(ctx, segments);
  if (dir === null) return (yield { op: "await", run: () => ctx.readHeadSlowly(path, maxLines) }) as HostHead;
  let fd: number;
  if (!ctx.safe) {
    // plain paths: a link is left to the slower path, which checks where it leads
    const st = (yield { op: "lstat", path: at(ctx, dir, name) }) as Stats;
    if (st.isSymbolicLink()) return (yield { op: "await", run: () => ctx.readHeadSlowly(path, maxLines) }) as HostHead;
  }
  try {
    fd = (yield { op: "open", path: at(ctx, dir, name), flags: O_RDONLY | O_NONBLOCK | O_NOFOLLOW }) as number;
  } catch (error) {
    if (isCode(error, "ELOOP")) return (yield { op: "await", run: () => ctx.readHeadSlowly(path, maxLines) }) as HostHead;
    throw error;
  }
  try {
    const st = (yield { op: "fstat", fd }) as Stats;
    if (st.isDirectory()) throw hostError("EISDIR", `${path} is a directory`);
    if (!st.isFile()) throw hostError("EINVAL", `${path} is not a regular file`);
    // sized from fstat: a file read to the size it had when opened is read whole (no read to
    // find the end), and a small head is not copied out of a larger buffer
    let buffer = new Uint8Array(Math.max(1, Math.min(HEAD_CHUNK_BYTES, st.size)));
    let total = 0;
    const lines = { seen: 0 };
    for (;;) {
      if (total === buffer.length) {
        if (buffer.length >= MAX_HEAD_BYTES) break;
        const grown = new Uint8Array(Math.min(MAX_HEAD_BYTES, Math.max(buffer.length * 2, HEAD_CHUNK_BYTES)));
        grown.set(buffer);
        buffer = grown;
      }
      const bytesRead = (yield { op: "read", fd, buffer, offset: total, length: buffer.length - total, position: total }) as number;
      if (bytesRead === 0) break;
      const from = total;
      total += bytesRead;
      if (total >= st.size || lineEnd(buffer, total, from, lines, maxLines)) break;
    }
    if (total < st.size) total = utf8Boundary(buffer, total);
    return { bytes: total === buffer.length ? buffer : buffer.slice(0, total), entry: statEntry(path, st) };
  } finally {
    try {
      yield { op: "close", fd };
    } catch {
      // read only: nothing to lose
    }
  }
}

/**
 * `lstat` of `paths` (all in the folder `segments`) through its descriptor; `null` for what is
 * not there. `plain`: through the folder's plain path where it leads there (see `lstatNames`),
 * for the cache's checks, whose stats only say what to read again.
 */
export function* statTask(ctx: WalkContext, dirs: DirCache, segments: string[], paths: string[], plain = false): IoTask<(HostEntry | null | Error)[]> {
  let dir: WalkDir | null;
  try {
    dir = yield* dirs.get(ctx, segments);
  } catch (error) {
    if (isCode(error, "ENOENT", "ENOTDIR")) return paths.map(() => null);
    throw error;
  }
  // a link on the way: changed, as far as a cache can tell
  if (dir === null) return paths.map((path): HostEntry => ({ path, kind: "other", mtimeMs: 0, size: 0, problem: "symlink" }));
  const d = dir;
  const names = paths.map((p) => p.slice(p.lastIndexOf("/") + 1));
  const stats = plain ? yield* lstatNames(ctx, d, names) : ((yield { op: "lstatMany", dir: self(ctx, d), names }) as StatColumns);
  return paths.map((path, i) => {
    const st = stats.at(i);
    if (st instanceof Error) return isCode(st, "ENOENT", "ENOTDIR") ? null : st;
    return st.isSymbolicLink() ? { path, kind: "other", mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, size: 0, problem: "symlink" } : statEntry(path, st);
  });
}

/** Opens a regular file for reading (a link on the way or at the end: the slower path, `null`). */
function* openRegularTask(ctx: WalkContext, dirs: DirCache, path: string): IoTask<{ fd: number; st: Stats } | null> {
  const segments = path.split("/");
  const name = segments.pop()!;
  if (name === "") throw hostError("EISDIR", "the memory directory itself is not a file");
  const dir = yield* dirs.get(ctx, segments);
  if (dir === null) return null;
  if (!ctx.safe && ((yield { op: "lstat", path: at(ctx, dir, name) }) as Stats).isSymbolicLink()) return null;
  let fd: number;
  try {
    fd = (yield { op: "open", path: at(ctx, dir, name), flags: O_RDONLY | O_NONBLOCK | O_NOFOLLOW }) as number;
  } catch (error) {
    if (isCode(error, "ELOOP")) return null;
    throw error;
  }
  try {
    const st = (yield { op: "fstat", fd }) as Stats;
    if (st.isDirectory()) throw hostError("EISDIR", `${path} is a directory`);
    if (!st.isFile()) throw hostError("EINVAL", `${path} is not a regular file`);
    return { fd, st };
  } catch (error) {
    yield* closeQuietly(fd);
    throw error;
  }
}

function* closeQuietly(fd: number): IoTask<void> {
  try {
    yield { op: "close", fd };
  } catch {
    // read only: nothing to lose
  }
}

/** A whole file up to `cap` bytes, into a buffer of its size (plus one byte, to see one that grew). */
export function* readFileTask(ctx: WalkContext, dirs: DirCache, path: string, cap: number): IoTask<Uint8Array> {
  const opened = yield* openRegularTask(ctx, dirs, path);
  if (opened === null) return (yield { op: "await", run: () => ctx.readFileSlowly(path, cap) }) as Uint8Array;
  const { fd, st } = opened;
  try {
    let buffer = new Uint8Array(Math.min(cap, st.size + 1));
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (buffer.length >= cap) break;
        const grown = new Uint8Array(Math.min(cap, Math.max(buffer.length * 2, HEAD_CHUNK_BYTES)));
        grown.set(buffer);
        buffer = grown;
      }
      const bytesRead = (yield { op: "read", fd, buffer, offset: total, length: buffer.length - total, position: total }) as number;
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    return total === buffer.length ? buffer : buffer.slice(0, total);
  } finally {
    yield* closeQuietly(fd);
  }
}

/**
 * Writes `data` to `tmp` (created, never followed), makes it durable unless told not to, and
 * puts it in place under `name`: renamed over it, or linked (failing with `EEXIST` when it
 * exists: an atomic create-if-absent). The temporary file is removed when anything fails.
 */
export function* writeTask(at: (name: string) => string, tmp: string, name: string, data: Uint8Array, options: { exclusive?: boolean; durable?: boolean }): IoTask<void> {
  yield* stageTask(at, tmp, data, options);
  yield* commitTask(at, tmp, name, options);
}

/**
 * The first half of a write: the bytes in the temporary file `tmp`, on the disk (unless
 * `durable: false`); the temporary file is removed if this fails. `identify`: returns the
 * file's own `fstat` (its device and inode), by which a write by plain paths finds it again.
 */
export function* stageTask(at: (name: string) => string, tmp: string, data: Uint8Array, options: { durable?: boolean; identify?: boolean }): IoTask<Stats | undefined> {
  let done = false;
  let identity: Stats | undefined;
  const fd = (yield { op: "open", path: at(tmp), flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW }) as number;
  try {
    try {
      for (let written = 0; written < data.length; ) {
        written += (yield { op: "write", fd, buffer: data, offset: written, length: data.length - written, position: written }) as number;
      }
      // the bytes reach the disk before the name points at them, so a power cut leaves the
      // old file or the new one, never an empty one
      if (options.durable !== false) yield { op: "fsync", fd };
      if (options.identify) identity = (yield { op: "fstat", fd }) as Stats;
    } finally {
      yield { op: "close", fd };
    }
    done = true;
  } finally {
    if (!done) yield* unlinkQuietly(at(tmp));
  }
  return identity;
}

/**
 * The second half: the name pointed at the staged file (`exclusive`: only if nothing has the
 * name, by `link`); the temporary file is removed if this fails.
 */
export function* commitTask(at: (name: string) => string, tmp: string, name: string, options: { exclusive?: boolean }): IoTask<void> {
  let clean = false;
  try {
    if (options.exclusive) {
      yield { op: "link", from: at(tmp), to: at(name) };
      yield { op: "unlink", path: at(tmp) };
    } else {
      yield { op: "rename", from: at(tmp), to: at(name) };
    }
    clean = true;
  } finally {
    // a failed name, or a failed removal of the temporary name after a link: tried once more
    if (!clean) yield* unlinkQuietly(at(tmp));
  }
}

export function* unlinkQuietly(path: string): IoTask<void> {
  try {
    yield { op: "unlink", path };
  } catch {
    // gone already
  }
}

/** Removes a file or link at `path` (`true`); `false` for a folder, which the walker removes. */
export function* removeFileTask(path: string): IoTask<boolean> {
  const st = (yield { op: "lstat", path }) as Stats;
  if (st.isDirectory()) return false;
  yield { op: "unlink", path };
  return true;
}
