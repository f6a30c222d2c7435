/**
 * The lock file and its breaker: what is in one, and whether it is stale. A lock is always
 * created whole (written, then linked or renamed into place; not fsynced, so after a power cut it
 * may be empty), so anything else found under its
 * name — garbage, an empty file, JSON without a token, a directory, a symbolic link — is not a
 * live writer's lock and is judged by its modification time alone.
 */
import type { HostEntry, MemoryHost } from "./host.js";

/** The body of a lock or breaker file; `null` fields are unknown (hosts without processes). */
export interface LockBody {
  pid: number | null;
  /** The machine's name. */
  host: string | null;
  /** Linux boot id. */
  boot: string | null;
  /** Linux pid namespace. */
  pidns: string | null;
  /** When it was taken, ms since the epoch, by the owner's clock. */
  at: number;
  /** Unique to one acquisition: whoever removes a lock checks it is the one they judged. */
  token: string;
}

/** What is at a lock path: `body` is `null` when it is not a lock (or could not be read). */
export interface FoundLock {
  entry: HostEntry;
  body: LockBody | null;
  /** A regular file that could not be read (permissions): only time can judge it. */
  unreadable: boolean;
}

/** How long a lock may be held, and how long something that is not a lock is respected. */
export interface StaleLimits {
  staleMs: number;
  graceMs: number;
}

/** A lock body is about 200 bytes; a bigger file is not a lock. */
export const MAX_LOCK_BYTES = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeLock(body: LockBody): Uint8Array {
  return encoder.encode(JSON.stringify(body));
}

/** A lock's body, or `null` when the bytes are not one (not JSON, not an object, no token). */
export function parseLock(bytes: Uint8Array): LockBody | null {
  if (bytes.length > MAX_LOCK_BYTES) return null;
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  if (typeof o.token !== "string" || o.token === "") return null;
  const text = (x: unknown) => (typeof x === "string" && x !== "" ? x : null);
  return {
    pid: typeof o.pid === "number" && Number.isSafeInteger(o.pid) && o.pid > 0 ? o.pid : null,
    host: text(o.host),
    boot: text(o.boot),
    pidns: text(o.pidns),
    at: typeof o.at === "number" && Number.isFinite(o.at) ? o.at : Number.NaN,
    token: o.token,
  };
}

/**
 * What is at `path`, without following a link there (`lstat` where the host has it); `null`
 * when nothing is. Throws `ENOTDIR` when a folder on the way is a file.
 */
export async function inspectLock(host: MemoryHost, path: string): Promise<FoundLock | null> {
  const entry = host.links?.lstat ? await host.links.lstat(path) : await host.stat(path);
  if (entry === null) return null;
  if (entry.kind !== "file" || entry.problem) return { entry, body: null, unreadable: false };
  let bytes: Uint8Array;
  try {
    bytes = await host.readFile(path, MAX_LOCK_BYTES + 1);
  } catch (error) {
    const code = (error as { code?: string })?.code;
    if (code === "ENOENT" || code === "ENOTDIR") return null; // released meanwhile
    return { entry, body: null, unreadable: true };
  }
  return { entry, body: parseLock(bytes), unreadable: false };
}

/** Whether the host can prove the owner gone (same machine, dead pid or earlier boot). */
export async function ownerGone(host: MemoryHost, body: LockBody): Promise<boolean> {
  const ownerAlive = host.locks?.ownerAlive;
  if (!ownerAlive || body.host === null || body.pid === null) return false;
  try {
    return (await ownerAlive.call(host.locks, { host: body.host, pid: body.pid, boot: body.boot, pidns: body.pidns })) === false;
  } catch {
    return false;
  }
}

/** When a file was last written: its mtime, never later than now; unknown (0) counts as long ago. */
function writtenAt(mtimeMs: number, nowMs: number): number {
  return mtimeMs > 0 ? Math.min(mtimeMs, nowMs) : Number.NEGATIVE_INFINITY;
}

/**
 * Whether a lock (or breaker) may be broken: its owner is provably gone (`dead`), or it is older
 * than `staleMs` — by its `at`, or by its file's mtime when `at` is missing or in the future, so
 * a skewed or forged clock cannot make it immortal — or it is not a lock and older than `graceMs`.
 */
export async function judgeLock(host: MemoryHost, found: FoundLock, limits: StaleLimits, nowMs: number): Promise<{ stale: boolean; dead: boolean }> {
  const { entry, body } = found;
  if (body === null) {
    const limit = found.unreadable ? limits.staleMs : limits.graceMs;
    return { stale: nowMs - writtenAt(entry.mtimeMs, nowMs) > limit, dead: false };
  }
  if (await ownerGone(host, body)) return { stale: true, dead: true };
  const since = body.at <= nowMs ? body.at : writtenAt(entry.mtimeMs, nowMs);
  return { stale: nowMs - since > limits.staleMs, dead: false };
}

/** Whether two looks at a path saw the same lock (the same token, or the same non-lock file). */
export function sameLock(a: FoundLock, b: FoundLock): boolean {
  if (a.body && b.body) return a.body.token === b.body.token;
  return !a.body && !b.body && a.entry.kind === b.entry.kind && a.entry.mtimeMs === b.entry.mtimeMs;
}

/** For messages: who holds it and since when. */
export function describeLock(found: FoundLock, nowMs: number): string {
  const { entry, body } = found;
  const age = (t: number) => (Number.isFinite(t) && t > 0 ? `, ${Math.max(0, Math.round((nowMs - t) / 100) / 10)} s old` : "");
  if (body === null) return found.unreadable ? `unreadable${age(entry.mtimeMs)}` : `not a lock file (${entry.problem ?? entry.kind})${age(entry.mtimeMs)}`;
  const who = body.pid === null ? "a writer" : `pid ${body.pid}`;
  return `${who}${body.host ? ` on ${body.host}` : ""}${age(body.at <= nowMs ? body.at : entry.mtimeMs)}`;
}
