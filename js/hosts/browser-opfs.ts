/**
 * A memory directory in the browser's Origin Private File System:
 *
 * ```ts
 * const host = await OpfsHost.open("project-x"); // the folder memdir/project-x of this origin's OPFS
 * const memory = await openMemory({ host });
 * ```
 *
 * How it writes (verified in Chromium, tests/browser/opfs-crash.test.mjs):
 * - overwriting a file goes through `createWritable()`, which writes to a swap file
 *   (`<name>.crswap`, beside it) and replaces the file with it on `close()`: a reader, in this
 *   tab or another, sees the old bytes or the new, never a mix; a tab or browser killed before
 *   `close()` leaves the old file whole (and the swap file, which the browser does not clear);
 * - a new file is written whole under a temporary name (`.<name>.tmp-<hex>`) and then moved to
 *   its name, so it never appears empty or half written (a bare create would show an empty file
 *   at once, and leave it behind if the tab died); memdir's next write sweeps the temporary file
 *   of a write that died;
 * - OPFS has no exclusive create and no atomic check-then-rename, so every change (write, remove,
 *   rename) runs under a Web Lock per memory (`memdir-io:opfs:<name>`): an exclusive create is
 *   exclusive across tabs and workers;
 * - swap files (`*.crswap`) are the browser's: never listed, refused as names, and cleared by the
 *   next write or removal of their file (under that lock, no writer of this memory has one open);
 * - a folder is renamed by copying it and then removing the original (OPFS cannot move folders):
 *   under the lock, but a reader can see both for a moment.
 *
 * There are no links: every path is where it says (`resolve` is the identity). Folders have no
 * modification time (`mtimeMs: 0`), but an `ino` made of their entries' names (see
 * browser-watch.ts); files have `File.lastModified`. `watch` hears every change made through an
 * `OpfsHost` of this memory in any tab or worker (a `BroadcastChannel`), and, where the browser
 * has `FileSystemObserver`, any other change of its files.
 */
import { tempFileName } from "../core.js";
import { bounded } from "../bounded.js";
import { hostError, type HostEntry, type HostError, type HostFastPaths, type HostLinks, type HostLocks, type HostWatcher, type MemoryHost } from "../host.js";
import { checkMemoryName, domName, randomHex, toHostError, unsupported } from "./browser-errors.js";
import { browserLockOwner, browserOwnerAlive, IO_LOCK_TIMEOUT_MS, webLocks, withWebLock } from "./browser-locks.js";
import { ChangeFeed, folderIno } from "./browser-watch.js";

/** The folder of the OPFS root that holds every named memory. */
export const OPFS_FOLDER = "memdir";
/** `getFile()` calls in flight at once while listing. */
const LIST_CONCURRENCY = 32;
/** Reads of a file being rewritten by another tab before one holds writers off (see `reading`). */
const OPTIMISTIC_READS = 3;
const SWAP = /\.crswap$/;

/** The parts of the File System API used here that TypeScript's DOM library may not declare. */
interface DirectoryHandle extends FileSystemDirectoryHandle {
  entries(): AsyncIterableIterator<[string, FileSystemDirectoryHandle | FileSystemFileHandle]>;
}
interface FileHandle extends FileSystemFileHandle {
  move?(parent: FileSystemDirectoryHandle, name: string): Promise<void>;
}

const isSwap = (name: string) => SWAP.test(name);
/** `FileSystemFileHandle.move`, where the browser has it (Chromium does): a file renamed in one step. */
const canMove = () => typeof (globalThis.FileSystemFileHandle?.prototype as FileHandle | undefined)?.move === "function";

/** Whether this browser has what `OpfsHost` needs: OPFS, writable streams on its files, and Web Locks. */
export function opfsSupport(): string | null {
  const g = globalThis as { navigator?: { storage?: { getDirectory?: unknown } }; FileSystemFileHandle?: { prototype: object } };
  if (typeof g.navigator?.storage?.getDirectory !== "function") return "navigator.storage.getDirectory is missing (not a secure context, or an old browser)";
  if (!g.FileSystemFileHandle || !("createWritable" in g.FileSystemFileHandle.prototype)) return "FileSystemFileHandle.createWritable is missing";
  if (webLocks() === null) return "Web Locks (navigator.locks) are missing";
  return null;
}

export class OpfsHost implements MemoryHost {
  /** Which browser storage this is. */
  readonly backend = "opfs" as const;
  /** `opfs:/memdir/<name>`. */
  readonly root: string;
  /** The memory's name: its folder in `memdir/`. */
  readonly name: string;
  private readonly storage: FileSystemDirectoryHandle;
  private readonly ioLock: string;
  private readonly writeLockName: string;
  /** The memory's folder, once found (see `folder`). */
  private top: FileSystemDirectoryHandle | null = null;
  /** What changed, told to other tabs and heard from them (`watch`). */
  private readonly feed: ChangeFeed;

