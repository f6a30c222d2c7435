/**
 * What an opened memory keeps between turns: the last listing, the heads it read, and the
 * last scan. A turn re-reads only what changed, and calls the core only when something did.
 *
 * A change is seen by its key: kind, size, mtime, and where the host has them ctime and inode
 * (an edit that keeps size and mtime changes ctime; a file replaced by another has a new
 * inode). A head read within a moment of its file's last change is "racy" (a second edit in
 * the same clock tick would keep every key) and is read again next turn, as git does.
 *
 * Without a watcher, every turn lists the directory (one `lstat` an entry) and compares keys.
 * With one (one watch a folder, where the host offers it), a turn checks only the folders
 * (an added, removed or renamed file changes its folder's key: its mtime, or where a folder has
 * none, as in the browser hosts, an `ino` made of its names) and the names the watcher
 * reported. The heads it holds (the newest files, whose edits change the answer) are checked
 * right after each turn, off the turn's path: an edit of one that the watcher missed, made
 * before that check, is seen at the next turn; one made after it, by the check after the next
 * turn or the background listing, whichever comes first (`trustWatcher: false` checks them at
 * the start of every turn instead). A full listing runs in the background at least every
 * `fullCheckMs`, so an edit of an older file the watcher missed is seen by then. Writes through
 * memdir tell the cache at once, without waiting for an event.
 */
import type { LexicalSelection, Limits, Memory, ScanResult, SelectionInput, SelectionRequest } from "./core.js";
import { readHeads, type HostEntry, type HostError, type HostWatcher, type MemoryHost, type TimesOverlay } from "./host.js";
import { ioHost } from "./io.js";
import { Listing } from "./listing.js";
import { ScanSession, type LexicalAmong } from "./scan-session.js";
import { due, immediate, pause } from "./slice.js";


/** memdir's own folder (`.memdir`: the history, rules §4.6): no scan reads it, so no change in it is news. */
const ownFolder = (path: string): boolean => path === ".memdir" || path.startsWith(".memdir/");

/**
 * What a cache holds outside itself: the core's scan session (in the wasm module's memory), the host's
 * watchers (`fs.watch` handles, which the runtime keeps alive on their own) and the timer of the
 * background listing. Kept apart from the cache, which nothing here refers to, so that a cache
 * dropped without `close()` can be collected and these given back (see {@link dropped}).
 */
interface Owned {
  session: ScanSession;
  watchers: Map<string, HostWatcher>;
  background: ReturnType<typeof setTimeout> | null;
}

/** Closes the watchers, stops the background listing, gives the session back; again is nothing. */
function release(owned: Owned): void {
  owned.session.close();
  for (const w of owned.watchers.values()) w.close();
  owned.watchers.clear();
  if (owned.background) clearTimeout(owned.background);
  owned.background = null;
}

/**
 * A cache dropped without `close()` releases what it owns once it is collected. It can be: the
 * watchers' callbacks and the background timer, which the runtime holds for as long as they
 * are open, reach the cache only through a `WeakRef` (an opened memory dropped without `close()`
 * was never freed: 150 of them on 200 files held ~26 MB of heap).
 */
const dropped = typeof FinalizationRegistry === "function" ? new FinalizationRegistry<Owned>(release) : null;

/** A reference to `target` that does not keep it alive (a strong one where the runtime has no `WeakRef`). */
function weakly<T extends object>(target: T): { deref(): T | undefined } {
  return typeof WeakRef === "function" ? new WeakRef(target) : { deref: () => target };
}

