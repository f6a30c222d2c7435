/**
 * One writer at a time: a lock file (`.memdir.lock`) created exclusively in the memory
 * directory. Two processes remembering at once take turns, and each re-reads the index under
 * the lock, so no index line is lost. A lock left by a process that died is broken: at once
 * when its process is gone (same machine), else after `staleMs`.
 */
import { MemdirError } from "./errors.js";
import type { MemoryHost } from "./host.js";

export const LOCK_FILE = ".memdir.lock";

export interface LockOptions {
  /** Give up after this long. Default 10,000 ms. */
  timeoutMs?: number;
  /** A lock older than this is abandoned. Default 30,000 ms. */
  staleMs?: number;
}

interface LockBody {
  pid: number | null;
  host: string | null;
  at: number;
  token: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function processInfo(): { pid: number | null; host: string | null } {
  const proc = (globalThis as { process?: { pid?: number; env?: Record<string, string | undefined> } }).process;
  return { pid: proc?.pid ?? null, host: proc?.env?.HOSTNAME ?? null };
}

/** Whether the process that wrote the lock is gone (only knowable on the same machine, in Node). */
function ownerGone(body: LockBody): boolean {
  const me = processInfo();
  const proc = (globalThis as { process?: { kill?: (pid: number, signal: number) => void } }).process;
  if (body.pid === null || me.pid === null || body.host !== me.host || !proc?.kill) return false;
  try {
    proc.kill(body.pid, 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH";
  }
}

/**
 * Removes the lock carrying `staleToken` if this writer wins the right to; `true` when the
 * lock is gone (by us or anyone), so acquiring can be retried at once.
 */
async function breakLock(host: MemoryHost, staleToken: string, mine: string, staleMs: number): Promise<boolean> {
  const breaker = `${LOCK_FILE}.break-${staleToken.replace(/[^A-Za-z0-9-]/g, "")}`;
  try {
    await host.writeFile(breaker, encoder.encode(mine), { exclusive: true });
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
    // another writer is breaking it; a breaker that died mid-way is cleared after `staleMs`
    const st = await host.stat(breaker).catch(() => null);
    if (st && Date.now() - st.mtimeMs > staleMs) await host.remove(breaker).catch(() => {});
    return false;
  }
  try {
    if ((await readLock(host)).token === staleToken) await host.remove(LOCK_FILE);
  } catch {
    // already gone: nothing to break
  } finally {
    await host.remove(breaker).catch(() => {});
  }
  return true;
}

/** The lock file's body; throws when it is gone or not whole JSON. */
async function readLock(host: MemoryHost): Promise<LockBody> {
  return JSON.parse(decoder.decode(await host.readFile(LOCK_FILE))) as LockBody;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` holding the directory's write lock. */
export async function withLock<T>(host: MemoryHost, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const started = Date.now();
  const token = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  const body: LockBody = { ...processInfo(), at: Date.now(), token };
  for (let attempt = 0; ; attempt++) {
    try {
      body.at = Date.now();
      await host.writeFile(LOCK_FILE, encoder.encode(JSON.stringify(body)), { exclusive: true });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
    }
    const held = await readLock(host).catch(() => null); // vanished, or not whole: try again
    if (held && typeof held.token === "string" && (ownerGone(held) || Date.now() - held.at > staleMs)) {
      if (await breakLock(host, held.token, token, staleMs)) continue;
    }
    if (Date.now() - started > timeoutMs) {
      throw new MemdirError("LOCKED", `the memory directory is locked by another writer (${LOCK_FILE}) for over ${timeoutMs} ms; nothing was written`);
    }
    await sleep(Math.min(50, 2 + attempt * 2) + Math.random() * 10);
  }
  try {
    return await fn();
  } finally {
    if ((await readLock(host).catch(() => null))?.token === token) await host.remove(LOCK_FILE).catch(() => {});
  }
}
