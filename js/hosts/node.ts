/// <reference types="node" preserve="true" />
/**
 * The Node file-system host. Every read, write, rename and removal walks the memory directory
 * one component at a time through directory descriptors (`node-dirs.ts`), so nothing can lead
 * it out of the directory, even a folder swapped for a link while it works. Writes are atomic
 * (a temporary file in the same folder, `fsync`, then `rename`), so a crash never leaves half
 * a file. Everything here is plain `node:fs/promises`; the fast paths for large folders
 * (synchronous reads in slices of the shared budget) are `node-fast.ts`, its `fast` group.
 */
import { constants, watch as watchFolder, type FSWatcher } from "node:fs";
import type { Stats } from "node:fs";
import * as fsp from "node:fs/promises";
import { homedir, hostname } from "node:os";
import { join, resolve as resolvePath, sep } from "node:path";
import { tempFileName } from "../core.js";
import { HEAD_READ_BYTES, hostError, type HostEntry, type HostFastPaths, type HostHead, type HostLinks, type HostLocks, type HostTimes, type HostWatcher, type LockOwner, type MemoryHost, type WriteRequest } from "../host.js";
import { gitTimes } from "../git-times.js";
import { DirWalker, escapeError, fileEntry, Filling, isCode, procFdAvailable, resolveInside, type DirHandle, type NodeFs, type OpenDir } from "./node-dirs.js";
import { defaultSyncFs, NodeFast, type FileWrites, type SyncFs } from "./node-fast.js";

/**
 * `bytes` random bytes in hex. `node:crypto` is loaded on the first write, not on import: an
 * ESM import of it reads every export (WebCrypto's loader among them), ~6 ms of a command's start.
 */
const randomHex = (bytes: number): string => process.getBuiltinModule("node:crypto").randomBytes(bytes).toString("hex");

export type { NodeFs } from "./node-dirs.js";
export type { SyncFs } from "./node-fast.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
/** Folders watched at most (one watch a folder); past it, nothing is watched and every scan checks. */
const MAX_WATCHED_FOLDERS = 256;
/** Names one watch hears in a turn of the event loop before it takes the rest as a flood (see `watch`). */
const FLOOD_EVENTS = 256;
/** Entries of one directory stat'ed at once. */
const STAT_BATCH = 64;
/**
 * Files `writeFiles` stages at once: each holds its folder and its temporary file open until it
 * is named (hundreds at once ran out of descriptors where one after another did not).
 */
const WRITES_AT_ONCE = 16;

export interface NodeHostOptions {
  /** The file-system functions to use (tests inject faults here). Default `node:fs/promises`. */
  fs?: NodeFs;
  /**
   * `true` (the default where Linux's `/proc/self/fd` works): every call walks through
   * directory descriptors and cannot leave the directory. `false`: plain paths, with links
   * checked before and the result checked (and undone) after.
   */
  descriptorWalk?: boolean;
  /**
   * The synchronous file functions of the fast paths (`node-fast.ts`: the listing, heads, stats,
   * a file read, a write's own calls); default `node:fs`, or none when `fs` is given without
   * them. `null`: no fast paths (every call through `fs`, as a host of the required members alone).
   */
  rawFs?: SyncFs | null;
  /**
   * How the fast paths read: `"auto"` (the default) synchronously within the process's one
   * budget a turn (`js/slice.ts`) while calls are fast, through `fs` once some turn slow; or
   * always one way.
   */
  io?: "auto" | "sync" | "async";
  /**
   * Ages from git (rules §1.3): where the folder is inside a git work tree, a file whose content
   * equals HEAD's counts as changed when its last commit was, not when it was checked out
   * (`js/git-times.ts`). Default `true` (`false` when `fs` is given: git reads the disk, not it):
   * without it every clone and checkout makes every memory look new; outside a repository, or
   * without git, it costs one look for `.git` and nothing more.
   */
  git?: boolean;
}

