/**
 * A memory directory in IndexedDB, for browsers (or contexts) without the Origin Private File
 * System:
 *
 * ```ts
 * const host = await IndexedDbHost.open("project-x"); // the database memdir:project-x
 * ```
 *
 * One object store, `files`: the key is the file's relative path, the value
 * `{ data: Blob, size, mtimeMs }`. The content is a `Blob`, so a head and
 * `readFile(path, maxBytes)` read only the bytes they need (`Blob.slice`), and `list` reads no
 * content at all. Folders are not stored: a folder exists while a file is below it (an empty
 * folder vanishes), and has no modification time (`mtimeMs: 0`), but an `ino` made of its
 * entries' names (see browser-watch.ts). `watch` hears every change made through an
 * `IndexedDbHost` of this memory in any tab or worker (a `BroadcastChannel`); a record put into
 * the store by other code is found by the folder keys (a new file) or the next full listing.
 *
 * Every change is one `readwrite` transaction (with `durability: "strict"`), which IndexedDB
 * runs alone against any other that touches the store, in any tab: a write replaces the whole
 * file or nothing, an exclusive create is exclusive, a folder is renamed or removed in one step.
 * IndexedDB works outside secure contexts too; there, without Web Locks, writers take turns
 * through the lock file alone (see browser-locks.ts).
 */
import { hostError, type HostEntry, type HostError, type HostFastPaths, type HostLinks, type HostLocks, type HostWatcher, type MemoryHost } from "../host.js";
import { checkMemoryName, domName, toHostError, unsupported } from "./browser-errors.js";
import { browserLockOwner, browserOwnerAlive, withWebLock } from "./browser-locks.js";
import { ChangeFeed, folderIno } from "./browser-watch.js";

/** The database of the memory `name`. */
export const idbDatabaseName = (name: string) => `memdir:${name}`;
/** The one object store: path → {@link StoredFile}. */
export const IDB_STORE = "files";
/** `statMany` asks for more paths than this, and more than a quarter of the store: it reads the store at once. */
const MANY_GETS = 32;

/** A file as stored. */
export interface StoredFile {
  data: Blob;
  size: number;
  mtimeMs: number;
}

export interface IndexedDbHostOptions {
  /** Modification times of writes. Default `Date.now`. */
  now?: () => number;
}

const request = <T>(req: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });

/** Every key below the folder `path` ("" is the root). `0` follows `/`. */
const below = (path: string): IDBKeyRange | null => (path === "" ? null : IDBKeyRange.bound(`${path}/`, `${path}0`, false, true));

/** The folders above `path`, nearest last: `a/b/c.md` → `a`, `a/b`. */
function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

export class IndexedDbHost implements MemoryHost {
  /** Which browser storage this is. */
  readonly backend = "indexeddb" as const;
  /** `indexeddb:/memdir:<name>` */
  readonly root: string;
  readonly name: string;
  private readonly now: () => number;
  private readonly writeLockName: string;
  private db: Promise<IDBDatabase> | null = null;
  /** What changed, told to other tabs and heard from them (`watch`). */
  private readonly feed: ChangeFeed;
  /** How many files the store held at the last look (`statMany` picks its reads by it). */
  private storeSize = 0;

  private constructor(name: string, options: IndexedDbHostOptions) {
    this.name = name;
    this.root = `indexeddb:/${idbDatabaseName(name)}`;
    this.now = options.now ?? Date.now;
    this.writeLockName = `memdir-write:indexeddb:${name}`;
    this.feed = new ChangeFeed(`memdir:indexeddb:${name}`);
  }

  /**
   * The memory `name`, its database opened (created when new). Throws `INVALID_ARGUMENT` for a
   * bad name, `IO_ERROR` with `errno: "ENOTSUP"` where IndexedDB cannot be used.
   */
  static async open(name: string, options: IndexedDbHostOptions = {}): Promise<IndexedDbHost> {
    checkMemoryName(name);
    if (typeof (globalThis as { indexedDB?: unknown }).indexedDB !== "object" || globalThis.indexedDB === null) throw unsupported("IndexedDB", "indexedDB is missing");
    const host = new IndexedDbHost(name, options);
    try {
      await host.database();
    } catch (error) {
      throw unsupported("IndexedDB", `the database ${idbDatabaseName(name)} could not be opened (${domName(error) || error})`, error);
    }
    return host;
  }

  absolutePath(path: string): string {
    return `${this.root}/${path}`;
  }

  /** Nothing here is a link: every path is where it says. */
  readonly links: HostLinks = { resolve: async (path) => path };

  /** The tab as the lock file's owner; `exclusive` holds the Web Lock `memdir-write:indexeddb:<name>` while `fn` runs (where the browser has Web Locks). */
  readonly locks: HostLocks = {
    owner: browserLockOwner,
    ownerAlive: browserOwnerAlive,
    exclusive: <T>(fn: () => Promise<T>, timeoutMs: number) => withWebLock(this.writeLockName, fn, timeoutMs),
  };

  readonly fast: HostFastPaths = { statMany: (paths) => this.statMany(paths) };

