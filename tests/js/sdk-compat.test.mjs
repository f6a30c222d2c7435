// memdir's memory-tool handlers next to Anthropic's own TypeScript SDK (a dev dependency
// only: memdir does not depend on it). The SDK's tool runner drives `betaMemoryTool(memory.tool())`
// against the mock Messages API, and the same commands run through memdir and through the
// SDK's `BetaLocalFilesystemMemoryTool` give the same texts, except where memdir differs on
// purpose (README "Differences").
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { betaMemoryTool, BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { openMemory } from "memdir";
import { startMockProviders } from "../mock/providers.mjs";

const temps = [];
let mock;
before(async () => {
  mock = await startMockProviders();
});
after(async () => {
  await mock.close();
  temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const TESTING = "---\nname: Testing\ndescription: Integration tests hit a real database\ntype: feedback\n---\n\nUse a real DB.\nAsk before mocking.\n";
const INDEX = "- [Testing](feedback_testing.md) — Integration tests hit a real database\n";

/** Two identical directories: one for memdir, one for the SDK's local tool (`<base>/memories`). */
async function pair() {
  const base = mkdtempSync(join(tmpdir(), "memdir-sdk-"));
  temps.push(base);
  const ours = join(base, "ours");
  mkdirSync(join(ours, "notes"), { recursive: true });
  writeFileSync(join(ours, "MEMORY.md"), INDEX);
  writeFileSync(join(ours, "feedback_testing.md"), TESTING);
  writeFileSync(join(ours, "notes", "a.md"), "alpha\nbeta\n");
  cpSync(ours, join(base, "sdk", "memories"), { recursive: true });
  const memory = await openMemory({ dir: ours, selector: { provider: "lexical" } });
  const sdk = await BetaLocalFilesystemMemoryTool.init(join(base, "sdk"));
  return { ours, theirs: join(base, "sdk", "memories"), tool: memory.tool(), sdk };
}

/** A handler's answer as the tool runner sends it: the text, or `Error: <message>`. */
async function answer(handlers, input) {
  try {
    return { text: await handlers[input.command](input), isError: false };
  } catch (error) {
    return { text: `Error: ${error.message}`, isError: true };
  }
}

test("the SDK's own tool runner drives memdir's handlers through betaMemoryTool()", async () => {
  const { ours, tool } = await pair();
  mock.reset();
  mock.script(
    { kind: "tool_use", calls: [{ name: "memory", input: { command: "view", path: "/memories" } }] },
    { kind: "tool_use", calls: [{ name: "memory", input: { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "Use a real DB.", new_str: "Use a real Postgres." } }] },
    { kind: "tool_use", calls: [{ name: "memory", input: { command: "create", path: "/memories/feedback_testing.md", file_text: "overwrite?" } }] },
    { kind: "text", text: "Noted." },
  );
  const client = new Anthropic({ apiKey: "sk-ant-test", baseURL: mock.url, maxRetries: 0 });
  const final = await client.beta.messages.toolRunner({
    model: "claude-sonnet-5-5",
    max_tokens: 1024,
    messages: [{ role: "user", content: "Switch the testing memory to Postgres." }],
    tools: [betaMemoryTool(tool)],
  });
  assert.equal(final.content[0].text, "Noted.");
  const sent = mock.requests().filter((r) => r.path === "/v1/messages").map((r) => r.body);
  assert.equal(sent.length, 4);
  assert.deepEqual(sent[0].tools, [{ type: "memory_20250818", name: "memory" }]);
  const results = sent.slice(1).map((b) => b.messages.at(-1).content[0]);
  assert.match(JSON.stringify(results[0].content), /Here're the files and directories up to 2 levels deep in \/memories/);
  assert.match(JSON.stringify(results[1].content), /The memory file has been edited/);
  assert.equal(results[2].is_error, true, "a handler's throw reaches the model as an error result");
  assert.match(JSON.stringify(results[2].content), /File \/memories\/feedback_testing\.md already exists/);
  assert.match(readFileSync(join(ours, "feedback_testing.md"), "utf8"), /Use a real Postgres\./);
});

test("the same commands give the SDK's texts; the differences are the deliberate ones", async () => {
  const { tool, sdk } = await pair();
  const same = [
    { command: "view", path: "/memories/feedback_testing.md" },
    { command: "view", path: "/memories/feedback_testing.md", view_range: [2, 4] },
    { command: "view", path: "/memories/feedback_testing.md", view_range: [7, -1] },
    { command: "view", path: "/memories/missing.md" },
    { command: "view", path: "/etc/passwd" },
    { command: "create", path: "/memories/project_q3.md", file_text: "Q3\n" },
    { command: "create", path: "/memories/project_q3.md", file_text: "again" },
    { command: "create", path: "/memories/deep/er/file.md", file_text: "deep\n" },
    { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "Use a real DB.", new_str: "Use a real Postgres." },
    { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "not there", new_str: "x" },
    { command: "str_replace", path: "/memories/notes/a.md", old_str: "a", new_str: "A" },
    { command: "str_replace", path: "/memories/missing.md", old_str: "a", new_str: "A" },
    { command: "insert", path: "/memories/notes/a.md", insert_line: 1, insert_text: "between\n" },
    { command: "insert", path: "/memories/notes/a.md", insert_line: 0, insert_text: "top" },
    { command: "insert", path: "/memories/notes/a.md", insert_line: 42, insert_text: "x" },
    { command: "view", path: "/memories/notes/a.md" },
    { command: "rename", old_path: "/memories/project_q3.md", new_path: "/memories/notes/a.md" },
    { command: "rename", old_path: "/memories/project_q3.md", new_path: "/memories/archive/q3.md" },
    { command: "rename", old_path: "/memories/nothing.md", new_path: "/memories/x.md" },
    { command: "delete", path: "/memories/archive/q3.md" },
    { command: "delete", path: "/memories/archive/q3.md" },
    { command: "delete", path: "/memories" },
  ];
  for (const input of same) {
    const [mine, theirs] = [await answer(tool, input), await answer(sdk, input)];
    assert.deepEqual(mine, theirs, JSON.stringify(input));
  }

  // 1. a multi-line old_str: the SDK counts matches line by line, so it never finds one
  const multi = { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "Use a real Postgres.\nAsk before mocking.", new_str: "Use a real Postgres; never mock it." };
  assert.match((await answer(sdk, multi)).text, /did not appear verbatim/);
  assert.match((await answer(tool, multi)).text, /^The memory file has been edited/);
  // 2. two occurrences on one line: the SDK sees one and replaces the first
  const twice = { command: "str_replace", path: "/memories/notes/a.md", old_str: "e", new_str: "E" };
  assert.equal((await answer(tool, twice)).isError, true);
  // 3. folder sizes are the files' bytes inside, not the folder's inode size
  const view = { command: "view", path: "/memories" };
  const [mine, theirs] = [(await answer(tool, view)).text.split("\n"), (await answer(sdk, view)).text.split("\n")];
  assert.deepEqual(mine.map((l) => l.split("\t")[1]), theirs.map((l) => l.split("\t")[1]), "the same entries in the same order");
  assert.match(theirs.find((l) => l.endsWith("/memories/notes/")), /^4(\.0)?K\t/);
  assert.match(mine.find((l) => l.endsWith("/memories/notes/")), /^\d+B\t/);
  // 4. a delete or rename also keeps MEMORY.md's entries true, and says so
  const gone = await answer(tool, { command: "delete", path: "/memories/feedback_testing.md" });
  assert.equal(gone.text, "Successfully deleted /memories/feedback_testing.md\nAlso removed 1 entry linking to it from /memories/MEMORY.md.");
  assert.equal((await answer(sdk, { command: "delete", path: "/memories/feedback_testing.md" })).text, "Successfully deleted /memories/feedback_testing.md");
  // 5. a credential is refused; the SDK writes it
  const secret = { command: "create", path: "/memories/keys.md", file_text: "AKIAIOSFODNN7EXAMPLE" };
  assert.equal((await answer(tool, secret)).isError, true);
  assert.equal((await answer(sdk, secret)).isError, false);
});