export class NodeHost implements MemoryHost {
  readonly root: string;
  /** @internal The promise API every call that is not a fast path goes through. */
  readonly fs: NodeFs;
  /** @internal */
  readonly walkerReady: Promise<DirWalker>;
  readonly links: HostLinks = { resolve: (p) => this.resolve(p), lstat: (p) => this.lstat(p), lookOutside: (l) => this.lookOutside(l) };
  readonly locks: HostLocks = { owner: () => this.lockOwner(), ownerAlive: (o) => this.ownerAlive(o) };
  /** The fast paths (`node-fast.ts`); absent with `rawFs: null`. */
  readonly fast?: HostFastPaths;
  /** Times from git (`NodeHostOptions.git`). */
  readonly times?: HostTimes;
  private readonly fastPaths: NodeFast | null;
  private watched = 0;
  /** A write's own calls through the promises (the fast paths make them synchronously while they can). */
  private readonly promised: FileWrites = {
    create: async (path, data, durable, identify) => {
      const handle = await this.fs.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
      try {
        await handle.writeFile(data);
        if (durable) await handle.sync();
        return identify ? await handle.stat() : undefined;
      } finally {
        await handle.close();
      }
    },
    link: (from, to) => this.fs.link(from, to),
    unlink: (path) => this.fs.unlink(path),
    rename: (from, to) => this.fs.rename(from, to),
  };

  constructor(root: string, options: NodeHostOptions = {}) {
    const absolute = resolvePath(root.replace(/[\\/]+$/, "") || root);
    const fs = options.fs ?? fsp;
    this.root = absolute;
    this.fs = fs;
    const raw = options.rawFs === undefined ? (options.fs ? null : defaultSyncFs) : options.rawFs;
    // the root of a write is opened synchronously where the fast calls are (a write holds it throughout)
    const openNow = raw
      ? async (path: string, flags: number): Promise<DirHandle> => {
          const fd = raw.openSync(path, flags);
          return { fd, close: async () => raw.closeSync(fd) };
        }
      : undefined;
    this.walkerReady = (async () => new DirWalker(fs, absolute, options.descriptorWalk ?? (await procFdAvailable(fs)), openNow))();
    this.fastPaths = raw ? new NodeFast(this, raw, options.io ?? "auto") : null;
    if (this.fastPaths) this.fast = this.fastPaths.group();
    if (options.git ?? !options.fs) this.times = gitTimes(absolute);
  }

  /** Times the fast paths let the event loop through (tests check a long listing does). */
  get yields(): number {
    return this.fastPaths?.yields ?? 0;
  }

  /** @internal Whether `list()` is this instance's own (a subclass's, or one given it): the fast listing then gives it. */
  ownList(): boolean {
    return this.list !== NodeHost.prototype.list;
  }

  /** Whether calls walk through directory descriptors (see `NodeHostOptions.descriptorWalk`). */
  async descriptorWalk(): Promise<boolean> {
    return (await this.walkerReady).safe;
  }

  absolutePath(path: string): string {
    return join(this.root, ...path.split("/"));
  }

  async resolve(path: string): Promise<string | null> {
    // no link at the end or on the way (one synchronous lstat shows it): the path is where it is
    if (path !== "" && (await this.fastPaths?.plainEntry(path)) !== undefined) return path;
    return resolveInside(await this.walkerReady, this.fs, path);
  }

  /** Stats where a link out of the directory leads (for doctor); nothing is read. */
  async lookOutside(link: string): Promise<boolean | null> {
    const target = outsideTarget(this.root, link);
    if (target === null) return null;
    try {
      await this.fs.stat(target);
      return true;
    } catch (error) {
      return isCode(error, "ENOENT", "ENOTDIR") ? false : null;
    }
  }

