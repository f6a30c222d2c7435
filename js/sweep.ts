/**
 * Temporary files left by interrupted writes. Hosts write `.<name>.tmp-<hex>` next to a file and
 * rename it into place; a process killed in between (kill -9, a power cut) leaves it behind.
 * Cleared by the next writer, under the lock, when provably abandoned:
 *
 * - older than `TEMP_GRACE_MS` (by its mtime);
 * - a temporary lock or breaker file (written while *taking* the lock, so outside it) whose body
 *   names an owner the host proves gone, or whose body is no lock (empty or cut: its writer died
 *   between creating it and writing it, one call apart) once older than `lockGraceMs`;
 * - any other temporary file (written only *under* the lock) when the lock just broken belonged
 *   to a writer the host proves gone: no one else was writing.
 *
 * A live writer's temporary files are young, or name a live owner: never touched.
 */
import { parseTempFile } from "./core.js";
import { listEntries, type MemoryHost } from "./host.js";
import { MAX_LOCK_BYTES, ownerGone, parseLock } from "./lock-file.js";

/** A temporary file younger than this may be a live writer's. */
export const TEMP_GRACE_MS = 10_000;
/** A writer that broke no lock sweeps at most this often per host (a sweep lists the directory). */
const SWEEP_EVERY_MS = 60_000;
const lastSweep = new WeakMap<MemoryHost, number>();

export interface SweepOptions {
  /** Names of the files written outside the lock (the lock and its breaker). */
  lockFiles: string[];
  /** The lock this writer broke was held by a writer the host proved gone. */
  holderGone: boolean;
  /** Sweep even if this host was swept a moment ago (a lock was broken: something died). */
  force: boolean;
  /**
   * A temporary lock file whose body is no lock is abandoned once this old (its writer creates it
   * and writes its body in consecutive calls, so a live one is never seen so for long).
   */
  lockGraceMs: number;
}

/**
 * Removes abandoned temporary files; returns their paths, or `null` when this host was swept
 * less than a minute ago and nothing forces it. Best effort: never throws.
 */
export async function sweepTemporaries(host: MemoryHost, options: SweepOptions): Promise<string[] | null> {
  const nowMs = Date.now();
  const last = lastSweep.get(host);
  if (!options.force && last !== undefined && nowMs - last < SWEEP_EVERY_MS) return null;
  lastSweep.set(host, nowMs);
  const removed: string[] = [];
  try {
    for (const entry of await listEntries(host)) {
      const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
      const temp = parseTempFile(entry.path); // the core names temporary files
      if (!temp || entry.kind !== "file" || entry.problem) continue;
      const outsideLock = entry.path === name && options.lockFiles.includes(temp.target);
      let abandoned = entry.mtimeMs > 0 && nowMs - entry.mtimeMs > TEMP_GRACE_MS;
      if (!abandoned && outsideLock) {
        const bytes = await host.readFile(entry.path, MAX_LOCK_BYTES + 1).catch(() => null);
        const body = bytes && parseLock(bytes);
        abandoned = body === null ? bytes !== null && entry.mtimeMs > 0 && nowMs - entry.mtimeMs > options.lockGraceMs : await ownerGone(host, body);
      } else if (!abandoned) {
        abandoned = options.holderGone;
      }
      if (!abandoned) continue;
      try {
        await host.remove(entry.path);
        removed.push(entry.path);
      } catch {
        // gone already, or not ours to remove: left for doctor to report
      }
    }
  } catch {
    // a listing that fails is the write's problem to report, not the sweep's
  }
  return removed;
}
