// memdir's memory-tool handlers next to Anthropic's own TypeScript SDK (dev dependencies
// only: memdir does not depend on it), in two majors: 0.137, the last on API version
// 2023-06-01, and the current 1.x (`@anthropic-ai/sdk-current`, an npm alias), which sends
// 2026-10-21 and runs its tool loop over a message thread (each turn sends only the new
// messages). The SDK's tool runner drives `betaMemoryTool(memory.tool())` against the mock
// Messages API, and the same commands run through memdir and through the SDK's
// `BetaLocalFilesystemMemoryTool` give the same texts, except where memdir differs on purpose
// (docs/writing.md, "As Anthropic's memory tool").
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import AnthropicClassic from "@anthropic-ai/sdk";
import * as classicMemory from "@anthropic-ai/sdk/tools/memory/node";
import AnthropicCurrent from "@anthropic-ai/sdk-current";
import * as currentMemory from "@anthropic-ai/sdk-current/tools/memory/node";
import { VERSION as CLASSIC_VERSION } from "@anthropic-ai/sdk/version";
import { VERSION as CURRENT_VERSION } from "@anthropic-ai/sdk-current/version";
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
async function pair(sdk) {
  const base = mkdtempSync(join(tmpdir(), "memdir-sdk-"));
  temps.push(base);
  const ours = join(base, "ours");
  mkdirSync(join(ours, "notes"), { recursive: true });
  writeFileSync(join(ours, "MEMORY.md"), INDEX);
  writeFileSync(join(ours, "feedback_testing.md"), TESTING);
  writeFileSync(join(ours, "notes", "a.md"), "alpha\nbeta\n");
  cpSync(ours, join(base, "sdk", "memories"), { recursive: true });
  const memory = await openMemory({ dir: ours, selector: { provider: "lexical" } });
  const local = await sdk.BetaLocalFilesystemMemoryTool.init(join(base, "sdk"));
  return { ours, theirs: join(base, "sdk", "memories"), tool: memory.tool(), sdk: local };
}

/** A handler's answer as the tool runner sends it: the text, or `Error: <message>`. */
async function answer(handlers, input) {
  try {
    return { text: await handlers[input.command](input), isError: false };
  } catch (error) {
    return { text: `Error: ${error.message}`, isError: true };
  }
}

const SDKS = [
  { name: `SDK ${CLASSIC_VERSION}`, version: CLASSIC_VERSION, major: "0.137.", Anthropic: AnthropicClassic, ...classicMemory, apiVersion: "2023-06-01", threads: false },
  { name: `SDK ${CURRENT_VERSION}`, version: CURRENT_VERSION, major: "1.", Anthropic: AnthropicCurrent, ...currentMemory, apiVersion: "2026-10-21", threads: true },
];

