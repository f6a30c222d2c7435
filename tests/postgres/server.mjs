// The PostgreSQL server of a test file: the one `npm test` started (its URL in
// MEMDIR_TEST_PG_URL), or, when the file runs alone, one of its own (scripts/postgres.mjs),
// stopped when the file's tests end. Each file uses memory ids (or a schema) of its own, so files
// running at once on one server never see each other's rows.
import { after } from "node:test";
import { startPostgres } from "../../scripts/postgres.mjs";

let own = null;

/** The server's URL: `MEMDIR_TEST_PG_URL`, else a server started for this file (stopped in `after`). */
export async function pgUrl() {
  const given = process.env.MEMDIR_TEST_PG_URL;
  if (given) return given;
  if (own === null) {
    own = startPostgres();
    after(async () => (await own).stop());
  }
  return (await own).url;
}
