import type { Listing } from "./listing.js";

/**
 * Storage for a memory directory, as small as memdir needs. Paths are relative to the memory
 * directory and `/`-separated; the core has already checked them (`checkRelativePath`)
 * before a host sees them. Hosts report what they find; they never decide what is a memory.
 */
export interface HostEntry {
  /** Relative, `/`-separated. */
  path: string;
  kind: "file" | "directory" | "other";
  /** Modification time, ms since the epoch. */
  mtimeMs: number;
  /** Size in bytes. */
  size: number;
  /** Change time (inode), ms since the epoch, where the host has it: with `size`, `mtimeMs` and `ino` it tells any change. */
  ctimeMs?: number;
  /**
   * Inode number, where the host has it (a file replaced by another has a new one). Hosts whose
   * folders have no modification time give a folder one that changes with its entries' names
   * (the browser hosts), so that a file added, removed or renamed in it changes its key.
   */
  ino?: number;
  /**
   * Set when the entry cannot be used: `not_a_file` (a directory or device named `*.md`),
   * `symlink_escape` (a link out of the memory directory), `unreadable`; from `lstat`,
   * `symlink` (a symbolic link, not followed).
   */
  problem?: string;
}

/**
 * Who holds a lock, as far as a host can tell: the machine, the pid, and where the OS has them
 * the boot (a pid from before a reboot is dead) and the pid namespace (a container's pids mean
 * nothing outside it).
 */
export interface LockOwner {
  /** The machine's name (`os.hostname()` in Node). */
  host: string;
  pid: number;
  /** Linux: `/proc/sys/kernel/random/boot_id`. */
  boot?: string | null;
  /** Linux: the pid namespace, `readlink /proc/self/ns/pid`. */
  pidns?: string | null;
}

/** A head as a host read it: the bytes, and the file as it was when it was opened (where the host can tell). */
export interface HostHead {
  bytes: Uint8Array;
  entry?: HostEntry;
}

/** A watch on one folder; `close` ends it. */
export interface HostWatcher {
  close(): void;
}

/** Thrown by hosts for a missing file, so callers can tell it from other failures. */
export interface HostError extends Error {
  code: "ENOENT" | "EEXIST" | "EISDIR" | "ENOTDIR" | "EACCES" | "ENOTEMPTY" | "EINVAL" | string;
}

/** One file of {@link MemoryHost.writeFiles}. */
export interface WriteRequest {
  path: string;
  data: Uint8Array;
  /** Fail with `EEXIST` when it exists. */
  exclusive?: boolean;
}