/** How an opened memory keeps its scan between turns. */
export interface ScanCacheOptions {
  /** Keep the last scan and re-read only what changed. Default `true`. */
  enabled?: boolean;
  /** Watch the folders where the host can. Default `true`. */
  watch?: boolean;
  /** With watchers, list everything (in the background) at least this often, ms. Default 10,000. */
  fullCheckMs?: number;
  /**
   * With watchers, a turn checks only the folders and the files a watcher reported; the files
   * whose heads it holds (the newest `maxFiles`) are checked right after the turn instead, so an
   * edit the watcher missed is seen a turn late (or by the background listing, at most
   * `fullCheckMs` later). Default `true`. `false` checks them at the start of every turn as
   * well (one `lstat` each: ~1 ms for 200 files on Node).
   */
  trustWatcher?: boolean;
}

/** A scan and the heads it read (the offline selector compares their bodies too). */
export interface Scanned {
  result: ScanResult;
  heads: Record<string, Uint8Array | string>;
}

interface Held {
  bytes: Uint8Array;
  /** The file as it was when the head was read. */
  key: HostEntry;
  /** Read within a clock tick of its file's last change: read again next turn. */
  racy: boolean;
}

/** A change this close to a read may share its timestamps with a later one (file systems with fine timestamps). */
const RACY_FINE_MS = 100;
/** The same for file systems that keep whole seconds (FAT keeps two). */
const RACY_COARSE_MS = 2_000;

/** Whether two looks at a file saw it unchanged: kind, size, mtime, ctime, inode, problem. */
export function sameFile(a: HostEntry, b: HostEntry): boolean {
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.kind === b.kind && a.problem === b.problem;
}

function racy(e: HostEntry, nowMs: number): boolean {
  const changed = Math.max(e.mtimeMs, e.ctimeMs ?? e.mtimeMs);
  const window = changed % 1000 === 0 ? RACY_COARSE_MS : RACY_FINE_MS;
  return nowMs - changed < window;
}

/** Names a watcher may report between turns before the next turn lists everything instead. */
const MAX_DIRTY = 1024;

/** A listing this long has each core call start a turn of the event loop of its own (a plan or scan of it takes milliseconds). */
const LARGE_LISTING = 2_000;

function isError(value: unknown): value is HostError {
  return value instanceof Error;
}

function errorCode(error: unknown): string {
  return (error as { code?: string })?.code ?? "";
}

export class ScanCache {
  /** The last listing (a check makes a new one with what it found changed: never changed in place). */
  private listing: Listing | null = null;
  /** Positions in the listing by path, built on first need (see {@link positions}). */
  private position: Map<string, number> | null = null;
  private readonly held = new Map<string, Held>();
  /** The plan for the listing (positions, newest first), or `null` once it changed. */
  private order: number[] | Uint32Array | null = null;
  private last: Scanned | null = null;
  /** What the last scan used: position → head bytes, and the problems reads met. */
  private used = new Map<number, Uint8Array>();
  private usedProblems = "";
  /** When the last full listing started (wall clock). */
  private listedAt = Number.NEGATIVE_INFINITY;
  /** Names the watcher or a write reported since the last scan. */
  private readonly dirty = new Set<string>();
  /** Something changed that no name says (a watcher without a name, or its error): list everything. */
  private unknown = true;
  /** The session, the watchers and the background timer: released by `close()`, or once this cache is collected. */
  private readonly owned: Owned;
  /** One watcher a folder (`owned.watchers`). */
  private readonly watchers: Map<string, HostWatcher>;
  /** Every folder of the listing is watched. */
  private watching = false;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** The core's scan session: what it read of each head, kept between turns (a changed turn parses only what changed). */
  private readonly session: ScanSession;
  /** This cache, for the callbacks the runtime holds (watchers, the timer): they must not keep it alive. */
  private readonly self = weakly(this);
  /** Counts, for tests and the benchmark: full listings, checks, heads read, core scans, checks of the held files after a turn, plans. */
  readonly stats = { listings: 0, checks: 0, headsRead: 0, scans: 0, backgroundListings: 0, heldChecks: 0, plans: 0 };

