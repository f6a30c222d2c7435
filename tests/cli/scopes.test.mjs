// Scopes on the command line and over MCP (rules §1.6): --scopes opens several folders as one;
// path lists them, recall labels each memory by scope, remember --scope chooses the folder
// (read-only refused), doctor --scope works on one; the MCP server names the scopes in its
// instructions and lets remember choose one, through the real SDK client.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { memdir } from "./helpers.mjs";
import { connect } from "../mcp/connect.mjs";

const base = mkdtempSync(join(tmpdir(), "memdir-cli-scopes-"));
after(() => rmSync(base, { recursive: true, force: true }));

const topic = (name, type, description) => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\nBody of ${name}.\n`;
function folders() {
  const root = mkdtempSync(join(base, "case-"));
  const make = (name, files) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    for (const [p, t] of Object.entries(files)) writeFileSync(join(dir, p), t);
    return dir;
  };
  const local = make("local", { "MEMORY.md": "- [Editor](user_editor.md) — vim here\n", "user_editor.md": topic("Editor", "user", "The user edits in vim on this laptop") });
  const project = make("project", { "MEMORY.md": "- [Deploy](project_deploy.md) — make ship\n", "project_deploy.md": topic("Deploy", "project", "Deploy the service with make ship") });
  const team = make("team", { "MEMORY.md": "- [Runbook](reference_runbook.md) — the runbook\n", "reference_runbook.md": topic("Runbook", "reference", "The incident runbook lives in the wiki") });
  return { local, project, team, list: `local=${local},project=${project},team:ro=${team}` };
}

test("memdir path --scopes lists each scope in order of precedence; recall labels each memory by scope", () => {
  const f = folders();
  const path = memdir(["path", "--scopes", f.list]);
  assert.equal(path.code, 0, path.err);
  assert.deepEqual(path.out.trim().split("\n"), [`local    ${f.local}  (writes)`, `project  ${f.project}`, `team     ${f.team}  (read-only)`]);
  const recall = memdir(["recall", "where is the incident runbook wiki", "--scopes", f.list, "--provider", "lexical", "--json"]);
  assert.equal(recall.code, 0, recall.err);
  const result = JSON.parse(recall.out);
  assert.equal(result.memories[0].path, "team:reference_runbook.md");
  assert.equal(result.memories[0].scope, "team");
  assert.equal(result.memories[0].absolutePath, join(f.team, "reference_runbook.md"));
  const index = memdir(["index", "--scopes", f.list]);
  assert.equal(index.code, 0, index.err);
  assert.match(index.out, /the `local` scope's memory index[^]*the `project` scope's memory index[^]*the `team` scope's memory index/);
  const scan = memdir(["scan", "--scopes", f.list, "--json"]);
  assert.deepEqual(JSON.parse(scan.out).memories.map((m) => m.path).sort(), ["local:user_editor.md", "project:project_deploy.md", "team:reference_runbook.md"]);
});

test("memdir remember --scope writes into that folder; a read-only scope and --scope without --scopes are refused", () => {
  const f = folders();
  const ok = memdir(["remember", "--scopes", f.list, "--scope", "project", "--type", "project", "--name", "Freeze", "--description", "Merges freeze on Thursdays", "--body", "Freeze."]);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /\(scope project\)/);
  assert.match(readFileSync(join(f.project, "MEMORY.md"), "utf8"), /Merges freeze on Thursdays/);
  assert.doesNotMatch(readFileSync(join(f.local, "MEMORY.md"), "utf8"), /Freeze/);
  // without --scope: the first scope that takes any type
  const plain = memdir(["remember", "--scopes", f.list, "--type", "user", "--name", "Shell", "--description", "The user runs fish", "--body", "fish"]);
  assert.equal(plain.code, 0, plain.err);
  assert.match(plain.out, /\(scope local\)/);
  const ro = memdir(["remember", "--scopes", f.list, "--scope", "team", "--type", "project", "--name", "X", "--description", "Nope nope", "--body", "x"]);
  assert.equal(ro.code, 1);
  assert.match(ro.err, /read-only/);
  assert.ok(!readFileSync(join(f.team, "MEMORY.md"), "utf8").includes("Nope"));
  const alone = memdir(["remember", "--dir", f.local, "--scope", "project", "--type", "project", "--name", "X", "--description", "Nope", "--body", "x"]);
  assert.equal(alone.code, 2);
  assert.match(alone.err, /--scope goes with --scopes/);
  // forget by scoped path, and --scope on a one-folder command (doctor) works on that folder
  const forgot = memdir(["forget", "project:project_deploy.md", "--scopes", f.list]);
  assert.equal(forgot.code, 0, forgot.err);
  assert.ok(!existsSync(join(f.project, "project_deploy.md")));
  const doctor = memdir(["doctor", "--scopes", f.list, "--scope", "team", "--json"]);
  assert.equal(JSON.parse(doctor.out).dir ?? JSON.parse(doctor.out).root ?? f.team, f.team);
  const bad = memdir(["path", "--scopes", "local"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /name=path/);
});

test("a scopes file: JSON, folders relative to it, types choose the folder of a write", () => {
  const f = folders();
  const file = join(f.local, "..", "scopes.json");
  writeFileSync(file, JSON.stringify([{ name: "mine", dir: "local", types: ["user", "feedback"] }, { name: "shared", dir: "project" }]));
  const out = memdir(["remember", "--scopes", file, "--type", "feedback", "--name", "Terse", "--description", "The user wants terse answers", "--body", "Terse."]);
  assert.equal(out.code, 0, out.err);
  assert.match(out.out, /\(scope mine\)/);
  assert.match(readFileSync(join(f.local, "MEMORY.md"), "utf8"), /terse answers/);
  const ref = memdir(["remember", "--scopes", file, "--type", "reference", "--name", "Board", "--description", "The board is in Linear", "--body", "Linear."]);
  assert.match(ref.out, /\(scope shared\)/);
});

test("MCP over scopes: the instructions list the scopes; remember takes a scope from an enum; recall returns scoped paths", async () => {
  const f = folders();
  const s = await connect(["--scopes", f.list, "--provider", "lexical"]);
  try {
    const instructions = s.client.getInstructions();
    assert.match(instructions, /## Memory scopes/);
    assert.match(instructions, /3\. `team`: .* \(read-only\)/);
    const { tools } = await s.client.listTools();
    const remember = tools.find((t) => t.name === "remember");
    assert.deepEqual(remember.inputSchema.properties.scope.enum, ["local", "project"], "the read-only scope is not offered");
    const saved = await s.client.request({ method: "tools/call", params: { name: "remember", arguments: { scope: "project", type: "project", name: "Owner", description: "Ana owns the billing service", body: "Ana." } } }, CallToolResultSchema);
    assert.ok(!saved.isError, JSON.stringify(saved));
    assert.match(saved.content[0].text, /in scope project/);
    assert.match(readFileSync(join(f.project, "MEMORY.md"), "utf8"), /Ana owns the billing service/);
    const bad = await s.client.request({ method: "tools/call", params: { name: "remember", arguments: { scope: "team", type: "project", name: "X", description: "Nope", body: "x" } } }, CallToolResultSchema);
    assert.equal(bad.isError, true);
    const recalled = await s.client.request({ method: "tools/call", params: { name: "recall", arguments: { query: "incident runbook wiki" } } }, CallToolResultSchema);
    assert.match(recalled.content[0].text, /team:reference_runbook\.md/);
    const resource = await s.client.readResource({ uri: "memdir://memory/team%3Areference_runbook.md" }).catch(() => s.client.readResource({ uri: "memdir://memory/team:reference_runbook.md" }));
    assert.match(resource.contents[0].text, /incident runbook/);
  } finally {
    await s.close();
  }
});
