// memdir as the backend of Anthropic's memory_20250818 tool, on the real file system: an
// agent's tool loop against the mock Messages API (real HTTP on 127.0.0.1), every command's
// result and error texts, the index kept true by delete and rename, and path attacks with
// real symbolic links.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { InMemoryHost, MemoryToolError, openMemory } from "memdir";
import { startMockProviders } from "../mock/providers.mjs";

const temps = [];
function temp(prefix = "memdir-tool-") {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}
let mock;
before(async () => {
  mock = await startMockProviders();
});
after(async () => {
  await mock.close();
  temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** Every file below `dir` with its bytes, for "nothing changed" assertions. */
/** The folder's files; memdir's own folder (`.memdir`, the history) is checked through `history()`. */
function tree(dir, prefix = "") {
  const out = {};
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + e.name;
    if (rel === ".memdir") continue;
    if (e.isDirectory()) Object.assign(out, tree(join(dir, e.name), `${rel}/`));
    else if (e.isFile()) out[rel] = readFileSync(join(dir, e.name), "utf8");
    else out[rel] = "<link>";
  }
  return out;
}

const TESTING = "---\nname: Testing\ndescription: Integration tests hit a real database\ntype: feedback\n---\n\nUse a real DB.\n";
const INDEX = "- [Testing](feedback_testing.md) — Integration tests hit a real database\n";

function seeded() {
  const dir = join(temp(), "memory");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "MEMORY.md"), INDEX);
  writeFileSync(join(dir, "feedback_testing.md"), TESTING);
  return dir;
}

/**
 * A tool loop as an agent runs it (the SDK's tool runner does the same): send the request,
 * run every `tool_use` through the handler named by its command, answer with `tool_result`
 * blocks (`Error: <message>` and `is_error` for a throw), repeat until the model stops.
 */
async function agentLoop(tool, prompt) {
  const messages = [{ role: "user", content: prompt }];
  for (let turn = 0; turn < 10; turn++) {
    const response = await fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "sk-ant-test", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "claude-sonnet-5-5", max_tokens: 1024, tools: [tool.definition], messages }),
    });
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    messages.push({ role: "assistant", content: body.content });
    if (body.stop_reason !== "tool_use") return messages;
    const results = [];
    for (const block of body.content.filter((b) => b.type === "tool_use")) {
      assert.equal(block.name, "memory");
      try {
        results.push({ type: "tool_result", tool_use_id: block.id, content: await tool[block.input.command](block.input) });
      } catch (error) {
        results.push({ type: "tool_result", tool_use_id: block.id, content: `Error: ${error.message}`, is_error: true });
      }
    }
    messages.push({ role: "user", content: results });
  }
  throw new Error("the loop did not end");
}

