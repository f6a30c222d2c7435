/**
 * The Node file-system host. Every read, write, rename and removal walks the memory directory
 * one component at a time through directory descriptors (`node-dirs.ts`), so nothing can lead
 * it out of the directory, even a folder swapped for a link while it works. Writes are atomic
 * (a temporary file in the same folder, `fsync`, then `rename`), so a crash never leaves half
 * a file. Headers are read without reading whole files.
 */
import { constants, watch as watchFolder } from "node:fs";
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import * as fsp from "node:fs/promises";
import { homedir, hostname } from "node:os";
import { join, resolve as resolvePath, sep } from "node:path";
import { tempFileName } from "../core.js";
import { hostError, type HostEntry, type HostError, type HostHead, type HostWatcher, type LockOwner, type MemoryHost, type WriteRequest } from "../host.js";
import { DirWalker, escapeError, isCode, procFdAvailable, resolveInside, type DirHandle, type NodeFs, type OpenDir } from "./node-dirs.js";
import { Listing, ListingBuilder } from "../listing.js";
import { defaultRawFs, IoDriver, type RawFs, type StatLike } from "./node-io.js";
import { closeDir, commitTask, DirCache, headTask, utf8Boundary, listTask, openRoot, openRootForListing, readFileTask, removeFileTask, stageTask, statTask, unlinkQuietly, writeTask, type WalkContext, type WalkDir } from "./node-scan.js";

/**
 * `bytes` random bytes in hex. `node:crypto` is loaded on the first write, not on import: an
 * ESM import of it reads every export (WebCrypto's loader among them), ~6 ms of a command's start.
 */
const randomHex = (bytes: number): string => process.getBuiltinModule("node:crypto").randomBytes(bytes).toString("hex");

export type { NodeFs } from "./node-dirs.js";
export type { RawFs } from "./node-io.js";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
const HEAD_CHUNK_BYTES = 4096;
/** Folders watched at most (one watch a folder); past it, nothing is watched and every scan checks. */
const MAX_WATCHED_FOLDERS = 256;
/** Entries of one directory stat'ed at once. */
const STAT_BATCH = 64;
/** A header longer than this is cut: the core reads 30 lines, and a line can be huge. */
const MAX_HEAD_BYTES = 1 << 20;

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
   * The synchronous and callback file functions of the fast reads (listing, heads); default
   * `node:fs`, or none when `fs` is given without them (every call then goes through `fs`).
   */
  rawFs?: RawFs | null;
  /**
   * How the fast reads run: `"auto"` (the default) synchronously in slices of a few
   * milliseconds while calls are fast, on the thread pool once one is slow; or always one way.
   */
  io?: "auto" | "sync" | "async";
}

export class NodeHost implements MemoryHost {
  readonly root: string;
  private readonly fs: NodeFs;
  private readonly walkerReady: Promise<DirWalker>;
  /** Runs the fast reads; `null` when only `fs` was given. */
  private readonly driver: IoDriver | null;
  private watched = 0;

  constructor(root: string, options: NodeHostOptions = {}) {
    const absolute = resolvePath(root.replace(/[\\/]+$/, "") || root);
    const fs = options.fs ?? fsp;
    this.root = absolute;
    this.fs = fs;
    const raw = options.rawFs === undefined ? (options.fs ? null : defaultRawFs) : options.rawFs;
    // the root of a write is opened synchronously where the fast calls are (a write holds it throughout)
    const openNow = raw
      ? (path: string, flags: number): DirHandle => {
          const fd = raw.openSync(path, flags);
          return { fd, close: async () => raw.closeSync(fd) };
        }
      : undefined;
    this.walkerReady = (async () => new DirWalker(fs, absolute, options.descriptorWalk ?? (await procFdAvailable(fs)), openNow))();
    this.driver = raw ? new IoDriver(raw, options.io ?? "auto") : null;
  }

  /** Times a fast read let the event loop through (tests check a long listing does). */
  get yields(): number {
    return this.driver?.yields ?? 0;
  }

