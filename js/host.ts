import { Listing } from "./listing.js";

/**
 * Storage for a memory directory, as small as memdir needs. Paths are relative to the memory
 * directory and `/`-separated; the core has already checked them (`checkRelativePath`)
 * before a host sees them. Hosts report what they find; they never decide what is a memory.
 *
 * A host author writes the eight members of {@link MemoryHost}; everything else is an optional
 * group ({@link HostLinks}, {@link HostLocks}, `watch`, {@link HostFastPaths}) that memdir uses
 * where it is there and does without where it is not.
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

/** One file of {@link HostFastPaths.writeFiles}. */
export interface WriteRequest {
  path: string;
  data: Uint8Array;
  /** Fail with `EEXIST` when it exists. */
  exclusive?: boolean;
}

/**
 * The most of a file read for its head without {@link HostFastPaths.readHeads}: 1 MiB, the
 * core's `MAX_HEAD_BYTES` (`src/scan.rs`), so a head read this way is the same bytes the Node
 * host's fast path gives — the first lines, or a prefix this long when they are longer.
 */
export const HEAD_READ_BYTES = 1 << 20;

/** What a host author writes. */
export interface MemoryHost {
  /** A label for messages and `absolutePath`s, e.g. the directory's absolute path or URI. */
  readonly root: string;
  /** Joins the root and a relative path for display (`absolutePath` of a memory). */
  absolutePath(path: string): string;
  /** Every entry below the root, recursively. A missing root gives `[]`. */
  list(): Promise<HostEntry[]>;
  /** One entry, or `null` when it does not exist. */
  stat(path: string): Promise<HostEntry | null>;
  /**
   * The file's bytes, or only its first `maxBytes` when given (a head is read as
   * `readFile(path, HEAD_READ_BYTES)`, its lines cut by memdir, unless `fast.readHeads`).
   */
  readFile(path: string, maxBytes?: number): Promise<Uint8Array>;
  /**
   * Writes the whole file atomically (temporary file + rename where the host can), creating
   * parent folders. `exclusive`: fail with `EEXIST` when it exists. `durable: false`: the bytes
   * need not reach the disk before the name points at them (the lock file: a lock lost to a
   * power cut is a lock nobody holds). `mtimeMs`: the file's modification time, where the host
   * can set it (a copy of a memory keeps its files' ages: `js/transfer.ts`); a host that cannot
   * ignores it and gives its own time.
   */
  writeFile(path: string, data: Uint8Array, options?: { exclusive?: boolean; durable?: boolean; mtimeMs?: number }): Promise<void>;
  /** Removes a file, or a directory and everything in it. */
  remove(path: string): Promise<void>;
  /** Renames a file or directory; fails with `EEXIST` if the destination exists. */
  rename(from: string, to: string): Promise<void>;

  /** Symbolic links, for hosts that have them. Without it, every path is where it says. */
  links?: HostLinks;
  /** Processes and the host's own lock, for hosts that have them. Without it, locks are the lock file judged by its age. */
  locks?: HostLocks;
  /**
   * Calls `onChange` when something in the folder `dir` ("" for the root) may have changed, with
   * the name that changed, or `null` when it cannot say (or events were lost). A hint only: an
   * opened memory checks what it holds all the same. Optional; `null` when it cannot watch.
   */
  watch?(dir: string, onChange: (name: string | null) => void): HostWatcher | null;
  /** Cheaper ways to do what the members above do, for large folders. Each optional. */
  fast?: HostFastPaths;
  /**
   * Times the host knows better than the files' mtimes (the Node host in a git work tree: a file
   * as committed has its last commit's time, rules §1.3). Optional.
   */
  times?: HostTimes;
}

/** A listing as {@link HostTimes.of} reads it (the columns of a `Listing`). */
export interface TimedListing {
  readonly paths: readonly string[];
  /** 0 a file, 1 a directory, 2 other. */
  readonly kinds: Uint8Array;
  readonly mtimesMs: Float64Array;
  readonly sizesBytes: Float64Array;
  readonly ctimesMs: Float64Array;
  readonly inos: Float64Array;
}

/** The times to use in place of a listing's mtimes. */
export interface TimesOverlay {
  /** Changes whenever the times may have (a cache compares it turn to turn). */
  version: string;
  /** By position in the listing: the time to use, or `NaN` for the entry's own mtime. */
  timesMs: Float64Array;
}

/** See {@link MemoryHost.times}. Asked every turn, so cheap when nothing changed. */
export interface HostTimes {
  /** The times for `listing`, or `null`: its mtimes as they are. Never throws. */
  of(listing: TimedListing): Promise<TimesOverlay | null>;
}

/**
 * Symbolic links (the Node host). A host whose storage has none gives `resolve` alone, each path
 * as itself: the memory tool then looks up only the paths it names, without a listing.
 */
