/// <reference types="node" preserve="true" />
/**
 * memdir on PostgreSQL (`memdir/postgres`): many memories (one per user or tenant) in one
 * database, for applications on several machines. `pg` (node-postgres) is an optional peer
 * dependency, loaded with a dynamic import only here.
 *
 * ```ts
 * import { openMemory } from "memdir";
 * import { PostgresStore } from "memdir/postgres";
 * const store = await PostgresStore.open({ connectionString: process.env.DATABASE_URL });
 * const memory = await openMemory({ host: store.host("alice") });
 * ```
 *
 * The tables (schema `memdir` unless told): `memories (id text primary key, version bigint)` —
 * the version goes up by one with every write — and `files (memory, path, data bytea, mtime_ms
 * bigint, written bigint, primary key (memory, path))`, `written` being the memory's version that
 * wrote the file (the entry's `ino`, so a rewrite within one millisecond is still a change).
 * Folders are not rows: they are implied by the paths, as in {@link InMemoryHost}.
 *
 * Every write is one SQL statement (one round trip, atomic): the version bumped, the files
 * written, moved or removed, and a notification for each name. Under the write lock
 * ({@link PostgresHost.locks} `exclusive`: a session-level advisory lock) a write only goes
 * through if the version is still the one the writer saw when it took the lock, so a writer whose
 * lock was lost (its connection dropped, another machine took the lock and wrote) is refused
 * (`ECONFLICT`) and writes nothing. `watch` is `LISTEN`/`NOTIFY`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { MemdirError } from "../errors.js";
import { HEAD_READ_BYTES, headLines, hostError, type HostEntry, type HostError, type HostFastPaths, type HostHead, type HostLinks, type HostLocks, type HostWatcher, type LockOwner, type MemoryHost, type WriteRequest } from "../host.js";

/** A query's answer, as node-postgres gives it (the part the store reads). */
export interface PgResult {
  /** The rows, each an object by column name. */
  rows: any[];
  /** How many rows the statement returned or changed. */
  rowCount: number | null;
}

/** A connection checked out of a {@link PgPool} (node-postgres's `PoolClient`; the part the store uses). */
export interface PgPoolClient {
  /** A parameterised query (one round trip). */
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** Back to the pool; with an error (or `true`), the connection is closed instead. */
  release(destroy?: boolean | Error): void;
  /** `notification` (LISTEN), `error`, `end`. */
  on(event: string, listener: (...args: any[]) => void): unknown;
  /** Undoes {@link PgPoolClient.on}. */
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
  /** Lets the process exit while this connection is open (node-postgres 8). */
  unref?(): void;
  /** Its socket keeps the process alive again (node-postgres). */
  ref?(): void;
}

/** A connection pool: a node-postgres `pg.Pool` (the part the store uses). */
export interface PgPool {
  /** A query on any idle connection. */
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** A connection of one's own until `release`. */
  connect(): Promise<PgPoolClient>;
  /** Closes every connection. */
  end(): Promise<void>;
  /** `error` (an idle connection lost), `connect`. */
  on(event: string, listener: (...args: any[]) => void): unknown;
}

/** Options of {@link PostgresStore.open}. */
export interface PostgresStoreOptions {
  /** `postgres://user@host:port/database` (node-postgres's connection string); ignored with `pool`. */
  connectionString?: string;
  /** A pool of your own (a `pg.Pool`); the store never ends it. */
  pool?: PgPool;
  /** The schema of memdir's tables, created when missing. Default `"memdir"`. */
  schema?: string;
  /** The most connections of the pool the store makes (not with `pool`). Default 10. */
  max?: number;
}

