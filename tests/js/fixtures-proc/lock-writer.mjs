// A writer process for tests/js/lock.test.mjs. One JSON argument says what to do; facts go to
// stdout as JSON lines (synchronous to a pipe on Linux, so a line printed before a stall is
// there when the test kills the process).
//
//   {mode: "remember", dir, input, lock}   one remember with these lock options; prints
//                                          {ok, ms, result} or {ok: false, ms, code, message}
//   {mode: "stall", dir, input, at}        one remember through a NodeHost whose file system
//                                          stops for good at one step, printing {stalled, pid}
//                                          there, so the test can SIGKILL it at that exact step:
//                                          at "acquire": linking its lock file into place;
//                                          at "break":   removing a stale lock it is breaking;
//                                          at "index":   renaming its new MEMORY.md into place.
import * as fsp from "node:fs/promises";
import { basename } from "node:path";
import { NodeHost, openMemory } from "memdir";

const config = JSON.parse(process.argv[2] ?? "{}");
const say = (fact) => process.stdout.write(`${JSON.stringify(fact)}\n`);
const forever = () => new Promise(() => setInterval(() => {}, 1 << 30));

if (config.mode === "remember") {
  const memory = await openMemory({ dir: config.dir, selector: { provider: "lexical" }, lock: config.lock ?? {} });
  const t0 = Date.now();
  try {
    const result = await memory.remember(config.input);
    say({ ok: true, ms: Date.now() - t0, result });
  } catch (error) {
    say({ ok: false, ms: Date.now() - t0, code: error?.code ?? null, message: String(error?.message ?? error) });
  }
} else if (config.mode === "stall") {
  const stall = async (step) => {
    say({ stalled: step, pid: process.pid });
    await forever();
  };
  const fs = {
    ...fsp,
    link: async (from, to) => {
      if (config.at === "acquire" && basename(String(to)) === ".memdir.lock") await stall("acquire");
      return fsp.link(from, to);
    },
    rm: async (path, options) => {
      if (config.at === "break" && basename(String(path)) === ".memdir.lock") await stall("break");
      return fsp.rm(path, options);
    },
    unlink: async (path) => {
      if (config.at === "break" && basename(String(path)) === ".memdir.lock") await stall("break");
      return fsp.unlink(path);
    },
    rename: async (from, to) => {
      if (config.at === "index" && basename(String(to)) === "MEMORY.md") await stall("index");
      return fsp.rename(from, to);
    },
  };
  const memory = await openMemory({ host: new NodeHost(config.dir, { fs }), selector: { provider: "lexical" } });
  await memory.remember(config.input);
  say({ finished: true });
} else {
  say({ error: `unknown mode ${config.mode}` });
  process.exit(2);
}
