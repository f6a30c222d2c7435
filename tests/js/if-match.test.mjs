// Writes that know what they replace (rules §4.6): every write route takes the content hash it
// expects to replace and refuses with CHANGED, writing nothing, when the file is no longer that:
// remember, forget, the memory tool's five writing commands, and memdir/ai-sdk's tools. The hash
// comes from scan({ hashes: true }) (or contentHash of what was read).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createHash } from "node:crypto";
import { MemdirError, openMemory } from "memdir";
import { memoryTools } from "memdir/ai-sdk";
import { contentHash } from "../../pkg/core.js";

const dirs = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const TOPIC = "---\nname: Deploys\ndescription: We deploy on Tuesdays after the freeze review\ntype: project\n---\n\nDeploy on Tuesdays.\n";

async function folder() {
  const dir = mkdtempSync(join(tmpdir(), "memdir-ifmatch-"));
  dirs.push(dir);
  writeFileSync(join(dir, "project_deploys.md"), TOPIC);
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploys](project_deploys.md) — We deploy on Tuesdays after the freeze review\n");
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const { memories } = await memory.scan({ hashes: true });
  const read = memories.find((m) => m.path === "project_deploys.md").sha256;
  // a person edits the file after it was read
  writeFileSync(join(dir, "project_deploys.md"), `${TOPIC}\nEdited by a person.\n`);
  const now = () => readFileSync(join(dir, "project_deploys.md"), "utf8");
  return { dir, memory, read, now, fresh: () => createHash("sha256").update(now()).digest("hex") };
}

test("scan({ hashes: true }) gives each memory the SHA-256 of its whole file, as contentHash and node:crypto compute it", async () => {
  const { memory, read } = await folder();
  assert.equal(read, createHash("sha256").update(TOPIC).digest("hex"));
  assert.equal(read, contentHash(TOPIC));
  assert.equal((await memory.scan()).memories[0].sha256, undefined, "only when asked: the plain scan reads first lines only");
});

test("remember and forget: a stale ifMatch is CHANGED and writes nothing; the current one goes through", async () => {
  const { memory, read, now, fresh } = await folder();
  const update = { type: "project", name: "Deploys", description: "We deploy on Wednesdays now", body: "Wednesdays.", file: "project_deploys.md" };
  for (const call of [() => memory.remember({ ...update, ifMatch: read }), () => memory.forget({ file: "project_deploys.md", ifMatch: read })]) {
    await assert.rejects(call(), (e) => e instanceof MemdirError && e.code === "CHANGED" && /project_deploys\.md changed since it was read/.test(e.message));
    assert.match(now(), /Edited by a person/);
  }
  await assert.rejects(memory.remember({ ...update, ifMatch: 42 }), (e) => e.code === "INVALID_ARGUMENT");
  await assert.rejects(memory.remember({ ...update, ifMatch: "not-a-hash" }), (e) => e.code === "INVALID_ARGUMENT");
  // a new file that was never read has no hash to match
  await assert.rejects(memory.remember({ type: "user", name: "Role", description: "The user is on the platform team", body: "b", ifMatch: read }), (e) => e.code === "CHANGED");
  const done = await memory.remember({ ...update, ifMatch: fresh() });
  assert.equal(done.action, "updated");
  assert.equal((await memory.history())[0].status, "done");
  assert.equal((await memory.forget({ file: "project_deploys.md", ifMatch: fresh() })).action, "forgotten");
});

test("the memory tool: every writing command takes if_match; stale, it is an error result and nothing is written", async () => {
  const { memory, read, now, fresh } = await folder();
  const tool = memory.tool();
  const commands = [
    { command: "str_replace", path: "/memories/project_deploys.md", old_str: "Deploy on Tuesdays.", new_str: "Deploy on Wednesdays." },
    { command: "insert", path: "/memories/project_deploys.md", insert_line: 6, insert_text: "More." },
    { command: "delete", path: "/memories/project_deploys.md" },
    { command: "rename", old_path: "/memories/project_deploys.md", new_path: "/memories/project_deploys_old.md" },
    { command: "create", path: "/memories/project_deploys.md", file_text: "x" },
  ];
  for (const c of commands) {
    const r = await tool.execute({ ...c, if_match: read });
    assert.equal(r.isError, true, `${c.command}: ${r.content}`);
    if (c.command !== "create") assert.match(r.content, /project_deploys\.md changed since it was read/, c.command);
    assert.match(now(), /Edited by a person/, `${c.command} wrote nothing`);
  }
  const ok = await tool.execute({ ...commands[0], if_match: fresh() });
  assert.equal(ok.isError, false, ok.content);
  assert.match(now(), /Deploy on Wednesdays\./);
});

test("memdir/ai-sdk: the remember and forget tools take ifMatch and fail with CHANGED when it is stale", async () => {
  const { memory, read, now, fresh } = await folder();
  const { remember, forget } = memoryTools(memory);
  const options = { toolCallId: "call-1", messages: [] };
  await assert.rejects(remember.execute({ type: "project", name: "Deploys", description: "We deploy on Wednesdays now", body: "b", file: "project_deploys.md", ifMatch: read }, options), (e) => e.code === "CHANGED");
  await assert.rejects(forget.execute({ file: "project_deploys.md", ifMatch: read }, options), (e) => e.code === "CHANGED");
  assert.match(now(), /Edited by a person/);
  assert.equal((await forget.execute({ file: "project_deploys.md", ifMatch: fresh() }, options)).action, "forgotten");
  assert.ok(remember.inputSchema.jsonSchema.properties.ifMatch && forget.inputSchema.jsonSchema.properties.ifMatch, "the model sees ifMatch in both schemas");
});
