/// <reference types="node" preserve="true" />
/**
 * Walking a memory directory so that no file-system call can leave it, whatever changes
 * underneath (a folder swapped for a link out between a check and the write that follows).
 *
 * Node has no `openat`, but Linux has `/proc/self/fd/<fd>/<name>`: the kernel resolves the
 * `<fd>` part to the directory that descriptor has open — the very inode checked, wherever it
 * is now — and looks `<name>` up inside it. Opening every component that way, one at a time,
 * with `O_NOFOLLOW`, is an `openat` walk: a link met on the way is read (`readlink`), resolved
 * against the real path walked so far, and followed only when it stays inside the root.
 * Every write, rename and removal then names its target as `<verified dir fd>/<name>`.
 *
 * Where `/proc/self/fd` is missing (macOS, Windows), the walker falls back to plain paths,
 * with the links checked before each operation and the result checked after it (and undone
 * when it landed outside); docs/writing.md states the difference.
 */
import { constants } from "node:fs";
import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import * as fsp from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { hostError, type HostEntry } from "../host.js";

/** The subset of `node:fs/promises` the Node host uses; injectable to simulate faults in tests. */
export type NodeFs = Pick<
  typeof fsp,
  "lstat" | "stat" | "readdir" | "realpath" | "readlink" | "open" | "readFile" | "writeFile" | "rename" | "rm" | "rmdir" | "mkdir" | "link" | "unlink"
> &
  /** Sets a written file's time (`writeFile`'s `mtimeMs`); a file system given without it keeps its own times. */
  Partial<Pick<typeof fsp, "lutimes">>;

