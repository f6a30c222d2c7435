/**
 * Memory directories kept in the browser, for pages and workers:
 *
 * ```ts
 * import { init, openMemory, browserHost } from "memdir/browser";
 * await init();
 * const host = await browserHost("project-x"); // host.backend: "opfs" or "indexeddb"
 * const memory = await openMemory({ host });
 * ```
 *
 * `OpfsHost` keeps a memory as real files in the Origin Private File System; `IndexedDbHost`
 * as records in IndexedDB, where OPFS cannot be used. Both keep it per origin, across reloads
 * and restarts, until the user clears the site's data. Writes are atomic, and one tab writes
 * at a time (a Web Lock, then memdir's lock file; see browser-locks.ts).
 */
import { MemdirError } from "../errors.js";
import { IndexedDbHost, idbDatabaseName } from "./browser-idb.js";
import { OpfsHost, opfsSupport } from "./browser-opfs.js";

export { IndexedDbHost, type IndexedDbHostOptions, type StoredFile } from "./browser-idb.js";
export { OpfsHost } from "./browser-opfs.js";

/**
 * The memory `name` in this browser's best storage: OPFS where it can be used (a secure
 * context with OPFS, writable file streams and Web Locks), else IndexedDB; `host.backend` says
 * which. A memory already kept in IndexedDB stays there (the browser may have gained OPFS
 * since). Throws `INVALID_ARGUMENT` for a bad name, `IO_ERROR` (`errno: "ENOTSUP"`) when
 * neither storage can be used.
 */
export async function browserHost(name: string): Promise<OpfsHost | IndexedDbHost> {
  if (opfsSupport() === null && !(await inIndexedDb(name))) {
    try {
      return await OpfsHost.open(name);
    } catch (error) {
      if (!(error instanceof MemdirError) || error.errno !== "ENOTSUP") throw error;
      // OPFS refused (a private window in some browsers): IndexedDB
    }
  }
  return IndexedDbHost.open(name);
}

/** Whether the database of the memory `name` already exists (`indexedDB.databases()`, where the browser has it). */
async function inIndexedDb(name: string): Promise<boolean> {
  try {
    const databases = await globalThis.indexedDB?.databases?.();
    return databases?.some((db) => db.name === idbDatabaseName(name)) ?? false;
  } catch {
    return false;
  }
}
