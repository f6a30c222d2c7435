/**
 * The host side of every write: read what the core's plan asks for, then apply the effects
 * it decided. Nothing here decides whether a write is allowed.
 */
import type { Effect, ReadPlan, Snapshot } from "./core.js";
import { listEntries, readHeads, type HostEntry, type MemoryHost, type WriteRequest } from "./host.js";
import { bounded } from "./bounded.js";
import { Listing } from "./listing.js";
import { topicOrder } from "./scan-session.js";

const encoder = new TextEncoder();

/** What to read: the core's plan (`rememberReadPlan`, `forgetReadPlan`, `doctorReadPlan`, a memory-tool plan). */
export interface SnapshotRequest extends Partial<Omit<ReadPlan, "readBytes">> {
  /** Whole files are read up to this many bytes (the core's `fileReadBytes`: one past `maxFileBytes`). */
  readBytes: number;
  /**
   * `false`: stat only the named paths instead of listing the directory. `"kinds"`: list the
   * paths, kinds and problems alone (`MemoryHost.listKinds`), and stat the named paths for
   * their sizes and times. Default `true`.
   */
  list?: boolean | "kinds";
}

/** What an opened memory's cache already holds of files that are as their entries say. */
export interface HeldReads {
  /** The head already read: it is not read again. */
  head?: (entry: HostEntry, maxLines: number) => Uint8Array | undefined;
  /**
   * The `name` and `description` a scan of that head parsed: the head then does not cross
   * into the core again (it reads them from the snapshot's `scanned`). Not asked for a file the
   * request names (`read`, `resolve`): that one is read.
   */
  header?: (entry: HostEntry) => readonly [string | null, string | null] | undefined;
}

/**
 * Lists the directory and reads what was asked, concurrently. Files that vanished are left out;
 * any other read failure throws. `held` gives what an opened memory's cache already holds.
 */
export async function takeSnapshot(
  host: MemoryHost,
  request: SnapshotRequest,
  concurrency = 16,
  held: HeldReads = {},
): Promise<Snapshot & { entries: NonNullable<Snapshot["entries"]>; contents: Record<string, Uint8Array> }> {
  const named = [...new Set([...(request.read ?? []), ...(request.resolve ?? [])])].filter((p) => p !== "");
  // every stat is waited for, a failed one too, so nothing is left open when this throws
  const listed = request.list === false ? (await bounded(named, concurrency, (p) => host.stat(p))).filter((e) => e !== null) : request.list === "kinds" && host.fast?.listKinds ? await kindsWithNamed(host, named, concurrency) : await listEntries(host);
  // no `problem` key where there is none: one field fewer for the core to decode on each entry
  const entries = listed.map((e) => (e.problem ? { path: e.path, kind: e.kind, size: e.size, mtimeMs: e.mtimeMs, problem: e.problem } : { path: e.path, kind: e.kind, size: e.size, mtimeMs: e.mtimeMs }));
  const files = new Set(listed.filter((e) => e.kind === "file" && !e.problem).map((e) => e.path));
  const contents: Record<string, Uint8Array> = {};
  const whole = new Set((request.read ?? []).filter((p) => files.has(p)));
  // which files are topic files is the core's rule: its scan plan lists them
  const topics = request.heads || request.allTopics ? topicOrder(Listing.fromEntries(listed)).map((i) => listed[i]!.path) : [];
  if (request.allTopics) for (const p of topics) whole.add(p);
  const byPath = new Map(listed.map((e) => [e.path, e]));
  const heads: string[] = [];
  const scanned: [string, string | null, string | null][] = [];
  if (request.heads) {
    const namedPaths = new Set(named);
    for (const p of topics) {
      if (whole.has(p)) continue;
      const entry = byPath.get(p)!;
      const header = namedPaths.has(p) ? undefined : held.header?.(entry);
      if (header) {
        scanned.push([p, header[0], header[1]]);
        continue;
      }
      const bytes = held.head?.(entry, request.heads);
      if (bytes) contents[p] = bytes;
      else heads.push(p);
    }
  }
  await bounded([...whole], concurrency, async (p) => {
    try {
      contents[p] = await host.readFile(p, request.readBytes);
    } catch (error) {
      // vanished since the listing: the core treats it as not there. Any other failure
      // (EACCES, EIO, EMFILE, …) stops the write: deciding without a file that is there
      // would write an index without its entries.
      if (!vanished(error)) throw error;
    }
  });
  const read = await readHeads(host, heads, request.heads!, concurrency);
  heads.forEach((p, i) => {
    const got = read[i]!;
    if (!(got instanceof Error)) contents[p] = got.bytes;
    else if (!vanished(got)) throw got; // as above
  });
  const resolved: Record<string, string | null> = {};
  if (host.links) for (const p of request.resolve ?? []) if (p !== "") resolved[p] = await host.links.resolve(p);
  return { entries, contents, resolved, ...(scanned.length ? { scanned: JSON.stringify(scanned) } : {}) };
}

