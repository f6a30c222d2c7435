// Supersession end to end (rules §4.7) on the real file system: remember({supersedes}) and an
// extraction's `supersede` keep the older file, marked, out of the index; recall never chooses a
// replaced memory and does choose its successor; undo brings the older memory back as it was.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openMemory } from "memdir";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-supersede-"));
  temps.push(d);
  return d;
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const OLD = "---\nname: Deploy day\ndescription: Production deploys happen on Tuesday afternoons\ntype: project\n---\n\nDeploy on Tuesdays.\n";
const read = (dir, f) => readFileSync(join(dir, f), "utf8");

test("a replaced memory is never recalled; the memory replacing it is; undo brings the older one back", async () => {
  const dir = temp();
  writeFileSync(join(dir, "project_deploy_day.md"), OLD);
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploy day](project_deploy_day.md) — Production deploys happen on Tuesday afternoons\n");
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  assert.deepEqual((await memory.recall("which day do production deploys happen?")).memories.map((m) => m.path), ["project_deploy_day.md"]);
  const done = await memory.remember({ type: "project", name: "Deploy day (since March)", description: "Production deploys happen on Thursday mornings", body: "Deploy on Thursdays.", supersedes: "project_deploy_day.md" });
  assert.equal(read(dir, "project_deploy_day.md"), OLD.replace("---\n\nDeploy", "superseded_by: project_deploy_day_since_march.md\n---\n\nDeploy"));
  assert.equal(read(dir, "MEMORY.md"), `${done.indexLine}\n`, "the older memory's line went, the newer one's came");
  const recalled = await memory.recall("which day do production deploys happen?");
  assert.deepEqual(recalled.memories.map((m) => m.path), [done.file]);
  const scanned = await memory.scan();
  assert.equal(scanned.memories.find((m) => m.path === "project_deploy_day.md").supersededBy, done.file);
  assert.deepEqual((await memory.doctor()).findings.map((f) => f.code), [], "doctor is content: no entry is owed to a replaced memory");
  const [change] = await memory.history();
  await memory.undo(change.id);
  assert.equal(read(dir, "project_deploy_day.md"), OLD);
  assert.deepEqual((await memory.recall("which day do production deploys happen?")).memories.map((m) => m.path), ["project_deploy_day.md"]);
});

test("an extraction's supersede marks the saved memory it replaces, even under the same name", async () => {
  const dir = temp();
  writeFileSync(join(dir, "project_deploy_day.md"), OLD);
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploy day](project_deploy_day.md) — Production deploys happen on Tuesday afternoons\n");
  const answer = { operations: [{ action: "supersede", file: "project_deploy_day.md", type: "project", name: "Deploy day", description: "Production deploys moved to Thursday mornings", body: "Deploy on Thursdays since 2026-03-01." }] };
  const memory = await openMemory({ dir, selector: async () => JSON.stringify(answer), keep: { extract: "auto" } });
  const r = await memory.extract({ messages: [{ role: "user", content: "Heads up: deploys moved to Thursday mornings." }] });
  assert.equal(r.outcome, "saved", r.error ?? JSON.stringify(r.refused));
  assert.equal(r.proposals[0].file, "project_deploy_day_2.md");
  assert.match(read(dir, "project_deploy_day.md"), /^superseded_by: project_deploy_day_2\.md$/m);
  assert.doesNotMatch(read(dir, "MEMORY.md"), /\(project_deploy_day\.md\)/);
  const lexical = await openMemory({ dir, selector: { provider: "lexical" } });
  assert.deepEqual((await lexical.recall("which day do production deploys happen?")).memories.map((m) => m.path), ["project_deploy_day_2.md"]);
});

test("memdir remember --supersedes and the MCP remember tool's supersedes do the same", async () => {
  const { memdirIn } = await import("../cli/helpers.mjs");
  const { mcpTools, callTool } = await import("../../pkg/mcp/tools.js");
  for (const route of ["cli", "mcp"]) {
    const dir = temp();
    writeFileSync(join(dir, "project_deploy_day.md"), OLD);
    writeFileSync(join(dir, "MEMORY.md"), "- [Deploy day](project_deploy_day.md) — Production deploys happen on Tuesday afternoons\n");
    const input = { type: "project", name: "Deploy day", description: "Production deploys moved to Thursday mornings", body: "Thursdays.", supersedes: "project_deploy_day.md" };
    if (route === "cli") {
      const r = await memdirIn(["remember", "--dir", dir, ...Object.entries(input).flatMap(([k, v]) => [`--${k}`, v])]);
      assert.equal(r.code, 0, r.err);
    } else {
      const memory = await openMemory({ dir, selector: { provider: "lexical" } });
      const tool = mcpTools({ memory, selector: { provider: "lexical" }, readOnly: false, limits: memory.limits ?? (await import("memdir")).defaultLimits() }).find((t) => t.name === "remember");
      const r = await callTool(tool, input);
      assert.equal(r.isError, false, r.text);
    }
    assert.match(read(dir, "project_deploy_day.md"), /^superseded_by: project_deploy_day_2\.md$/m, route);
    assert.equal(read(dir, "MEMORY.md"), "- [Deploy day](project_deploy_day_2.md) — Production deploys moved to Thursday mornings\n", route);
  }
});

test("memdir remember --supersedes takes the absolute path a shell completes, inside the memory directory", async () => {
  const { memdirIn } = await import("../cli/helpers.mjs");
  const dir = temp();
  writeFileSync(join(dir, "project_deploy_day.md"), OLD);
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploy day](project_deploy_day.md) — Production deploys happen on Tuesday afternoons\n");
  const args = ["remember", "--dir", dir, "--type", "project", "--name", "Deploy day", "--description", "Production deploys moved to Thursday mornings", "--body", "Thursdays."];
  const outside = await memdirIn([...args, "--supersedes", join(dir, "..", "project_deploy_day.md")]);
  assert.equal(outside.code, 1);
  assert.match(outside.err, /remember --supersedes takes a file of the memory directory .*outside it/);
  assert.equal(read(dir, "project_deploy_day.md"), OLD);
  const r = await memdirIn([...args, "--supersedes", join(dir, "project_deploy_day.md")]);
  assert.equal(r.code, 0, r.err);
  assert.match(read(dir, "project_deploy_day.md"), /^superseded_by: project_deploy_day_2\.md$/m);
});

test("memdir scan marks a replaced memory with what replaces it", async () => {
  const { memdirIn } = await import("../cli/helpers.mjs");
  const dir = temp();
  writeFileSync(join(dir, "project_deploy_day.md"), OLD.replace("---\n\nDeploy", "superseded_by: project_deploy_thursday.md\n---\n\nDeploy"));
  writeFileSync(join(dir, "project_deploy_thursday.md"), OLD.replace("Tuesday afternoons", "Thursday mornings"));
  const r = await memdirIn(["scan", "--dir", dir]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^project\s+project_deploy_day\.md \[replaced by project_deploy_thursday\.md\]\s+\S/m);
  assert.match(r.out, /^project\s+project_deploy_thursday\.md\s+\S/m);
});