  private constructor(name: string, storage: FileSystemDirectoryHandle) {
    this.name = name;
    this.storage = storage;
    this.root = `opfs:/${OPFS_FOLDER}/${name}`;
    this.ioLock = `memdir-io:opfs:${name}`;
    this.writeLockName = `memdir-write:opfs:${name}`;
    this.feed = new ChangeFeed(`memdir:opfs:${name}`, () => this.folder([], false, ""));
  }

  /**
   * The memory `name` (its folder is created by the first write). Throws `INVALID_ARGUMENT` for
   * a bad name, `IO_ERROR` with `errno: "ENOTSUP"` where OPFS cannot be used (see `browserHost`).
   */
  static async open(name: string): Promise<OpfsHost> {
    checkMemoryName(name);
    const missing = opfsSupport();
    if (missing !== null) throw unsupported("The Origin Private File System", missing);
    let storage: FileSystemDirectoryHandle;
    try {
      storage = await navigator.storage.getDirectory();
    } catch (error) {
      throw unsupported("The Origin Private File System", `navigator.storage.getDirectory() failed (${domName(error) || error})`, error);
    }
    return new OpfsHost(name, storage);
  }

  absolutePath(path: string): string {
    return `${this.root}/${path}`;
  }

  /** Nothing here is a link: every path is where it says. */
  readonly links: HostLinks = { resolve: async (path) => path };

  /** The tab as the lock file's owner; `exclusive` holds the Web Lock `memdir-write:opfs:<name>` while `fn` runs. */
  readonly locks: HostLocks = {
    owner: browserLockOwner,
    ownerAlive: browserOwnerAlive,
    exclusive: <T>(fn: () => Promise<T>, timeoutMs: number) => withWebLock(this.writeLockName, fn, timeoutMs),
  };

  readonly fast: HostFastPaths = { statMany: (paths) => this.statMany(paths) };

  async list(): Promise<HostEntry[]> {
    const top = await this.folder([], false, "");
    if (top === null) return [];
    const entries: HostEntry[] = [];
    const walk = async (dir: DirectoryHandle, prefix: string, self: HostEntry | null): Promise<void> => {
      const children: [string, FileSystemDirectoryHandle | FileSystemFileHandle][] = [];
      try {
        for await (const child of dir.entries()) children.push(child);
      } catch (error) {
        if (domName(error) === "NotFoundError") return; // removed while listing
        if (self === null) throw toHostError(error, "");
        self.problem = "unreadable";
        return;
      }
      if (self !== null) self.ino = inoOf(children);
      children.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const found = await bounded(children, LIST_CONCURRENCY, async ([name, handle]): Promise<HostEntry | null> => {
        const path = prefix + name;
        if (handle.kind === "directory") return { path, kind: "directory", mtimeMs: 0, size: 0 };
        if (isSwap(name)) return null;
        try {
          const file = await (handle as FileSystemFileHandle).getFile();
          return { path, kind: "file", mtimeMs: file.lastModified, size: file.size };
        } catch (error) {
          if (domName(error) === "NotFoundError") return null; // removed while listing
          return { path, kind: "file", mtimeMs: 0, size: 0, problem: "unreadable" };
        }
      });
      for (const [i, entry] of found.entries()) {
        if (entry === null) continue;
        entries.push(entry);
        if (entry.kind === "directory") await walk(children[i]![1] as DirectoryHandle, `${entry.path}/`, entry);
      }
    };
    await walk(top as DirectoryHandle, "", null);
    return entries;
  }

  async stat(path: string): Promise<HostEntry | null> {
    const segments = split(path);
    const name = segments.pop();
    let dir: FileSystemDirectoryHandle | null;
    try {
      dir = await this.folder(segments, false, path);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOTDIR") return null; // below a file
      throw error;
    }
    if (dir === null) return null;
    if (name === undefined) return this.directoryEntry(path, dir);
    if (isSwap(name)) return null;
    try {
      const file = await (await dir.getFileHandle(name)).getFile();
      return { path, kind: "file", mtimeMs: file.lastModified, size: file.size };
    } catch (error) {
      const kind = domName(error);
      if (kind === "NotFoundError") return null;
      if (kind !== "TypeMismatchError") throw toHostError(error, path);
    }
    let folder: FileSystemDirectoryHandle;
    try {
      folder = await dir.getDirectoryHandle(name);
    } catch (error) {
      if (domName(error) === "NotFoundError") return null;
      throw toHostError(error, path);
    }
    return this.directoryEntry(path, folder);
  }