  /** Closes the database connection (a later call opens it again; watches go on). */
  close(): void {
    const db = this.db;
    this.db = null;
    void db?.then((d) => d.close(), () => {});
  }

  async list(): Promise<HostEntry[]> {
    const [keys, rows] = await this.run("readonly", "", (store) => Promise.all([request(store.getAllKeys()), request(store.getAll() as IDBRequest<StoredFile[]>)]));
    this.storeSize = keys.length;
    const entries: HostEntry[] = keys.map((key, i) => ({ path: String(key), kind: "file", mtimeMs: rows[i]!.mtimeMs, size: rows[i]!.size }));
    for (const [path, ino] of folderInos(keys.map(String))) if (path !== "") entries.push({ path, kind: "directory", mtimeMs: 0, size: 0, ino });
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * Many paths at once, in one read-only transaction: in order, each the entry (`stat`'s),
   * `null`, or the error met. The keys are read once (they give every folder and its `ino`);
   * only the records asked for are read.
   */
  async statMany(paths: string[]): Promise<(HostEntry | null | HostError)[]> {
    try {
      return await this.run("readonly", "", async (store) => {
        // most of the store (as the last look found it): one getAll is cheaper than a get each;
        // either way sent with getAllKeys, not after it
        const whole = paths.length > MANY_GETS && paths.length * 4 > this.storeSize;
        const [rawKeys, got] = await Promise.all([
          request(store.getAllKeys()),
          whole ? (request(store.getAll()) as Promise<StoredFile[]>) : Promise.all(paths.map((p) => (request(store.get(p)) as Promise<StoredFile | undefined>))),
        ]);
        const keys = rawKeys.map(String);
        this.storeSize = keys.length;
        const folders = folderInos(keys);
        let rows: (StoredFile | undefined)[] = got;
        if (whole) {
          const at = new Map(keys.map((k, i) => [k, got[i]]));
          rows = paths.map((p) => at.get(p));
        }
        return paths.map((path, i): HostEntry | null => {
          const row = rows[i];
          if (row !== undefined) return { path, kind: "file", mtimeMs: row.mtimeMs, size: row.size };
          const ino = folders.get(path);
          return ino === undefined ? null : { path, kind: "directory", mtimeMs: 0, size: 0, ino };
        });
      });
    } catch (error) {
      const failed = toHostError(error, "");
      return paths.map(() => failed);
    }
  }

  /** Watches the folder `dir`: told every change made through an `IndexedDbHost` of this memory, in any tab or worker. */
  watch(dir: string, onChange: (name: string | null) => void): HostWatcher | null {
    return this.feed.watch(dir, onChange);
  }

  async stat(path: string): Promise<HostEntry | null> {
    return this.run("readonly", path, async (store) => {
      const row = (await request(store.get(path))) as StoredFile | undefined;
      if (row !== undefined) return { path, kind: "file", mtimeMs: row.mtimeMs, size: row.size };
      const range = below(path);
      const inside = (await request(range === null ? store.getAllKeys() : store.getAllKeys(range))).map((k) => String(k).slice(path === "" ? 0 : path.length + 1));
      return inside.length > 0 ? { path, kind: "directory", mtimeMs: 0, size: 0, ino: folderInos(inside).get("")! } : null;
    });
  }

  async readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
    const blob = await this.blob(path);
    try {
      return new Uint8Array(await (maxBytes === undefined ? blob : blob.slice(0, Math.max(0, maxBytes))).arrayBuffer());
    } catch (error) {
      throw toHostError(error, path);
    }
  }

  async writeFile(path: string, data: Uint8Array, options: { exclusive?: boolean } = {}): Promise<void> {
    if (path === "") throw hostError("EISDIR", "the memory directory is a directory");
    // made before the transaction, which would end while a Blob is built; it copies `data`
    const row: StoredFile = { data: new Blob([data.slice()]), size: data.length, mtimeMs: this.now() };
    await this.changing([path], "readwrite", path, async (store) => {
      await noFileAbove(store, path);
      if (await isFolder(store, path)) throw hostError("EISDIR", `${path} is a directory`);
      if (options.exclusive && (await request(store.getKey(path))) !== undefined) throw hostError("EEXIST", `${path} already exists`);
      await request(store.put(row, path));
    });
  }

  async remove(path: string): Promise<void> {
    await this.changing([path], "readwrite", path, async (store) => {
      if ((await request(store.getKey(path))) !== undefined) return void (await request(store.delete(path)));
      const range = below(path);
      if (range === null || !(await isFolder(store, path))) throw hostError("ENOENT", `${path} does not exist`);
      await request(store.delete(range));
    });
  }

  /** One transaction: a file, or every file below a folder, under its new path; the modification times kept. */
  async rename(from: string, to: string): Promise<void> {
    await this.changing([from, to], "readwrite", from, async (store) => {
      const file = (await request(store.get(from))) as StoredFile | undefined;
      const range = below(from);
      const inside = file === undefined && range !== null ? await Promise.all([request(store.getAllKeys(range)), request(store.getAll(range) as IDBRequest<StoredFile[]>)]) : null;
      if (file === undefined && (inside === null || inside[0].length === 0)) throw hostError("ENOENT", `${from} does not exist`);
      if ((await request(store.getKey(to))) !== undefined || (await isFolder(store, to))) throw hostError("EEXIST", `${to} already exists`);
      if (to === from || to.startsWith(`${from}/`)) throw hostError("EINVAL", `${from} -> ${to}: a folder cannot move into itself`);
      await noFileAbove(store, to);
      if (file !== undefined) {
        await request(store.put(file, to));
        await request(store.delete(from));
        return;
      }
      const [keys, rows] = inside!;
      await request(store.delete(range!));
      for (const [i, key] of keys.entries()) await request(store.put(rows[i]!, `${to}${String(key).slice(from.length)}`));
    });
  }

  /** The stored content of the file at `path`; `EISDIR` for a folder, `ENOTDIR` below a file. */
  private async blob(path: string): Promise<Blob> {
    return this.run("readonly", path, async (store) => {
      const row = (await request(store.get(path))) as StoredFile | undefined;
      if (row !== undefined) return row.data;
      if (await isFolder(store, path)) throw hostError("EISDIR", `${path} is a directory`);
      await noFileAbove(store, path);
      throw hostError("ENOENT", `${path} does not exist`);
    });
  }

  private database(): Promise<IDBDatabase> {
    this.db ??= new Promise<IDBDatabase>((resolve, reject) => {
      const req = indexedDB.open(idbDatabaseName(this.name), 1);
      req.onupgradeneeded = () => {
        if (!req.result.objectStoreNames.contains(IDB_STORE)) req.result.createObjectStore(IDB_STORE);
      };
      req.onsuccess = () => {
        const db = req.result;
        // another tab deleting or upgrading the database must not wait for this one
        db.onversionchange = () => this.close();
        db.onclose = () => {
          this.db = null;
        };
        resolve(db);
      };
      req.onerror = () => reject(req.error);
      req.onblocked = () => reject(hostError("EBUSY", `the database ${idbDatabaseName(this.name)} is held open by an older version in another tab`));
    }).catch((error: unknown) => {
      this.db = null;
      throw error;
    });
    return this.db;
  }

  /** `run`, then `paths` told to the watchers of this memory in every tab (also after a failure: it may have half happened). */
  private async changing<T>(paths: string[], mode: IDBTransactionMode, path: string, body: (store: IDBObjectStore) => Promise<T>): Promise<T> {
    try {
      return await this.run(mode, path, body);
    } finally {
      this.feed.changed(paths);
    }
  }

  /**
   * Runs `body` in one transaction over the store and waits for it to commit; a failure
   * aborts it (nothing is changed) and is rethrown as a `HostError`. `body` must wait only on
   * IndexedDB requests, or the transaction ends under it.
   */
  private async run<T>(mode: IDBTransactionMode, path: string, body: (store: IDBObjectStore) => Promise<T>): Promise<T> {
    let tx: IDBTransaction;
    try {
      tx = (await this.database()).transaction(IDB_STORE, mode, { durability: mode === "readwrite" ? "strict" : "default" });
    } catch (error) {
      throw toHostError(error, path);
    }
    const done = new Promise<void>((resolve, reject) => {
      tx.oncomplete = () => resolve();
      tx.onabort = () => reject(tx.error ?? hostError("EIO", `${path}: the transaction was aborted`));
    });
    let result: T;
    try {
      result = await body(tx.objectStore(IDB_STORE));
    } catch (error) {
      done.catch(() => {});
      try {
        tx.abort();
      } catch {
        // already finished
      }
      throw toHostError(error, path);
    }
    try {
      await done;
    } catch (error) {
      throw toHostError(error, path);
    }
    return result;
  }
}

/**
 * Every folder of `keys` (the root as `""`) and its `ino`, from the names and kinds of the
 * entries directly in it (see browser-watch.ts): `a/b.md` gives `""` ← `a` (a folder) and `a` ← `b.md`.
 */
function folderInos(keys: string[]): Map<string, number> {
  const children = new Map<string, Map<string, "file" | "directory">>();
  for (const key of keys) {
    const parts = key.split("/");
    let folder = "";
    parts.forEach((part, i) => {
      let inside = children.get(folder);
      if (inside === undefined) children.set(folder, (inside = new Map()));
      inside.set(part, i === parts.length - 1 ? "file" : "directory");
      folder = folder === "" ? part : `${folder}/${part}`;
    });
  }
  const inos = new Map<string, number>();
  for (const [folder, inside] of children) inos.set(folder, folderIno(inside));
  return inos;
}

/** Whether a file is stored below `path` (so `path` is a folder). */
async function isFolder(store: IDBObjectStore, path: string): Promise<boolean> {
  const range = below(path);
  return range === null ? (await request(store.count())) > 0 : (await request(store.count(range))) > 0;
}

/** `ENOTDIR` when a folder on the way to `path` is a file. */
async function noFileAbove(store: IDBObjectStore, path: string): Promise<void> {
  for (const folder of ancestors(path)) {
    if ((await request(store.getKey(folder))) !== undefined) throw hostError("ENOTDIR", `${path}: a folder on the way (${folder}) is a file`);
  }
}
