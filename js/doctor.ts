/**
 * `doctor`: read every file, let the core check them, and — for `--fix` — apply only the
 * safe fixes the core planned, after showing their diff. Fixes are re-planned under the
 * write lock and applied only if nothing changed since the diff was shown.
 */
import { doctorReadPlan, outsideLinks, planDoctorFixes, runDoctor } from "./core.js";
import type { DoctorInput, DoctorReport, FixPlan, Limits, SnapshotEntry } from "./core.js";
import { MemdirError } from "./errors.js";
import type { HostEntry, MemoryHost } from "./host.js";
import { Listing } from "./listing.js";
import { ioHost, withIoLock } from "./io.js";
import type { LockOptions } from "./lock.js";
import { applyJournaled, recoverInterrupted, type HistoryOptions } from "./history.js";
import { takeSnapshot } from "./snapshot.js";

export interface DoctorOptions {
  /** Days after which a user or feedback memory is reported. Default 90. */
  staleCoreDays?: number;
}

async function input(host: MemoryHost, limits: Limits, nowMs: number, options: DoctorOptions): Promise<DoctorInput> {
  const plan = doctorReadPlan(limits);
  const snapshot = await takeSnapshot(ioHost(host), plan);
  // links of the index (the one file the plan names) that leave the folder: the host's to look up, where it can
  const index = plan.read.map((p) => snapshot.contents[p]).find((c) => c !== undefined);
  const outside: Record<string, boolean | null> = {};
  for (const link of index ? outsideLinks(decoder.decode(index)) : []) {
    outside[link] = host.links?.lookOutside ? await host.links.lookOutside(link).catch(() => null) : null;
  }
  return { entries: await hostTimes(host, snapshot.entries), contents: snapshot.contents, nowMs, limits, staleCoreDays: options.staleCoreDays ?? null, outside };
}

/** `entries` with the host's times (`MemoryHost.times`: git's, rules §1.3) in place of their mtimes, where it has them. */
async function hostTimes(host: MemoryHost, entries: SnapshotEntry[]): Promise<SnapshotEntry[]> {
  const listing = () => Listing.fromEntries(entries.map((e): HostEntry => ({ path: e.path, kind: e.kind, size: e.size ?? 0, mtimeMs: e.mtimeMs ?? Number.NaN })));
  const overlay = host.times ? await host.times.of(listing()).catch(() => null) : null;
  if (!overlay) return entries;
  return entries.map((e, i) => {
    const t = overlay.timesMs[i]!;
    return Number.isNaN(t) ? e : { ...e, mtimeMs: t };
  });
}

const decoder = new TextDecoder();

export async function doctorReport(host: MemoryHost, limits: Limits, nowMs: number, options: DoctorOptions = {}): Promise<DoctorReport> {
  return runDoctor(await input(host, limits, nowMs, options));
}

export async function doctorFixPlan(host: MemoryHost, limits: Limits, nowMs: number, options: DoctorOptions = {}): Promise<FixPlan> {
  return planDoctorFixes(await input(host, limits, nowMs, options));
}

/**
 * Applies `plan` if the directory still gives the same plan; returns the report after.
 * Throws `CHANGED` when something changed since the plan was made (nothing is written),
 * `LOCKED` or `IO_ERROR` when the directory could not be written.
 */
export async function applyDoctorFixes(host: MemoryHost, plan: FixPlan, limits: Limits, nowMs: number, options: DoctorOptions = {}, lock: LockOptions = {}, history: HistoryOptions = {}): Promise<DoctorReport> {
  if (typeof plan?.diff !== "string") throw new MemdirError("INVALID_ARGUMENT", "invalid argument: applyFixes takes the plan `planFixes` returned");
  return withIoLock(
    host,
    async () => {
      await recoverInterrupted(ioHost(host), limits);
      const again = await doctorFixPlan(host, limits, nowMs, options);
      if (again.diff !== plan.diff) {
        throw new MemdirError("CHANGED", "the memory directory changed since the fixes were planned; nothing was written — run doctor again");
      }
      await applyJournaled(ioHost(host), again.effects, { ...history, route: "doctor", nowMs, limits });
      return doctorReport(host, limits, nowMs, options);
    },
    lock,
  );
}
