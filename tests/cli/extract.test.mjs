// `memdir extract` and the MCP `extract` tool against the mock Anthropic server (real HTTP on
// 127.0.0.1): suggest shows and writes nothing, auto writes one change `memdir undo` takes back,
// confirm without a terminal refuses with exit 2, and a bad answer is an exit 1 with nothing written.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startMockProviders } from "../mock/providers.mjs";
import { memdirIn, tempMemory } from "./helpers.mjs";
import { baseEnv, cleanUp, connect, tempDir } from "../mcp/connect.mjs";

let mock;
before(async () => (mock = await startMockProviders()));
after(async () => {
  cleanUp();
  await mock.close();
});

const files = (dir) => (existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith(".memdir")).sort() : []);
const op = { action: "create", file: null, type: "feedback", name: "Indentation", description: "The user wants tabs in every Go file", body: "Tabs in Go.\n\n**Why:** the user said so.\n**How to apply:** keep gofmt's output." };
const answer = JSON.stringify({ operations: [op] });
const env = { ANTHROPIC_API_KEY: "sk-ant-test" };

function conversation() {
  const path = join(tempDir("memdir-talk-"), "talk.json");
  writeFileSync(path, JSON.stringify([{ role: "user", content: "Always use tabs in Go files, please." }, { role: "assistant", content: "Will do." }]));
  return path;
}

test("memdir extract: suggest shows the proposal and writes nothing; auto saves it as one change undo takes back", async () => {
  const dir = tempMemory({ "MEMORY.md": ["# Memory\n", 0] });
  const talk = conversation();
  const provider = ["--provider", "anthropic", "--base-url", mock.url];
  const before = files(dir);
  mock.reset();
  mock.script({ kind: "text", text: answer });
  const shown = await memdirIn(["extract", "--dir", dir, "--messages", talk, ...provider], { env });
  assert.equal(shown.code, 0, shown.err);
  assert.match(shown.out, /^proposed 1 memory \(nothing written/);
  assert.match(shown.out, /feedback_indentation\.md \(created\) \[feedback\] Indentation — The user wants tabs/);
  assert.deepEqual(files(dir), before);

  mock.script({ kind: "text", text: answer });
  const saved = await memdirIn(["extract", "--dir", dir, "--messages", talk, "--mode", "auto", "--json", ...provider], { env });
  assert.equal(saved.code, 0, saved.err);
  const result = JSON.parse(saved.out);
  assert.equal(result.outcome, "saved");
  assert.ok(files(dir).includes("feedback_indentation.md"));
  const undone = await memdirIn(["undo", result.historyId, "--yes", "--dir", dir]);
  assert.equal(undone.code, 0, undone.err);
  assert.deepEqual(files(dir), before);
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "# Memory\n");
});

test("memdir extract: confirm with no terminal refuses (exit 2), a bad answer fails (exit 1), bad arguments are usage errors", async () => {
  const dir = tempMemory({ "MEMORY.md": ["# Memory\n", 0] });
  const talk = conversation();
  const provider = ["--provider", "anthropic", "--base-url", mock.url];
  const confirm = await memdirIn(["extract", "--dir", dir, "--messages", talk, "--mode", "confirm", ...provider], { env });
  assert.equal(confirm.code, 2);
  assert.match(confirm.err, /asks on a terminal/);
  mock.reset();
  mock.script({ kind: "text", text: "I think you should remember everything!" });
  const bad = await memdirIn(["extract", "--dir", dir, "--messages", talk, "--mode", "auto", ...provider], { env });
  assert.equal(bad.code, 1);
  assert.match(bad.out, /failed: invalid_json/);
  assert.ok(!files(dir).some((f) => f.endsWith(".md") && f !== "MEMORY.md"));
  assert.equal((await memdirIn(["extract", "--dir", dir])).code, 2);
  assert.equal((await memdirIn(["extract", "--dir", dir, "--messages", talk, "--mode", "always"])).code, 2);
  const lexical = await memdirIn(["extract", "--dir", dir, "--messages", talk]);
  assert.equal(lexical.code, 1);
  assert.match(lexical.out, /extraction needs a model/);
});

test("MCP extract: suggest returns the proposals with nothing written; auto writes; a bad mode is an error result", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "MEMORY.md"), "# Memory\n");
  const s = await connect(["--dir", dir, "--provider", "anthropic", "--base-url", mock.url], { env: baseEnv(env) });
  try {
    const { tools } = await s.client.listTools();
    assert.ok(tools.some((t) => t.name === "extract"));
    mock.reset();
    mock.script({ kind: "text", text: answer }, { kind: "text", text: answer });
    const messages = [{ role: "user", content: "Always use tabs in Go files." }];
    const proposed = await s.client.callTool({ name: "extract", arguments: { messages } });
    assert.equal(proposed.isError, false);
    assert.match(proposed.content[0].text, /^Proposed 1 memory; nothing was written/);
    assert.deepEqual(files(dir), ["MEMORY.md"]);
    const saved = await s.client.callTool({ name: "extract", arguments: { messages, mode: "auto" } });
    assert.match(saved.content[0].text, /^Saved 1 memory \(recorded as /);
    assert.match(readFileSync(join(dir, "MEMORY.md"), "utf8"), /feedback_indentation\.md/);
    const bad = await s.client.callTool({ name: "extract", arguments: { messages, mode: "always" } });
    assert.equal(bad.isError, true);
  } finally {
    await s.client.close();
  }
});