  /**
   * Many paths at once: in order, each the entry (`stat`'s), `null`, or the error met. Each
   * folder on the way is read once (its names give the handles, and its own `ino`), and only
   * the files asked for are opened (`getFile()`).
   */
  async statMany(paths: string[]): Promise<(HostEntry | null | HostError)[]> {
    this.feed.refresh();
    const folders = new Map<string, Promise<Folder | null>>();
    const folderAt = (path: string): Promise<Folder | null> => {
      let got = folders.get(path);
      if (got === undefined) {
        got = (async () => {
          let handle: FileSystemDirectoryHandle | null;
          if (path === "") handle = await this.folder([], false, "");
          else {
            const slash = path.lastIndexOf("/");
            const parent = await folderAt(slash < 0 ? "" : path.slice(0, slash));
            const child = parent?.children.get(path.slice(slash + 1));
            handle = child?.kind === "directory" ? (child as FileSystemDirectoryHandle) : null;
          }
          if (handle === null) return null;
          const children = new Map<string, FileSystemDirectoryHandle | FileSystemFileHandle>();
          try {
            for await (const [n, h] of (handle as DirectoryHandle).entries()) if (!isSwap(n)) children.set(n, h);
          } catch (error) {
            if (domName(error) === "NotFoundError") return null; // removed meanwhile
            throw toHostError(error, path);
          }
          return { children, ino: inoOf(children) };
        })();
        folders.set(path, got);
      }
      return got;
    };
    const directory = async (path: string) => {
      const folder = await folderAt(path);
      return folder === null ? null : { path, kind: "directory" as const, mtimeMs: 0, size: 0, ino: folder.ino };
    };
    return bounded(paths, LIST_CONCURRENCY, async (path): Promise<HostEntry | null | HostError> => {
      try {
        if (path === "") return await directory("");
        split(path); // refuses what OPFS would misread
        const slash = path.lastIndexOf("/");
        const handle = (await folderAt(slash < 0 ? "" : path.slice(0, slash)))?.children.get(path.slice(slash + 1));
        if (handle === undefined) return null;
        if (handle.kind === "directory") return await directory(path);
        try {
          const file = await (handle as FileSystemFileHandle).getFile();
          return { path, kind: "file", mtimeMs: file.lastModified, size: file.size };
        } catch (error) {
          if (domName(error) === "NotFoundError") return null; // removed meanwhile
          throw error;
        }
      } catch (error) {
        return toHostError(error, path);
      }
    });
  }

  /**
   * Watches the folder `dir`: told every change made through an `OpfsHost` of this memory, in
   * any tab or worker, and (where the browser has `FileSystemObserver`) any other change of its
   * files. One channel and one observer for the whole memory.
   */
  watch(dir: string, onChange: (name: string | null) => void): HostWatcher | null {
    return this.feed.watch(dir, onChange);
  }

  /** A folder as `stat` gives it: its `ino` from its names. */
  private async directoryEntry(path: string, dir: FileSystemDirectoryHandle): Promise<HostEntry | null> {
    const children: [string, FileSystemDirectoryHandle | FileSystemFileHandle][] = [];
    try {
      for await (const child of (dir as DirectoryHandle).entries()) children.push(child);
    } catch (error) {
      if (domName(error) === "NotFoundError") return null;
      throw toHostError(error, path);
    }
    return { path, kind: "directory", mtimeMs: 0, size: 0, ino: inoOf(children) };
  }

