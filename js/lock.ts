/**
 * One writer at a time: a lock file (`.memdir.lock`) created exclusively in the memory
 * directory, whole (`{pid, host, boot, pidns, at, token}`). Two processes remembering at once
 * take turns, and each re-reads the index under the lock, so no index line is lost.
 *
 * A lock is broken when it is stale (lock-file.ts): at once when the host proves its owner gone
 * (same machine: the pid is dead or from an earlier boot), else once it is older than `staleMs`;
 * something under its name that is not a lock, once its mtime is a short grace old. Breaking is
 * itself exclusive (`.memdir.lock.break`, with the breaker's own body) and re-judges the lock
 * under it, so two writers that find one stale lock never both take it; a breaker whose owner is
 * provably gone is cleared at once, any other after a bound shorter than the timeout. Under the
 * lock, the temporary files of interrupted writes are cleared (sweep.ts). The protocol, and what
 * it does not guarantee across machines, is written down in docs/writing.md ("Locking").
 */
import { MemdirError } from "./errors.js";
import type { MemoryHost } from "./host.js";
import { describeLock, encodeLock, inspectLock, judgeLock, MAX_LOCK_BYTES, parseLock, sameLock, type FoundLock, type LockBody, type StaleLimits } from "./lock-file.js";
import { sweepTemporaries } from "./sweep.js";

export const LOCK_FILE = ".memdir.lock";
/** Held, exclusively, while a writer breaks a stale lock. */
export const BREAK_FILE = ".memdir.lock.break";

export interface LockOptions {
  /** Give up after this long. Default 10,000 ms. */
  timeoutMs?: number;
  /** A lock older than this is abandoned. Default 30,000 ms. */
  staleMs?: number;
}

/** Something under the lock's name that is not a lock is respected this long (by its mtime). */
const NOT_A_LOCK_GRACE_MS = 2_000;
/** A breaker whose owner cannot be judged is cleared after this (breaking takes milliseconds). */
const BREAKER_STALE_MS = 2_000;
/** Immediate retries in a row (after a lock vanished or was broken) before backing off again. */
const MAX_FAST_RETRIES = 3;

interface Limits extends StaleLimits {
  /** The breaker's bound: min(BREAKER_STALE_MS, staleMs, timeoutMs / 2). */
  breakerMs: number;
}

type BreakOutcome = "broken" | "ownerGone" | "retry" | "wait";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const codeOf = (error: unknown) => (error as { code?: string } | null)?.code ?? "";

function newToken(): string {
  const random = new Uint8Array(9);
  if (typeof globalThis.crypto?.getRandomValues === "function") globalThis.crypto.getRandomValues(random);
  else for (let i = 0; i < random.length; i++) random[i] = Math.floor(Math.random() * 256);
  return `${Date.now().toString(36)}-${Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

async function removeIfThere(host: MemoryHost, path: string): Promise<void> {
  try {
    await host.remove(path);
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw error;
  }
}

/**
 * Removes `path` if it still carries `token` (ours); `false` when it may still be there (the
 * host failed). A breaker left behind is cleared by the next writer that needs it; a lock, see
 * {@link releaseLock}.
 */
async function removeOwn(host: MemoryHost, path: string, token: string): Promise<boolean> {
  try {
    if (parseLock(await host.readFile(path, MAX_LOCK_BYTES + 1))?.token === token) await host.remove(path);
    return true;
  } catch (error) {
    return ["ENOENT", "ENOTDIR"].includes(codeOf(error)); // nothing there to remove
  }
}

/**
 * Tokens of locks this process held, whose release failed (the host failed to read or remove
 * the file). Their writes are over, so this process's next writer breaks them at once instead
 * of waiting `staleMs` for its own live pid to go stale. Other processes judge them as usual.
 */
const leftBehind = new Set<string>();
const ours = (found: FoundLock | null) => found?.body != null && leftBehind.has(found.body.token);

/** Releases the lock with `token`, or remembers it as left behind. */
async function releaseLock(host: MemoryHost, token: string): Promise<void> {
  if (!(await removeOwn(host, LOCK_FILE, token))) leftBehind.add(token);
}

/**
 * Clears a breaker left by a writer that is gone (at once when the host proves it, else after
 * `breakerMs`); `true` when there is no breaker any more.
 */
async function clearBreaker(host: MemoryHost, limits: Limits): Promise<boolean> {
  const found = await inspectLock(host, BREAK_FILE);
  if (found === null) return true;
  const bound = { staleMs: limits.breakerMs, graceMs: limits.breakerMs };
  if (!(await judgeLock(host, found, bound, Date.now())).stale) return false;
  // another writer may have cleared it and taken its own meanwhile: remove only the one judged
  const again = await inspectLock(host, BREAK_FILE);
  if (again === null) return true;
  if (!sameLock(found, again)) return false;
  await removeIfThere(host, BREAK_FILE);
  return true;
}

/** Takes the breaker and, holding it, removes the lock if it is (still) stale. */
async function breakStale(host: MemoryHost, me: LockBody, limits: Limits): Promise<BreakOutcome> {
  try {
    await host.writeFile(BREAK_FILE, encodeLock({ ...me, at: Date.now() }), { exclusive: true, durable: false });
  } catch (error) {
    if (codeOf(error) !== "EEXIST") throw error;
    return (await clearBreaker(host, limits)) ? "retry" : "wait";
  }
  try {
    // judged again under the breaker: another writer may have broken it and taken a new lock
    const found = await inspectLock(host, LOCK_FILE);
    if (found === null) return "retry";
    // a lock this process failed to release: its write is over, nobody else was writing
    const verdict = ours(found) ? { stale: true, dead: true } : await judgeLock(host, found, limits, Date.now());
    if (!verdict.stale) return "wait";
    await removeIfThere(host, LOCK_FILE);
    if (ours(found)) leftBehind.delete(found.body!.token);
    return verdict.dead ? "ownerGone" : "broken";
  } finally {
    await removeOwn(host, BREAK_FILE, me.token);
  }
}

function notADirectory(host: MemoryHost, cause: unknown): MemdirError {
  return new MemdirError("NOT_A_DIRECTORY", `${host.root} is not a directory (it, or a folder above it, is a file); nothing was written`, { cause });
}

/**
 * Runs `fn` holding the directory's write lock (and the directory kept open, where the host
 * can): the host's own lock first where it has one (`locks.exclusive`: a Web Lock in the browser),
 * then the lock file; each wait is bounded by `timeoutMs`.
 */
export async function withLock<T>(host: MemoryHost, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  return host.fast?.hold ? host.fast.hold(() => hostLockThenFile(host, fn, options)) : hostLockThenFile(host, fn, options);
}

async function hostLockThenFile<T>(host: MemoryHost, fn: () => Promise<T>, options: LockOptions): Promise<T> {
  const locks = host.locks;
  if (!locks?.exclusive) return withLockFile(host, fn, options);
  const timeoutMs = options.timeoutMs ?? 10_000;
  let granted = false;
  try {
    return await locks.exclusive(() => {
      granted = true;
      return withLockFile(host, fn, options);
    }, timeoutMs);
  } catch (error) {
    if (granted || codeOf(error) !== "ETIMEDOUT") throw error;
    throw new MemdirError("LOCKED", `the memory directory is locked by another writer (the host's write lock, a Web Lock in the browser) for over ${timeoutMs} ms; nothing was written`, { cause: error });
  }
}