  constructor(
    private readonly host: MemoryHost,
    private readonly limits: Limits,
    private readonly options: ScanCacheOptions = {},
  ) {
    this.session = new ScanSession(limits);
    this.owned = { session: this.session, watchers: new Map(), background: null };
    this.watchers = this.owned.watchers;
    dropped?.register(this, this.owned, this);
  }

  /** One scan at a time: a second waits for the first, then sees what it left. */
  scan(concurrency: number): Promise<Scanned> {
    // a scan that outlives close() (a pause of its own let it through) may have made a core
    // session again: given back once it ends, or it would be held for the life of the module
    const run = this.queue.then(() => this.scanNow(concurrency)).finally(() => {
      if (this.closed) this.session.close();
    });
    // the held files are checked after the turn, before the next one starts
    this.queue = run.then(
      () => this.checkHeld().catch(() => undefined),
      () => undefined,
    );
    return run;
  }

  /** Whether a turn leaves the held files to {@link checkHeld} (watchers on, trusted). */
  private get trusting(): boolean {
    return this.watching && this.options.trustWatcher !== false;
  }

  /**
   * After a turn, with trusted watchers: `lstat`s the files whose heads are held and flags those
   * that changed, so the next turn reads them even when no watcher reported the change.
   */
  private async checkHeld(): Promise<void> {
    if (!this.trusting || this.closed || this.held.size === 0 || !this.listing) return;
    await immediate(); // after the turn's caller has its answer
    if (this.closed || !this.trusting) return;
    const paths = [...this.held.keys()];
    const position = await this.positions();
    this.stats.heldChecks++;
    let stats: (HostEntry | null | HostError)[];
    try {
      stats = await this.host.fast!.statMany!(paths);
    } catch {
      this.unknown = true;
      return;
    }
    paths.forEach((path, k) => {
      const now = stats[k];
      const at = position.get(path);
      const was = at === undefined || !this.listing ? undefined : this.listing.entry(at);
      if (now == null || isError(now) || !was || !sameFile(now, was)) this.dirty.add(path);
    });
  }

  /** `buildSelectionRequest`, for a scan this cache returned: the core takes the memories from its session. */
  selectionRequest(input: SelectionInput): SelectionRequest {
    return this.session.selectionRequest(input);
  }

  /** `lexicalSelect` for a scan this cache returned, with the terms the core's session keeps per head. */
  lexicalSelect(input: LexicalAmong): LexicalSelection {
    return this.session.lexicalSelect(input);
  }

  /** Tells the cache that memdir wrote, removed or renamed `paths` (seen at the next scan, without waiting for a watcher). */
  touched(...paths: string[]): void {
    paths = paths.filter((p) => !ownFolder(p));
    if (paths.length === 0) return; // the history's own files are never part of a scan
    for (const p of paths) {
      this.dirty.add(p);
      const slash = p.lastIndexOf("/");
      if (slash > 0) this.dirty.add(p.slice(0, slash));
    }
    // a write changes its folder: the next scan lists it
    this.unknown = true;
  }

  /**
   * The head held for a file that is as `entry` says (same key, not racy), read with at least
   * `maxLines` lines; `undefined` when the cache has none to trust.
   */
  headFor(entry: HostEntry, maxLines: number): Uint8Array | undefined {
    if (maxLines > this.limits.maxHeaderLines) return undefined;
    const held = this.held.get(entry.path);
    return held && !held.racy && sameFile(held.key, entry) ? held.bytes : undefined;
  }

  /**
   * What the last scan parsed of a file that is as `entry` says (same key, not racy), when that
   * scan parsed the head held for it; `undefined` when the cache has none to trust.
   */
  scannedFor(entry: HostEntry): Memory | undefined {
    const held = this.held.get(entry.path);
    const last = this.last;
    if (!held || held.racy || !last || last.heads[entry.path] !== held.bytes || !sameFile(held.key, entry)) return undefined;
    let byPath = memoriesByPath.get(last);
    if (!byPath) memoriesByPath.set(last, (byPath = new Map(last.result.memories.map((m) => [m.path, m]))));
    return byPath.get(entry.path);
  }