  async list(): Promise<HostEntry[]> {
    const walker = await this.walkerReady;
    let rootDir: OpenDir;
    try {
      rootDir = await walker.openRoot();
    } catch (error) {
      if (isCode(error, "ENOENT", "ENOTDIR")) return [];
      throw error;
    }
    const entries: HostEntry[] = [];
    const walk = async (dir: OpenDir): Promise<void> => {
      const prefix = dir.segments.length ? `${dir.segments.join("/")}/` : "";
      // stat a directory's entries in parallel batches, then descend in name order. A folder
      // that cannot be read is flagged; the root throws, as a write must never decide on a
      // listing that left out files that are there (MEMORY.md rewritten without its entries)
      const stats: { name: string; st: Stats | null }[] = [];
      try {
        const sorted = (await this.fs.readdir(walker.self(dir))).sort();
        for (let i = 0; i < sorted.length; i += STAT_BATCH) {
          const batch = sorted.slice(i, i + STAT_BATCH).map(async (name) => ({
            name,
            st: await this.fs.lstat(walker.at(dir, name)).catch((error) => (isCode(error, "ENOENT") ? null : Promise.reject(error))), // null: vanished since readdir
          }));
          stats.push(...(await Promise.all(batch)));
        }
      } catch (error) {
        if (isCode(error, "ENOENT")) return; // vanished while listing
        if (dir.segments.length === 0) throw error;
        entries.push({ path: dir.segments.join("/"), kind: "directory", mtimeMs: 0, size: 0, problem: "unreadable" });
        return;
      }
      for (const { name, st } of stats) {
        if (st === null) continue; // vanished between readdir and lstat
        const path = prefix + name;
        if (st.isSymbolicLink()) {
          entries.push(await this.linkEntry(dir, name, path, st));
        } else if (st.isDirectory()) {
          // opened without following a link (one swapped in after the lstat fails)
          const segments = [...dir.segments, name];
          const child = walker.safe ? await this.fs.open(walker.at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW).then((handle) => ({ handle, segments }), () => null) : { handle: null, segments };
          if (child === null) {
            entries.push({ path, kind: "directory", mtimeMs: st.mtimeMs, size: 0, problem: "unreadable" });
            continue;
          }
          entries.push({ path, kind: "directory", mtimeMs: st.mtimeMs, size: 0, ctimeMs: st.ctimeMs, ino: st.ino });
          try {
            await walk(child);
          } finally {
            await walker.close(child);
          }
        } else {
          entries.push(fileEntry(path, st));
        }
      }
    };
    try {
      await walk(rootDir);
    } finally {
      await walker.close(rootDir);
    }
    return entries;
  }

  /**
   * @internal A link is listed as what it leads to when that is inside: a file as a file; a
   * folder as a folder whose files are listed under their real path only (never twice). A link
   * out, or to nothing, is `symlink_escape`.
   */
  async linkEntry(dir: OpenDir, name: string, path: string, st: { mtimeMs: number }): Promise<HostEntry> {
    const walker = await this.walkerReady;
    const escape: HostEntry = { path, kind: "other", mtimeMs: st.mtimeMs, size: 0, problem: "symlink_escape" };
    let real: string[];
    try {
      real = await walker.followLink(dir, name, 0);
    } catch {
      return escape;
    }
    try {
      const { handle, dir: parent } = await walker.openFile(real, O_RDONLY | O_NONBLOCK, undefined, 1);
      try {
        const target = await handle.stat();
        return target.isDirectory() ? { path, kind: "directory", mtimeMs: target.mtimeMs, size: 0 } : fileEntry(path, target);
      } finally {
        await handle.close().catch(() => {}); // read only: nothing to lose, and the folder is closed still
        await walker.close(parent);
      }
    } catch (error) {
      if (isCode(error, "EACCES")) return { path, kind: "file", mtimeMs: st.mtimeMs, size: 0, problem: "unreadable" };
      return escape; // nowhere, or out through a further link
    }
  }

  async stat(path: string): Promise<HostEntry | null> {
    // a file or folder with no link on its way: one synchronous lstat, not an open and fstat
    const plain = await this.fastPaths?.plainEntry(path);
    if (plain !== undefined) return plain;
    const walker = await this.walkerReady;
    try {
      const { handle, dir } = await walker.openFile(path.split("/"), O_RDONLY | O_NONBLOCK);
      try {
        const st = await handle.stat();
        return st.isDirectory() ? { path, kind: "directory", mtimeMs: st.mtimeMs, size: 0 } : fileEntry(path, st);
      } finally {
        await handle.close().catch(() => {}); // as above
        await walker.close(dir);
      }
    } catch (error) {
      if (isCode(error, "ENOENT", "ENOTDIR")) return null;
      if (isCode(error, "UNSAFE_PATH")) {
        // a link out: reported as such when it leads somewhere, as nothing when it is dangling
        const there = await this.fs.stat(this.absolutePath(path)).then(() => true, () => false);
        return there ? { path, kind: "other", mtimeMs: 0, size: 0, problem: "symlink_escape" } : null;
      }
      throw error;
    }
  }

