// The PostgreSQL server of a test file: the one `npm test` started (its URL in
// MEMDIR_TEST_PG_URL), or, when the file runs alone, one of its own (scripts/postgres.mjs),
// stopped as the file's process exits (after the file's own `after` hooks have closed their
// connections; `stop()` is synchronous inside). Each file uses memory ids (or a schema) of its
// own, so files running at once on one server never see each other's rows.
import { startPostgres } from "../../scripts/postgres.mjs";

let own = null;

/** The server's URL: `MEMDIR_TEST_PG_URL`, else a server started for this file (stopped when its process exits). */
export async function pgUrl() {
  const given = process.env.MEMDIR_TEST_PG_URL;
  if (given) return given;
  if (own === null) {
    own = startPostgres();
    const server = await own;
    process.once("exit", () => void server.stop());
    // a run cut short (a timeout's SIGTERM, ^C) stops it too
    for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]]) {
      process.once(signal, () => {
        void server.stop();
        process.exit(code);
      });
    }
  }
  return (await own).url;
}

/**
 * The test file's store and a plain client (to seed and to look without the host), opened in
 * `before` and closed in `after`: `const pg = usePostgres(); … pg.store, pg.sql, pg.url`.
 */
export function usePostgres(hooks, pgModule, PostgresStore) {
  const held = { url: null, store: null, sql: null };
  hooks.before(async () => {
    held.url = await pgUrl();
    held.store = await PostgresStore.open({ connectionString: held.url });
    held.sql = new pgModule.Client(held.url);
    await held.sql.connect();
  });
  hooks.after(async () => {
    await held.sql?.end();
    await held.store?.close();
  });
  return held;
}
