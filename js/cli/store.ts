/**
 * The PostgreSQL store for `--database` (`memdir export`, `memdir import`): loaded only when a
 * command names a database, so `pg`, an optional peer dependency, is needed only then.
 */
import type { MemoryHost } from "../host.js";

/** The part of `PostgresStore` (memdir/postgres) the CLI uses. */
export interface Store {
  host(memory: string): MemoryHost;
  memories(): Promise<string[]>;
  close(): Promise<void>;
}

/** Opens the store at `url`; throws with `code` `ERR_MODULE_NOT_FOUND` when `pg` is not installed. */
export async function openStore(url: string): Promise<Store> {
  const { PostgresStore } = await import("../hosts/postgres.js");
  try {
    return await PostgresStore.open({ connectionString: url });
  } catch (error) {
    // memdir/postgres says a missing pg with MODULE_NOT_FOUND (its dynamic import of pg failed)
    if ((error as { errno?: string } | null)?.errno === "MODULE_NOT_FOUND") throw Object.assign(new Error("pg is not installed", { cause: error }), { code: "ERR_MODULE_NOT_FOUND" });
    throw error;
  }
}