export interface MemoryHost {
  /** A label for messages and `absolutePath`s, e.g. the directory's absolute path or URI. */
  readonly root: string;
  /** Every entry below the root, recursively. A missing root gives `[]`. */
  list(): Promise<HostEntry[]>;
  /**
   * The same as `list`, in columns (fewer objects for a large folder: an opened memory keeps its
   * listing between turns). Optional: without it, `list`'s entries are put in columns.
   */
  listing?(): Promise<Listing>;
  /**
   * `list` without what only a stat gives: every entry's path, kind and problem, with `mtimeMs`
   * and `size` left 0 (a link is still followed to say what it leads to). What a write that
   * only counts and places files needs (the memory tool's `create` and `rename`): the Node host
   * reads the kinds with the names, without an `lstat` an entry. Optional: `list` serves.
   */
  listKinds?(): Promise<HostEntry[]>;
  /** One entry, or `null` when it does not exist. */
  stat(path: string): Promise<HostEntry | null>;
  /** The first `maxLines` lines (at least; more is fine), without reading the whole file. */
  readHead(path: string, maxLines: number): Promise<Uint8Array>;
  /** The file's bytes, or only its first `maxBytes` when given. */
  readFile(path: string, maxBytes?: number): Promise<Uint8Array>;
  /**
   * Writes the whole file atomically (temporary file + rename where the host can), creating
   * parent folders. `exclusive`: fail with `EEXIST` when it exists. `durable: false`: the bytes
   * need not reach the disk before the name points at them (the lock file: a lock lost to a
   * power cut is a lock nobody holds).
   */
  writeFile(path: string, data: Uint8Array, options?: { exclusive?: boolean; durable?: boolean }): Promise<void>;
  /**
   * Writes several files as `writeFile` does, with every file's bytes on the disk — their
   * flushes overlapped, where the host can — before any name points at them; then the names,
   * in the order given. A failure before the names leaves none of the files written; one at a
   * name leaves the names before it. A long list may be taken in groups, each so (a failure
   * leaves the groups before it). A failure is thrown with `writePath`, the file it met.
   * Hosts leave it out: `writeFile` is called for each, in order.
   */
  writeFiles?(files: WriteRequest[]): Promise<void>;
  /** Removes a file, or a directory and everything in it. */
  remove(path: string): Promise<void>;
  /** Renames a file or directory; fails with `EEXIST` if the destination exists. */
  rename(from: string, to: string): Promise<void>;
  /**
   * Where `path` really is, following symbolic links: the relative path from the root's real
   * location (the part that does not exist yet kept as given), or `null` when it leads out of
   * the memory directory. Hosts without links leave it out; the core checks what comes back.
   */
  resolve?(path: string): Promise<string | null>;
  /**
   * Like `stat`, but a symbolic link at `path` is reported as itself (`kind: "other"`,
   * `problem: "symlink"`, the link's own mtime), so a dangling one is not `null`; throws
   * `ENOTDIR` when a folder on the way is a file. Hosts without links leave it out (`stat` is used).
   */
  lstat?(path: string): Promise<HostEntry | null>;
  /** This process, written into the lock file. Hosts without processes leave it out. */
  lockOwner?(): Promise<LockOwner>;
  /**
   * Whether the owner of a lock still runs: `false` only when it provably does not (same machine
   * and pid namespace, and the pid is gone or from an earlier boot), `null` when this host cannot
   * tell (another machine). Without it, locks are judged by their age alone.
   */
  ownerAlive?(owner: LockOwner): Promise<boolean | null>;
  /**
   * Runs `fn` as the one writer of this storage, holding a lock every writer of it takes (the
   * browser hosts: a Web Lock, which the browser releases when the tab holding it closes),
   * waiting at most `timeoutMs` for it; rejects with `ETIMEDOUT` when it is not granted in time.
   * `withLock` takes it around the lock file. Hosts without such a lock leave it out.
   */
  writeLock?<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T>;
  /**
   * Whether a link of `MEMORY.md` that leaves the memory directory (`../plans/x.md`, an
   * absolute path; from the core's `outsideLinks`) leads to something that exists, resolved
   * from the directory; `null` when the host cannot tell. Only doctor asks; nothing is read.
   */
  lookOutside?(link: string): Promise<boolean | null>;
  /**
   * The heads of many files at once (`readHead` for each, cheaper): in order, each the head or
   * the error its read met. Optional.
   */
  readHeads?(paths: string[], maxLines: number): Promise<(HostHead | HostError)[]>;
  /** `lstat` (or `stat`) of many paths at once: in order, each the entry, `null` when it is not there, or the error met. Optional. */
  statMany?(paths: string[]): Promise<(HostEntry | null | HostError)[]>;
  /**
   * Calls `onChange` when something in the folder `dir` ("" for the root) may have changed, with
   * the name that changed, or `null` when it cannot say (or events were lost). A hint only: an
   * opened memory checks what it holds all the same. Optional; `null` when it cannot watch.
   */
  watch?(dir: string, onChange: (name: string | null) => void): HostWatcher | null;
  /** Runs `fn` with the directory kept open where that saves work (a write under the lock). Optional. */
  hold?<T>(fn: () => Promise<T>): Promise<T>;
  /** Joins the root and a relative path for display (`absolutePath` of a memory). */
  absolutePath(path: string): string;
}

/** Makes an `Error` with a file-system style `code`. */
export function hostError(code: string, message: string): HostError {
  const error = new Error(message) as HostError;
  error.code = code;
  return error;
}