export interface HostLinks {
  /**
   * Where `path` really is, following symbolic links: the relative path from the root's real
   * location (the part that does not exist yet kept as given), or `null` when it leads out of
   * the memory directory. The core checks what comes back.
   */
  resolve(path: string): Promise<string | null>;
  /**
   * Like `stat`, but a symbolic link at `path` is reported as itself (`kind: "other"`,
   * `problem: "symlink"`, the link's own mtime), so a dangling one is not `null`; throws
   * `ENOTDIR` when a folder on the way is a file. Without it, `stat`.
   */
  lstat?(path: string): Promise<HostEntry | null>;
  /**
   * Whether a link of `MEMORY.md` that leaves the memory directory (`../plans/x.md`, an
   * absolute path; from the core's `outsideLinks`) leads to something that exists, resolved
   * from the directory; `null` when the host cannot tell. Only doctor asks; nothing is read.
   */
  lookOutside?(link: string): Promise<boolean | null>;
}

/** Who holds the lock file, and the host's own lock. */
export interface HostLocks {
  /** This process, written into the lock file. */
  owner?(): Promise<LockOwner>;
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
   * `withLock` takes it around the lock file.
   */
  exclusive?<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T>;
}

/** Fast-path twins of the required members (the Node host's `fast` module). Each optional. */
export interface HostFastPaths {
  /** `list` in columns (fewer objects for a large folder: an opened memory keeps its listing between turns). */
  listing?(): Promise<Listing>;
  /**
   * `list` without what only a stat gives: every entry's path, kind and problem, with `mtimeMs`
   * and `size` left 0 (a link is still followed to say what it leads to). What a write that
   * only counts and places files needs (the memory tool's `create` and `rename`).
   */
  listKinds?(): Promise<HostEntry[]>;
  /**
   * The first `maxLines` lines (at least; at most {@link HEAD_READ_BYTES}) of many files at once:
   * in order, each the head or the error its read met.
   */
  readHeads?(paths: string[], maxLines: number): Promise<(HostHead | HostError)[]>;
  /** `lstat` (or `stat`) of many paths at once: in order, each the entry, `null` when it is not there, or the error met. */
  statMany?(paths: string[]): Promise<(HostEntry | null | HostError)[]>;
  /**
   * Writes several files as `writeFile` does, with every file's bytes on the disk — their
   * flushes overlapped — before any name points at them; then the names, in the order given.
   * A failure before the names leaves none of the files written; one at a name leaves the names
   * before it. A long list may be taken in groups, each so (a failure leaves the groups before
   * it). A failure is thrown with `writePath`, the file it met. Without it, `writeFile` is
   * called for each, in order.
   */
  writeFiles?(files: WriteRequest[]): Promise<void>;
  /** Runs `fn` with the directory kept open where that saves work (a write under the lock). */
  hold?<T>(fn: () => Promise<T>): Promise<T>;
}

/** Makes an `Error` with a file-system style `code`. */
export function hostError(code: string, message: string): HostError {
  const error = new Error(message) as HostError;
  error.code = code;
  return error;
}

/** The first `maxLines` lines of `bytes` (each with its newline), or all of them: then `bytes` itself, the same array. */
export function headLines(bytes: Uint8Array, maxLines: number): Uint8Array {
  if (maxLines <= 0) return bytes.subarray(0, 0);
  let lines = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10 && ++lines === maxLines) return bytes.subarray(0, i + 1);
  return bytes;
}

/** Every entry below the root: `fast.listing`'s where the host has it (cheaper), else `list()`. */
export async function listEntries(host: MemoryHost): Promise<HostEntry[]> {
  if (host.fast?.listing) {
    const listing = await host.fast.listing();
    if (listing instanceof Listing) return listing.toEntries();
  }
  return host.list();
}

/** A file's head through a host's required members: `readFile(path, HEAD_READ_BYTES)`, cut to `maxLines` lines. */
export async function readHead(host: MemoryHost, path: string, maxLines: number): Promise<Uint8Array> {
  return headLines(await host.readFile(path, HEAD_READ_BYTES), maxLines);
}

/**
 * The heads of `paths` in order, each the head or the error its read met: `fast.readHeads`
 * where the host has it, else {@link readHead} for each, `concurrency` at a time.
 */
export async function readHeads(host: MemoryHost, paths: string[], maxLines: number, concurrency = 16): Promise<(HostHead | HostError)[]> {
  if (host.fast?.readHeads) return host.fast.readHeads(paths, maxLines);
  const out: (HostHead | HostError)[] = new Array(paths.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let k = next++; k < paths.length; k = next++) {
      try {
        out[k] = { bytes: await readHead(host, paths[k]!, maxLines) };
      } catch (error) {
        out[k] = error instanceof Error ? (error as HostError) : hostError("EIO", String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, paths.length)) }, worker));
  return out;
}
