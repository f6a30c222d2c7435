// The PostgreSQL host (memdir/postgres) next to the folder a user would otherwise pick (the Node
// host), in one run: recall with the offline (lexical) selector — no model — on an opened memory
// (a turn) and a new one (cold), at 200 and 20,000 memories; remember; the import that filled
// the store (`copyMemory`, what `memdir import` runs). And round trips: every query the store's
// pool sends is counted (one query, one round trip: node-postgres sends a parameterised query's
// parse, bind and execute together), so each operation's cost over a network is the count times
// the network's round trip plus the figure measured here over a unix-socket-free 127.0.0.1.
//
// The server is a real one, started here by scripts/postgres.mjs (Debian's PostgreSQL, initdb
// into a temporary folder) and stopped at the end; without it (no PostgreSQL, no `pg`) the rows
// are skipped with the reason printed.
import { performance } from "node:perf_hooks";
import { median, memoryFolder } from "./fixture.mjs";

const QUERY = "what should I know about deploys and tests";
const TURNS = 25;

/** Starts the server and opens a store whose pool counts its queries; or `{ skipped }` with the reason. */
async function start() {
  let server;
  let pg;
  try {
    pg = (await import("pg")).default;
  } catch (error) {
    return { skipped: `pg is not installed (${error.code ?? error.message}): npm install pg` };
  }
  try {
    const { startPostgres } = await import("../scripts/postgres.mjs");
    server = await startPostgres();
  } catch (error) {
    return { skipped: `PostgreSQL could not start: ${error.message.split("\n")[0]}` };
  }
  const counter = { queries: 0 };
  const pool = new pg.Pool({ connectionString: server.url, max: 8 });
  // every client the pool makes counts its queries (pool.query goes through one of them)
  pool.on("connect", (client) => {
    const query = client.query.bind(client);
    client.query = (...args) => {
      counter.queries++;
      return query(...args);
    };
  });
  let store;
  try {
    const { PostgresStore } = await import("../pkg/hosts/postgres.js");
    store = await PostgresStore.open({ pool, schema: "memdir_bench" });
  } catch (error) {
    await pool.end().catch(() => {});
    await server.stop();
    return { skipped: `the PostgreSQL host could not open the store: ${error.message.split("\n")[0]}` };
  }
  return {
    store,
    counter,
    stop: async () => {
      await store.close().catch(() => {});
      await pool.end().catch(() => {});
      await server.stop();
    },
  };
}

/** Median time and mean queries of `fn` over `runs`, a timer tick apart (as an agent's turns come). */
async function measured(counter, fn, runs, warmup = 3) {
  for (let i = 0; i < warmup; i++) await fn(i);
  const times = [];
  let queries = 0;
  for (let i = 0; i < runs; i++) {
    await new Promise((r) => setTimeout(r, 1));
    const q = counter.queries;
    const t = performance.now();
    await fn(warmup + i);
    times.push(performance.now() - t);
    queries += counter.queries - q;
  }
  return { ms: median(times), queries: queries / runs };
}

/** A recall that must have run (the lexical selector chooses something or nothing, never fails). */
async function recall(memory) {
  const r = await memory.recall(QUERY);
  if (r.outcome === "failed") throw new Error(`recall failed: ${r.error}`);
  return r;
}

/** Recall a turn (an opened memory) and cold (a new one each time), over `open()`. */
async function recalls(memdir, counter, open, coldRuns) {
  const memory = await open();
  const turn = await measured(counter, () => recall(memory), TURNS, 5);
  memory.close();
  const cold = await measured(
    counter,
    async () => {
      const m = await open();
      await recall(m);
      m.close();
    },
    coldRuns,
    1,
  );
  return { perTurnMs: turn.ms, perTurnQueries: turn.queries, coldMs: cold.ms, coldQueries: cold.queries };
}