  /** Reads only the first `maxBytes` (`File.slice`). */
  async readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
    return this.reading(path, async (file) => new Uint8Array(await (maxBytes === undefined ? file : file.slice(0, Math.max(0, maxBytes))).arrayBuffer()));
  }

  async writeFile(path: string, data: Uint8Array, options: { exclusive?: boolean } = {}): Promise<void> {
    const bytes = data.slice(); // the caller may reuse its buffer while this waits for the lock
    const segments = split(path);
    const name = segments.pop();
    if (name === undefined) throw hostError("EISDIR", "the memory directory is a directory");
    if (isSwap(name)) throw hostError("EINVAL", `${path}: names ending in .crswap are the browser's swap files`);
    await this.changing([path], async () => {
      const dir = (await this.folder(segments, true, path))!;
      let existing: FileSystemFileHandle | null = null;
      try {
        existing = await dir.getFileHandle(name);
      } catch (error) {
        const kind = domName(error);
        if (kind === "TypeMismatchError") throw hostError("EISDIR", `${path} is a directory`);
        if (kind !== "NotFoundError") throw toHostError(error, path);
      }
      if (existing !== null && options.exclusive) throw hostError("EEXIST", `${path} already exists`);
      if (existing !== null) {
        await removeSwaps(dir, name); // a swap left by a tab that died; none of ours is open
        await writeWhole(existing, bytes, path);
        return;
      }
      if (!canMove()) {
        // no move (an older browser): the new file shows empty until its writable closes
        await writeWhole(await dir.getFileHandle(name, { create: true }), bytes, path);
        return;
      }
      const temp = (await dir.getFileHandle(tempFileName(name, randomHex(6)), { create: true })) as FileHandle;
      try {
        await writeWhole(temp, bytes, path);
        await temp.move!(dir, name);
      } catch (error) {
        await dir.removeEntry(temp.name).catch(() => {});
        await removeSwaps(dir, temp.name);
        throw toHostError(error, path);
      }
    });
  }

  async remove(path: string): Promise<void> {
    const segments = split(path);
    const name = segments.pop();
    if (name === undefined) throw hostError("EINVAL", "the memory directory itself is not removed through its host");
    await this.changing([path], async () => {
      const dir = await this.folder(segments, false, path);
      if (dir === null || isSwap(name)) throw hostError("ENOENT", `${path} does not exist`);
      try {
        await dir.removeEntry(name, { recursive: true });
      } catch (error) {
        throw domName(error) === "NotFoundError" ? hostError("ENOENT", `${path} does not exist`) : toHostError(error, path);
      }
      await removeSwaps(dir, name);
    });
  }

  /** A file is moved (`FileSystemFileHandle.move`); a folder is copied, then the original removed. */
  async rename(from: string, to: string): Promise<void> {
    const fromSegments = split(from);
    const toSegments = split(to);
    const fromName = fromSegments.pop();
    const toName = toSegments.pop();
    if (fromName === undefined || toName === undefined) throw hostError("EINVAL", `${from} -> ${to}: the memory directory itself cannot be renamed`);
    await this.changing([from, to], async () => {
      const source = await this.stat(from);
      if (source === null) throw hostError("ENOENT", `${from} does not exist`);
      if ((await this.stat(to)) !== null) throw hostError("EEXIST", `${to} already exists`);
      if (to === from || to.startsWith(`${from}/`)) throw hostError("EINVAL", `${from} -> ${to}: a folder cannot move into itself`);
      const fromDir = (await this.folder(fromSegments, false, from))!;
      const toDir = (await this.folder(toSegments, true, to))!;
      if (source.kind === "file") {
        const handle = (await fromDir.getFileHandle(fromName)) as FileHandle;
        if (canMove()) {
          await handle.move!(toDir, toName);
          await removeSwaps(fromDir, fromName);
          return;
        }
        await writeWhole(await toDir.getFileHandle(toName, { create: true }), await handle.getFile(), to);
      } else {
        const target = await toDir.getDirectoryHandle(toName, { create: true });
        try {
          await copyTree((await fromDir.getDirectoryHandle(fromName)) as DirectoryHandle, target);
        } catch (error) {
          await toDir.removeEntry(toName, { recursive: true }).catch(() => {});
          throw toHostError(error, `${from} -> ${to}`);
        }
      }
      await fromDir.removeEntry(fromName, { recursive: true });
      await removeSwaps(fromDir, fromName);
    });
  }

  /**
   * A change under the memory's OPFS lock, its failures as `HostError`s; then `paths` are told
   * to the watchers of this memory, in every tab (also after a failure: it may have half happened).
   */
  private async changing(paths: string[], fn: () => Promise<void>): Promise<void> {
    try {
      await withWebLock(this.ioLock, fn, IO_LOCK_TIMEOUT_MS);
    } catch (error) {
      throw toHostError(error, paths[0]!);
    } finally {
      this.feed.changed(paths);
    }
  }

  /**
   * The folder `segments` below the memory's folder (created with `create`), or `null` when it
   * does not exist; `ENOTDIR` when a file is on the way. Writes walk from the OPFS root, making
   * what is missing; reads start from the memory's folder once found (a handle names a path, so
   * it stays good when the folder is removed, and finds the new one when it is made again).
   */
  private async folder(segments: string[], create: boolean, path: string): Promise<FileSystemDirectoryHandle | null> {
    const start = create ? null : this.top;
    const walk = start === null ? [OPFS_FOLDER, this.name, ...segments] : segments;
    let dir = start ?? this.storage;
    for (const [i, segment] of walk.entries()) {
      try {
        dir = await dir.getDirectoryHandle(segment, { create });
      } catch (error) {
        const kind = domName(error);
        if (kind === "NotFoundError" && !create) return null;
        if (kind === "TypeMismatchError") throw hostError("ENOTDIR", `${path}: a folder on the way is a file`);
        throw toHostError(error, path);
      }
      if (start === null && i === 1) this.top = dir;
    }
    return dir;
  }


  /**
   * Runs `read` over the file at `path`. A `File` whose file another tab rewrote meanwhile fails
   * to read (`NotFoundError` once the swap file replaced it, `NotReadableError` while it
   * changes), never giving a mix of the two: it is read again from a fresh `File`, and after
   * `OPTIMISTIC_READS` such failures once more holding the memory's OPFS lock shared, which
   * keeps writers of this memory out (they queue behind the read, so it cannot starve).
   */
  private async reading<T>(path: string, read: (file: File) => Promise<T>): Promise<T> {
    const segments = split(path);
    const name = segments.pop();
    if (name === undefined) throw hostError("EISDIR", "the memory directory is a directory");
    const once = async (): Promise<{ value: T } | null> => {
      const dir = await this.folder(segments, false, path);
      if (dir === null || isSwap(name)) throw hostError("ENOENT", `${path} does not exist`);
      let file: File;
      try {
        file = await (await dir.getFileHandle(name)).getFile();
      } catch (error) {
        const kind = domName(error);
        if (kind === "TypeMismatchError") throw hostError("EISDIR", `${path} is a directory`);
        if (kind === "NotFoundError") throw hostError("ENOENT", `${path} does not exist`);
        throw toHostError(error, path);
      }
      try {
        return { value: await read(file) };
      } catch (error) {
        const kind = domName(error);
        if (kind === "NotReadableError" || kind === "NotFoundError") return null; // rewritten meanwhile
        throw toHostError(error, path);
      }
    };
    for (let attempt = 0; attempt < OPTIMISTIC_READS; attempt++) {
      const done = await once();
      if (done !== null) return done.value;
      await new Promise((resolve) => setTimeout(resolve, attempt * 5));
    }
    try {
      const done = await withWebLock(this.ioLock, once, IO_LOCK_TIMEOUT_MS, "shared");
      if (done !== null) return done.value;
    } catch (error) {
      throw toHostError(error, path);
    }
    throw hostError("EIO", `${path}: the file could not be read (it changed under every read, even with writers held off)`);
  }

}