  /** What the fast reads need from this host. */
  private async walkContext(): Promise<WalkContext> {
    const walker = await this.walkerReady;
    return {
      root: this.root,
      safe: walker.safe,
      linkEntry: (dir, name, path, st) => this.linkEntry(walker, asOpenDir(dir), name, path, st),
      readHeadSlowly: (path, maxLines) => this.readHeadSlowly(path, maxLines),
      readFileSlowly: (path, cap) => this.readFileSlowly(path, cap),
    };
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
    if (path !== "") {
      const plain = await this.plainEntry(path);
      if (plain !== undefined) return path;
    }
    return resolveInside(await this.walkerReady, this.fs, path);
  }

  /**
   * The entry at `path` through the fast reads when nothing on its way is a link (what the
   * walker would find too): a file or folder, or `null` when nothing is there. `undefined`
   * when the slower path must say (a link, anything else, a failure, or no fast reads).
   */
  private async plainEntry(path: string): Promise<HostEntry | null | undefined> {
    if (!this.driver) return undefined;
    let got: HostEntry | null | HostError | undefined;
    try {
      [got] = await this.statMany([path]);
    } catch {
      return undefined;
    }
    if (got === null) return null;
    if (got === undefined || got instanceof Error || got.problem || (got.kind !== "file" && got.kind !== "directory")) return undefined;
    return got;
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

  /**
   * Every entry below the root, in columns: what an opened memory keeps between turns (see
   * `js/listing.ts`). A subclass or an instance that gives its own `list()` (to filter it, say)
   * gets that list here, in columns.
   */
  async listing(): Promise<Listing> {
    if (!this.driver || this.list !== NodeHost.prototype.list) return Listing.fromEntries(await this.list());
    return this.columns();
  }

  /**
   * `list()` with each entry's kind as the folder gives it, no `lstat` an entry: times and sizes
   * are 0 (see `MemoryHost.listKinds`). A subclass or an instance with its own `list()` gets it.
   */
  async listKinds(): Promise<HostEntry[]> {
    if (!this.driver || this.list !== NodeHost.prototype.list) return this.list();
    return (await this.columns(true)).toEntries();
  }

  /** The listing through the fast reads (which the host must have); `kindsOnly`: see {@link listKinds}. */
  private async columns(kindsOnly = false): Promise<Listing> {
    const driver = this.driver!;
    const ctx = await this.walkContext();
    let root: WalkDir;
    try {
      root = await driver.run(openRootForListing(ctx));
    } catch (error) {
      if (isCode(error, "ENOENT", "ENOTDIR")) return new ListingBuilder(0).finish();
      throw error;
    }
    try {
      return (await driver.run(listTask(ctx, root, undefined, kindsOnly))).finish();
    } finally {
      await driver.run(closeDir(root));
    }
  }

  async list(): Promise<HostEntry[]> {
    if (this.driver) return (await this.columns()).toEntries();
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
          entries.push(await this.linkEntry(walker, dir, name, path, st));
        } else if (st.isDirectory()) {
          const child = await this.openChild(walker, dir, name);
          if (child === null) {
            entries.push({ path, kind: "directory", mtimeMs: st.mtimeMs, size: 0, problem: "unreadable" });
            continue;
          }
          entries.push({ path, kind: "directory", mtimeMs: st.mtimeMs, size: 0 });
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

  /** A sub-folder opened without following a link (one swapped in after the `lstat` fails). */
  private async openChild(walker: DirWalker, dir: OpenDir, name: string): Promise<OpenDir | null> {
    const segments = [...dir.segments, name];
    if (!walker.safe) return { handle: null, segments };
    try {
      return { handle: await this.fs.open(walker.at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW), segments };
    } catch {
      return null;
    }
  }

  /**
   * A link is listed as what it leads to when that is inside: a file as a file; a folder as a
   * folder whose files are listed under their real path only (never twice). A link out, or
   * to nothing, is `symlink_escape`.
   */
  private async linkEntry(walker: DirWalker, dir: OpenDir, name: string, path: string, st: StatLike): Promise<HostEntry> {
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
    const plain = await this.plainEntry(path);
    if (plain === null) return null;
    if (plain) return plain.kind === "directory" ? { path, kind: "directory", mtimeMs: plain.mtimeMs, size: 0 } : plain;
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
    let dir: OpenDir;
    try {
      dir = await walker.openDir(segments);
    } catch (error) {
      if (isCode(error, "ENOENT")) return null;
      if (isCode(error, "ENOTDIR")) throw hostError("ENOTDIR", `${path}: a folder on the way is a file`);
      throw error;
    }
    try {
      const st = await this.fs.lstat(walker.at(dir, name));
      if (st.isSymbolicLink()) return { path, kind: "other", mtimeMs: st.mtimeMs, size: 0, problem: "symlink" };
      return st.isDirectory() ? { path, kind: "directory", mtimeMs: st.mtimeMs, size: 0 } : fileEntry(path, st);
    } catch (error) {
      if (isCode(error, "ENOENT")) return null;
      if (isCode(error, "ENOTDIR")) throw hostError("ENOTDIR", `${path}: a folder on the way is a file`);
      throw error;
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

  async readHead(path: string, maxLines: number): Promise<Uint8Array> {
    if (!this.driver) return (await this.readHeadSlowly(path, maxLines)).bytes;
    const [head] = await this.readHeads([path], maxLines);
    if (head instanceof Error) throw head;
    return head!.bytes;
  }

  async readHeads(paths: string[], maxLines: number): Promise<(HostHead | HostError)[]> {
    if (!this.driver) {
      return Promise.all(paths.map((p) => this.readHeadSlowly(p, maxLines).catch((error: HostError) => error)));
    }
    const driver = this.driver;
    return this.withDirs((ctx, dirs) => driver.runAll(paths.map((path) => () => headTask(ctx, dirs, path, maxLines))) as Promise<(HostHead | HostError)[]>);
  }

  async statMany(paths: string[]): Promise<(HostEntry | null | HostError)[]> {
    if (!this.driver) return Promise.all(paths.map((p) => this.lstat(p).catch((error: HostError) => error)));
    const driver = this.driver;
    // one batch a folder: most paths are in the root
    const folders = new Map<string, number[]>();
    paths.forEach((p, i) => {
      const folder = p.slice(0, Math.max(0, p.lastIndexOf("/")));
      const list = folders.get(folder);
      if (list) list.push(i);
      else folders.set(folder, [i]);
    });
    const out: (HostEntry | null | HostError)[] = new Array(paths.length);
    await this.withDirs(async (ctx, dirs) => {
      for (const [folder, at] of folders) {
        const segments = folder === "" ? [] : folder.split("/");
        // through the folder's plain path where it leads there: a cache's check reads nothing by it
        const got = await driver.run(statTask(ctx, dirs, segments, at.map((i) => paths[i]!), true));
        at.forEach((i, k) => (out[i] = got[k] as HostEntry | null | HostError));
      }
    });
    return out;
  }

  /** Runs `fn` with the root open and a cache of the folders it opens, all closed after. */
  private async withDirs<T>(fn: (ctx: WalkContext, dirs: DirCache) => Promise<T>): Promise<T> {
    const driver = this.driver!;
    const ctx = await this.walkContext();
    const root = await driver.run(openRoot(ctx));
    const dirs = new DirCache(root);
    try {
      return await fn(ctx, dirs);
    } finally {
      await driver.run(dirs.close());
      await driver.run(closeDir(root));
    }
  }

  /**
   * Watches one folder (`fs.watch`, which does not keep the process alive). `null` past
   * {@link MAX_WATCHED_FOLDERS} or where the platform cannot watch.
   */
  watch(dir: string, onChange: (name: string | null) => void): HostWatcher | null {
    if (this.watched >= MAX_WATCHED_FOLDERS) return null;
    try {
      const watcher = watchFolder(this.absolutePath(dir), { persistent: false }, (_event, name) => onChange(typeof name === "string" ? name : null));
      watcher.on("error", () => onChange(null));
      this.watched++;
      let open = true;
      return {
        close: () => {
          if (!open) return;
          open = false;
          this.watched--;
          watcher.close();
        },
      };
    } catch {
      return null;
    }
  }

  /** A head through the promise API and the walker (a link on the way, or no fast reads). */
  private async readHeadSlowly(path: string, maxLines: number): Promise<HostHead> {
    const { handle, stats, close } = await (await this.walkerReady).openRegular(path);
    try {
      const chunks: Uint8Array[] = [];
      let total = 0;
      let lines = 0;
      while (total < MAX_HEAD_BYTES) {
        const buffer = new Uint8Array(HEAD_CHUNK_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        chunks.push(chunk);
        total += bytesRead;
        for (const b of chunk) if (b === 10) lines++;
        if (lines >= maxLines) break;
      }
      const bytes = concat(chunks, total);
      return { bytes: total < stats.size ? bytes.subarray(0, utf8Boundary(bytes, total)) : bytes, entry: fileEntry(path, stats) };
    } finally {
      await close();
    }
  }

  async readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
    if (this.driver) {
      const driver = this.driver;
      return this.withDirs((ctx, dirs) => driver.run(readFileTask(ctx, dirs, path, maxBytes ?? Number.POSITIVE_INFINITY)));
    }
    return this.readFileSlowly(path, maxBytes ?? Number.POSITIVE_INFINITY);
  }

  /** A file through the promise API and the walker (a link on the way, or no fast reads). */
  private async readFileSlowly(path: string, cap: number): Promise<Uint8Array> {
    const { handle, stats, close } = await (await this.walkerReady).openRegular(path);
    try {
      // sized from fstat (plus one byte, to see a file that grew); never a cap-sized buffer
      let buffer = new Uint8Array(Math.min(cap, stats.size + 1));
      let total = 0;
      for (;;) {
        if (total === buffer.length) {
          if (buffer.length >= cap) break;
          const grown = new Uint8Array(Math.min(cap, Math.max(buffer.length * 2, 4096)));
          grown.set(buffer);
          buffer = grown;
        }
        const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
        if (bytesRead === 0) break;
        total += bytesRead;
      }
      return total === buffer.length ? buffer : buffer.slice(0, total);
    } finally {
      await close();
    }
  }

  /** Runs `fn` with the root kept open: the calls of one write share its descriptor. */
  async hold<T>(fn: () => Promise<T>): Promise<T> {
    return (await this.walkerReady).hold(fn);
  }

  async writeFile(path: string, data: Uint8Array, options: { exclusive?: boolean; durable?: boolean } = {}): Promise<void> {
    const walker = await this.walkerReady;
    const segments = path.split("/");
    const name = segments.pop()!;
    const dir = await walker.openDir(segments, { create: true });
    const tmp = tempFileName(name, randomHex(6));
    if (!walker.safe) {
      try {
        const staged = await this.stageByPath(walker, dir, tmp, data, options);
        await this.nameByPath(walker, dir, path, tmp, name, staged, options);
      } finally {
        await walker.close(dir);
      }
      return;
    }
    if (this.driver) {
      try {
        await this.driver.run(writeTask((n) => walker.at(dir, n), tmp, name, data, options));
        if (!(await this.stillInside(walker, dir, name))) {
          await this.driver.run(unlinkQuietly(walker.at(dir, name)));
          throw escapeError(path);
        }
      } finally {
        await walker.close(dir);
      }
      return;
    }
    try {
      // the bytes reach the disk before the name points at them, so a power cut leaves the
      // old file or the new one, never an empty one
      const handle = await this.fs.open(walker.at(dir, tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
      try {
        await handle.writeFile(data);
        if (options.durable !== false) await handle.sync();
      } finally {
        await handle.close();
      }
      if (options.exclusive) {
        // link() fails with EEXIST if the target exists: an atomic create-if-absent
        await this.fs.link(walker.at(dir, tmp), walker.at(dir, name));
        await this.fs.unlink(walker.at(dir, tmp));
      } else {
        await this.fs.rename(walker.at(dir, tmp), walker.at(dir, name));
      }
      if (!(await walker.stillInside(dir, name))) {
        // the folder was moved out while we wrote: take the file back out of it
        await this.fs.unlink(walker.at(dir, name)).catch(() => {});
        throw escapeError(path);
      }
    } catch (error) {
      await this.fs.rm(walker.at(dir, tmp), { force: true }).catch(() => {});
      throw error;
    } finally {
      await walker.close(dir);
    }
  }

  /**
   * Plain paths (`descriptorWalk: false`): `data` in the new temporary file `tmp` in `dir`, on
   * the disk unless `durable: false`; its own `fstat`, by which {@link nameByPath} finds it
   * again. The temporary file is removed if this fails.
   */
  private async stageByPath(walker: DirWalker, dir: OpenDir, tmp: string, data: Uint8Array, options: { durable?: boolean }): Promise<Stats> {
    const at = (n: string) => walker.at(dir, n);
    if (this.driver) return (await this.driver.run(stageTask(at, tmp, data, { durable: options.durable, identify: true })))!;
    try {
      const handle = await this.fs.open(at(tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666);
      try {
        await handle.writeFile(data);
        if (options.durable !== false) await handle.sync();
        return await handle.stat();
      } finally {
        await handle.close();
      }
    } catch (error) {
      await this.fs.rm(at(tmp), { force: true }).catch(() => {});
      throw error;
    }
  }

  /**
   * Plain paths (`descriptorWalk: false`, where no descriptor can hold a folder while its file
   * is named): names the staged `tmp` as `name` in `dir` (renamed over it, or linked when
   * `exclusive`), and never replaces or removes anything outside the memory directory:
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
  private async nameByPath(walker: DirWalker, dir: OpenDir, path: string, tmp: string, name: string, staged: Stats, options: { exclusive?: boolean }): Promise<void> {
    const at = (n: string) => walker.at(dir, n);
    const dropTemp = async () => {
      if (this.driver) await this.driver.run(unlinkQuietly(at(tmp)));
      else await this.fs.rm(at(tmp), { force: true }).catch(() => {});
    };
    const below = dir.segments.length > 0;
    let inside = true;
    try {
      if (below) inside = await walker.stillInside(dir);
    } catch (error) {
      await dropTemp();
      throw error;
    }
    if (!inside) {
      await dropTemp();
      throw escapeError(path);
    }
    if (this.driver) await this.driver.run(commitTask(at, tmp, name, options));
    else {
      try {
        if (options.exclusive) {
          // link() fails with EEXIST if the target exists: an atomic create-if-absent
          await this.fs.link(at(tmp), at(name));
          await this.fs.unlink(at(tmp));
        } else {
          await this.fs.rename(at(tmp), at(name));
        }
      } catch (error) {
        await dropTemp();
        throw error;
      }
    }
    if (!below) return;
    // "could not tell" (a failed realpath or lstat) is thrown as it is: the file was named
    if (!(await walker.stillInside(dir)) || !(await this.isStaged(at(name), staged))) throw escapeError(path);
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
   * Without the fast reads, one `writeFile` after another.
   */
  async writeFiles(files: WriteRequest[]): Promise<void> {
    const driver = this.driver;
    if (!driver || files.length < 2) {
      for (const f of files) {
        try {
          await this.writeFile(f.path, f.data, { exclusive: f.exclusive });
        } catch (error) {
          throw withWritePath(error, f.path);
        }
      }
      return;
    }
    for (let i = 0; i < files.length; i += WRITES_AT_ONCE) await this.writeGroup(driver, files.slice(i, i + WRITES_AT_ONCE));
  }

  /** One group of {@link writeFiles}: every file staged and flushed, then each named. */
  private async writeGroup(driver: IoDriver, files: WriteRequest[]): Promise<void> {
    const walker = await this.walkerReady;
    const staged: { file: WriteRequest; dir: OpenDir; name: string; tmp: string; at: (name: string) => string }[] = [];
    const discard = async (from: number) => {
      for (const s of staged.slice(from)) await driver.run(unlinkQuietly(s.at(s.tmp)));
    };
    try {
      for (const file of files) {
        const segments = file.path.split("/");
        const name = segments.pop()!;
        let dir: OpenDir;
        try {
          dir = await walker.openDir(segments, { create: true });
        } catch (error) {
          throw withWritePath(error, file.path);
        }
        staged.push({ file, dir, name, tmp: tempFileName(name, randomHex(6)), at: (n) => walker.at(dir, n) });
      }
      // by plain paths, each with its own fstat: named, it is found again by it (see nameByPath)
      const byPath = !walker.safe;
      const flushed = await Promise.allSettled(staged.map((s) => driver.run(stageTask(s.at, s.tmp, s.file.data, { identify: byPath }))));
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
          if (byPath) {
            const identity = (flushed[at] as PromiseFulfilledResult<Stats | undefined>).value!;
            await this.nameByPath(walker, s.dir, s.file.path, s.tmp, s.name, identity, { exclusive: s.file.exclusive });
            continue;
          }
          await driver.run(commitTask(s.at, s.tmp, s.name, { exclusive: s.file.exclusive }));
          if (!(await this.stillInside(walker, s.dir, s.name))) {
            // the folder was moved out while we wrote: take the file back out of it
            await driver.run(unlinkQuietly(s.at(s.name)));
            throw escapeError(s.file.path);
          }
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

  /** `walker.stillInside`, with the two `readlink`s of the descriptor walk made synchronously. */
  private async stillInside(walker: DirWalker, dir: OpenDir, name: string): Promise<boolean> {
    if (!dir.handle || !this.driver) return walker.stillInside(dir, name);
    // written through the root's own descriptor: the file is in the root wherever it now is
    // (the check below would compare that descriptor's path with itself)
    if (dir.shared && dir.segments.length === 0) return true;
    const root = await walker.openRoot();
    try {
      const [realRoot, here] = await this.driver.run(
        (function* () {
          const a = (yield { op: "readlink", path: `/proc/self/fd/${root.handle!.fd}` }) as string;
          const b = (yield { op: "readlink", path: `/proc/self/fd/${dir.handle!.fd}` }) as string;
          return [a, b] as const;
        })(),
      );
      return here === realRoot || here.startsWith(realRoot + sep);
    } finally {
      await walker.close(root);
    }
  }

  async remove(path: string): Promise<void> {
    const walker = await this.walkerReady;
    const segments = path.split("/");
    const name = segments.pop()!;
    const dir = await walker.openDir(segments);
    try {
      // by plain paths, the folder must still be inside right before the removal (see nameByPath)
      if (!walker.safe && dir.segments.length > 0 && !(await walker.stillInside(dir))) throw escapeError(path);
      if (this.driver) {
        // a file (most removals: the lock, a memory) with two calls; a folder by the walker
        const removed = await this.driver.run(removeFileTask(walker.at(dir, name)));
        if (removed) return;
      }
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
          // by plain paths, both folders must still be inside right before the rename (see nameByPath)
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

function fileEntry(path: string, st: { isFile(): boolean; mtimeMs: number; size: number; ctimeMs?: number; ino?: number }): HostEntry {
  const key = st.ctimeMs === undefined ? {} : { ctimeMs: st.ctimeMs, ino: st.ino };
  return st.isFile()
    ? { path, kind: "file", mtimeMs: st.mtimeMs, size: st.size, ...key }
    : { path, kind: "other", mtimeMs: st.mtimeMs, size: 0, problem: "not_a_file", ...key };
}

/** A fast read's folder as the walker's (which only reads its descriptor number and segments). */
function asOpenDir(dir: WalkDir): OpenDir {
  return { handle: dir.fd === null ? null : ({ fd: dir.fd } as FileHandle), segments: dir.segments };
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
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

/**
 * Files `writeFiles` stages at once: each holds its folder and its temporary file open until it
 * is named (hundreds at once ran out of descriptors where one after another did not).
 */
const WRITES_AT_ONCE = 16;

/** `error` (an `Error`, or one made of it) with `writePath`: the file of a batch it met. */
function withWritePath(error: unknown, path: string): Error {
  const e = error instanceof Error ? error : new Error(String(error));
  Object.defineProperty(e, "writePath", { value: path, configurable: true });
  return e;
}