  async lstat(path: string): Promise<HostEntry | null> {
    const walker = await this.walkerReady;
    const segments = path.split("/");
    const name = segments.pop()!;
    const notADir = () => hostError("ENOTDIR", `${path}: a folder on the way is a file`);
    let dir: OpenDir;
    try {
      dir = await walker.openDir(segments);
    } catch (error) {
      if (isCode(error, "ENOENT")) return null;
      throw isCode(error, "ENOTDIR") ? notADir() : error;
    }
    try {
      const st = await this.fs.lstat(walker.at(dir, name));
      const key = { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino };
      if (st.isSymbolicLink()) return { path, kind: "other", size: 0, ...key, problem: "symlink" };
      return st.isDirectory() ? { path, kind: "directory", size: 0, ...key } : fileEntry(path, st);
    } catch (error) {
      if (isCode(error, "ENOENT")) return null;
      throw isCode(error, "ENOTDIR") ? notADir() : error;
    } finally {
      await walker.close(dir);
    }
  }

  /** This process: `os.hostname()`, `process.pid`, and on Linux the boot id and pid namespace. */
  async lockOwner(): Promise<LockOwner> {
    return { host: hostname(), pid: process.pid, ...(await machine()) };
  }

  /**
   * `kill(pid, 0)` on this machine (same host name and pid namespace): `false` when the pid is
   * gone or from an earlier boot; `null` for another machine or namespace, which only time can judge.
   */
  async ownerAlive(owner: LockOwner): Promise<boolean | null> {
    const here = await machine();
    if (owner.host !== hostname()) return null;
    if (here.boot && owner.boot && owner.boot !== here.boot) return false; // the machine rebooted since
    if ((owner.pidns ?? null) !== here.pidns) return null;
    if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0) return null; // 0 and -1 would signal groups
    try {
      process.kill(owner.pid, 0);
      return true;
    } catch (error) {
      if (isCode(error, "ESRCH")) return false;
      return isCode(error, "EPERM") ? true : null; // EPERM: alive, another user's
    }
  }

  /** @internal A head through the walker (the fast paths' way past a link), and the file as it was opened. */
  async head(path: string, maxLines: number): Promise<HostHead> {
    return this.readRegular(path, HEAD_READ_BYTES, maxLines);
  }

  async readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
    const cap = maxBytes ?? Number.POSITIVE_INFINITY;
    return (await this.fastPaths?.readFile(path, cap)) ?? (await this.readRegular(path, cap)).bytes;
  }

  /** A regular file through the walker, up to `cap` bytes (or `maxLines` lines). */
  private async readRegular(path: string, cap: number, maxLines?: number): Promise<HostHead> {
    const { handle, stats, close } = await (await this.walkerReady).openRegular(path);
    try {
      const r = new Filling(stats.size, cap, maxLines);
      while (r.room() && r.got((await handle.read(r.buffer, r.total, r.buffer.length - r.total, r.total)).bytesRead));
      return { bytes: r.bytes(), entry: fileEntry(path, stats) };
    } finally {
      await close();
    }
  }

  /**
   * Watches one folder (`fs.watch`, which does not keep the process alive). `null` past
   * {@link MAX_WATCHED_FOLDERS} or where the platform cannot watch. A flood — more than
   * {@link FLOOD_EVENTS} names in one turn of the event loop (every file touched at once: the
   * kernel queues 16,384, each a call into JavaScript, ~10 ms held) — is not heard name by name:
   * the watch is closed, opened again on the next turn, and says `null` (it cannot say what changed).
   */
  watch(dir: string, onChange: (name: string | null) => void): HostWatcher | null {
    if (this.watched >= MAX_WATCHED_FOLDERS) return null;
    const path = this.absolutePath(dir);
    let watcher: FSWatcher | null = null;
    let open = true;
    let heard = 0;
    const start = (): boolean => {
      try {
        const w = watchFolder(path, { persistent: false }, (_event, name) => {
          if (++heard === 1) setImmediate(() => (heard = 0));
          if (heard <= FLOOD_EVENTS) return onChange(typeof name === "string" ? name : null);
          if (watcher !== w) return;
          w.close();
          watcher = null;
          setImmediate(() => {
            if (open) start();
            onChange(null);
          });
        });
        w.on("error", () => onChange(null));
        watcher = w;
        return true;
      } catch {
        return false;
      }
    };
    if (!start()) return null;
    this.watched++;
    return {
      close: () => {
        if (!open) return;
        open = false;
        this.watched--;
        watcher?.close();
      },
    };
  }

  /** Runs `fn` with the root kept open: the calls of one write share its descriptor. */
  async hold<T>(fn: () => Promise<T>): Promise<T> {
    return (await this.walkerReady).hold(fn);
  }

  async writeFile(path: string, data: Uint8Array, options: { exclusive?: boolean; durable?: boolean; mtimeMs?: number } = {}): Promise<void> {
    const walker = await this.walkerReady;
    const segments = path.split("/");
    const name = segments.pop()!;
    const dir = await walker.openDir(segments, { create: true });
    const tmp = tempFileName(name, randomHex(6));
    try {
      let staged = await this.stage(walker, dir, tmp, data, { durable: options.durable, identify: !walker.safe });
      // the time is set on the staged file (never followed: lutimes), before any name points at it
      if (options.mtimeMs !== undefined && Number.isFinite(options.mtimeMs) && this.fs.lutimes) {
        const set = await this.fs.lutimes(walker.at(dir, tmp), Date.now() / 1000, options.mtimeMs / 1000).then(() => true, () => false);
        // by plain paths, the file is found again after its rename by its size and time: the new time
        if (set && staged) staged = await this.fs.lstat(walker.at(dir, tmp)).catch(() => staged);
      }
      await this.name(walker, dir, path, tmp, name, staged, options);
    } finally {
      await walker.close(dir);
    }
  }

  /**
   * `data` in the new temporary file `tmp` in `dir` (created, never followed), on the disk
   * unless `durable: false` — so a power cut leaves the old file or the new one, never an empty
   * one. `identify`: returns the file's own `fstat`, by which {@link name} finds it again by
   * plain paths. The temporary file is removed if this fails.
   */
  private async stage(walker: DirWalker, dir: OpenDir, tmp: string, data: Uint8Array, options: { durable?: boolean; identify?: boolean }): Promise<Stats | undefined> {
    try {
      return await (this.fastPaths?.writes() ?? this.promised).create(walker.at(dir, tmp), data, options.durable !== false, options.identify === true);
    } catch (error) {
      await this.fs.rm(walker.at(dir, tmp), { force: true }).catch(() => {});
      throw error;
    }
  }

  /**
   * Names the staged `tmp` as `name` in `dir`: renamed over it, or linked when `exclusive`
   * (`link` fails with `EEXIST` if the target exists: an atomic create-if-absent); the
   * temporary file is removed if this fails.
   *
   * Descriptor walk: the folder is the very one checked; if it was moved out meanwhile, the
   * file is taken back out of it (`UNSAFE_PATH`). Plain paths (`descriptorWalk: false`, where no
   * descriptor can hold a folder while its file is named), nothing outside is ever replaced or
   * removed:
   *
   * - right before the name is given, the folder's real path must still be inside the root: a
   *   folder swapped for a link out since the walk checked it (the moment the write staged its
   *   bytes) is caught here, the temporary file removed, and the write fails with `UNSAFE_PATH`;
   * - right after, the folder's real path is checked again and the file under the name must be
   *   the one staged (same device, and same inode, or where the inode says nothing the same size
   *   and time). If not, `UNSAFE_PATH`, and nothing is removed: the file is wherever the rename
   *   put it, and a removal by a path that may lead out again is how the undo of an escaped
   *   write deleted the file outside it had replaced.
   *
   * What paths cannot close: a folder swapped in the one call between the first check and the
   * rename can still take the rename out (the check after it then reports it, and removes
   * nothing). The descriptor walk (Linux) has no such window. Files in the root itself are not
   * checked: only a folder below it can be swapped from within the memory directory.
   */
  private async name(walker: DirWalker, dir: OpenDir, path: string, tmp: string, name: string, staged: Stats | undefined, options: { exclusive?: boolean }): Promise<void> {
    const at = (n: string) => walker.at(dir, n);
    const dropTemp = () => this.fs.rm(at(tmp), { force: true }).catch(() => {});
    const calls = this.fastPaths?.writes() ?? this.promised;
    const byPath = !walker.safe && dir.segments.length > 0;
    try {
      if (byPath && !(await walker.stillInside(dir))) throw escapeError(path);
      if (options.exclusive) {
        await calls.link(at(tmp), at(name));
        await calls.unlink(at(tmp));
      } else {
        await calls.rename(at(tmp), at(name));
      }
    } catch (error) {
      await dropTemp();
      throw error;
    }
    if (walker.safe) {
      if (await walker.stillInside(dir, name)) return;
      // the folder was moved out while we wrote: take the file back out of it
      await calls.unlink(at(name)).catch(() => {});
      throw escapeError(path);
    }
    // "could not tell" (a failed realpath or lstat) is thrown as it is: the file was named
    if (byPath && (!(await walker.stillInside(dir)) || !(await this.isStaged(at(name), staged!)))) throw escapeError(path);
  }

  /** Whether the file at `path` (by plain path, not followed) is the one staged as `staged`. */
  private async isStaged(path: string, staged: Stats): Promise<boolean> {
    let st: Stats;
    try {
      st = await this.fs.lstat(path);
    } catch (error) {
      if (isCode(error, "ENOENT", "ENOTDIR")) return false;
      throw error;
    }
    if (!st.isFile() || st.dev !== staged.dev) return false;
    // an inode, where the file system keeps one across a rename (FAT on Windows may not: its
    // size and time then say it, as they do where there is no inode)
    return (st.ino !== 0 && st.ino === staged.ino) || (st.size === staged.size && st.mtimeMs === staged.mtimeMs);
  }

  /**
   * Several files, their bytes staged in temporary files and flushed at once (two `fsync`s in
   * flight overlap on the thread pool: `remember`'s memory and index cost one flush's wait),
   * then named in order; a long list (doctor's fixes) in groups of {@link WRITES_AT_ONCE}.
   * The `fast` group's `writeFiles`.
   */
  async writeFiles(files: WriteRequest[]): Promise<void> {
    for (let i = 0; i < files.length; i += WRITES_AT_ONCE) await this.writeGroup(files.slice(i, i + WRITES_AT_ONCE));
  }

  /** One group of {@link writeFiles}: every file staged and flushed, then each named. */
  private async writeGroup(files: WriteRequest[]): Promise<void> {
    const walker = await this.walkerReady;
    const staged: { file: WriteRequest; dir: OpenDir; name: string; tmp: string }[] = [];
    const discard = async (from: number) => {
      for (const s of staged.slice(from)) await this.fs.rm(walker.at(s.dir, s.tmp), { force: true }).catch(() => {});
    };
    try {
      for (const file of files) {
        const segments = file.path.split("/");
        const name = segments.pop()!;
        const dir = await walker.openDir(segments, { create: true }).catch((error) => Promise.reject(withWritePath(error, file.path)));
        staged.push({ file, dir, name, tmp: tempFileName(name, randomHex(6)) });
      }
      const flushed = await Promise.allSettled(staged.map((s) => this.stage(walker, s.dir, s.tmp, s.file.data, { identify: !walker.safe })));
      const failed = flushed.findIndex((r) => r.status === "rejected");
      if (failed >= 0) {
        // nothing is named yet: the staged files go (a failed one removed its own), and nothing was written
        await discard(0);
        throw withWritePath((flushed[failed] as PromiseRejectedResult).reason, staged[failed]!.file.path);
      }
      let at = 0;
      try {
        for (; at < staged.length; at++) {
          const s = staged[at]!;
          await this.name(walker, s.dir, s.file.path, s.tmp, s.name, (flushed[at] as PromiseFulfilledResult<Stats | undefined>).value, { exclusive: s.file.exclusive });
        }
      } catch (error) {
        // the files after the one that failed are not named: their staged bytes go
        await discard(at + 1);
        throw withWritePath(error, staged[at]!.file.path);
      }
    } finally {
      for (const s of staged) await walker.close(s.dir);
    }
  }

  async remove(path: string): Promise<void> {
    const walker = await this.walkerReady;
    const segments = path.split("/");
    const name = segments.pop()!;
    const dir = await walker.openDir(segments);
    try {
      // by plain paths, the folder must still be inside right before the removal (see `name`)
      if (!walker.safe && dir.segments.length > 0 && !(await walker.stillInside(dir))) throw escapeError(path);
      await walker.removeIn(dir, name);
    } finally {
      await walker.close(dir);
    }
  }

  async rename(from: string, to: string): Promise<void> {
    const walker = await this.walkerReady;
    const fromSegments = from.split("/");
    const fromName = fromSegments.pop()!;
    const toSegments = to.split("/");
    const toName = toSegments.pop()!;
    const source = await walker.openDir(fromSegments);
    try {
      await this.fs.lstat(walker.at(source, fromName));
      const target = await walker.openDir(toSegments, { create: true });
      try {
        // checked, then renamed (POSIX rename would replace the destination); the write lock
        // keeps other memdir writers out between the two
        if ((await this.fs.lstat(walker.at(target, toName)).catch(() => null)) !== null) throw hostError("EEXIST", `${to} already exists`);
        if (!walker.safe) {
          // by plain paths, both folders must still be inside right before the rename (see `name`)
          if (source.segments.length > 0 && !(await walker.stillInside(source))) throw escapeError(from);
          if (target.segments.length > 0 && !(await walker.stillInside(target))) throw escapeError(to);
        }
        await this.fs.rename(walker.at(source, fromName), walker.at(target, toName));
        if (!(await walker.stillInside(target, toName))) {
          // put back; by plain paths with a link, which replaces nothing (the source may lead elsewhere by now)
          if (walker.safe) await this.fs.rename(walker.at(target, toName), walker.at(source, fromName)).catch(() => {});
          else await this.fs.link(walker.at(target, toName), walker.at(source, fromName)).then(() => this.fs.unlink(walker.at(target, toName))).catch(() => {});
          throw escapeError(to);
        }
      } finally {
        await walker.close(target);
      }
    } finally {
      await walker.close(source);
    }
  }
}

