// Scopes across storages (rules §1.6): one recall over a person's folder, a project's folder and
// a team memory on PostgreSQL (read-only for this agent, written by another replica), each
// memory labelled by its scope; the team's new memory is seen at the next turn (LISTEN/NOTIFY).
import assert from "node:assert/strict";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { init, openMemory } from "../../pkg/entry/node.js";
import { PostgresStore } from "../../pkg/hosts/postgres.js";
import { pgUrl } from "./server.mjs";

await init();

const TEAM = `scopes-${process.pid}-${Date.now().toString(36)}-team`;
let stores = [];
let base;
before(async () => {
  const url = await pgUrl();
  stores = [await PostgresStore.open({ connectionString: url }), await PostgresStore.open({ connectionString: url })];
  base = await fsp.mkdtemp(join(tmpdir(), "memdir-pg-scopes-"));
});
after(async () => {
  for (const s of stores) await s.close();
  await fsp.rm(base, { recursive: true, force: true });
});

const topic = (name, type, description) => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\nBody of ${name}.\n`;

test("a recall over three scopes — two folders and a team memory on PostgreSQL — labels each memory's scope, and sees the team's next memory", async () => {
  const [agentStore, otherReplica] = stores;
  const mine = join(base, "mine");
  const project = join(base, "project");
  for (const [dir, files] of [
    [mine, { "MEMORY.md": "- [Editor](user_editor.md) — vim\n", "user_editor.md": topic("Editor", "user", "The user edits in vim") }],
    [project, { "MEMORY.md": "- [Deploy](project_deploy.md) — make ship\n", "project_deploy.md": topic("Deploy", "project", "Deploy the billing service with make ship") }],
  ]) {
    await fsp.mkdir(dir, { recursive: true });
    for (const [p, t] of Object.entries(files)) await fsp.writeFile(join(dir, p), t);
  }
  // the team memory, written by another replica
  const writer = await openMemory({ host: otherReplica.host(TEAM), selector: { provider: "lexical" } });
  await writer.remember({ type: "reference", name: "Runbook", description: "The billing incident runbook is in the wiki", body: "See the wiki." });

  const memory = await openMemory({
    scopes: [{ name: "mine", dir: mine, types: ["user", "feedback"] }, { name: "project", dir: project }, { name: "team", host: agentStore.host(TEAM), readOnly: true }],
    selector: { provider: "lexical" },
  });
  try {
    const scan = await memory.scan();
    assert.deepEqual(scan.memories.map((m) => m.path).sort(), ["mine:user_editor.md", "project:project_deploy.md", "team:reference_runbook.md"]);
    const first = await memory.recall("billing incident runbook wiki");
    const runbook = first.memories.find((m) => m.path === "team:reference_runbook.md");
    assert.ok(runbook, JSON.stringify(first.memories.map((m) => m.path)));
    assert.equal(runbook.scope, "team");
    assert.equal(runbook.absolutePath, `${agentStore.host(TEAM).root}/reference_runbook.md`);
    assert.match((await memory.index()).prompt, /the `team` scope's memory index[^]*billing incident runbook/);
    // the other replica adds to the team memory; this agent's next turn recalls it
    await writer.remember({ type: "reference", name: "On call", description: "The on-call rota for billing lives in PagerDuty", body: "PagerDuty." });
    const next = await memory.recall("who is on call for billing pagerduty rota");
    assert.ok(next.memories.some((m) => m.path === "team:reference_on_call.md"), JSON.stringify(next.memories.map((m) => m.path)));
    // this agent cannot write the team's memory; its own writes go to its folders
    await assert.rejects(memory.remember({ scope: "team", type: "reference", name: "X", description: "Nothing", body: "x" }), (e) => e.code === "INVALID_ARGUMENT");
    const saved = await memory.remember({ type: "feedback", name: "Terse", description: "The user wants terse answers", body: "Terse." });
    assert.equal(saved.scope, "mine");
    await fsp.access(join(mine, saved.file));
  } finally {
    memory.close();
    writer.close();
  }
});