const { O_RDONLY, O_DIRECTORY = 0, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
/** Bytes read at a time for a head; most heads fit in one read. */
export const HEAD_CHUNK_BYTES = 4096;
/** Links followed in one walk before it gives up (the kernel's own limit is 40). */
const MAX_LINK_HOPS = 16;

/** What a walk needs of an open folder: its descriptor, and closing it. */
export type DirHandle = Pick<FileHandle, "fd" | "close">;

export interface OpenDir {
  handle: DirHandle | null;
  /** Real relative segments (links resolved). */
  segments: string[];
  /** The shared root descriptor: released, not closed. */
  shared?: boolean;
}

export function isCode(error: unknown, ...codes: string[]): boolean {
  return typeof error === "object" && error !== null && codes.includes((error as { code?: string }).code ?? "");
}

/** The error for a path that leads out of the memory directory. */
export function escapeError(path: string): Error {
  return hostError("UNSAFE_PATH", `${path} leads out of the memory directory through a symbolic link`);
}

/** Does `/proc/self/fd/<fd>/<name>` work here? Checked once per process. */
let procFdWorks: Promise<boolean> | undefined;
export function procFdAvailable(fs: NodeFs): Promise<boolean> {
  procFdWorks ??= (async () => {
    if (process.platform !== "linux" || !O_NOFOLLOW || !O_DIRECTORY) return false;
    try {
      const handle = await fs.open("/", O_RDONLY | O_DIRECTORY);
      try {
        await fs.lstat(`/proc/self/fd/${handle.fd}/.`);
        return true;
      } finally {
        await handle.close();
      }
    } catch {
      return false;
    }
  })();
  return procFdWorks;
}

export class DirWalker {
  /** The root's descriptor, shared by the calls in flight (a scan opens it once, not 200 times). */
  private rootHandle: Promise<DirHandle> | null = null;
  private rootUsers = 0;

  constructor(
    private readonly fs: NodeFs,
    private readonly root: string,
    /** `true`: the `/proc/self/fd` walk; `false`: plain paths with checks before and after. */
    readonly safe: boolean,
    /** Opens the root at once (a synchronous `open`, where the host has one): no trip to the thread pool. */
    private readonly openRootNow?: (path: string, flags: number) => Promise<DirHandle>,
  ) {}

  /** A path for `name` inside `dir` that the kernel resolves inside that very directory. */
  at(dir: OpenDir, name: string): string {
    return dir.handle ? `/proc/self/fd/${dir.handle.fd}/${name}` : join(this.root, ...dir.segments, name);
  }

  /** The directory itself, for `readdir`. */
  self(dir: OpenDir): string {
    return dir.handle ? `/proc/self/fd/${dir.handle.fd}` : join(this.root, ...dir.segments);
  }

  async close(dir: OpenDir | null | undefined): Promise<void> {
    if (!dir?.handle) return;
    if (!dir.shared) {
      await dir.handle.close().catch(() => {});
      return;
    }
    if (--this.rootUsers === 0) {
      const handle = this.rootHandle;
      this.rootHandle = null;
      await handle?.then((h) => h.close()).catch(() => {});
    }
  }

  /**
   * Runs `fn` with the root kept open, so its calls share one descriptor instead of opening
   * the root each (a write under the lock makes a dozen). A root that cannot be opened yet (a
   * write that creates it) is not held.
   */
  async hold<T>(fn: () => Promise<T>): Promise<T> {
    const root = await this.openRoot().catch(() => null);
    try {
      return await fn();
    } finally {
      await this.close(root);
    }
  }

  /** The root's real path, from the descriptor when there is one. */
  async realRoot(rootDir?: OpenDir): Promise<string> {
    if (rootDir?.handle) return this.fs.readlink(`/proc/self/fd/${rootDir.handle.fd}`);
    return this.fs.realpath(this.root);
  }

  /** The root, opened. Throws `ENOENT` / `ENOTDIR` when it is missing or not a folder. */
  async openRoot(): Promise<OpenDir> {
    if (!this.safe) {
      const st = await this.fs.stat(this.root);
      if (!st.isDirectory()) throw hostError("ENOTDIR", "the memory directory is not a directory");
      return { handle: null, segments: [] };
    }
    this.rootUsers++;
    this.rootHandle ??= this.openRootNow ? this.openRootNow(this.root, O_RDONLY | O_DIRECTORY) : this.fs.open(this.root, O_RDONLY | O_DIRECTORY);
    const opening = this.rootHandle;
    try {
      return { handle: await opening, segments: [], shared: true };
    } catch (error) {
      if (this.rootHandle === opening) this.rootHandle = null;
      this.rootUsers--;
      throw error;
    }
  }

  /**
   * Opens the folder at `segments` (relative), following links only where they stay inside.
   * `create`: make missing folders on the way.
   */
  async openDir(segments: string[], options: { create?: boolean } = {}, hops = 0): Promise<OpenDir> {
    let dir = await this.openRoot().catch(async (error) => {
      if (!options.create || !isCode(error, "ENOENT")) throw error;
      await this.fs.mkdir(this.root, { recursive: true });
      return this.openRoot();
    });
    try {
      for (let i = 0; i < segments.length; i++) {
        const name = segments[i]!;
        const next = await this.step(dir, name, options.create ?? false);
        if (next === "link") {
          const real = await this.followLink(dir, name, hops);
          await this.close(dir);
          return this.openDir([...real, ...segments.slice(i + 1)], options, hops + 1);
        }
        await this.close(dir);
        dir = next;
      }
      return dir;
    } catch (error) {
      await this.close(dir);
      throw error;
    }
  }

  /** One component down; `"link"` when it is a symbolic link (never followed here). */
  private async step(dir: OpenDir, name: string, create: boolean): Promise<OpenDir | "link"> {
    const segments = [...dir.segments, name];
    if (!this.safe) {
      const st = await this.fs.lstat(this.at(dir, name)).catch((error) => {
        if (create && isCode(error, "ENOENT")) return null;
        throw error;
      });
      if (st === null) {
        await this.fs.mkdir(this.at(dir, name)).catch((e) => (isCode(e, "EEXIST") ? undefined : Promise.reject(e)));
        return this.step(dir, name, false);
      }
      if (st.isSymbolicLink()) return "link";
      if (!st.isDirectory()) throw hostError("ENOTDIR", `${segments.join("/")} is not a directory`);
      return { handle: null, segments };
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return { handle: await this.fs.open(this.at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW), segments };
      } catch (error) {
        if (isCode(error, "ELOOP")) return "link";
        // ENOTDIR for a regular file, but also for a link with O_DIRECTORY on some kernels
        if (isCode(error, "ENOTDIR")) {
          const st = await this.fs.lstat(this.at(dir, name)).catch(() => null);
          if (st?.isSymbolicLink()) return "link";
          throw hostError("ENOTDIR", `${segments.join("/")} is not a directory`);
        }
        if (!create || attempt > 0 || !isCode(error, "ENOENT")) throw error;
        await this.fs.mkdir(this.at(dir, name)).catch((e) => (isCode(e, "EEXIST") ? undefined : Promise.reject(e)));
      }
    }
  }

  /**
   * Where the link `name` in `dir` leads, as real segments from the root; throws
   * `UNSAFE_PATH` when that is outside the root (or too many links deep).
   */
  async followLink(dir: OpenDir, name: string, hops: number): Promise<string[]> {
    const shown = [...dir.segments, name].join("/");
    if (hops >= MAX_LINK_HOPS) throw hostError("ELOOP", `${shown}: too many symbolic links`);
    const target = await this.fs.readlink(this.at(dir, name));
    let segments: string[];
    if (isAbsolute(target)) {
      // relative to the root's real path, or to the path it was given as (the walk from the
      // root then checks every component of what follows either way)
      const rootDir = dir.handle ? await this.openRoot() : undefined;
      try {
        const inside = (base: string) => {
          const rel = relative(base, target);
          return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? null : rel;
        };
        const rel = inside(await this.realRoot(rootDir)) ?? inside(this.root);
        if (rel === null) throw escapeError(shown);
        segments = rel.split(sep).filter((s) => s !== "" && s !== ".");
      } finally {
        await this.close(rootDir);
      }
    } else {
      segments = [...dir.segments];
      for (const part of target.split(/[\\/]/)) {
        if (part === "" || part === ".") continue;
        if (part === "..") {
          if (segments.length === 0) throw escapeError(shown);
          segments.pop();
        } else segments.push(part);
      }
    }
    if (segments.some((s) => s === "..")) throw escapeError(shown);
    return segments;
  }

  /**
   * Opens the file at `segments` with `flags` (`O_NOFOLLOW` added), following links only
   * where they stay inside. Returns the handle and the folder it is in (to close after).
   */
  async openFile(segments: string[], flags: number, mode?: number, hops = 0): Promise<{ handle: FileHandle; dir: OpenDir; segments: string[] }> {
    const name = segments.at(-1);
    if (name === undefined) throw hostError("EISDIR", "the memory directory itself is not a file");
    const dir = await this.openDir(segments.slice(0, -1), {}, hops);
    try {
      if (!this.safe) {
        const st = await this.fs.lstat(this.at(dir, name)).catch(() => null);
        if (st?.isSymbolicLink()) {
          const real = await this.followLink(dir, name, hops);
          await this.close(dir);
          return this.openFile(real, flags, mode, hops + 1);
        }
        return { handle: await this.fs.open(this.at(dir, name), flags, mode), dir, segments };
      }
      try {
        return { handle: await this.fs.open(this.at(dir, name), flags | O_NOFOLLOW, mode), dir, segments };
      } catch (error) {
        if (!isCode(error, "ELOOP")) throw error;
      }
      const real = await this.followLink(dir, name, hops);
      await this.close(dir);
      return this.openFile(real, flags, mode, hops + 1);
    } catch (error) {
      await this.close(dir);
      throw error;
    }
  }

  /** Opens a regular file for reading; a FIFO or device is refused without blocking on it. */
  async openRegular(path: string): Promise<{ handle: FileHandle; stats: Stats; close: () => Promise<void> }> {
    const { handle, dir } = await this.openFile(path.split("/"), O_RDONLY | O_NONBLOCK);
    const close = async () => {
      await handle.close().catch(() => {});
      await this.close(dir);
    };
    try {
      const stats = await handle.stat();
      if (stats.isDirectory()) throw hostError("EISDIR", `${path} is a directory`);
      if (!stats.isFile()) throw hostError("EINVAL", `${path} is not a regular file`);
      return { handle, stats, close };
    } catch (error) {
      await close();
      throw error;
    }
  }

  /**
   * Whether the open folder is still inside the root (an attacker may have moved it out
   * after it was opened). Only the `/proc` walk can tell; the fallback checks by path.
   * Throws when it cannot tell (a failed `readlink`): "could not tell" is not "outside", and
   * a caller that undid a write it could not judge would delete a file it had just written.
   */
  async stillInside(dir: OpenDir, name?: string): Promise<boolean> {
    const rootDir = await this.openRoot().catch(() => null);
    try {
      const realRoot = await this.realRoot(rootDir ?? undefined);
      const here = dir.handle ? await this.fs.readlink(`/proc/self/fd/${dir.handle.fd}`) : await this.fs.realpath(name === undefined ? this.self(dir) : this.at(dir, name));
      return here === realRoot || here.startsWith(realRoot + sep);
    } finally {
      await this.close(rootDir);
    }
  }

  /** Removes `name` in `dir`: a file or link with `unlink`, a folder depth-first through descriptors. */
  async removeIn(dir: OpenDir, name: string): Promise<void> {
    const st = await this.fs.lstat(this.at(dir, name));
    if (!st.isDirectory()) {
      await this.fs.unlink(this.at(dir, name));
      return;
    }
    if (!this.safe) {
      await this.fs.rm(this.at(dir, name), { recursive: true });
      return;
    }
    const handle = await this.fs.open(this.at(dir, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const child: OpenDir = { handle, segments: [...dir.segments, name] };
    try {
      for (const entry of await this.fs.readdir(this.self(child))) await this.removeIn(child, entry);
    } finally {
      await this.close(child);
    }
    await this.fs.rmdir(this.at(dir, name));
  }
}

/**
 * Where `path` really is: its real relative path with the part that does not exist yet kept
 * as given, or `null` when it leads out of the root through a link.
 */
export async function resolveInside(walker: DirWalker, fs: NodeFs, path: string): Promise<string | null> {
  let segments = path.split("/").filter(Boolean);
  let dir: OpenDir;
  try {
    dir = await walker.openRoot();
  } catch (error) {
    if (isCode(error, "ENOENT", "ENOTDIR")) return path; // nothing exists yet: nothing to follow
    throw error;
  }
  let hops = 0;
  try {
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i]!;
      const st = await fs.lstat(walker.at(dir, name)).catch((error) => (isCode(error, "ENOENT") ? null : Promise.reject(error)));
      if (st === null) return [...dir.segments, ...segments.slice(i)].join("/");
      if (st.isSymbolicLink()) {
        let real: string[];
        try {
          real = await walker.followLink(dir, name, hops++);
        } catch (error) {
          if (isCode(error, "UNSAFE_PATH")) return null;
          throw error;
        }
        await walker.close(dir);
        dir = await walker.openRoot();
        segments = [...real, ...segments.slice(i + 1)];
        i = -1;
        continue;
      }
      if (i === segments.length - 1 || !st.isDirectory()) return [...dir.segments, ...segments.slice(i)].join("/");
      const next = await walker.openDir([...dir.segments, name]);
      await walker.close(dir);
      dir = next;
    }
    return dir.segments.join("/");
  } finally {
    await walker.close(dir);
  }
}