let machineInfo: Promise<{ boot: string | null; pidns: string | null }> | undefined;

/** The boot id and pid namespace where the OS has them (Linux), read once. */
function machine(): Promise<{ boot: string | null; pidns: string | null }> {
  machineInfo ??= Promise.all([
    fsp.readFile("/proc/sys/kernel/random/boot_id", "utf8").then((s) => s.trim() || null, () => null),
    fsp.readlink("/proc/self/ns/pid").then((s) => s || null, () => null),
  ]).then(([boot, pidns]) => ({ boot, pidns }));
  return machineInfo;
}

/**
 * Where a link out of the memory directory leads, seen from `root`: `~/…` is in the home folder
 * (Claude Code writes `~/.claude/plans/…`), anything else is resolved from `root`. `null` when
 * this machine cannot look: another user's home (`~name/…`), or a Windows path on POSIX.
 */
function outsideTarget(root: string, link: string): string | null {
  if (link === "~" || link.startsWith("~/") || (sep === "\\" && link.startsWith("~\\"))) return join(homedir(), link.slice(1));
  if (link.startsWith("~")) return null;
  if (sep === "/" && /^([A-Za-z]:[\\/]|\\\\)/.test(link)) return null;
  return resolvePath(root, link);
}

/** `error` (an `Error`, or one made of it) with `writePath`: the file of a batch it met. */
function withWritePath(error: unknown, path: string): Error {
  const e = error instanceof Error ? error : new Error(String(error));
  Object.defineProperty(e, "writePath", { value: path, configurable: true });
  return e;
}