/** The notification channel's name for a schema (≤ 63 bytes, PostgreSQL's identifier limit). */
function channelOf(schema: string): string {
  const name = `memdir_changes:${schema}`;
  return Buffer.byteLength(name) <= 63 ? name : `memdir_changes:${createHash("sha256").update(schema).digest("hex").slice(0, 40)}`;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** memdir's two tables in `schema`, quoted. */
const tablesOf = (schema: string) => ({ memories: `${quote(schema)}.memories`, files: `${quote(schema)}.files` });

/** The longest memory id (a notification's payload is at most 8,000 bytes, the path included). */
const MAX_MEMORY_ID_BYTES = 1000;
/** The first bytes of each head fetched; the rare head with fewer lines than asked in them is fetched again to {@link HEAD_READ_BYTES}. */
const HEAD_FIRST_BYTES = 16 * 1024;

/** The write lock held by {@link PostgresHost.locks} `exclusive` in this async context. */
interface Held {
  /** The host that holds it (another store's host of the same memory is another writer). */
  host: PostgresHost;
  client: PgPoolClient;
  /** The memory's version this writer saw under the lock (then its own writes'). */
  version: number;
  /** The writes of this lock, one after the other (each reads `version` when it runs). */
  queue: Promise<unknown>;
  /** Let go: a timer or callback made inside `fn` that runs later (it keeps the async context) goes through the pool. */
  released: boolean;
}

const context = new AsyncLocalStorage<Held>();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The parent folders of `path` (`a/b/c.md` → `a`, `a/b`). */
function parents(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  return out;
}

/** `Buffer` from node-postgres as a plain `Uint8Array` of its own. */
function bytesOf(data: unknown): Uint8Array {
  return data instanceof Uint8Array ? new Uint8Array(data) : new Uint8Array(0);
}

function fileEntry(row: { path: string; size: unknown; mtime_ms: unknown; written: unknown }): HostEntry {
  return { path: row.path, kind: "file", mtimeMs: Number(row.mtime_ms), size: Number(row.size), ino: Number(row.written) };
}

const folderEntry = (path: string): HostEntry => ({ path, kind: "directory", mtimeMs: 0, size: 0 });

/**
 * Gives a pooled client back. A broken one (`true`, or the error that broke it) is closed, not
 * pooled, so the server frees whatever it held, and a late error of the closed connection has a
 * listener to land on.
 */
function letGo(client: PgPoolClient, broken: boolean | Error): void {
  if (broken) client.on("error", () => {});
  try {
    client.release(broken === false ? undefined : broken);
  } catch {
    // released already
  }
}

/** A failure of the database as a {@link HostError}: a unique violation is `EEXIST`; a connection's code (`ECONNRESET`) is kept; anything else `EIO`. */
function dbError(error: unknown, what: string): HostError {
  const e = error as { code?: unknown; message?: unknown } | null;
  if (e && typeof e.code === "string" && /^E[A-Z]+$/.test(e.code)) return error as HostError;
  const state = typeof e?.code === "string" ? e.code : "";
  const out = hostError(state === "23505" ? "EEXIST" : "EIO", `${what}: PostgreSQL ${String(e?.message ?? error)}${state ? ` (SQLSTATE ${state})` : ""}`);
  (out as Error).cause = error;
  return out;
}

/** `pg`, or a MemdirError saying how to get it. */
async function loadPg(): Promise<{ Pool: new (config: object) => PgPool }> {
  const name = "pg"; // a variable: bundlers leave it to the runtime, so nothing else carries pg
  try {
    const mod = await import(name);
    return (mod.default ?? mod) as { Pool: new (config: object) => PgPool };
  } catch (error) {
    throw new MemdirError("IO_ERROR", `memdir/postgres needs node-postgres, an optional peer dependency: npm install pg (${(error as Error)?.message ?? error})`, { cause: error, errno: "MODULE_NOT_FOUND" });
  }
}

/** One listening connection for a store: every watch of every memory shares it. */
class Listener {
  /** memory → its watches. */
  readonly watches = new Map<string, Set<{ dir: string; onChange: (name: string | null) => void }>>();
  private client: PgPoolClient | null = null;
  private connecting: Promise<void> | null = null;
  private stopped = false;
  private failures = 0;

  constructor(
    private readonly pool: PgPool,
    private readonly channel: string,
  ) {}

  add(memory: string, dir: string, onChange: (name: string | null) => void): HostWatcher {
    const watch = { dir, onChange };
    let set = this.watches.get(memory);
    if (!set) this.watches.set(memory, (set = new Set()));
    set.add(watch);
    this.stopped = false;
    if (!this.client && !this.connecting) this.connect();
    return {
      close: () => {
        set!.delete(watch);
        if (set!.size === 0 && this.watches.get(memory) === set) this.watches.delete(memory);
        if (this.watches.size === 0) this.stop(); // an emptied set leaves `watches`
      },
    };
  }

  /** Every watch: something may have changed that no name says. */
  private all(): void {
    for (const set of this.watches.values()) for (const w of [...set]) w.onChange(null);
  }

  private connect(): void {
    this.connecting = (async () => {
      let client: PgPoolClient | null = null;
      try {
        client = await this.pool.connect();
        client.on("notification", this.onNotification);
        client.on("error", this.onLost);
        client.on("end", this.onLost);
        await client.query(`LISTEN ${quote(this.channel)}`);
        if (this.stopped) {
          this.drop(client, true); // still listening: closed, not pooled
          return;
        }
        this.client = client;
        this.failures = 0;
        // as `fs.watch` with `persistent: false`: an open watch does not keep the process alive
        client.unref?.();
        // changes between the listing a watch follows and this LISTEN were not heard
        this.all();
      } catch {
        if (client) this.drop(client, true);
        this.retry();
      } finally {
        this.connecting = null;
      }
    })();
  }

  private retry(): void {
    if (this.stopped || this.watches.size === 0) return;
    this.all();
    const wait = Math.min(5000, 100 * 2 ** this.failures++);
    setTimeout(() => {
      if (!this.stopped && this.watches.size > 0 && !this.client && !this.connecting) this.connect();
    }, wait).unref?.();
  }

  private readonly onLost = () => {
    const client = this.client;
    if (!client) return;
    this.client = null;
    this.drop(client, true);
    this.retry();
  };

  private drop(client: PgPoolClient, broken: boolean): void {
    client.removeListener("notification", this.onNotification);
    client.removeListener("error", this.onLost);
    client.removeListener("end", this.onLost);
    // back to the pool for other queries: referenced again (a query on an unref'd socket would not
    // keep the process alive to its answer), and with no listener added (one a drop, for a pooled
    // client reused by watch after watch, was a leak)
    if (!broken) client.ref?.();
    letGo(client, broken);
  }

  private readonly onNotification = (message: { channel?: string; payload?: string }) => {
    if (message.channel !== this.channel) return;
    const payload = message.payload ?? "";
    // `<memory> <path>`, a memory id may hold spaces: each space is a place the id may end (a
    // lookup each, not a pass over every watched memory for every write in the fleet)
    for (let space = payload.indexOf(" "); space !== -1; space = payload.indexOf(" ", space + 1)) {
      const set = this.watches.get(payload.slice(0, space));
      if (!set) continue;
      const path = payload.slice(space + 1);
      for (const w of [...set]) {
        if (path === "") {
          w.onChange(null);
          continue;
        }
        if (w.dir !== "" && !path.startsWith(`${w.dir}/`)) continue;
        const below = w.dir === "" ? path : path.slice(w.dir.length + 1);
        const slash = below.indexOf("/");
        w.onChange(slash === -1 ? below : below.slice(0, slash));
      }
    }
  };

  /** UNLISTEN and give the connection back. */
  stop(): void {
    this.stopped = true;
    const client = this.client;
    this.client = null;
    if (!client) return;
    client
      .query(`UNLISTEN ${quote(this.channel)}`)
      .then(
        () => this.drop(client, false),
        () => this.drop(client, true),
      );
  }
}

/**
 * A database of memories. `open` once per process (it holds a connection pool), then
 * `host(memory)` for each user or tenant.
 */
export class PostgresStore {
  /** The schema of memdir's tables. */
  readonly schema: string;
  /** The pool every query goes through (the store's own, or the one given). */
  readonly pool: PgPool;
  /** The database's name (`current_database()`), for `absolutePath`. */
  readonly database: string;
  /** The `LISTEN`/`NOTIFY` channel of this schema's changes; a write notifies `<memory> <path>` on it. */
  readonly channel: string;
  /** @internal */
  readonly tables: { memories: string; files: string };
  private readonly ownsPool: boolean;
  /** The hosts in use, weakly: a fleet's process that serves many users does not keep one for each it ever served. */
  private readonly hosts = new Map<string, WeakRef<PostgresHost>>();
  private readonly collected = new FinalizationRegistry<string>((memory) => {
    if (this.hosts.get(memory)?.deref() === undefined) this.hosts.delete(memory);
  });
  private listener: Listener | null = null;
  private closed = false;

  private constructor(pool: PgPool, ownsPool: boolean, schema: string, database: string) {
    this.pool = pool;
    this.ownsPool = ownsPool;
    this.schema = schema;
    this.database = database;
    this.channel = channelOf(schema);
    this.tables = tablesOf(schema);
  }

  /**
   * Connects (or uses the given `pg.Pool`), creates memdir's tables if missing (idempotent, and
   * safe when many processes open at once: the creation holds a transaction-level advisory
   * lock). A missing `pg` is a `MemdirError` saying `npm install pg`.
   */
  static async open(options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const schema = options.schema ?? "memdir";
    if (typeof schema !== "string" || schema === "" || Buffer.byteLength(schema) > 63 || schema.includes("\0")) {
      throw new MemdirError("INVALID_ARGUMENT", `schema must be a name of 1 to 63 bytes, got ${JSON.stringify(schema)}`);
    }
    let pool = options.pool;
    const owns = pool === undefined;
    if (!pool) {
      const pg = await loadPg();
      // idle connections do not keep the process alive (a script that forgets `close()` still exits)
      pool = new pg.Pool({ connectionString: options.connectionString, max: options.max ?? 10, allowExitOnIdle: true });
      // an idle connection the server closed: the pool drops it; without a listener, Node would exit
      pool.on("error", () => {});
    }
    try {
      const tables = tablesOf(schema);
      const { rows } = await pool.query("SELECT current_database() AS db, to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS ready", [tables.memories, tables.files]);
      if (!rows[0].ready) await createTables(pool, schema, tables);
      return new PostgresStore(pool, owns, schema, String(rows[0].db));
    } catch (error) {
      if (owns) await pool.end().catch(() => {});
      throw dbError(error, `could not open the memdir store (schema ${schema})`);
    }
  }

  /**
   * The {@link MemoryHost} of one memory (a user, a tenant), created on its first write:
   * `openMemory({ host: store.host("alice") })`. The same object for the same id while it is in
   * use (memories opened on one host share their cache).
   */
  host(memory: string): PostgresHost {
    if (typeof memory !== "string" || memory === "" || memory.includes("\0") || Buffer.byteLength(memory) > MAX_MEMORY_ID_BYTES) {
      throw new MemdirError("INVALID_ARGUMENT", `a memory id is 1 to ${MAX_MEMORY_ID_BYTES} bytes without NUL, got ${JSON.stringify(String(memory).slice(0, 80))}`);
    }
    let host = this.hosts.get(memory)?.deref();
    if (!host) {
      host = new PostgresHost(this, memory);
      this.hosts.set(memory, new WeakRef(host));
      this.collected.register(host, memory);
    }
    return host;
  }

  /** The memories in this database (those written at least once), sorted. */
  async memories(): Promise<string[]> {
    try {
      const { rows } = await this.pool.query(`SELECT id FROM ${this.tables.memories} ORDER BY id`);
      return rows.map((r) => String(r.id));
    } catch (error) {
      throw dbError(error, "could not list the memories");
    }
  }

  /** Stops the watches' connection; ends the pool if the store made it. */
  async close(): Promise<void> {
    this.closed = true;
    this.listener?.stop();
    this.listener = null;
    if (this.ownsPool) await this.pool.end();
  }

  /** @internal One listening connection shared by every watch of this store; `null` once it is closed. */
  watch(memory: string, dir: string, onChange: (name: string | null) => void): HostWatcher | null {
    if (this.closed) return null;
    if (!this.listener) this.listener = new Listener(this.pool, this.channel);
    return this.listener.add(memory, dir, onChange);
  }
}

async function createTables(pool: PgPool, schema: string, tables: { memories: string; files: string }): Promise<void> {
  const client = await pool.connect();
  const ignore = () => {};
  client.on("error", ignore);
  let broken: unknown;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`memdir schema ${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quote(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${tables.memories} (id text COLLATE "C" PRIMARY KEY, version bigint NOT NULL)`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${tables.files} (memory text COLLATE "C" NOT NULL, path text COLLATE "C" NOT NULL, data bytea NOT NULL, mtime_ms bigint NOT NULL, written bigint NOT NULL, PRIMARY KEY (memory, path))`,
    );
    await client.query("COMMIT");
  } catch (error) {
    broken = error;
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.removeListener("error", ignore);
    letGo(client, broken instanceof Error ? broken : false);
  }
}

/**
 * One memory of a {@link PostgresStore}: every member of {@link MemoryHost}, the write lock
 * (`locks.exclusive`, an advisory lock), `watch` (`LISTEN`/`NOTIFY`) and the fast paths, each
 * one query.
 */
export class PostgresHost implements MemoryHost {
  /** `postgres://<database>/<memory>` (no user, no password). */
  readonly root: string;
  /** The memory's id. */
  readonly memory: string;
  /** The store it belongs to. */
  readonly store: PostgresStore;
  /** The advisory lock's name: the lock's key is `hashtextextended(lockName, 0)`. */
  readonly lockName: string;

  /** @internal Use {@link PostgresStore.host}. */
  constructor(store: PostgresStore, memory: string) {
    this.store = store;
    this.memory = memory;
    this.root = `postgres://${store.database}/${memory}`;
    this.lockName = `memdir lock ${store.schema}\n${memory}`;
  }

  /** `postgres://<database>/<memory>/<path>`. */
  absolutePath(path: string): string {
    return path === "" ? this.root : `${this.root}/${path}`;
  }

  /** This memory's write lock held in this async context, if any. */
  private held(): Held | undefined {
    const held = context.getStore();
    return held?.host === this && !held.released ? held : undefined;
  }

  /** A query: through the connection holding the write lock inside `exclusive`, else the pool. */
  private query(text: string, values: unknown[]): Promise<PgResult> {
    const held = this.held();
    return held ? held.client.query(text, values) : this.store.pool.query(text, values);
  }

  private get t() {
    return this.store.tables;
  }

  /** Every file of the memory (one query), and the folders their paths imply, sorted by path. */
  async list(): Promise<HostEntry[]> {
    let rows: any[];
    try {
      ({ rows } = await this.query(`SELECT path, octet_length(data) AS size, mtime_ms, written FROM ${this.t.files} WHERE memory = $1 ORDER BY path`, [this.memory]));
    } catch (error) {
      throw dbError(error, `could not list ${this.root}`);
    }
    const folders = new Set<string>();
    const entries: HostEntry[] = [];
    for (const row of rows) {
      for (const p of parents(row.path)) folders.add(p);
      entries.push(fileEntry(row));
    }
    for (const p of folders) entries.push(folderEntry(p));
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** One entry (one query): a file, a folder (a path some file is below), or `null`. The root is always a folder. */
  async stat(path: string): Promise<HostEntry | null> {
    const [entry] = await this.statMany([path]);
    if (entry instanceof Error) throw entry;
    return entry ?? null;
  }

  /** The file's bytes, or its first `maxBytes` (cut in the database); `ENOENT`, or `EISDIR` for a folder. */
  async readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
    const limit = maxBytes === undefined ? null : Math.max(0, Math.min(Math.floor(maxBytes), 0x7fffffff));
    let row: any;
    try {
      ({
        rows: [row],
      } = await this.query(
        `SELECT (SELECT CASE WHEN $3::int IS NULL THEN data ELSE substring(data FROM 1 FOR $3::int) END FROM ${this.t.files} WHERE memory = $1 AND path = $2) AS data,
                EXISTS (SELECT 1 FROM ${this.t.files} WHERE memory = $1 AND path > $2 || '/' AND path < $2 || '0') AS dir`,
        [this.memory, path, limit],
      ));
    } catch (error) {
      throw dbError(error, `could not read ${this.absolutePath(path)}`);
    }
    if (row.data !== null) return bytesOf(row.data);
    throw row.dir && path !== "" ? hostError("EISDIR", `${this.absolutePath(path)} is a folder`) : hostError("ENOENT", `${this.absolutePath(path)} does not exist`);
  }

  /**
   * Writes the whole file in one statement (atomic). `exclusive`: `EEXIST` when it exists.
   * `mtimeMs`: its time (to the millisecond), else the database's clock. `EISDIR` over a folder,
   * `ENOTDIR` below a file; `ECONFLICT` inside `exclusive` when another writer changed the
   * memory since the lock was taken.
   */
  async writeFile(path: string, data: Uint8Array, options: { exclusive?: boolean; durable?: boolean; mtimeMs?: number } = {}): Promise<void> {
    await this.writeMany([{ path, data, exclusive: options.exclusive === true, mtimeMs: options.mtimeMs }]);
  }

  /** Removes a file, or a folder and everything in it (one statement); `ENOENT` when nothing is there. */
  async remove(path: string): Promise<void> {
    await this.write(`remove ${this.absolutePath(path)}`, async (expected) => {
      const { rows } = await this.query(
        `WITH ok AS (SELECT EXISTS (SELECT 1 FROM ${this.t.files} WHERE memory = $1 AND (path = $3 OR (path > $3 || '/' AND path < $3 || '0'))) AS ok),
         ${this.bump()},
         d AS (DELETE FROM ${this.t.files} f USING v WHERE f.memory = $1 AND (f.path = $3 OR (f.path > $3 || '/' AND f.path < $3 || '0')) RETURNING f.path),
         n AS (SELECT ${notify("$4", "path")} FROM d)
         SELECT (SELECT version FROM v) AS version, (SELECT count(*) FROM n) AS notified`,
        [this.memory, expected, path, this.store.channel],
      );
      return rows[0].version;
    }, async () => ((await this.stat(path)) === null || path === "" ? hostError("ENOENT", `${this.absolutePath(path)} does not exist`) : null));
  }

  /** Renames a file or a folder with everything in it (one statement); `EEXIST` when `to` exists, `ENOENT` when `from` does not. */
  async rename(from: string, to: string): Promise<void> {
    if (to === from || to.startsWith(`${from}/`)) throw hostError("EINVAL", `cannot move ${this.absolutePath(from)} into itself`);
    await this.write(`rename ${this.absolutePath(from)}`, async (expected) => {
      const { rows } = await this.query(
        `WITH ok AS (SELECT EXISTS (SELECT 1 FROM ${this.t.files} WHERE memory = $1 AND (path = $3 OR (path > $3 || '/' AND path < $3 || '0')))
                       AND NOT EXISTS (SELECT 1 FROM ${this.t.files} WHERE memory = $1 AND (path = $4 OR (path > $4 || '/' AND path < $4 || '0') OR path = ANY($6::text[]))) AS ok),
         ${this.bump()},
         r AS (UPDATE ${this.t.files} f SET path = $4 || substr(f.path, length($3) + 1), written = v.version FROM v
               WHERE f.memory = $1 AND (f.path = $3 OR (f.path > $3 || '/' AND f.path < $3 || '0')) RETURNING f.path),
         n AS (SELECT ${notify("$5", "path")} FROM r UNION ALL SELECT ${notify("$5", "$3 || substr(path, length($4) + 1)")} FROM r)
         SELECT (SELECT version FROM v) AS version, (SELECT count(*) FROM n) AS notified`,
        [this.memory, expected, from, to, this.store.channel, parents(to)],
      );
      return rows[0].version;
    }, async () => {
      // one query for every path, as writeMany's diagnosis (stat threw a stat's error: so do these)
      const up = parents(to);
      const stats = await this.statMany([from, to, ...up]);
      const entry = (i: number) => {
        const s = stats[i];
        if (s instanceof Error) throw s;
        return s ?? null;
      };
      if (entry(0) === null) return hostError("ENOENT", `${this.absolutePath(from)} does not exist`);
      if (entry(1) !== null) return hostError("EEXIST", `${this.absolutePath(to)} already exists`);
      for (let i = 0; i < up.length; i++) if (entry(2 + i)?.kind === "file") return hostError("ENOTDIR", `${this.absolutePath(up[i]!)} is a file`);
      return null;
    });
  }

  /** The CTE `v` that bumps the version when `ok.ok` (and, with `$2`, only from that version); it returns the new version, or no row. */
  private bump(): string {
    const m = this.t.memories;
    return `v AS (INSERT INTO ${m} AS m (id, version)
                  SELECT $1, 1 FROM ok WHERE ok.ok AND ($2::bigint IS NULL OR $2::bigint = 0 OR EXISTS (SELECT 1 FROM ${m} WHERE id = $1))
                  ON CONFLICT (id) DO UPDATE SET version = m.version + 1 WHERE $2::bigint IS NULL OR m.version = $2::bigint
                  RETURNING version)`;
  }

  /**
   * Runs one write statement: with the expected version under this memory's write lock (the
   * writes of one lock one after the other), without outside it. A statement that bumped no
   * version did nothing: `diagnose` says why (else, under the lock, the version moved: `ECONFLICT`).
   */
  private async write(what: string, run: (expected: number | null) => Promise<unknown>, diagnose: () => Promise<HostError | null>): Promise<void> {
    const held = this.held();
    const once = async (): Promise<void> => {
      const expected = held ? held.version : null;
      let version: unknown;
      try {
        version = await run(expected);
      } catch (error) {
        const failure = dbError(error, `could not ${what}`);
        if (failure.code === "EEXIST") (failure as { message: string }).message = `could not ${what}: a file already exists`;
        throw failure;
      }
      if (version !== null && version !== undefined) {
        if (held) held.version = Number(version);
        return;
      }
      if (held) {
        const { rows } = await this.query(`SELECT version FROM ${this.t.memories} WHERE id = $1`, [this.memory]);
        const now = rows.length ? Number(rows[0].version) : 0;
        if (now !== held.version) {
          throw hostError(
            "ECONFLICT",
            `could not ${what}: memory "${this.memory}" was changed by another writer while this one held its write lock (version ${now}, the lock saw ${held.version}); the lock was lost, so nothing was written`,
          );
        }
      }
      throw (await diagnose()) ?? hostError("EAGAIN", `could not ${what}: it changed meanwhile; nothing was written`);
    };
    if (!held) return once();
    const next = held.queue.then(once, once);
    held.queue = next.catch(() => {});
    return next;
  }

  /** Files written in one statement: all or none. */
  private async writeMany(files: { path: string; data: Uint8Array; exclusive: boolean; mtimeMs?: number | undefined }[]): Promise<void> {
    // one row a path: the last write of a path wins (exclusive if any of them is)
    const byPath = new Map<string, { path: string; data: Uint8Array; exclusive: boolean; mtimeMs?: number | undefined }>();
    for (const f of files) byPath.set(f.path, { ...f, exclusive: f.exclusive || byPath.get(f.path)?.exclusive === true });
    const list = [...byPath.values()];
    if (list.length === 0) return;
    const paths = list.map((f) => f.path);
    const allParents = [...new Set(paths.flatMap(parents))];
    const what = list.length === 1 ? `write ${this.absolutePath(paths[0]!)}` : `write ${list.length} files to ${this.root}`;
    const columns = `SELECT $1, x.path, x.data, coalesce(x.mtime, (extract(epoch FROM clock_timestamp()) * 1000)::bigint), v.version
                     FROM v, unnest($3::text[], $4::bytea[], $5::bigint[], $6::bool[]) AS x(path, data, mtime, excl)`;
    try {
      await this.write(
        what,
        async (expected) => {
          const { rows } = await this.query(
            `WITH ok AS (SELECT NOT EXISTS (SELECT 1 FROM ${this.t.files} f, unnest($3::text[]) AS p(path) WHERE f.memory = $1 AND f.path > p.path || '/' AND f.path < p.path || '0')
                          AND NOT EXISTS (SELECT 1 FROM ${this.t.files} WHERE memory = $1 AND path = ANY($8::text[])) AS ok),
             ${this.bump()},
             w AS (INSERT INTO ${this.t.files} (memory, path, data, mtime_ms, written) ${columns} WHERE x.excl RETURNING path),
             u AS (INSERT INTO ${this.t.files} (memory, path, data, mtime_ms, written) ${columns} WHERE NOT x.excl
                   ON CONFLICT (memory, path) DO UPDATE SET data = EXCLUDED.data, mtime_ms = EXCLUDED.mtime_ms, written = EXCLUDED.written RETURNING path),
             n AS (SELECT ${notify("$7", "path")} FROM (SELECT path FROM w UNION ALL SELECT path FROM u) c)
             SELECT (SELECT version FROM v) AS version, (SELECT count(*) FROM n) AS notified`,
            [
              this.memory,
              expected,
              paths,
              list.map((f) => Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength)),
              list.map((f) => (typeof f.mtimeMs === "number" && Number.isFinite(f.mtimeMs) ? Math.round(f.mtimeMs) : null)),
              list.map((f) => f.exclusive),
              this.store.channel,
              allParents,
            ],
          );
          return rows[0].version;
        },
        async () => {
          const stats = await this.statMany([...paths, ...allParents]);
          for (let i = 0; i < paths.length; i++) {
            const s = stats[i];
            if (s && !(s instanceof Error) && s.kind === "directory") return withPath(hostError("EISDIR", `could not ${what}: ${this.absolutePath(paths[i]!)} is a folder`), paths[i]!);
          }
          for (let i = 0; i < allParents.length; i++) {
            const s = stats[paths.length + i];
            if (s && !(s instanceof Error) && s.kind === "file") return hostError("ENOTDIR", `could not ${what}: ${this.absolutePath(allParents[i]!)} is a file`);
          }
          return null;
        },
      );
    } catch (error) {
      const e = error as HostError & { writePath?: string };
      if (e.code === "EEXIST" && e.writePath === undefined) {
        // which one: the first exclusive file that is there now
        const exclusive = list.filter((f) => f.exclusive).map((f) => f.path);
        const stats = await this.statMany(exclusive).catch(() => []);
        const at = exclusive.find((_, i) => stats[i] != null && !(stats[i] instanceof Error));
        if (at !== undefined) {
          e.message = `could not ${what}: ${this.absolutePath(at)} already exists`;
          e.writePath = at;
        }
      }
      if (e.writePath === undefined && list.length === 1 && typeof e === "object" && e !== null) e.writePath = paths[0];
      throw error;
    }
  }

  /** Nothing here is a link: every path is where it says (the memory tool then names paths without a listing). */
  readonly links: HostLinks = { resolve: async (path) => path };

  /**
   * The write lock. `exclusive` holds a session-level advisory lock keyed on the schema and
   * the memory (`pg_advisory_lock(hashtextextended(lockName, 0))`) on a connection of its own
   * for `fn`'s whole run, polled with `pg_try_advisory_lock` and a backoff up to `timeoutMs`
   * (then `ETIMEDOUT`); inside it, this memory's queries go through that connection and every
   * write checks the memory's version is still the one seen when the lock was taken. A process
   * that dies loses its connection, and PostgreSQL frees its lock at once.
   *
   * `ownerAlive` answers `false` for any owner of a `.memdir.lock` row while this process holds
   * the advisory lock: every memdir writer of the memory takes the advisory lock before the lock
   * file (`withLock`), so a lock row seen under it is a writer's that is gone (killed while it
   * held both), and the next writer breaks it at once instead of waiting `staleMs`. Outside
   * the advisory lock it cannot tell (`null`).
   */
  readonly locks: HostLocks = {
    owner: async (): Promise<LockOwner> => ({ host: hostname(), pid: process.pid }),
    ownerAlive: async (): Promise<boolean | null> => (this.held() ? false : null),
    exclusive: <T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> => this.exclusive(fn, timeoutMs),
  };

  private async exclusive<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> {
    if (this.held()) return fn(); // already ours, in this context
    const deadline = Date.now() + Math.max(0, timeoutMs);
    const timedOut = () => hostError("ETIMEDOUT", `the write lock of ${this.root} was not granted within ${timeoutMs} ms`);
    const client = await new Promise<PgPoolClient>((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(timedOut());
      }, Math.max(0, deadline - Date.now()));
      this.store.pool.connect().then(
        (c) => {
          clearTimeout(timer);
          if (late) c.release();
          else resolve(c);
        },
        (error) => {
          clearTimeout(timer);
          if (!late) reject(dbError(error, `could not connect to take the write lock of ${this.root}`));
        },
      );
    });
    let lost: unknown = null;
    const onError = (error: unknown) => (lost = error);
    client.on("error", onError);
    let held: Held;
    try {
      for (let attempt = 0; ; attempt++) {
        const { rows } = await client.query("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got", [this.lockName]);
        if (rows[0].got) break;
        if (Date.now() >= deadline) throw timedOut();
        await sleep(Math.min(Math.min(100, 2 + attempt * 4) + Math.random() * 10, Math.max(1, deadline - Date.now())));
      }
    } catch (error) {
      client.removeListener("error", onError);
      const timeout = (error as HostError)?.code === "ETIMEDOUT";
      letGo(client, !timeout);
      throw timeout ? error : dbError(error, `could not take the write lock of ${this.root}`);
    }
    try {
      // read once the lock is granted: the last holder's writes committed before it let go
      const { rows } = await client.query(`SELECT version FROM ${this.t.memories} WHERE id = $1`, [this.memory]);
      held = { host: this, client, version: rows.length ? Number(rows[0].version) : 0, queue: Promise.resolve(), released: false };
    } catch (error) {
      lost = error;
      client.removeListener("error", onError);
      letGo(client, true);
      throw dbError(error, `could not read the version of ${this.root}`);
    }
    try {
      return await context.run(held, fn);
    } finally {
      held.released = true;
      if (lost === null) {
        try {
          await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [this.lockName]);
        } catch (error) {
          lost = error;
        }
      }
      client.removeListener("error", onError);
      letGo(client, lost !== null);
    }
  }

  /**
   * Calls `onChange` with the name in `dir` of each change to this memory, written by any
   * process through any store on this database (`LISTEN`; every write notifies `<memory>
   * <path>` on the store's channel). One listening connection per store, shared by every watch;
   * the last `close()` lets it go. A lost connection calls `onChange(null)` (and again once
   * listening anew).
   */
  watch(dir: string, onChange: (name: string | null) => void): HostWatcher | null {
    return this.store.watch(this.memory, dir, onChange);
  }

  /** Each one query: heads, stats, and writes in one transaction. */
  readonly fast: HostFastPaths = {
    readHeads: (paths, maxLines) => this.readHeads(paths, maxLines),
    statMany: (paths) => this.statMany(paths),
    writeFiles: (files: WriteRequest[]) => this.writeMany(files.map((f) => ({ path: f.path, data: f.data, exclusive: f.exclusive === true }))),
  };

  /** The first `maxLines` lines of each file (one query; a head longer than 16 KiB a second), with the entry it was read at. */
  private async readHeads(paths: string[], maxLines: number): Promise<(HostHead | HostError)[]> {
    const out: (HostHead | HostError)[] = new Array(paths.length);
    if (paths.length === 0) return out;
    const sql = `SELECT q.i, f.path IS NOT NULL AS found, substring(f.data FROM 1 FOR $3::int) AS head, octet_length(f.data) AS size, f.mtime_ms, f.written,
                        (f.path IS NULL AND EXISTS (SELECT 1 FROM ${this.t.files} d WHERE d.memory = $1 AND d.path > q.p || '/' AND d.path < q.p || '0')) AS dir
                 FROM unnest($2::text[]) WITH ORDINALITY AS q(p, i) LEFT JOIN ${this.t.files} f ON f.memory = $1 AND f.path = q.p`;
    let rows: any[];
    try {
      ({ rows } = await this.query(sql, [this.memory, paths, HEAD_FIRST_BYTES]));
    } catch (error) {
      const failure = dbError(error, `could not read heads in ${this.root}`);
      return out.fill(failure);
    }
    const again: number[] = [];
    for (const row of rows) {
      const k = Number(row.i) - 1;
      const path = paths[k]!;
      if (!row.found) {
        out[k] = row.dir && path !== "" ? hostError("EISDIR", `${this.absolutePath(path)} is a folder`) : hostError("ENOENT", `${this.absolutePath(path)} does not exist`);
        continue;
      }
      const bytes = bytesOf(row.head);
      const head = headLines(bytes, maxLines);
      // headLines gives back `bytes` itself when they hold fewer than maxLines lines: the head may go on
      if (head === bytes && Number(row.size) > bytes.length) again.push(k);
      out[k] = { bytes: head, entry: fileEntry({ ...row, path }) };
    }
    if (again.length > 0) {
      try {
        const { rows: more } = await this.query(sql, [this.memory, again.map((k) => paths[k]), HEAD_READ_BYTES]);
        for (const row of more) {
          const k = again[Number(row.i) - 1]!;
          const path = paths[k]!;
          out[k] = row.found ? { bytes: headLines(bytesOf(row.head), maxLines), entry: fileEntry({ ...row, path }) } : hostError("ENOENT", `${this.absolutePath(path)} does not exist`);
        }
      } catch (error) {
        const failure = dbError(error, `could not read heads in ${this.root}`);
        for (const k of again) out[k] = failure;
      }
    }
    return out;
  }

  /** Many entries in one query: each a file, a folder, or `null`; the root is a folder. */
  private async statMany(paths: string[]): Promise<(HostEntry | null | HostError)[]> {
    const out: (HostEntry | null | HostError)[] = paths.map(() => null);
    if (paths.length === 0) return out;
    let rows: any[];
    try {
      ({ rows } = await this.query(
        `SELECT q.i, f.path, f.size, f.mtime_ms, f.written FROM unnest($2::text[]) WITH ORDINALITY AS q(p, i)
         CROSS JOIN LATERAL (SELECT path, octet_length(data) AS size, mtime_ms, written FROM ${this.t.files}
                             WHERE memory = $1 AND (path = q.p OR (path > q.p || '/' AND path < q.p || '0')) ORDER BY path LIMIT 1) f`,
        [this.memory, paths],
      ));
    } catch (error) {
      throw dbError(error, `could not stat in ${this.root}`);
    }
    for (const row of rows) {
      const k = Number(row.i) - 1;
      const path = paths[k]!;
      out[k] = row.path === path ? fileEntry(row) : folderEntry(path);
    }
    paths.forEach((p, k) => {
      if (p === "") out[k] = folderEntry("");
    });
    return out;
  }
}

function withPath(error: HostError, path: string): HostError {
  (error as HostError & { writePath?: string }).writePath = path;
  return error;
}

/** `pg_notify(channel, memory || ' ' || path)`; a payload too long for NOTIFY (8,000 bytes) names no path (a watch then hears `null`). */
function notify(channel: string, path: string): string {
  return `pg_notify(${channel}, CASE WHEN octet_length($1) + octet_length(${path}) < 7900 THEN $1 || ' ' || ${path} ELSE $1 || ' ' END)`;
}
