/**
 * Host failures, mapped once. A host throws whatever its platform throws — Node's errors name
 * the absolute path, VS Code's the URI — and such a message must never reach a model. Through
 * `ioHost`, every failure becomes a `MemdirError` with code `IO_ERROR`, the host's code in
 * `errno`, the relative path in `path`, and a message naming the path as the caller shows it.
 */
import { MemdirError } from "./errors.js";
import type { HostEntry, HostError, HostFastPaths, MemoryHost, WriteRequest } from "./host.js";
import type { Listing } from "./listing.js";
import { LOCK_FILE, withLock, type LockOptions } from "./lock.js";

const WHY: Record<string, string> = {
  ENOENT: "it does not exist",
  EEXIST: "it already exists",
  EISDIR: "it is a folder",
  ENOTDIR: "a folder on its way is a file",
  ENOTEMPTY: "the folder is not empty",
  EINVAL: "it is not a regular file",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENAMETOOLONG: "the name is too long for the file system",
  ELOOP: "too many symbolic links on its way",
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is exhausted",
  EROFS: "the file system is read-only",
  EMFILE: "too many open files",
  EBUSY: "it is busy",
  EIO: "an input/output error",
  // the PostgreSQL host (js/hosts/postgres.ts): a write under a lock that was lost
  ECONFLICT: "another writer changed the memory since this one took its lock (the lock was lost); nothing was written",
};

/** The host's error code (`ENOENT`, Node's `ERR_…`), else `EIO`. */
function errnoOf(error: unknown): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && /^E[A-Z0-9_]+$/.test(code) ? code : "EIO";
}

/**
 * `IO_ERROR` for a host failure: `could not read notes/a.md: it does not exist (ENOENT)`.
 * `shown` is the path as the reader knows it; the host's own message is kept only as `cause`.
 */
export function ioError(action: string, path: string, error: unknown, shown = path): MemdirError {
  if (error instanceof MemdirError) return error;
  // a host that found the path leading out of the memory directory (a folder swapped for a link
  // out while it wrote) says so: that is not an input/output error
  if ((error as { code?: unknown } | null)?.code === "UNSAFE_PATH") {
    return new MemdirError("UNSAFE_PATH", `could not ${action} ${shown}: it leads out of the memory directory through a symbolic link (UNSAFE_PATH)`, { cause: error, path });
  }
  const errno = errnoOf(error);
  return new MemdirError("IO_ERROR", `could not ${action} ${shown}: ${WHY[errno] ?? "the host failed"} (${errno})`, { cause: error, errno, path });
}

/**
 * `host` with every failure mapped by {@link ioError}; `show` turns a relative path into the
 * one a message names (the memory tool shows `/memories/…`). The groups the host has, it keeps
 * (`links` and `fast` mapped; `locks` and `watch` as they are: the lock maps its own failures).
 */
export function ioHost(host: MemoryHost, show: (path: string) => string = (p) => p || "the memory directory"): MemoryHost {
  const mapped = async <T>(action: string, path: string, run: () => Promise<T>, shown = show(path)): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw ioError(action, path, error, shown);
    }
  };
  // failures come back in place: each mapped as a thrown one would be
  const inPlace = <T>(action: string, paths: string[], got: (T | Error)[]): (T | HostError)[] =>
    got.map((g, i) => (g instanceof Error ? (ioError(action, paths[i]!, g, show(paths[i]!)) as unknown as HostError) : g));
  const { links, fast } = host;
  const out: MemoryHost = {
    root: host.root,
    absolutePath: (path) => host.absolutePath(path),
    list: () => mapped<HostEntry[]>("list", "", () => host.list()),
    stat: (path) => mapped("look up", path, () => host.stat(path)),
    readFile: (path, maxBytes) => mapped("read", path, () => host.readFile(path, maxBytes)),
    writeFile: (path, data, options) => mapped("write", path, () => host.writeFile(path, data, options)),
    remove: (path) => mapped("remove", path, () => host.remove(path)),
    rename: (from, to) => mapped("rename", from, () => host.rename(from, to), `${show(from)} to ${show(to)}`),
    ...(host.locks ? { locks: host.locks } : {}),
    ...(host.watch ? { watch: host.watch.bind(host) } : {}),
    ...(host.times ? { times: host.times } : {}),
  };
  if (links) {
    out.links = {
      resolve: (path) => mapped("resolve", path, () => links.resolve(path)),
      ...(links.lstat ? { lstat: (path: string) => mapped("look up", path, () => links.lstat!(path)) } : {}),
      ...(links.lookOutside ? { lookOutside: links.lookOutside.bind(links) } : {}),
    };
  }
  if (fast) {
    const f: HostFastPaths = {};
    if (fast.listing) f.listing = () => mapped<Listing>("list", "", () => fast.listing!());
    if (fast.listKinds) f.listKinds = () => mapped<HostEntry[]>("list", "", () => fast.listKinds!());
    if (fast.readHeads) f.readHeads = async (paths, maxLines) => inPlace("read", paths, await mapped("read", paths[0] ?? "", () => fast.readHeads!(paths, maxLines)));
    if (fast.statMany) f.statMany = async (paths) => inPlace("look up", paths, await mapped("look up", paths[0] ?? "", () => fast.statMany!(paths)));
    if (fast.hold) f.hold = fast.hold.bind(fast);
    if (fast.writeFiles) {
      f.writeFiles = async (files: WriteRequest[]) => {
        try {
          await fast.writeFiles!(files);
        } catch (error) {
          const at = (error as { writePath?: unknown } | null)?.writePath;
          const path = typeof at === "string" ? at : (files[0]?.path ?? "");
          throw ioError("write", path, error, show(path));
        }
      };
    }
    out.fast = f;
  }
  return out;
}

/**
 * `withLock` over the raw host (the lock branches on the host's own codes), with a failure of
 * the lock itself mapped by {@link ioError}. `fn` should do its I/O through an `ioHost`.
 */
export async function withIoLock<T>(host: MemoryHost, fn: () => Promise<T>, lock: LockOptions = {}): Promise<T> {
  try {
    return await withLock(host, fn, lock);
  } catch (error) {
    throw ioError("take or release the write lock", LOCK_FILE, error);
  }
}