  /** Whether {@link close} was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Stops the watchers and the background check. */
  close(): void {
    this.closed = true;
    dropped?.unregister(this);
    release(this.owned);
    this.watching = false;
  }

  private async scanNow(concurrency: number): Promise<Scanned> {
    const io = ioHost(this.host);
    if (this.watching && this.listing) {
      // let events already queued arrive; after a flood of them, start the turn's work a turn
      // later: a folder whose every file was touched queues 16,384 events, which the event loop
      // reads in one go (~6 ms even with the watch closed after the first 256)
      await immediate();
      if (this.unknown) await immediate(); // a flood of events was read this turn
    }
    // a new listing, or one a check updated with new times (either is planned again)
    let listingChanged = false;
    let listed = false;
    if (!(await this.check())) {
      listingChanged = this.takeListing(await this.listNow(io), Date.now());
      listed = true;
      if (this.watching) this.rootKey = await this.rootNow();
    }
    const listing = this.listing!;
    // times the host knows better than the mtimes (git's, rules §1.3): new ones are planned again
    const timed = await this.timedListing(listing);
    if (timed.version !== this.timesVersion) {
      this.timesVersion = timed.version;
      this.order = null;
    }
    listingChanged ||= this.order === null;
    // nothing changed, nothing held is racy, no read failed last time: the last scan stands
    if (!listingChanged && this.last && this.usedProblems === "" && !this.anyRacy()) {
      this.afterScan();
      return this.last;
    }
    // a core call on a large listing takes milliseconds: it starts a turn of the event loop of its own
    const large = listing.length >= LARGE_LISTING;
    if (this.order === null) {
      if (large || listed) await immediate();
      if (large) {
        // packing 20,000 paths is a step of its own
        this.session.prepare(timed.listing);
        await immediate();
      }
      due(); // the plan counts against this turn's budget: the reads after it wait if it spent it
      this.stats.plans++;
      this.order = this.session.plan(timed.listing);
      await pause();
    }
    const order = this.order;

    // the newest heads, held or read; a file that cannot be read gives its place to the next
    const maxFiles = this.limits.maxFiles;
    const heads = new Map<number, Uint8Array>();
    const problems = new Map<number, string>();
    let readAny = false;
    let cursor = 0;
    while (heads.size < maxFiles && cursor < order.length) {
      const batch = order.slice(cursor, cursor + (maxFiles - heads.size));
      cursor += batch.length;
      const toRead: number[] = [];
      for (const i of batch) {
        const e = listing.entry(i);
        const held = this.held.get(e.path);
        if (held && !held.racy && sameFile(held.key, e)) heads.set(i, held.bytes);
        else toRead.push(i);
      }
      if (toRead.length === 0) continue;
      readAny = true;
      const nowMs = Date.now();
      const read = await readHeads(this.host, toRead.map((i) => listing.paths[i]!), this.limits.maxHeaderLines, concurrency);
      this.stats.headsRead += toRead.length;
      toRead.forEach((i, k) => {
        const e = listing.entry(i);
        const got = read[k]!;
        if (isError(got)) {
          problems.set(i, errorCode(got) || "unreadable"); // the core names it (ENOENT → vanished, …)
          this.held.delete(e.path);
          return;
        }
        const seen = got.entry ?? e;
        const before = this.held.get(e.path);
        // the same bytes as held: keep the held array, so the scan is known unchanged
        const bytes = before && equalBytes(before.bytes, got.bytes) ? before.bytes : got.bytes;
        this.held.set(e.path, { bytes, key: seen, racy: racy(seen, nowMs) });
        heads.set(i, bytes);
      });
    }
    // heads of files that fell out of the newest are not kept
    if (this.held.size > heads.size) {
      const keep = new Set([...heads.keys()].map((i) => listing.paths[i]!));
      for (const p of this.held.keys()) if (!keep.has(p)) this.held.delete(p);
    }

    const problemKey = [...problems].map(([i, c]) => `${i}:${c}`).join(",");
    if (!listingChanged && this.last && problemKey === this.usedProblems && sameHeads(heads, this.used)) {
      this.afterScan();
      return this.last;
    }
    if (large || readAny) await immediate();
    due(); // the scan counts against this turn's budget too
    this.stats.scans++;
    const result = this.session.scan(heads, problems);
    const record: Record<string, Uint8Array> = {};
    for (const [i, bytes] of heads) record[listing.paths[i]!] = bytes;
    this.used = heads;
    this.usedProblems = problemKey;
    const scannedNow: Scanned = { result, heads: record };
    this.last = scannedNow;
    if (this.options.enabled === false) this.forget();
    this.afterScan();
    return scannedNow;
  }