test("an agent's tool loop drives the handlers: view, create, edit, a refused write, rename, delete", async () => {
  const dir = seeded();
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const tool = memory.tool();
  assert.deepEqual(tool.definition, { type: "memory_20250818", name: "memory" });
  mock.reset();
  const newIndex = `${INDEX}- [Deploys](project_deploys.md) — Deploys go out on Tuesdays after the freeze\n`;
  mock.script(
    { kind: "tool_use", text: "Let me check my memory first.", calls: [{ name: "memory", input: { command: "view", path: "/memories" } }] },
    {
      kind: "tool_use",
      calls: [
        { name: "memory", input: { command: "create", path: "/memories/project_deploys.md", file_text: "---\nname: Deploys\ndescription: Deploys go out on Tuesdays after the freeze\ntype: project\n---\n\nTuesdays.\n" } },
        { name: "memory", input: { command: "str_replace", path: "/memories/MEMORY.md", old_str: INDEX, new_str: newIndex } },
      ],
    },
    { kind: "tool_use", calls: [{ name: "memory", input: { command: "create", path: "/memories/creds.md", file_text: "aws key AKIAIOSFODNN7EXAMPLE\n" } }] },
    { kind: "tool_use", calls: [{ name: "memory", input: { command: "rename", old_path: "/memories/feedback_testing.md", new_path: "/memories/feedback/testing.md" } }] },
    { kind: "tool_use", calls: [{ name: "memory", input: { command: "delete", path: "/memories/project_deploys.md" } }] },
    { kind: "text", text: "Done." },
  );
  const messages = await agentLoop(tool, "Remember that deploys go out on Tuesdays.");
  const results = messages.filter((m) => m.role === "user" && Array.isArray(m.content)).flatMap((m) => m.content);
  assert.equal(results.length, 6);
  const [view, create, edit, refused, rename, del] = results;
  assert.match(view.content, /^Here're the files and directories up to 2 levels deep in \/memories, excluding hidden items and node_modules:\n\S+\t\/memories\n/);
  assert.match(view.content, /\t\/memories\/feedback_testing\.md$/m);
  // the new memory gets its index line; the model's own line, sent in the same turn, replaces it
  assert.equal(create.content, "File created successfully at: /memories/project_deploys.md\nAlso added its entry to /memories/MEMORY.md: - [Deploys](project_deploys.md) — Deploys go out on Tuesdays after the freeze");
  assert.match(edit.content, /^The memory file has been edited\. Here is the snippet showing the change \(with line numbers\):\n     1\t- \[Testing\]/);
  assert.match(edit.content, /\nAlso removed the earlier entry for project_deploys\.md: \/memories\/MEMORY\.md holds one line per memory\.$/);
  assert.equal(refused.is_error, true);
  assert.match(refused.content, /^Error: Refused: \/memories\/creds\.md holds what looks like an AWS access key ID on line 1 \(AKIA… \(20 chars\)\)/);
  assert.ok(!refused.content.includes("AKIAIOSFODNN7EXAMPLE"), "the secret is not echoed");
  assert.equal(rename.content, "Successfully renamed /memories/feedback_testing.md to /memories/feedback/testing.md\nUpdated 1 entry in /memories/MEMORY.md to the new path.");
  assert.equal(del.content, "Successfully deleted /memories/project_deploys.md\nAlso removed 1 entry linking to it from /memories/MEMORY.md.");
  assert.deepEqual(tree(dir), {
    "MEMORY.md": "- [Testing](feedback/testing.md) — Integration tests hit a real database\n",
    "feedback/testing.md": TESTING,
  });
  // every change the tool made is in the history; the refused write is not, nor the edit that
  // left MEMORY.md as it was (the model's line in place of the one memdir had added)
  assert.deepEqual((await memory.history()).map((h) => [h.route, h.status, h.changes.map((c) => `${c.path} ${c.action}`).join(", ")]), [
    ["tool", "done", "MEMORY.md changed, project_deploys.md removed"],
    ["tool", "done", "MEMORY.md changed, feedback/testing.md created, feedback_testing.md removed"],
    ["tool", "done", "MEMORY.md changed, project_deploys.md created"],
  ]);
  // the mock accepted every request: each tool_use was answered in the next message
  assert.equal(mock.requests().filter((r) => r.path === "/v1/messages" && r.status === 200).length, 6);
  assert.equal((await memory.doctor()).errors, 0);
});

test("a memory created through the tool is indexed, so doctor finds nothing not_indexed; a full index says why it has none", async () => {
  const dir = seeded();
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const tool = memory.tool();
  const q3 = "---\nname: Q3 plan\ndescription: What ships in Q3 and who owns each part\ntype: project\n---\n\nShip the importer.\n";
  const text = await tool.create({ command: "create", path: "/memories/team/project_q3.md", file_text: q3 });
  assert.equal(text, "File created successfully at: /memories/team/project_q3.md\nAlso added its entry to /memories/MEMORY.md: - [Q3 plan](team/project_q3.md) — What ships in Q3 and who owns each part");
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), `${INDEX}- [Q3 plan](team/project_q3.md) — What ships in Q3 and who owns each part\n`);
  const report = await memory.doctor();
  assert.deepEqual(report.findings.filter((f) => f.code === "not_indexed"), []);
  assert.equal(report.findings.length, 0, JSON.stringify(report.findings));
  // recall finds it through the index's manifest like any other memory
  assert.deepEqual((await memory.recall("what ships in Q3 and who owns it")).memories.map((m) => m.path), ["team/project_q3.md"]);

  // at the index's line limit the file is still written, and the result says why it has no line
  const full = await openMemory({ dir, selector: { provider: "lexical" }, limits: { maxIndexLines: 2 } });
  const q4 = q3.replace("Q3 plan", "Q4 plan").replace("in Q3", "in Q4");
  const noRoom = await full.tool().create({ command: "create", path: "/memories/project_q4.md", file_text: q4 });
  assert.equal(noRoom, "File created successfully at: /memories/project_q4.md\nNo entry for it was added to /memories/MEMORY.md: MEMORY.md would have 3 lines, over its limit of 2: lines past it are never loaded. Merge or forget entries first.");
  assert.equal(readFileSync(join(dir, "project_q4.md"), "utf8"), q4);
  assert.deepEqual((await full.doctor()).findings.filter((f) => f.code === "not_indexed").map((f) => f.file), ["project_q4.md"]);
});

