/**
 * How an opened browser memory hears of changes it did not make (`MemoryHost.watch`), and the
 * key that lets it see a file added to a folder without hearing of it.
 *
 * - Every write, removal and rename through a browser host is posted on a `BroadcastChannel`
 *   named `memdir:<backend>:<name>` (`memdir:opfs:project-x`), which every tab and worker of the
 *   origin that watches the same memory hears; the host's own watchers are told at once.
 * - `OpfsHost` also observes the memory's folder with `FileSystemObserver` where the browser has
 *   it (Chromium), which hears what changed the files behind memdir's back (another script of
 *   the page, a sync access handle in a worker); where it is missing, nothing is said.
 * - One channel and at most one observer a host, however many folders are watched: a change is
 *   fanned out to every watched folder it is in, as the name of the entry of that folder it is
 *   (or is below). An observer's event it cannot place is `null` (list everything).
 *
 * OPFS and IndexedDB folders have no modification time. So that an opened memory still sees a
 * file added, removed or renamed in a folder without any event (the watcher is a hint), the
 * browser hosts give a folder an `ino` made of its entries' names and kinds ({@link folderIno}):
 * it changes as the folder's entries do, as a folder's mtime does on a disk. An edit in place of
 * a file the memory does not hold is heard (channel, observer) or found by the next full listing.
 */
import type { HostWatcher } from "../host.js";

/** A folder's key from its entries: FNV-1a (32 bits) over their kinds and names, sorted. */
export function folderIno(children: Iterable<readonly [name: string, kind: "file" | "directory"]>): number {
  const names = [...children].map(([name, kind]) => `${kind === "directory" ? "d" : "f"}${name}`).sort();
  let hash = 0x811c9dc5;
  for (const n of names) {
    for (let i = 0; i < n.length; i++) {
      hash ^= n.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    hash ^= 0; // the separator
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The parts of `FileSystemObserver` used here (not in TypeScript's DOM library yet). */
interface ObserverRecord {
  type: string;
  relativePathComponents?: readonly string[];
  relativePathMovedFrom?: readonly string[] | null;
}
interface Observer {
  observe(handle: FileSystemDirectoryHandle, options: { recursive: boolean }): Promise<void>;
  disconnect(): void;
}
type ObserverClass = new (callback: (records: ObserverRecord[]) => void) => Observer;

interface Watch {
  dir: string;
  onChange: (name: string | null) => void;
}

/** The message posted on the channel: the paths that changed, relative to the memory's root. */
interface ChangeMessage {
  paths: string[];
}

/**
 * The changes of one memory, for its host's watchers: one `BroadcastChannel` (opened by the
 * first write or watch) and, given `observed`, one `FileSystemObserver` on the memory's folder
 * while something watches.
 */
export class ChangeFeed {
  private channel: BroadcastChannel | null = null;
  private readonly watches = new Set<Watch>();
  private observer: Observer | null = null;
  /** The observer is being set up. */
  private starting = false;
  /** The observer cannot be had here (no API, or it refused): not tried again. */
  private observerRefused = false;

  /**
   * `channelName`: `memdir:<backend>:<name>`. `observed`: the folder to observe (the memory's;
   * `null` while it does not exist), for hosts that have one.
   */
  constructor(
    private readonly channelName: string,
    private readonly observed: (() => Promise<FileSystemDirectoryHandle | null>) | null = null,
  ) {}

  /** Tells this host's watchers and every other tab's that `paths` changed (a write, removal or rename through the host). */
  changed(paths: string[]): void {
    this.deliver(paths);
    try {
      this.open()?.postMessage({ paths } satisfies ChangeMessage);
    } catch {
      // closed meanwhile: the others find the change by their keys or their next full listing
    }
  }

  /** A watch on the folder `dir`; `null` where there is no `BroadcastChannel` (other tabs could not be heard). */
  watch(dir: string, onChange: (name: string | null) => void): HostWatcher | null {
    if (this.open() === null) return null;
    const w: Watch = { dir, onChange };
    this.watches.add(w);
    this.observe();
    return {
      close: () => {
        this.watches.delete(w);
        if (this.watches.size === 0) this.stopObserving();
      },
    };
  }

  /**
   * Sets the observer up again if it stopped (its folder was removed) or could not start (the
   * folder did not exist yet); the hosts call it from `statMany`, once a turn.
   */
  refresh(): void {
    if (this.watches.size > 0) this.observe();
  }

  private open(): BroadcastChannel | null {
    if (this.channel) return this.channel;
    const Channel = (globalThis as { BroadcastChannel?: typeof BroadcastChannel }).BroadcastChannel;
    if (typeof Channel !== "function") return null;
    try {
      const channel = new Channel(this.channelName);
      channel.onmessage = (event: MessageEvent) => {
        const paths = (event.data as Partial<ChangeMessage> | null)?.paths;
        this.deliver(Array.isArray(paths) && paths.every((p) => typeof p === "string") ? paths : null);
      };
      channel.onmessageerror = () => this.deliver(null);
      // Node has BroadcastChannel too, where an open one would keep the process alive
      (channel as { unref?: () => void }).unref?.();
      this.channel = channel;
    } catch {
      return null;
    }
    return this.channel;
  }

  /** Tells each watch the names in its folder that `paths` are or are below; `null`: every watch, `null`. */
  private deliver(paths: string[] | null): void {
    for (const w of [...this.watches]) {
      if (paths === null) {
        w.onChange(null);
        continue;
      }
      const names = new Set<string>();
      for (const p of paths) {
        const rest = w.dir === "" ? p : p.startsWith(`${w.dir}/`) ? p.slice(w.dir.length + 1) : null;
        if (rest === null || rest === "") continue;
        const slash = rest.indexOf("/");
        names.add(slash < 0 ? rest : rest.slice(0, slash));
      }
      for (const name of names) w.onChange(name);
    }
  }

  private observe(): void {
    if (this.observed === null || this.observer !== null || this.starting || this.observerRefused) return;
    const Observer = (globalThis as { FileSystemObserver?: ObserverClass }).FileSystemObserver;
    if (typeof Observer !== "function") {
      this.observerRefused = true;
      return;
    }
    this.starting = true;
    void (async () => {
      let observer: Observer | null = null;
      try {
        const folder = await this.observed!();
        if (folder === null || this.watches.size === 0) return; // made by the first write; tried again next turn
        observer = new Observer((records) => this.observedChanges(records));
        await observer.observe(folder, { recursive: true });
        // what changed while it started is found by the keys, or the next full listing (as on a disk)
        if (this.watches.size === 0) observer.disconnect();
        else this.observer = observer;
      } catch {
        observer?.disconnect();
        this.observerRefused = true;
      } finally {
        this.starting = false;
      }
    })();
  }

  private observedChanges(records: ObserverRecord[]): void {
    const paths: string[] = [];
    for (const r of records) {
      const at = r.relativePathComponents;
      if (r.type === "unknown" || r.type === "errored" || !Array.isArray(at) || at.length === 0) {
        // the observer failed, or the memory's folder itself went: started again next turn
        if (r.type === "errored" || r.type === "disappeared") this.stopObserving();
        return this.deliver(null);
      }
      paths.push(at.join("/"));
      if (Array.isArray(r.relativePathMovedFrom) && r.relativePathMovedFrom.length > 0) paths.push(r.relativePathMovedFrom.join("/"));
    }
    if (paths.length) this.deliver(paths);
  }

  private stopObserving(): void {
    this.observer?.disconnect();
    this.observer = null;
  }
}
