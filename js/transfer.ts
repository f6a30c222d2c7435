/**
 * A memory copied from one host to another, byte for byte: a folder into a PostgreSQL store
 * (`memdir import`), a store's memory into a folder (`memdir export`, a backup a person can
 * read), a folder into another folder. See docs/fleet.md.
 *
 * What travels: every file below the memory's root — `MEMORY.md`, the topic files, anything
 * else in it — and memdir's own history folder `.memdir/` with it: its journal names files by
 * their relative paths and holds their contents, so in a copy whose every byte is the same it
 * says the same, and `memdir log` / `undo` / `restore` work on the copy as on the original. The
 * copy itself is not a change in that history (it has no record; undo does not take an import
 * back). What never travels: the write lock and its breaker (`.memdir.lock`,
 * `.memdir.lock.break`), a consolidation run's lock (`.memdir/consolidate.lock`), the temporary
 * files of interrupted writes, links leading out of the folder, entries that are not files, and
 * empty folders (a host keeps files; a folder comes with its files). Each is in `skipped`, with
 * the reason.
 *
 * Modification times (recall's ages, doctor's staleness, which files are the newest 200) are
 * carried where the target can take them: `writeFile(path, data, { mtimeMs })`, which the Node
 * host sets on the staged file before naming it and the in-memory host keeps; a host that
 * ignores the option gives its own time, and the result says how many times were kept, checked
 * by a listing of the target after the copy.
 *
 * The copy runs under the target's write lock (`withLock`), so it never interleaves with a
 * writer of the target, and reads the source under the source's lock where it can be taken (a
 * read-only folder cannot be locked: it is read as it is, and `sourceLocked` says so), so a
 * `remember` in the source never lands half in the copy.
 */
import { parseTempFile } from "./core.js";
import { MemdirError } from "./errors.js";
import { listEntries, type HostEntry, type MemoryHost } from "./host.js";
import { ioHost, withIoLock } from "./io.js";
import { BREAK_FILE, LOCK_FILE, withLock, type LockOptions } from "./lock.js";

/** How {@link copyMemory} copies. */
export interface CopyOptions {
  /**
   * A target that holds files already is refused (`INVALID_ARGUMENT`, nothing written) unless
   * `replace`: then it becomes the source's copy, and its files that are not in the source are
   * removed (listed in `removed`).
   */
  replace?: boolean;
  /** The write locks' waits (default: `withLock`'s, 10 s). */
  lock?: LockOptions;
  /** Files read and written at once (default 8: a store's round trips overlap). */
  concurrency?: number;
}

/** A path not copied, and why. */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** What {@link copyMemory} did. */
export interface CopyResult {
  /** Files copied. */
  files: number;
  /** Their bytes. */
  bytes: number;
  /** Paths of the source not copied, each with the reason. */
  skipped: SkippedFile[];
  /** With `replace`: what the target held that the source does not, removed (files and folders). */
  removed: string[];
  /** Files whose modification time the target kept, to the millisecond. */
  timesKept: number;
  /** Files the target gave its own time (a host that cannot set one). */
  timesNotKept: number;
  /** Whether the source was read under its write lock (`false`: it could not be locked, e.g. a read-only folder). */
  sourceLocked: boolean;
}

const codeOf = (error: unknown): string => (error as { code?: unknown } | null)?.code as string;
const UNLOCKABLE = new Set(["EACCES", "EPERM", "EROFS"]);
/** A consolidation run's own lock (js/consolidate.ts): a run in progress in the source is not one in the copy. */
const CONSOLIDATE_LOCK = ".memdir/consolidate.lock";

/** Why `entry` is not copied, or `null` when it is. */
function skipReason(entry: HostEntry): string | null {
  if (entry.path === LOCK_FILE || entry.path === BREAK_FILE) return "the write lock (never copied)";
  if (entry.path === CONSOLIDATE_LOCK) return "a consolidation run's lock (never copied)";
  if (entry.kind === "file" && parseTempFile(entry.path) !== null) return "the temporary file of an interrupted write";
  if (entry.problem === "symlink_escape") return "a symbolic link out of the memory folder";
  if (entry.problem === "symlink") return "a symbolic link";
  if (entry.problem === "unreadable") return "unreadable";
  if (entry.problem) return entry.problem === "not_a_file" ? "not a file" : entry.problem;
  if (entry.kind === "other") return "not a file or folder";
  return null;
}

/** Whether a target entry is one of memdir's own passing files (a lock, a temporary file), which a copy neither counts nor removes. */
function ownFile(path: string): boolean {
  return path === LOCK_FILE || path === BREAK_FILE || parseTempFile(path) !== null;
}

/** `within` is `root` or below it, as roots are written (`/`-separated, or a platform's `\`). */
function inside(root: string, within: string): boolean {
  const r = root.replace(/[\\/]+$/, "");
  return within === r || within.startsWith(`${r}/`) || within.startsWith(`${r}\\`);
}

async function pool<T>(items: T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let k = next++; k < items.length; k = next++) await run(items[k]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}

/**
 * Copies every file of the memory on `from` to `to`, byte for byte, with modification times
 * where `to` can take them, under `to`'s write lock (and `from`'s where it can be taken).
 * Refuses a target that holds files unless `replace`. `MEMORY.md` is written last, so an
 * interrupted copy never has an index naming files that are not there yet; run it again with
 * `replace` to finish.
 */