  /**
   * With watchers, checks what the last listing could have missed: the folders, the heads
   * held, the names reported. `true` when it still stands (with what changed in a new listing);
   * `false` when a full listing is needed.
   */
  private async check(): Promise<boolean> {
    const statMany = this.host.fast?.statMany?.bind(this.host.fast);
    if (this.options.enabled === false || this.listing === null || this.unknown || !this.watching || !statMany) return false;
    const listing = this.listing;
    const position = await this.positions();
    if (this.listing !== listing) return false;
    const paths = [""];
    for (let i = 0; i < listing.length; i++) if (listing.isFolder(i)) paths.push(listing.paths[i]!);
    const folders = paths.length;
    const held = this.trusting ? [] : [...this.held.keys()];
    for (const p of held) paths.push(p);
    for (const p of this.dirty) if (this.trusting || !this.held.has(p)) paths.push(p);
    this.dirty.clear();
    this.stats.checks++;
    let stats: (HostEntry | null | HostError)[];
    try {
      stats = await statMany(paths);
    } catch {
      return false;
    }
    // a folder's own key changes with its entries: one that changed (or is gone) is listed again
    for (let k = 0; k < folders; k++) {
      const now = stats[k];
      if (now == null || isError(now) || now.kind !== "directory") return false;
      const was = k === 0 ? this.rootKey : folderKey(listing.entry(position.get(paths[k]!)!));
      if (was !== folderKey(now)) return false;
    }
    // applied once every name is checked: a check that gives up (a full listing follows) leaves
    // the listing as it was, or a full listing would compare equal to it
    const updates = new Map<number, HostEntry>();
    for (let k = folders; k < paths.length; k++) {
      const now = stats[k];
      if (now === undefined || isError(now)) return false;
      const at = position.get(paths[k]!);
      if (at === undefined) {
        if (now !== null) return false; // new: its folder changed too, list it
        continue;
      }
      const was = listing.entry(at);
      if (now === null || now.kind !== was.kind || now.problem) return false;
      if (!sameFile(now, was)) updates.set(at, { ...was, ...now, path: was.path });
    }
    if (updates.size > 0) {
      // new times: planned again (the session takes them, by the times alone)
      this.listing = listing.withUpdates(updates);
      this.order = null;
    }
    return true;
  }

  /**
   * Positions in the listing by path. Built when a turn first needs them (a memory opened for one
   * scan never does), in slices with the event loop let through between them: at 20,000 entries
   * one pass held it for ~10 ms. A check's new listing has the same paths, and the same positions.
   */
  private async positions(): Promise<Map<string, number>> {
    for (;;) {
      const paths = this.listing?.paths;
      if (paths === undefined) return new Map(); // no listing yet: nothing has a position
      if (this.position !== null) return this.position;
      const map = new Map<string, number>();
      for (let i = 0; i < paths.length; i++) {
        map.set(paths[i]!, i);
        if ((i & 1023) === 1023 && due()) await pause();
      }
      // a listing taken meanwhile: build for that one
      if (this.listing?.paths === paths) return (this.position = map);
    }
  }

