// A writer process for tests/js/concurrency.test.mjs. One JSON argument says what to do;
// every fact goes to stdout as one JSON line (stdout to a pipe is synchronous on Linux, so a
// line printed before a write is in the pipe even if the process is killed during it).
//
//   {mode: "batch", dir, gate, ops}  print {ready}, wait for the gate file, run the ops in
//                                    order, printing {i, t0, t1, ok, result | code, message}
//   {mode: "loop", dir, round, maxNew, bodyLines}
//                                    remember new memories and update existing ones (file:)
//                                    forever, printing {intent} before and {done} after each
//   {mode: "sleep"}                  stay alive until killed (a live pid for a lock file)
import { existsSync } from "node:fs";
import { openMemory } from "memdir";

const config = JSON.parse(process.argv[2] ?? "{}");
const say = (fact) => process.stdout.write(`${JSON.stringify(fact)}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** When every memory is written (metadata.modified), fixed so the test can spell the text out. */
const STAMP = Date.UTC(2026, 2, 5, 12, 34, 56, 789);

if (config.mode === "sleep") {
  say({ ready: true, pid: process.pid });
  setInterval(() => {}, 1 << 30);
} else if (config.mode === "batch") {
  const memory = await openMemory({ dir: config.dir, selector: { provider: "lexical" } });
  const tool = memory.tool();
  say({ ready: true, pid: process.pid });
  while (!existsSync(config.gate)) await sleep(1);
  for (const [i, op] of config.ops.entries()) {
    const t0 = Date.now();
    try {
      let result;
      if (op.kind === "remember") result = await memory.remember(op.input);
      else if (op.kind === "forget") result = await memory.forget(op.file);
      else if (op.kind === "tool") result = await tool.execute(op.input);
      else throw new Error(`unknown op ${op.kind}`);
      const ok = op.kind !== "tool" || !result.isError;
      say({ i, kind: op.kind, t0, t1: Date.now(), ok, result });
    } catch (error) {
      say({ i, kind: op.kind, t0, t1: Date.now(), ok: false, code: error?.code ?? null, message: String(error?.message ?? error) });
    }
  }
  say({ finished: true });
} else if (config.mode === "loop") {
  const A = ["harbor", "lantern", "quartz", "meadow", "falcon", "glacier", "tundra", "orchid", "copper", "violet", "canyon", "ember", "prairie", "walnut", "cobalt", "saffron", "pebble", "thistle", "juniper", "marble", "nebula", "willow", "basalt"];
  const B = ["anchor", "beacon", "cipher", "dynamo", "engine", "fjord", "gadget", "hinge", "island", "jigsaw", "kettle", "ledger", "mosaic", "nozzle", "oracle", "piston", "quiver", "rudder", "sprocket"];
  const memory = await openMemory({ dir: config.dir, selector: { provider: "lexical" } });
  // memories already there (earlier rounds, the test's own) can be updated too
  const known = (await memory.scan()).memories.filter((m) => m.name).map((m) => ({ file: m.path, name: m.name }));
  const body = (label, marker) => [`${label}.`, ...Array.from({ length: config.bodyLines }, (_, n) => `Detail line ${n} of ${label}: the crash drill keeps this text whole or not at all.`), marker].join("\n");
  let created = 0;
  for (let seq = 0; ; seq++) {
    let input;
    if (known.length > 0 && (seq % 3 === 2 || created >= config.maxNew)) {
      const { file, name } = known[(seq * 7) % known.length];
      const v = `u${config.round}x${seq}`;
      input = { type: "project", name, description: `Update ${v} of ${name} covering ${A[seq % A.length]}`, body: body(`${name} update ${v}`, `END-OF-MEMORY ${file} ${v}`), file, nowMs: STAMP };
    } else {
      const i = created++;
      // one word of the name is unique (r2n7), so no two descriptions come near 0.8 word overlap
      const name = `Fact r${config.round}n${i}`;
      const file = `project_fact_r${config.round}n${i}.md`;
      input = { type: "project", name, description: `${name} about ${A[(i + 5 * config.round) % A.length]} and ${B[(i + 7 * config.round) % B.length]}`, body: body(name, `END-OF-MEMORY ${file} new`), nowMs: STAMP };
      known.push({ file, name });
    }
    say({ intent: seq, file: input.file ?? `project_fact_r${config.round}n${created - 1}.md`, input });
    try {
      const result = await memory.remember(input);
      say({ done: seq, file: result.file, action: result.action, indexLine: result.indexLine });
    } catch (error) {
      say({ failed: seq, code: error?.code ?? null, message: String(error?.message ?? error) });
      process.exit(2);
    }
  }
} else {
  say({ error: `unknown mode ${config.mode}` });
  process.exit(2);
}