for (const sdk of SDKS) {
  test(`${sdk.name}: the pinned versions are the ones tested`, () => {
    assert.ok(sdk.version.startsWith(sdk.major), sdk.version);
  });

  test(`${sdk.name}: layout "sdk" opens the folder the SDK's local tool writes (<base>/memories), both ways (issue 26)`, async () => {
    const base = mkdtempSync(join(tmpdir(), "memdir-sdk-layout-"));
    temps.push(base);
    const local = await sdk.BetaLocalFilesystemMemoryTool.init(base);
    await local.create({ command: "create", path: "/memories/feedback_testing.md", file_text: TESTING });
    await local.create({ command: "create", path: "/memories/MEMORY.md", file_text: INDEX });
    const memory = await openMemory({ dir: base, layout: "sdk", selector: { provider: "lexical" } });
    assert.equal(memory.host.root, join(base, "memories"));
    const recalled = await memory.recall("should integration tests hit a real database?");
    assert.deepEqual(recalled.memories.map((m) => [m.path, m.absolutePath]), [["feedback_testing.md", join(base, "memories", "feedback_testing.md")]]);
    // memdir's tool writes where the SDK's reads, and the other way
    await memory.tool().create({ command: "create", path: "/memories/project_deploy.md", file_text: "---\nname: Deploys\ndescription: Staging deploys need a smoke test\ntype: project\n---\nRun the smoke test.\n" });
    assert.match(await local.view({ command: "view", path: "/memories/project_deploy.md" }), /Run the smoke test\./);
    assert.match(await local.view({ command: "view", path: "/memories/MEMORY.md" }), /\(project_deploy\.md\) — Staging deploys need a smoke test/);
    assert.equal(await memory.tool().view({ command: "view", path: "/memories/feedback_testing.md" }), await local.view({ command: "view", path: "/memories/feedback_testing.md" }));
    // the default layout is the folder itself: the SDK's base holds no MEMORY.md, only memories/
    const plain = await openMemory({ dir: base, selector: { provider: "lexical" } });
    assert.equal(plain.host.root, base);
    await assert.rejects(openMemory({ dir: base, layout: "claude" }), { code: "INVALID_ARGUMENT", message: /layout/ });
    await assert.rejects(openMemory({ projectRoot: base, layout: "sdk" }), { code: "INVALID_ARGUMENT", message: /needs `dir`/ });
    // not silently ignored beside a host, nor passed on to every scope's dir
    await assert.rejects(openMemory({ host: plain.host, layout: "sdk" }), { code: "INVALID_ARGUMENT", message: /not with `host` or `scopes`/ });
    await assert.rejects(openMemory({ scopes: [{ name: "a", dir: base }], layout: "sdk" }), { code: "INVALID_ARGUMENT", message: /not with `host` or `scopes`/ });
  });

  test(`${sdk.name}: the SDK's own tool runner drives memdir's handlers through betaMemoryTool()`, async () => {
    const { ours, tool } = await pair(sdk);
    mock.reset();
    mock.script(
      { kind: "tool_use", calls: [{ name: "memory", input: { command: "view", path: "/memories" } }] },
      { kind: "tool_use", calls: [{ name: "memory", input: { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "Use a real DB.", new_str: "Use a real Postgres." } }] },
      { kind: "tool_use", calls: [{ name: "memory", input: { command: "create", path: "/memories/feedback_testing.md", file_text: "overwrite?" } }] },
      { kind: "text", text: "Noted." },
    );
    const client = new sdk.Anthropic({ apiKey: "sk-ant-test", baseURL: mock.url, maxRetries: 0 });
    const final = await client.beta.messages.toolRunner({
      model: "claude-sonnet-5-5",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Switch the testing memory to Postgres." }],
      tools: [sdk.betaMemoryTool(tool)],
    });
    assert.equal(final.content[0].text, "Noted.");
    const requests = mock.requests().filter((r) => r.path === "/v1/messages");
    const sent = requests.map((r) => r.body);
    assert.equal(sent.length, 4);
    assert.ok(requests.every((r) => r.status === 200 && r.headers["anthropic-version"] === sdk.apiVersion), "every request in the SDK's API version, accepted");
    assert.deepEqual(sent[0].tools, [{ type: "memory_20250818", name: "memory" }]);
    if (sdk.threads) {
      // a message thread: the first request creates it with the whole conversation; each later
      // one continues from the previous reply with only the new message (the tool results)
      assert.ok(requests.every((r) => r.headers["anthropic-beta"]?.split(",").includes("message-threads-2026-08-12")));
      assert.deepEqual(sent[0].thread, { type: "create" });
      assert.equal(sent[0].messages.length, 1);
      for (const [i, body] of sent.slice(1).entries()) {
        assert.deepEqual(body.thread, { type: "continue", previous_message_id: requests[i].responseId });
        assert.equal(body.messages.length, 1);
        assert.equal(body.tools, undefined, "a continue carries no tools: the thread keeps them");
      }
    } else {
      assert.ok(sent.every((b) => b.thread === undefined));
      assert.deepEqual(sent.map((b) => b.messages.length), [1, 3, 5, 7], "the whole history every turn");
    }
    const results = sent.slice(1).map((b) => b.messages.at(-1).content[0]);
    assert.match(JSON.stringify(results[0].content), /Here're the files and directories up to 2 levels deep in \/memories/);
    assert.match(JSON.stringify(results[1].content), /The memory file has been edited/);
    assert.equal(results[2].is_error, true, "a handler's throw reaches the model as an error result");
    assert.match(JSON.stringify(results[2].content), /File \/memories\/feedback_testing\.md already exists/);
    assert.match(readFileSync(join(ours, "feedback_testing.md"), "utf8"), /Use a real Postgres\./);
  });

  test(`${sdk.name}: the same commands give the SDK's texts; the differences are the deliberate ones`, async () => {
    const { tool, sdk: local } = await pair(sdk);
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
      const [mine, theirs] = [await answer(tool, input), await answer(local, input)];
      assert.deepEqual(mine, theirs, JSON.stringify(input));
    }

    // 1. a multi-line old_str: the SDK counts matches line by line, so it never finds one
    const multi = { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "Use a real Postgres.\nAsk before mocking.", new_str: "Use a real Postgres; never mock it." };
    assert.match((await answer(local, multi)).text, /did not appear verbatim/);
    assert.match((await answer(tool, multi)).text, /^The memory file has been edited/);
    // 2. two occurrences on one line: the SDK sees one and replaces the first
    const twice = { command: "str_replace", path: "/memories/notes/a.md", old_str: "e", new_str: "E" };
    assert.equal((await answer(tool, twice)).isError, true);
    // 3. folder sizes are the files' bytes inside, not the folder's inode size
    const view = { command: "view", path: "/memories" };
    const [mine, theirs] = [(await answer(tool, view)).text.split("\n"), (await answer(local, view)).text.split("\n")];
    assert.deepEqual(mine.map((l) => l.split("\t")[1]), theirs.map((l) => l.split("\t")[1]), "the same entries in the same order");
    assert.match(theirs.find((l) => l.endsWith("/memories/notes/")), /^4(\.0)?K\t/);
    assert.match(mine.find((l) => l.endsWith("/memories/notes/")), /^\d+B\t/);
    // 4. a delete or rename also keeps MEMORY.md's entries true, and says so
    const gone = await answer(tool, { command: "delete", path: "/memories/feedback_testing.md" });
    assert.equal(gone.text, "Successfully deleted /memories/feedback_testing.md\nAlso removed 1 entry linking to it from /memories/MEMORY.md.");
    assert.equal((await answer(local, { command: "delete", path: "/memories/feedback_testing.md" })).text, "Successfully deleted /memories/feedback_testing.md");
    // 5. a credential is refused; the SDK writes it
    const secret = { command: "create", path: "/memories/keys.md", file_text: "AKIAIOSFODNN7EXAMPLE" };
    assert.equal((await answer(tool, secret)).isError, true);
    assert.equal((await answer(local, secret)).isError, false);
  });
}