  /** The version of the host's times the last plan used (`""`: the mtimes). */
  private timesVersion = "";
  private timed: { listing: Listing; overlay: TimesOverlay; timed: Listing } | null = null;

  /** `listing` with the host's times (`MemoryHost.times`) in place of its mtimes, where it has them. */
  private async timedListing(listing: Listing): Promise<{ listing: Listing; version: string }> {
    const overlay = this.host.times ? await this.host.times.of(listing).catch(() => null) : null;
    if (!overlay) return { listing, version: "" };
    if (this.timed?.listing !== listing || this.timed.overlay !== overlay) {
      const mtimes = listing.mtimesMs.slice();
      overlay.timesMs.forEach((t, i) => {
        if (!Number.isNaN(t)) mtimes[i] = t;
      });
      const timed = new Listing(listing.paths, listing.kinds, mtimes, listing.sizesBytes, listing.ctimesMs, listing.inos, listing.problems);
      this.timed = { listing, overlay, timed };
    }
    return { listing: this.timed.timed, version: overlay.version };
  }

  /** The root folder's key, taken once it is watched. */
  private rootKey: string | null = null;

  private async rootNow(): Promise<string | null> {
    try {
      const [root] = await this.host.fast!.statMany!([""]);
      return root && !isError(root) && root.kind === "directory" ? folderKey(root) : null;
    } catch {
      return null;
    }
  }

  /** Takes a full listing; `true` when it differs from the last one. */
  private takeListing(listed: Listing, startedMs: number): boolean {
    this.stats.listings++;
    this.listedAt = startedMs;
    this.unknown = false;
    this.dirty.clear();
    const changed = this.listing === null || !this.listing.sameAs(listed);
    if (changed) {
      this.listing = listed;
      this.position = null;
      this.order = null;
    }
    this.watchFolders();
    return changed;
  }