test("handlers throw MemoryToolError with the SDK's texts; execute() returns them as error results", async () => {
  const dir = seeded();
  const tool = (await openMemory({ dir, selector: { provider: "lexical" } })).tool();
  const expectError = async (promise, text) => {
    await assert.rejects(promise, (e) => e instanceof MemoryToolError && e.message === text);
  };
  await expectError(tool.create({ command: "create", path: "/memories/feedback_testing.md", file_text: "x" }), "File /memories/feedback_testing.md already exists");
  await expectError(tool.view({ command: "view", path: "/memories/none.md" }), "The path /memories/none.md does not exist. Please provide a valid path.");
  await expectError(tool.delete({ command: "delete", path: "/memories" }), "Cannot delete the /memories directory itself");
  await expectError(tool.rename({ command: "rename", old_path: "/memories/MEMORY.md", new_path: "/memories/feedback_testing.md" }), "The destination /memories/feedback_testing.md already exists");
  await expectError(
    tool.str_replace({ command: "str_replace", path: "/memories/feedback_testing.md", old_str: "e", new_str: "E" }),
    "No replacement was performed. Multiple occurrences of old_str `e` in lines: 2, 3, 4, 7. Please ensure it is unique",
  );
  await expectError(tool.insert({ command: "insert", path: "/memories/feedback_testing.md", insert_line: 99, insert_text: "x" }), "Invalid `insert_line` parameter: 99. It should be within the range of lines of the file: [0, 8]");
  assert.deepEqual(tree(dir), { "MEMORY.md": INDEX, "feedback_testing.md": TESTING }, "no failed command wrote anything");

  // the model's mistakes never throw out of execute()
  for (const input of [null, 42, "view", {}, { command: "view" }, { command: "format_disk", path: "/memories" }, { command: "create", path: 7, file_text: "x" }]) {
    const result = await tool.execute(input);
    assert.equal(result.isError, true, JSON.stringify(input));
    assert.ok(result.content.length > 0);
  }
  const ok = await tool.execute({ command: "view", path: "/memories/feedback_testing.md", view_range: [6, -1] });
  assert.deepEqual(ok, { content: "Here's the content of /memories/feedback_testing.md with line numbers:\n     6\t\n     7\tUse a real DB.\n     8\t", isError: false });
});

test("a multi-line str_replace and an insert, byte for byte on disk", async () => {
  const dir = seeded();
  const tool = (await openMemory({ dir, selector: { provider: "lexical" } })).tool();
  await tool.str_replace({ command: "str_replace", path: "/memories/feedback_testing.md", old_str: "type: feedback\n---\n\nUse a real DB.", new_str: "type: feedback\n---\n\nUse a real Postgres.\n**Why:** mocks hid a migration bug." });
  await tool.insert({ command: "insert", path: "/memories/feedback_testing.md", insert_line: 8, insert_text: "**How to apply:** integration suites.\n" });
  assert.equal(
    readFileSync(join(dir, "feedback_testing.md"), "utf8"),
    "---\nname: Testing\ndescription: Integration tests hit a real database\ntype: feedback\n---\n\nUse a real Postgres.\n**Why:** mocks hid a migration bug.\n**How to apply:** integration suites.\n",
  );
  assert.deepEqual(readdirSync(dir).filter((n) => n !== ".memdir").sort(), ["MEMORY.md", "feedback_testing.md"], "no temporary file left behind");
});

