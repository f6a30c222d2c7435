// A writer process of tests/postgres/concurrency.test.mjs, with a store (a pool) of its own:
//   node writer.mjs remember <url> <memory> <label> <count>  remembers <count> memories, then
//     prints {"files": [...], "writes": n}: the files it made and the writes that went through
//     (each bumps the memory's version once)
//   node writer.mjs leave <url> <memory>  remembers and recalls (a watch open), closes nothing,
//     prints {"done": true, "alive": [...]}, what keeps its event loop alive (no connection should)
//   node writer.mjs hold <url> <memory>  takes the write lock (advisory lock and lock row),
//     prints "locked", and holds it until killed
import { init, openMemory } from "../../pkg/entry/node.js";
import { PostgresStore } from "../../pkg/hosts/postgres.js";
import { withLock } from "../../pkg/lock.js";

await init();
const [mode, url, id, label, count] = process.argv.slice(2);
const store = await PostgresStore.open({ connectionString: url, max: 4 });

/** `host` counting the writes that went through. */
function counted(host, counter) {
  const count = (fn) => async (...args) => {
    const out = await fn(...args);
    counter.writes++;
    return out;
  };
  const fast = { ...host.fast, writeFiles: count((files) => host.fast.writeFiles(files)) };
  return new Proxy(host, {
    get(target, key) {
      if (key === "writeFile" || key === "remove" || key === "rename") return count((...args) => target[key](...args));
      if (key === "fast") return fast;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

if (mode === "remember") {
  const counter = { writes: 0 };
  const memory = await openMemory({ host: counted(store.host(id), counter), selector: { provider: "lexical" }, lock: { timeoutMs: 120_000 } });
  const files = [];
  for (let k = 0; k < Number(count); k++) {
    const word = `${label}x${k}`;
    const done = await memory.remember({ type: "project", name: `Note ${word}`, description: `Writer note ${word} about the ${word} topic`, body: `Body of ${word}.` });
    files.push(done.file);
  }
  memory.close();
  await store.close();
  process.stdout.write(`${JSON.stringify({ files, writes: counter.writes })}\n`);
} else if (mode === "leave") {
  const memory = await openMemory({ host: store.host(id), selector: { provider: "lexical" } });
  await memory.remember({ type: "project", name: "Left open", description: "A memory whose opener never closes it", body: "b" });
  await memory.recall("left open");
  await new Promise((r) => setTimeout(r, 200)); // the watch listening
  await memory.recall("left open");
  await new Promise((r) => setTimeout(r, 500)); // the check after the turn, done
  // what keeps the event loop alive now: no connection should
  process.stdout.write(`${JSON.stringify({ done: true, alive: process.getActiveResourcesInfo() })}\n`);
} else if (mode === "hold") {
  await withLock(store.host(id), async () => {
    process.stdout.write("locked\n");
    await new Promise(() => setInterval(() => {}, 1 << 30));
  });
}