  /** One watcher a folder of the listing; every folder watched, or the cache does not rely on them. */
  private watchFolders(): void {
    if (this.closed || this.options.enabled === false || this.options.watch === false || !this.host.watch || !this.host.fast?.statMany) return;
    const folders = new Set([""]);
    const listing = this.listing!;
    for (let i = 0; i < listing.length; i++) if (listing.isFolder(i)) folders.add(listing.paths[i]!);
    for (const [dir, w] of this.watchers) {
      if (!folders.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    let all = true;
    for (const dir of folders) {
      if (this.watchers.has(dir)) continue;
      // through the weak reference: the runtime keeps the callback for as long as the watcher is open
      const self = this.self;
      const w = this.host.watch(dir, (name) => self.deref()?.noticed(dir, name));
      if (w) this.watchers.set(dir, w);
      else all = false;
    }
    if (!all) {
      for (const w of this.watchers.values()) w.close();
      this.watchers.clear();
    }
    this.watching = all;
  }

  /**
   * A watcher's report: `name` in `dir` changed, or (`null`) something did. Past
   * {@link MAX_DIRTY} names, the next turn lists everything anyway: the watchers are closed (a
   * folder whose every file was touched sends an event a file, 20,000 callbacks in one turn of
   * the event loop), and the listing that turn takes opens them again.
   */
  private noticed(dir: string, name: string | null): void {
    if (this.unknown || ownFolder(dir ? `${dir}/${name ?? ""}` : (name ?? ""))) return;
    if (name !== null && this.dirty.size < MAX_DIRTY) {
      this.dirty.add(dir ? `${dir}/${name}` : name);
      return;
    }
    this.unknown = true;
    this.dirty.clear();
    if (name !== null) {
      for (const w of this.watchers.values()) w.close();
      this.watchers.clear();
      this.watching = false;
    }
  }

  /** Schedules the background full listing when the last one is older than `fullCheckMs`. */
  private afterScan(): void {
    const owned = this.owned;
    if (!this.watching || this.closed || owned.background) return;
    const every = this.options.fullCheckMs ?? 10_000;
    const due = Math.max(0, this.listedAt + every - Date.now());
    // the timer holds the cache weakly too (a pending timer is kept by the runtime)
    const self = this.self;
    owned.background = setTimeout(() => {
      owned.background = null;
      void self.deref()?.backgroundListing();
    }, due);
    (owned.background as { unref?: () => void }).unref?.();
  }

  /** Lists everything between turns; what changed is flagged for the next scan. */
  private async backgroundListing(): Promise<void> {
    if (this.closed || !this.listing) return;
    const startedMs = Date.now();
    let listed: Listing;
    try {
      listed = await this.listNow(this.host);
    } catch {
      this.unknown = true;
      return;
    }
    this.stats.backgroundListings++;
    const same = this.listing?.sameAs(listed) === true;
    if (same) this.listedAt = startedMs;
    else this.unknown = true;
    this.afterScan();
  }

  /** A full listing, in columns where the host gives them (a host's look-alike of a `Listing` is not taken: `list()` is). */
  private async listNow(host: MemoryHost): Promise<Listing> {
    if (host.fast?.listing) {
      const listing = await host.fast.listing();
      if (listing instanceof Listing) return listing;
    }
    return Listing.fromEntries(await host.list());
  }

  private anyRacy(): boolean {
    for (const h of this.held.values()) if (h.racy) return true;
    return false;
  }

  /** Keeps nothing (the cache turned off): every scan starts over. */
  private forget(): void {
    this.session.close();
    this.listing = null;
    this.position = null;
    this.held.clear();
    this.order = null;
    this.last = null;
    this.used = new Map();
    this.unknown = true;
  }
}

/** A cache shared by the memories open on one host with the same limits and options. */
interface SharedEntry {
  cache: WeakRef<ScanCache> | { deref(): ScanCache | undefined };
  users: number;
}

/** The shared caches of each host, by its limits and options. */
const sharedCaches = new WeakMap<MemoryHost, Map<string, SharedEntry>>();

/**
 * The cache of the memories open on `host` with these limits and options: one listing, one set
 * of watchers, one scan session for all of them, so a change is read once, not once a memory
 * (five memories on one folder of 20,000 files, each re-reading it at once, held the event loop
 * 36–51 ms). `release()` is a memory's `close()`: the last one closes the cache. A cache that is
 * off (`enabled: false`) is never shared.
 */
export function sharedCache(host: MemoryHost, limits: Limits, options: ScanCacheOptions): { cache: ScanCache; release(): void } {
  if (options.enabled === false) {
    const cache = new ScanCache(host, limits, options);
    return { cache, release: () => cache.close() };
  }
  const key = JSON.stringify([limits, options]);
  let byKey = sharedCaches.get(host);
  if (!byKey) sharedCaches.set(host, (byKey = new Map()));
  let entry = byKey.get(key);
  let cache = entry?.cache.deref();
  if (!entry || !cache || cache.isClosed) {
    cache = new ScanCache(host, limits, options);
    entry = { cache: weakly(cache), users: 0 };
    byKey.set(key, entry);
  }
  const mine = entry;
  mine.users++;
  let released = false;
  return {
    cache,
    release: () => {
      if (released) return;
      released = true;
      if (--mine.users > 0) return;
      mine.cache.deref()?.close();
      if (byKey.get(key) === mine) byKey.delete(key);
    },
  };
}

/** A scan's memories by path, built on the first look-up. */
const memoriesByPath = new WeakMap<Scanned, Map<string, Memory>>();

function folderKey(e: HostEntry): string {
  return `${e.mtimeMs}|${e.ctimeMs ?? ""}|${e.ino ?? ""}`;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameHeads(a: Map<number, Uint8Array>, b: Map<number, Uint8Array>): boolean {
  if (a.size !== b.size) return false;
  for (const [i, bytes] of a) if (b.get(i) !== bytes) return false;
  return true;
}