test("path attacks against the Node host, with real symbolic links: nothing is written outside", async () => {
  const dir = seeded();
  const outside = temp("memdir-outside-");
  writeFileSync(join(outside, "victim.md"), "untouched\n");
  mkdirSync(join(dir, "notes"));
  symlinkSync(outside, join(dir, "out")); // a folder link out
  symlinkSync(join(outside, "victim.md"), join(dir, "victim.md")); // a file link out
  symlinkSync(join(outside, "nothing-yet.md"), join(dir, "dangling.md")); // a dangling link out
  symlinkSync(join(dir, "notes"), join(dir, "alias")); // a link that stays inside
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const tool = memory.tool();
  const before = tree(outside);
  const attacks = [
    [{ command: "create", path: "/memories/out/x.md", file_text: "x" }, /via symlink/],
    [{ command: "create", path: "/memories/out/deeper/x.md", file_text: "x" }, /via symlink/],
    [{ command: "str_replace", path: "/memories/victim.md", old_str: "untouched", new_str: "owned" }, /via symlink/],
    [{ command: "insert", path: "/memories/victim.md", insert_line: 0, insert_text: "owned" }, /via symlink/],
    [{ command: "create", path: "/memories/dangling.md", file_text: "owned" }, /via symlink/],
    [{ command: "delete", path: "/memories/out" }, /via symlink/],
    [{ command: "rename", old_path: "/memories/MEMORY.md", new_path: "/memories/out/MEMORY.md" }, /via symlink/],
    [{ command: "view", path: "/memories/out" }, /via symlink/],
    [{ command: "create", path: "/memories/../escape.md", file_text: "x" }, /would escape \/memories directory/],
    [{ command: "create", path: "/memories/%2e%2e/escape.md", file_text: "x" }, /percent-encoded/],
    [{ command: "create", path: "/memories/..%2fescape.md", file_text: "x" }, /percent-encoded/],
    [{ command: "create", path: "/memories/\u2024\u2024/escape.md", file_text: "x" }, /look-alike/],
    [{ command: "create", path: "/memories/a\u2215b.md", file_text: "x" }, /look-alike/],
    [{ command: "create", path: "/memories/..\\escape.md", file_text: "x" }, /backslash/],
    [{ command: "create", path: "/memories/C:/escape.md", file_text: "x" }, /drive letter/],
    [{ command: "create", path: "/memories//server/share/x.md", file_text: "x" }, /UNC/],
    [{ command: "create", path: "/memories/x\u0000.md", file_text: "x" }, /NUL/],
    [{ command: "create", path: "/etc/passwd", file_text: "x" }, /^Path must start with \/memories/],
    [{ command: "create", path: join(outside, "abs.md"), file_text: "x" }, /^Path must start with \/memories/],
  ];
  for (const [input, pattern] of attacks) {
    const result = await tool.execute(input);
    assert.equal(result.isError, true, `${JSON.stringify(input)} was refused`);
    assert.match(result.content, pattern, JSON.stringify(input));
  }
  assert.deepEqual(tree(outside), before, "nothing outside changed");
  assert.ok(!existsSync(join(dir, "..", "escape.md")));
  // remember and forget refuse the same escapes, with a typed error
  await assert.rejects(memory.remember({ type: "user", name: "Owned", description: "A memory written through a link", body: "x", file: "out/owned.md" }), { code: "UNSAFE_PATH" });
  await assert.rejects(memory.remember({ type: "user", name: "Owned", description: "A memory written through a link", body: "x", file: "dangling.md" }), { code: "UNSAFE_PATH" });
  await assert.rejects(memory.forget("victim.md"), { code: "UNSAFE_PATH" });
  assert.deepEqual(tree(outside), before, "nothing outside changed");
  // a link that stays inside is fine, and the listing hides the links out
  assert.equal((await tool.execute({ command: "create", path: "/memories/alias/inside.md", file_text: "fine\n" })).content, "File created successfully at: /memories/alias/inside.md");
  assert.equal(readFileSync(join(dir, "notes", "inside.md"), "utf8"), "fine\n");
  const listing = (await tool.execute({ command: "view", path: "/memories" })).content;
  assert.ok(!/\/memories\/(out|victim\.md|dangling\.md)/.test(listing), listing);
});

test("the same handlers serve any host: in memory, a view two levels deep with sizes", async () => {
  const host = new InMemoryHost({ "MEMORY.md": INDEX, "feedback_testing.md": TESTING, "a/b/c/deep.md": "deep", "a/x.md": "x".repeat(2048) });
  const tool = (await openMemory({ host, selector: { provider: "lexical" } })).tool();
  const view = await tool.view({ command: "view", path: "/memories" });
  const total = INDEX.length + 2 + TESTING.length + 4 + 2048; // the em dash is 3 bytes in UTF-8
  assert.equal(
    view,
    [
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:",
      `${(total / 1024).toFixed(1)}K\t/memories`,
      `${Buffer.byteLength(INDEX)}B\t/memories/MEMORY.md`,
      "2.0K\t/memories/a/",
      "4B\t/memories/a/b/",
      "2K\t/memories/a/x.md",
      `${TESTING.length}B\t/memories/feedback_testing.md`,
    ].join("\n"),
  );
  await tool.create({ command: "create", path: "/memories/new.md", file_text: "n" });
  assert.equal(new TextDecoder().decode(host.files.get("new.md").data), "n");
});