test(`SDK ${CURRENT_VERSION}: a request a thread cannot carry is answered thread_unsupported_request, and the SDK goes on without the thread`, async () => {
  const { ours, tool } = await pair(SDKS[1]);
  mock.reset();
  mock.script(
    { kind: "text", text: "never sent: the mock takes one outcome a request, and the first is refused" },
    { kind: "tool_use", calls: [{ name: "memory", input: { command: "view", path: "/memories/feedback_testing.md" } }] },
    { kind: "tool_use", calls: [{ name: "memory", input: { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "Use a real DB.", new_str: "Use a real Postgres." } }] },
    { kind: "text", text: "Noted." },
  );
  const client = new AnthropicCurrent({ apiKey: "sk-ant-test", baseURL: mock.url, maxRetries: 0 });
  const final = await client.beta.messages.toolRunner({
    model: "claude-sonnet-5-5",
    max_tokens: 1024,
    thinking: { type: "adaptive" },
    messages: [{ role: "user", content: "Switch the testing memory to Postgres." }],
    tools: [currentMemory.betaMemoryTool(tool)],
  });
  assert.equal(final.content.find((b) => b.type === "text").text, "Noted.");
  const requests = mock.requests().filter((r) => r.path === "/v1/messages");
  assert.deepEqual(requests.map((r) => r.status), [400, 200, 200, 200]);
  assert.deepEqual(requests[0].body.thread, { type: "create" });
  // the SDK sent that turn again without the thread, and every later turn with the whole history
  assert.ok(requests.slice(1).every((r) => r.body.thread === undefined));
  assert.deepEqual(requests.slice(1).map((r) => r.body.messages.length), [1, 3, 5]);
  assert.match(readFileSync(join(ours, "feedback_testing.md"), "utf8"), /Use a real Postgres\./);
});