/** A folder read by `statMany`: its entries by name (swap files left out), and its `ino`. */
interface Folder {
  children: Map<string, FileSystemDirectoryHandle | FileSystemFileHandle>;
  ino: number;
}

/** A folder's `ino` from its entries (swap files left out, as `list` leaves them). */
function inoOf(children: Iterable<[string, FileSystemDirectoryHandle | FileSystemFileHandle]>): number {
  const named: [string, "file" | "directory"][] = [];
  for (const [name, handle] of children) if (!isSwap(name)) named.push([name, handle.kind]);
  return folderIno(named);
}

/** `path`'s segments; the core has checked the path, this refuses what OPFS would misread. */
function split(path: string): string[] {
  if (path === "") return [];
  const segments = path.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) throw hostError("EINVAL", `${path}: not a relative path`);
  return segments;
}

/** Writes `data` as the whole content of `handle`: a swap file, committed by `close()`, dropped by `abort()`. */
async function writeWhole(handle: FileSystemFileHandle, data: Uint8Array | Blob, path: string): Promise<void> {
  const writable = await handle.createWritable();
  try {
    await writable.write(data as FileSystemWriteChunkType);
    await writable.close();
  } catch (error) {
    await writable.abort().catch(() => {});
    throw toHostError(error, path);
  }
}

/** Removes the swap files a dead tab left for `name` (`name.crswap`, `name.<n>.crswap`: Chromium's names). */
async function removeSwaps(dir: FileSystemDirectoryHandle, name: string): Promise<void> {
  for (const swap of [`${name}.crswap`, `${name}.1.crswap`]) {
    try {
      await dir.removeEntry(swap);
    } catch {
      // none there (the usual case)
    }
  }
}

/** Copies every file and folder of `from` into `to` (swap files left out). */
async function copyTree(from: DirectoryHandle, to: FileSystemDirectoryHandle): Promise<void> {
  for await (const [name, handle] of from.entries()) {
    if (handle.kind === "directory") await copyTree(handle as DirectoryHandle, await to.getDirectoryHandle(name, { create: true }));
    else if (!isSwap(name)) await writeWhole(await to.getFileHandle(name, { create: true }), await (handle as FileSystemFileHandle).getFile(), name);
  }
}