/**
 * The listing's kinds (`listKinds`), with the size and time of each named path that is a file
 * or folder as the listing says (a read whole checks the size it was listed with).
 *
 * A named path whose look-up fails is left as the listing says when the listing does not make
 * it a file to read (a UNIX socket cannot be opened, a link to one leads nowhere readable: the
 * listing says what they are, as `list()` would): only a file read whole needs its size.
 */
async function kindsWithNamed(host: MemoryHost, named: string[], concurrency: number): Promise<HostEntry[]> {
  // both waited for, a failed one too, so nothing is left open when this throws
  const [listed, looked] = await Promise.allSettled([host.fast!.listKinds!(), bounded(named, concurrency, (p) => host.stat(p).catch((error: unknown) => ({ path: p, error })))]);
  if (listed.status === "rejected") throw listed.reason;
  if (looked.status === "rejected") throw looked.reason;
  const kinds = listed.value;
  const byPath = new Map(kinds.map((e) => [e.path, e]));
  for (const s of looked.value) {
    if (s === null || !("error" in s)) continue;
    const e = byPath.get(s.path);
    if (e && e.kind === "file" && !e.problem) throw s.error; // to be read whole, without the size to check it by
  }
  const stats = new Map(looked.value.filter((e): e is HostEntry => e !== null && !("error" in e)).map((e) => [e.path, e]));
  return kinds.map((e) => {
    const s = stats.get(e.path);
    return s && s.kind === e.kind && !s.problem && !e.problem ? { ...e, size: s.size, mtimeMs: s.mtimeMs } : e;
  });
}

/** A read that failed because the file is no longer there as a file (code, or `errno` of an `IO_ERROR`). */
function vanished(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null;
  return ["ENOENT", "ENOTDIR", "EISDIR", "EINVAL"].includes(String(e?.errno ?? e?.code ?? ""));
}

/** Applies the core's effects in order; each write is atomic on the host. */
export async function applyEffects(host: MemoryHost, effects: Effect[]): Promise<void> {
  for (let i = 0; i < effects.length; ) {
    const effect = effects[i]!;
    if (effect.op !== "write") {
      if (effect.op === "remove") await host.remove(effect.path);
      else if (effect.op === "rename") await host.rename(effect.from, effect.to);
      else await host.writeFile(effect.to, await host.readFile(effect.from)); // copy: a history blob brought back
      i++;
      continue;
    }
    // writes in a row (a memory, then the index) reach the disk together, then are named in order
    const writes: WriteRequest[] = [];
    for (; i < effects.length; i++) {
      const e = effects[i]!;
      if (e.op !== "write") break;
      writes.push({ path: e.path, data: encoder.encode(e.text), exclusive: e.exclusive });
    }
    if (writes.length > 1 && host.fast?.writeFiles) await host.fast.writeFiles(writes);
    else for (const w of writes) await host.writeFile(w.path, w.data, { exclusive: w.exclusive });
  }
}