export async function copyMemory(from: MemoryHost, to: MemoryHost, options: CopyOptions = {}): Promise<CopyResult> {
  if (from === to || from.root === to.root) throw new MemdirError("INVALID_ARGUMENT", `the source and the target are the same memory (${from.root}); nothing was written`);
  if (inside(from.root, to.root) || inside(to.root, from.root)) {
    throw new MemdirError("INVALID_ARGUMENT", `one memory folder is inside the other (${from.root}, ${to.root}): a copy would copy itself${options.replace ? " or remove its source" : ""}; nothing was written`);
  }
  const concurrency = options.concurrency ?? 8;
  const source = ioHost(from);
  // a missing or empty source is not locked: taking its lock would create it
  const empty = (await listEntries(source)).length === 0;
  let entered = false;
  const copy = (sourceLocked: boolean) => {
    entered = true;
    return withIoLock(to, () => copyLocked(source, ioHost(to), sourceLocked, options.replace === true, concurrency), options.lock);
  };
  if (empty) return copy(false);
  try {
    return await withLock(from, () => copy(true), options.lock);
  } catch (error) {
    // a folder this process may not write (read-only, another user's) cannot be locked: read it as it is
    if (entered || !UNLOCKABLE.has(codeOf(error))) throw error;
    return copy(false);
  }
}

async function copyLocked(from: MemoryHost, to: MemoryHost, sourceLocked: boolean, replace: boolean, concurrency: number): Promise<CopyResult> {
  const sourceEntries = await listEntries(from);
  const skipped: SkippedFile[] = [];
  const files: HostEntry[] = [];
  const folders = new Set<string>();
  const fileFolders = new Set<string>();
  for (const entry of sourceEntries) {
    const reason = skipReason(entry);
    if (reason !== null) skipped.push({ path: entry.path, reason });
    else if (entry.kind === "directory") folders.add(entry.path);
    else {
      files.push(entry);
      for (let at = entry.path.indexOf("/"); at >= 0; at = entry.path.indexOf("/", at + 1)) fileFolders.add(entry.path.slice(0, at));
    }
  }
  for (const folder of folders) if (!fileFolders.has(folder)) skipped.push({ path: folder, reason: "an empty folder (a host keeps files; a folder comes with its files)" });
  const sourcePaths = new Set(files.map((f) => f.path));

  // the target: refused when it holds anything but memdir's own passing files, unless `replace`
  const targetEntries = await listEntries(to);
  const held = targetEntries.filter((e) => e.kind !== "directory" && !ownFile(e.path));
  const removed: string[] = [];
  if (held.length > 0 && !replace) {
    throw new MemdirError("INVALID_ARGUMENT", `the target memory ${to.root} is not empty (${held.length} file${held.length === 1 ? "" : "s"}, e.g. ${held[0]!.path}); replace it (--replace) or choose an empty one; nothing was written`);
  }
  if (replace) {
    // folders the source does not have as folders go whole (a folder where the source has a
    // file must go before the file is written), then files the source does not have
    const targetFolders = targetEntries.filter((e) => e.kind === "directory" && !fileFolders.has(e.path)).map((e) => e.path);
    const gone = (path: string) => removed.some((r) => path.startsWith(`${r}/`));
    for (const folder of targetFolders.sort()) {
      if (gone(folder)) continue;
      await to.remove(folder);
      removed.push(folder);
    }
    for (const entry of targetEntries) {
      if (entry.kind === "directory" || ownFile(entry.path) || sourcePaths.has(entry.path) || gone(entry.path)) continue;
      await to.remove(entry.path);
      removed.push(entry.path);
    }
  }

  // the index last: an interrupted copy never has one naming files not there yet
  const order = [...files].sort((a, b) => Number(a.path === "MEMORY.md") - Number(b.path === "MEMORY.md"));
  const last = order.length > 0 && order[order.length - 1]!.path === "MEMORY.md" ? order.pop()! : null;
  let bytes = 0;
  const written = new Map<string, { size: number; mtimeMs: number }>();
  const copyOne = async (entry: HostEntry): Promise<void> => {
    const data = await from.readFile(entry.path);
    await to.writeFile(entry.path, data, { mtimeMs: entry.mtimeMs });
    bytes += data.length;
    written.set(entry.path, { size: data.length, mtimeMs: entry.mtimeMs });
  };
  await pool(order, concurrency, copyOne);
  if (last) await copyOne(last);

  // the target as it is now: every file there at its size, and which times it kept
  let timesKept = 0;
  const found = new Map((await listEntries(to)).map((e) => [e.path, e]));
  for (const [path, want] of written) {
    const got = found.get(path);
    if (!got || got.kind !== "file" || got.size !== want.size) {
      throw new MemdirError("IO_ERROR", `${path} is not in the target as written (${got ? `${got.kind}, ${got.size} bytes` : "missing"}; ${want.size} bytes written): something else wrote to ${to.root} during the copy`, { path });
    }
    if (Math.abs(got.mtimeMs - want.mtimeMs) < 1) timesKept++;
  }
  return { files: written.size, bytes, skipped, removed, timesKept, timesNotKept: written.size - timesKept, sourceLocked };
}