export async function benchPostgres(memdir, sizes = [200, 20000]) {
  const pg = await start();
  if (pg.skipped) return { skipped: pg.skipped };
  const { copyMemory } = await import("../pkg/transfer.js");
  const none = { queries: 0 };
  const out = { rows: [], remember: null };
  try {
    for (const n of sizes) {
      const folder = memoryFolder(n);
      const id = `bench-${n}-${process.pid}`;
      try {
        const host = pg.store.host(id);
        const q0 = pg.counter.queries;
        const t0 = performance.now();
        const copied = await copyMemory(new memdir.NodeHost(folder.dir), host);
        const importMs = performance.now() - t0;
        const importQueries = pg.counter.queries - q0;
        const lexical = { provider: "lexical" };
        const coldRuns = n > 1000 ? 5 : 12;
        const onPg = await recalls(memdir, pg.counter, () => memdir.openMemory({ host: pg.store.host(id), selector: lexical }), coldRuns);
        const onNode = await recalls(memdir, none, () => memdir.openMemory({ dir: folder.dir, selector: lexical }), coldRuns);
        out.rows.push({ memories: n, files: copied.files, importMs, importQueries, importQueriesPerFile: importQueries / copied.files, pg: onPg, node: onNode });
        if (n === sizes[0]) {
          // remember into ~180 memories (room for the 18 writes under the 200-file cap), both hosts,
          // an opened memory each
          const room = memoryFolder(180);
          try {
            const writeId = `${id}-writes`;
            await copyMemory(new memdir.NodeHost(room.dir), pg.store.host(writeId));
            const write = async (memory, counter, k0) =>
              measured(counter, (i) => memory.remember({ type: "project", name: `Bench write ${k0 + i}`, description: `benchmark write ${k0 + i} about topic ${(k0 + i) * 104729}`, body: "body" }), 15, 3);
            const pgMemory = await memdir.openMemory({ host: pg.store.host(writeId), selector: lexical });
            const nodeMemory = await memdir.openMemory({ dir: room.dir, selector: lexical });
            const onPgWrite = await write(pgMemory, pg.counter, 0);
            const onNodeWrite = await write(nodeMemory, none, 100);
            pgMemory.close();
            nodeMemory.close();
            out.remember = { memories: 180, pgMs: onPgWrite.ms, pgQueries: onPgWrite.queries, nodeMs: onNodeWrite.ms };
          } finally {
            room.remove();
          }
        }
      } finally {
        folder.remove();
      }
    }
  } finally {
    await pg.stop();
  }
  return out;
}

/** The bench's log lines for these rows. */
export function postgresLines(r, ms) {
  if (r.skipped) return [`PostgreSQL rows skipped: ${r.skipped}`];
  const lines = [];
  for (const row of r.rows) {
    lines.push(
      `recall (lexical) at ${row.memories.toLocaleString("en")} memories, a turn: PostgreSQL ${ms(row.pg.perTurnMs)} ms (${row.pg.perTurnQueries.toFixed(1)} round trips), Node host ${ms(row.node.perTurnMs)} ms (${(row.pg.perTurnMs / row.node.perTurnMs).toFixed(1)}x); ` +
        `cold ${ms(row.pg.coldMs)} ms (${row.pg.coldQueries.toFixed(0)} round trips) vs ${ms(row.node.coldMs)} ms (${(row.pg.coldMs / row.node.coldMs).toFixed(1)}x)`,
    );
    lines.push(`import of ${row.files.toLocaleString("en")} files into PostgreSQL: ${ms(row.importMs)} ms, ${row.importQueriesPerFile.toFixed(1)} round trips a file`);
  }
  if (r.remember) lines.push(`remember into ~${r.remember.memories} memories: PostgreSQL ${ms(r.remember.pgMs)} ms (${r.remember.pgQueries.toFixed(1)} round trips), Node host ${ms(r.remember.nodeMs)} ms (${(r.remember.pgMs / r.remember.nodeMs).toFixed(1)}x)`);
  return lines;
}