/**
 * A read of a file's first bytes into a buffer sized from its `fstat` and grown as needed, to
 * `cap` bytes, the file's end, or — a head — `maxLines` lines. The same loop runs with
 * synchronous calls (`node-fast.ts`) and promised ones:
 * `while (r.room() && r.got(read(r.buffer, r.total, r.buffer.length - r.total, r.total)));`
 */
export class Filling {
  buffer: Uint8Array;
  total = 0;
  private seen = 0;

  constructor(
    private readonly size: number,
    private readonly cap: number,
    private readonly maxLines?: number,
  ) {
    // a whole file: its size plus one byte, to see one that grew; a head: one chunk, or the file
    this.buffer = new Uint8Array(Math.min(cap, Math.max(1, maxLines === undefined ? size + 1 : Math.min(HEAD_CHUNK_BYTES, size))));
  }

  /** Whether there is room for another read (the buffer grown when full and under `cap`). */
  room(): boolean {
    if (this.total < this.buffer.length) return true;
    if (this.buffer.length >= this.cap) return false;
    const grown = new Uint8Array(Math.min(this.cap, Math.max(this.buffer.length * 2, HEAD_CHUNK_BYTES)));
    grown.set(this.buffer);
    this.buffer = grown;
    return true;
  }

  /** Counts a read of `n` bytes; `false` when the reading is done (the end, or a head's lines or size reached). */
  got(n: number): boolean {
    if (n === 0) return false;
    const from = this.total;
    this.total += n;
    if (this.maxLines === undefined) return true;
    // a head read to the size its file had when opened is whole: no read to find the end
    if (this.total >= this.size) return false;
    for (let i = this.buffer.indexOf(10, from); i >= 0 && i < this.total; i = this.buffer.indexOf(10, i + 1)) if (++this.seen >= this.maxLines) return false;
    return this.seen < this.maxLines;
  }

  /** What was read; a head that stops before its file's end stops on a character boundary. */
  bytes(): Uint8Array {
    const end = this.maxLines !== undefined && this.total < this.size ? utf8Boundary(this.buffer, this.total) : this.total;
    return end === this.buffer.length ? this.buffer : this.buffer.slice(0, end);
  }
}

/**
 * `end`, or where the character that `bytes[0..end]` cuts short begins (the core leaves a cut
 * character out all the same; this keeps it off the crossing).
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

/** An entry from `lstat` or `fstat` of what is not a link: a file, or `not_a_file`. */
export function fileEntry(path: string, st: { isFile(): boolean; mtimeMs: number; size: number; ctimeMs?: number; ino?: number }): HostEntry {
  const key = st.ctimeMs === undefined ? {} : { ctimeMs: st.ctimeMs, ino: st.ino };
  return st.isFile()
    ? { path, kind: "file", mtimeMs: st.mtimeMs, size: st.size, ...key }
    : { path, kind: "other", mtimeMs: st.mtimeMs, size: 0, problem: "not_a_file", ...key };
}

