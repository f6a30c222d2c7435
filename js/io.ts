/**
 * Host failures, mapped once. A host throws whatever its platform throws — Node's errors name
 * the absolute path, VS Code's the URI — and such a message must never reach a model. Through
 * `ioHost`, every failure becomes a `MemdirError` with code `IO_ERROR`, the host's code in
 * `errno`, the relative path in `path`, and a message naming the path as the caller shows it.
 */
import { MemdirError } from "./errors.js";
import type { HostEntry, HostError, MemoryHost, WriteRequest } from "./host.js";
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
 * one a message names (the memory tool shows `/memories/…`). Hosts without `resolve` stay so.
 */
export function ioHost(host: MemoryHost, show: (path: string) => string = (p) => p || "the memory directory"): MemoryHost {
  const mapped = async <T>(action: string, path: string, run: () => Promise<T>, shown = show(path)): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw ioError(action, path, error, shown);
    }
  };
  const resolve = host.resolve?.bind(host);
  const listing = host.listing?.bind(host);
  const listKinds = host.listKinds?.bind(host);
  const readHeads = host.readHeads?.bind(host);
  const statMany = host.statMany?.bind(host);
  const writeFiles = host.writeFiles?.bind(host);
  // failures come back in place: each mapped as a thrown one would be
  const inPlace = <T>(action: string, paths: string[], got: (T | Error)[]): (T | HostError)[] =>
    got.map((g, i) => (g instanceof Error ? (ioError(action, paths[i]!, g, show(paths[i]!)) as unknown as HostError) : g));
  return {
    root: host.root,
    absolutePath: (path) => host.absolutePath(path),
    list: () => mapped<HostEntry[]>("list", "", () => host.list()),
    ...(listing ? { listing: () => mapped<Listing>("list", "", () => listing()) } : {}),
    ...(listKinds ? { listKinds: () => mapped<HostEntry[]>("list", "", () => listKinds()) } : {}),
    stat: (path) => mapped("look up", path, () => host.stat(path)),
    readHead: (path, maxLines) => mapped("read", path, () => host.readHead(path, maxLines)),
    readFile: (path, maxBytes) => mapped("read", path, () => host.readFile(path, maxBytes)),
    writeFile: (path, data, options) => mapped("write", path, () => host.writeFile(path, data, options)),
    remove: (path) => mapped("remove", path, () => host.remove(path)),
    rename: (from, to) => mapped("rename", from, () => host.rename(from, to), `${show(from)} to ${show(to)}`),
    ...(resolve ? { resolve: (path: string) => mapped("resolve", path, () => resolve(path)) } : {}),
    ...(readHeads ? { readHeads: async (paths: string[], maxLines: number) => inPlace("read", paths, await mapped("read", paths[0] ?? "", () => readHeads(paths, maxLines))) } : {}),
    ...(writeFiles
      ? {
          writeFiles: async (files: WriteRequest[]) => {
            try {
              await writeFiles(files);
            } catch (error) {
              const path = (error as { writePath?: unknown } | null)?.writePath;
              throw ioError("write", typeof path === "string" ? path : (files[0]?.path ?? ""), error, show(typeof path === "string" ? path : (files[0]?.path ?? "")));
            }
          },
        }
      : {}),
    ...(statMany ? { statMany: async (paths: string[]) => inPlace("look up", paths, await mapped("look up", paths[0] ?? "", () => statMany(paths))) } : {}),
  };
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