async function withLockFile<T>(host: MemoryHost, fn: () => Promise<T>, options: LockOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const limits: Limits = { staleMs, graceMs: Math.min(NOT_A_LOCK_GRACE_MS, staleMs), breakerMs: Math.min(BREAKER_STALE_MS, staleMs, timeoutMs / 2) };
  const started = Date.now();
  const owner = host.locks?.owner ? await host.locks.owner().catch(() => null) : null;
  const body: LockBody = { pid: owner?.pid ?? null, host: owner?.host ?? null, boot: owner?.boot ?? null, pidns: owner?.pidns ?? null, at: started, token: newToken() };
  let broke = false;
  let holderGone = false;
  try {
    let found: FoundLock | null = null;
    for (let attempt = 0, fast = 0; ; attempt++) {
      try {
        body.at = Date.now();
        // not made durable: a lock lost to a power cut is a lock nobody holds (its writer died
        // with it), and one left half-written is judged by its age as anything else is
        await host.writeFile(LOCK_FILE, encodeLock(body), { exclusive: true, durable: false });
        break;
      } catch (error) {
        if (codeOf(error) !== "EEXIST") {
          // the lock may be in place though the write failed after (its temporary file not removed)
          await releaseLock(host, body.token);
          throw error;
        }
      }
      found = await inspectLock(host, LOCK_FILE);
      // ours after all: the create succeeded but its reply was lost and retried (NFS)
      if (found?.body?.token === body.token) break;
      let outcome: BreakOutcome = found === null ? "retry" : "wait";
      if (found !== null && (ours(found) || (await judgeLock(host, found, limits, Date.now())).stale)) outcome = await breakStale(host, body, limits);
      if (outcome === "broken" || outcome === "ownerGone") broke = true;
      if (outcome === "ownerGone") holderGone = true;
      if (Date.now() - started > timeoutMs) {
        const held = found === null ? "" : `: ${describeLock(found, Date.now())}`;
        throw new MemdirError("LOCKED", `the memory directory is locked by another writer (${LOCK_FILE}${held}) for over ${timeoutMs} ms; nothing was written`);
      }
      if (outcome !== "wait" && fast++ < MAX_FAST_RETRIES) continue;
      fast = 0;
      await sleep(Math.min(50, 2 + attempt * 2) + Math.random() * 10);
    }
  } catch (error) {
    if (codeOf(error) === "ENOTDIR") throw notADirectory(host, error);
    throw error;
  }
  try {
    const swept = await sweepTemporaries(host, { lockFiles: [LOCK_FILE, BREAK_FILE], holderGone, force: broke, lockGraceMs: limits.graceMs });
    // a breaker left by a writer killed after it broke a lock would hold up the next break
    if (swept !== null) await clearBreaker(host, limits).catch(() => false);
    return await fn();
  } finally {
    await releaseLock(host, body.token);
  }
}
