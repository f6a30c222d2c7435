/**
 * Web Locks (`navigator.locks`) for the browser hosts. A Web Lock is shared by every tab and
 * worker of one origin (and storage partition: the same ones that share its OPFS and
 * IndexedDB), and the browser releases it when the tab or worker holding it closes, crashes or
 * is discarded. Three kinds:
 *
 * - `memdir-write:<store>`: held around a whole write (`MemoryHost.locks.exclusive`, taken by
 *   `withLock` before the lock file), so writers in other tabs queue for it, in order, without
 *   polling;
 * - `memdir-io:<store>`: held around one check-and-change of the OPFS host (an exclusive
 *   create, a rename), which OPFS cannot do atomically itself;
 * - `memdir-tab:<id>`: held by this tab (this JavaScript realm) from its first write until it
 *   closes. The lock file names `<id>` as its `pid`, so a lock file whose tab lock nobody holds
 *   was left by a tab that is gone, and is broken at once (`locks.ownerAlive`) instead of after
 *   `staleMs`.
 *
 * Web Locks exist only in secure contexts (https, or http on 127.0.0.1 / localhost). Without
 * them (IndexedDB over plain http), writes still take turns through the lock file, whose
 * exclusive create is one IndexedDB transaction; a lock left by a closed tab is then judged
 * by its age alone.
 */
import { hostError, type LockOwner } from "../host.js";
import { domName } from "./browser-errors.js";

/** The `host` of a lock file written by a browser tab; `ownerAlive` judges only these. */
export const BROWSER_LOCK_OWNER = "browser tab (Web Locks)";

/** How long one OPFS check-and-change may wait for another tab's (they take milliseconds). */
export const IO_LOCK_TIMEOUT_MS = 30_000;

/** This realm's id: a random positive safe integer, so it fits a lock file's `pid`. */
const TAB_ID = (() => {
  const words = new Uint32Array(2);
  globalThis.crypto.getRandomValues(words);
  return (words[0]! % 0x1fffff) * 0x100000000 + words[1]! + 1;
})();

let tabLock: Promise<void> | null = null;

/** `navigator.locks`, or `null` where the browser has none (an insecure context, an old browser). */
export function webLocks(): LockManager | null {
  const locks = (globalThis as { navigator?: { locks?: LockManager } }).navigator?.locks;
  return locks && typeof locks.request === "function" ? locks : null;
}

const tabLockName = (id: number) => `memdir-tab:${id}`;

/** Takes this tab's lock, once; resolves when it is held (it is never released before the tab closes). */
function holdTabLock(locks: LockManager): Promise<void> {
  tabLock ??= new Promise<void>((resolve, reject) => {
    locks
      .request(tabLockName(TAB_ID), () => {
        resolve();
        return new Promise<never>(() => {});
      })
      .catch((error: unknown) => {
        tabLock = null;
        reject(error);
      });
  });
  return tabLock;
}

/** This tab, for the lock file: `{ host: BROWSER_LOCK_OWNER, pid: <this tab's id> }`, once its tab lock is held. */
export async function browserLockOwner(): Promise<LockOwner> {
  const locks = webLocks();
  if (locks === null) throw hostError("ENOTSUP", "Web Locks are not available here");
  await holdTabLock(locks);
  return { host: BROWSER_LOCK_OWNER, pid: TAB_ID };
}

/**
 * Whether the tab that wrote a lock file is still open: its tab lock is held (by it, in any tab
 * or worker of this origin). `null` for a lock file not written by a browser tab, or without Web Locks.
 */
export async function browserOwnerAlive(owner: LockOwner): Promise<boolean | null> {
  const locks = webLocks();
  if (locks === null || owner.host !== BROWSER_LOCK_OWNER || !Number.isSafeInteger(owner.pid) || owner.pid <= 0) return null;
  const { held = [] } = await locks.query();
  return held.some((lock) => lock.name === tabLockName(owner.pid));
}

/**
 * Runs `fn` holding the Web Lock `name` (exclusive, or `shared` with other shared holders),
 * waiting at most `timeoutMs` for it; rejects with `ETIMEDOUT` when it is not granted in time.
 * Without Web Locks, runs `fn` at once. `fn`'s own result or failure passes through.
 */
export async function withWebLock<T>(name: string, fn: () => Promise<T>, timeoutMs: number, mode: LockMode = "exclusive"): Promise<T> {
  const locks = webLocks();
  if (locks === null) return fn();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.max(0, timeoutMs));
  let granted = false;
  try {
    return (await locks.request(name, { mode, signal: controller.signal }, () => {
      granted = true;
      clearTimeout(timer);
      return fn();
    })) as T;
  } catch (error) {
    if (granted) throw error;
    if (domName(error) === "AbortError") throw hostError("ETIMEDOUT", `the Web Lock ${name} was not granted within ${timeoutMs} ms`);
    const failed = hostError("EACCES", `the Web Lock ${name} could not be requested: ${(error as Error)?.message ?? error}`);
    failed.cause = error;
    throw failed;
  } finally {
    clearTimeout(timer);
  }
}
