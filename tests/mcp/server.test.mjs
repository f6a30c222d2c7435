// `memdir mcp` as an MCP client sees it: the real server (pkg/cli/main.js) on real temp
// folders, driven by the MCP SDK's own Client over stdio. Tools, resources, refusals as error
// results, bad arguments, concurrent calls, and the same results as the library's own API.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { CallToolResultSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { memoryToolInputSchema, openMemory, sanitizePath, truncateIndex } from "memdir";
import { projectMemoryDir } from "../../pkg/internal.js";
import { baseEnv, bin, cleanUp, connect, tempDir } from "./connect.mjs";

after(cleanUp);

const TOPIC = "---\nname: Deploys\ndescription: We deploy on Tuesdays after the freeze review\ntype: project\n---\n\nDeploy on Tuesdays.\n\n**Why:** the freeze review is on Monday.\n\n**How to apply:** plan releases for Tuesday.\n";

/** A memory folder with one indexed topic file. */
function seeded() {
  const dir = tempDir();
  writeFileSync(join(dir, "project_deploys.md"), TOPIC);
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploys](project_deploys.md) — We deploy on Tuesdays after the freeze review\n");
  return dir;
}

/** Every file under `dir`, relative path → content. */
function tree(dir, prefix = "") {
  const out = {};
  for (const e of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.name.startsWith(".memdir")) continue; // the lock file, if one is left
    if (e.isDirectory()) Object.assign(out, tree(dir, rel));
    else out[rel] = readFileSync(join(dir, rel), "utf8");
  }
  return out;
}

const WRITE_TOOLS = ["remember", "forget", "touch", "extract", "consolidate", "undo", "restore", "memory_create", "memory_str_replace", "memory_insert", "memory_delete", "memory_rename"];
const ALL_TOOLS = ["recall", "remember", "forget", "touch", "extract", "consolidate", "doctor", "history", "undo", "restore", "memory_view", "memory_create", "memory_str_replace", "memory_insert", "memory_delete", "memory_rename"];

test("tools: every one, flat schemas (no root oneOf/anyOf/allOf, which Claude Code drops), the memory-tool ones straight from the core", async () => {
  const s = await connect(["--dir", seeded()]);
  try {
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ALL_TOOLS);
    const core = memoryToolInputSchema();
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, "object", tool.name);
      for (const k of ["oneOf", "anyOf", "allOf", "not", "if", "then", "else"]) assert.equal(tool.inputSchema[k], undefined, `${tool.name} has no root ${k}`);
      assert.ok(tool.description.length > 40, `${tool.name} is described`);
      if (!tool.name.startsWith("memory_")) continue;
      const variant = core.oneOf.find((v) => `memory_${v.title}` === tool.name);
      const { command, ...properties } = variant.properties;
      // the core's fields, and if_match for the commands that write
      const { if_match: ifMatch, ...own } = tool.inputSchema.properties;
      assert.deepEqual(own, properties, `${tool.name}: the core's fields`);
      assert.equal(ifMatch?.type, tool.name === "memory_view" ? undefined : "string", `${tool.name}: if_match`);
      assert.deepEqual(tool.inputSchema.required, variant.required.filter((f) => f !== "command"));
      assert.equal(command.const, tool.name.slice("memory_".length));
    }
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    assert.equal(hints.memory_view.readOnlyHint, true);
    assert.equal(hints.recall.readOnlyHint, true);
    assert.equal(hints.recall.openWorldHint, false, "lexical recall calls no model");
    for (const name of WRITE_TOOLS) assert.equal(hints[name].readOnlyHint, false, name);
    assert.equal(hints.memory_delete.destructiveHint, true);
    assert.equal(hints.forget.destructiveHint, true);
    assert.equal(hints.memory_create.destructiveHint, false, "create refuses an existing file");
    const recall = tools.find((t) => t.name === "recall");
    assert.match(recall.description, /lexical selector/);
    assert.match(recall.description, /no model call/);
    assert.match(s.stderr, /serving .* \(recall: lexical\)/);
  } finally {
    await s.close();
  }
});

test("recall prefers the lexical selector, and says so; with a key in the env it names the side query (and the lexical fallback, with --fallback)", async () => {
  const env = baseEnv({ ANTHROPIC_API_KEY: "sk-ant-test-not-a-key" });
  const plain = await connect(["--dir", seeded()], { env });
  try {
    const recall = (await plain.client.listTools()).tools.find((t) => t.name === "recall");
    assert.match(recall.description, /side query to anthropic's default model \(ANTHROPIC_API_KEY is set\)/);
    assert.doesNotMatch(recall.description, /lexical selector chooses instead/, "off by default, as in the API and the CLI");
  } finally {
    await plain.close();
  }
  const s = await connect(["--dir", seeded(), "--fallback"], { env });
  try {
    const { tools } = await s.client.listTools();
    const recall = tools.find((t) => t.name === "recall");
    assert.match(recall.description, /lexical selector chooses instead/);
    assert.equal(recall.annotations.openWorldHint, true);
  } finally {
    await s.close();
  }
  // --provider lexical wins over a key
  const t = await connect(["--dir", seeded(), "--provider", "lexical"], { env });
  try {
    const recall = (await t.client.listTools()).tools.find((x) => x.name === "recall");
    assert.match(recall.description, /lexical selector/);
  } finally {
    await t.close();
  }
});

test("the tools and resources describe the limits in force, not fixed numbers (--max-files 7)", async () => {
  const s = await connect(["--dir", seeded(), "--provider", "lexical", "--max-files", "7"]);
  try {
    const { tools } = await s.client.listTools();
    assert.match(tools.find((t) => t.name === "doctor").description, /files past the 7-file cap/);
    assert.match(tools.find((t) => t.name === "recall").description, /at most 5, each a <system-reminder> block cut to 200 lines and 4 KB/);
    const { resources } = await s.client.listResources();
    assert.match(resources.find((r) => r.uri === "memdir://index").description, /cut to 200 lines and 25,000 UTF-16 units/);
  } finally {
    await s.close();
  }
});

test("with --fallback, a model call that fails falls back to the lexical selector (a closed port on 127.0.0.1); without it, nothing is chosen", async () => {
  const env = baseEnv({ OPENAI_API_KEY: "sk-test-not-a-key" });
  const s = await connect(["--dir", seeded(), "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--timeout", "3000", "--fallback"], { env });
  try {
    const r = await s.call("recall", { query: "when do we deploy after the freeze review" });
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, /^1 memory chosen by the lexical selector: project_deploys\.md\. Note: openai failed/);
    assert.match(r.text, /<system-reminder>\nMemory \(saved today\): .*project_deploys\.md:/);
  } finally {
    await s.close();
  }
  const t = await connect(["--dir", seeded(), "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1", "--timeout", "3000"], { env });
  try {
    const r = await t.call("recall", { query: "when do we deploy after the freeze review" });
    assert.equal(r.isError, true, "without the fallback a failed recall is an error result");
    assert.match(r.text, /^No memory chosen: the recall failed \(/);
  } finally {
    await t.close();
  }
});

test("resources: the index as the model sees it (cut to its limits), each memory as recall injects it; unknown and escaping URIs are not found", async () => {
  const dir = seeded();
  // 250 entries: the index is cut at 200 lines, with the warning
  const lines = Array.from({ length: 250 }, (_, i) => `- [Note ${i}](project_deploys.md) — hook ${i}`);
  const raw = `${lines.join("\n")}\n`;
  writeFileSync(join(dir, "MEMORY.md"), raw);
  const s = await connect(["--dir", dir]);
  try {
    const { resources } = await s.client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ["memdir://index", "memdir://memory/project_deploys.md"]);
    assert.equal(resources[1].title, "Deploys");
    assert.equal(resources[1].description, "[project] We deploy on Tuesdays after the freeze review");
    const index = (await s.client.readResource({ uri: "memdir://index" })).contents[0];
    assert.equal(index.mimeType, "text/markdown");
    const expected = truncateIndex(raw);
    assert.equal(expected.wasLineTruncated, true);
    assert.equal(index.text, expected.content, "the core's truncation, warning included");
    assert.equal(index.text, (await (await openMemory({ dir, selector: { provider: "lexical" } })).index()).content);
    assert.ok(index.text.split("\n").length < 210 && index.text.includes("- [Note 199]") && !index.text.includes("- [Note 200]"));

    const topic = (await s.client.readResource({ uri: "memdir://memory/project_deploys.md" })).contents[0].text;
    assert.equal(topic, `Memory (saved today): ${join(dir, "project_deploys.md")}:\n\n${TOPIC.replace(/\n$/, "")}`);

    const { resourceTemplates } = await s.client.listResourceTemplates();
    assert.equal(resourceTemplates[0].uriTemplate, "memdir://memory/{+path}");
    for (const uri of ["memdir://memory/nope.md", "memdir://memory/..%2F..%2Fetc%2Fpasswd", "memdir://memory/../MEMORY.md", "memdir://memory/%E0%A4%A", "file:///etc/passwd", "memdir://memory/MEMORY.md"]) {
      await assert.rejects(s.client.readResource({ uri }), (e) => e.code === -32002 && /Resource not found/.test(e.message), uri);
    }
    await s.client.ping(); // still up
  } finally {
    await s.close();
  }
});

test("instructions: how to use the tools, and MEMORY.md as the model sees it (unless --no-index)", async () => {
  const dir = seeded();
  const s = await connect(["--dir", dir]);
  try {
    const text = s.client.getInstructions();
    assert.match(text, /call `recall`/);
    assert.match(text, /save it with `remember`/);
    assert.ok(text.includes((await (await openMemory({ dir, selector: { provider: "lexical" } })).index()).prompt));
  } finally {
    await s.close();
  }
  const t = await connect(["--dir", dir, "--no-index"]);
  try {
    assert.ok(!t.client.getInstructions().includes("Deploy"), "no index in the instructions");
  } finally {
    await t.close();
  }
});

test("remember, recall, doctor, forget: the files on disk, and the same texts the library gives", async () => {
  const dir = tempDir(); // empty: the first write makes MEMORY.md
  const s = await connect(["--dir", dir]);
  try {
    const saved = await s.call("remember", {
      type: "feedback",
      name: "Integration tests",
      description: "Integration tests must hit a real database, never mocks",
      body: "Use the real Postgres container.\n\n**Why:** mocked tests passed while a migration broke prod.\n\n**How to apply:** run `docker compose up db` first.",
    });
    assert.equal(saved.isError, false, saved.text);
    assert.equal(saved.text, `created feedback_integration_tests.md (${join(dir, "feedback_integration_tests.md")})\nindex line: - [Integration tests](feedback_integration_tests.md) — Integration tests must hit a real database, never mocks`);
    assert.match(readFileSync(join(dir, "feedback_integration_tests.md"), "utf8"), /^---\nname: Integration tests\ndescription: Integration tests must hit a real database, never mocks\n/);
    assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "- [Integration tests](feedback_integration_tests.md) — Integration tests must hit a real database, never mocks\n");

    const recalled = await s.call("recall", { query: "should the integration tests mock the database" });
    assert.equal(recalled.isError, false);
    const lib = await (await openMemory({ dir, selector: { provider: "lexical" } })).recall("should the integration tests mock the database");
    assert.equal(lib.memories.length, 1);
    assert.equal(recalled.text, `1 memory chosen by the lexical selector: feedback_integration_tests.md.\n\n${lib.reminders[0]}`);
    const again = await s.call("recall", { query: "should the integration tests mock the database", already_surfaced: ["feedback_integration_tests.md"] });
    assert.equal(again.text, "No memory chosen: every memory that could be chosen was already surfaced in this session (it is in the conversation above).");
    const oneWord = await s.call("recall", { query: "database" });
    assert.equal(oneWord.isError, false);
    assert.equal(oneWord.text, "No memory chosen: a one-word query is not sent to the selector; ask in two or more words.");

    writeFileSync(join(dir, "project_deploys.md"), TOPIC); // not in the index
    const report = await s.call("doctor", {});
    assert.match(report.text, /^project_deploys\.md: warning not_indexed: /m);
    assert.match(report.text, /0 errors, 1 warnings, 0 notes; 1 fixable$/);
    const fixed = await s.call("doctor", { fix: true });
    assert.match(fixed.text, /^fixed 1:\n--- a\/MEMORY\.md\n\+\+\+ b\/MEMORY\.md\n/);
    assert.match(fixed.text, /\+- \[Deploys\]\(project_deploys\.md\) — We deploy on Tuesdays after the freeze review/);
    assert.match(fixed.text, /remaining:\n0 errors, 0 warnings, 0 notes; 0 fixable$/);
    assert.match(readFileSync(join(dir, "MEMORY.md"), "utf8"), /project_deploys\.md/);

    const gone = await s.call("forget", { file: "feedback_integration_tests.md" });
    assert.deepEqual(gone, { text: "forgot feedback_integration_tests.md: the file and its MEMORY.md line are gone", isError: false });
    assert.ok(!existsSync(join(dir, "feedback_integration_tests.md")));
    assert.doesNotMatch(readFileSync(join(dir, "MEMORY.md"), "utf8"), /integration/i);
    const twice = await s.call("forget", { file: "feedback_integration_tests.md" });
    assert.equal(twice.isError, true);
    assert.match(twice.text, /^NOT_FOUND: /);
  } finally {
    await s.close();
  }
});

test("the memory-tool commands give the library's texts and leave the same files as memory.tool().execute on a copy", async () => {
  const served = seeded();
  const copy = tempDir();
  cpSync(served, copy, { recursive: true });
  const lib = (await openMemory({ dir: copy, selector: { provider: "lexical" } })).tool();
  const s = await connect(["--dir", served]);
  const steps = [
    ["view", { path: "/memories" }],
    ["view", { path: "/memories/project_deploys.md", view_range: [2, 3] }],
    ["create", { path: "/memories/notes/release.md", file_text: "Release checklist\n- tag\n" }],
    ["str_replace", { path: "/memories/notes/release.md", old_str: "- tag", new_str: "- tag the release" }],
    ["str_replace", { path: "/memories/notes/release.md", old_str: "- tag the release" }],
    ["insert", { path: "/memories/notes/release.md", insert_line: 0, insert_text: "# Releases\n" }],
    ["rename", { old_path: "/memories/project_deploys.md", new_path: "/memories/project/deploys.md" }],
    ["view", { path: "/memories/MEMORY.md" }],
    ["delete", { path: "/memories/notes" }],
    // refusals: the command's own error texts
    ["view", { path: "/etc/passwd" }],
    ["view", { path: "/memories/../../etc/passwd" }],
    ["create", { path: "/memories/aws.md", file_text: "key: AKIAIOSFODNN7EXAMPLE\n" }],
    ["create", { path: "/memories/MEMORY.md", file_text: "# Memory\n\nWe deploy on Tuesdays.\n" }],
    ["create", { path: "/memories/project/deploys.md", file_text: "again" }],
    ["insert", { path: "/memories/project/deploys.md", insert_line: 99, insert_text: "x" }],
    ["view", { path: "/memories/project/deploys.md", view_range: [1] }],
    ["delete", { path: "/memories" }],
  ];
  try {
    let errors = 0;
    for (const [command, args] of steps) {
      const viaMcp = await s.call(`memory_${command}`, args);
      const direct = await lib.execute({ command, ...args });
      // a file's view over MCP ends with its hash (for if_match); the text before it is the library's
      const hashLine = /\n\(sha256 [0-9a-f]{64}: pass it as if_match to change this file only if it is still as viewed\)$/;
      if (command === "view" && !viaMcp.isError && args.path !== "/memories") assert.match(viaMcp.text, hashLine, `${command} ${JSON.stringify(args)}: the hash`);
      assert.deepEqual({ ...viaMcp, text: viaMcp.text.replace(hashLine, "") }, { text: direct.content, isError: direct.isError }, `${command} ${JSON.stringify(args)}`);
      if (viaMcp.isError) errors++;
    }
    assert.equal(errors, 8, "each refusal came back as an error result");
    assert.deepEqual(tree(served), tree(copy));
    assert.match(readFileSync(join(served, "MEMORY.md"), "utf8"), /\(project\/deploys\.md\)/, "the index entry followed the rename");
    assert.ok(!existsSync(join(served, "aws.md")));
  } finally {
    await s.close();
  }
});

test("refusals are error results with memdir's code, and nothing is written: secret, unsafe path, duplicate, over the limit", async () => {
  const dir = seeded();
  const before = tree(dir);
  const s = await connect(["--dir", dir, "--max-files", "2"]);
  const memory = (over) => ({ type: "project", name: "Release freeze", description: "Releases freeze for two weeks before each quarter's end", body: "Freeze.", ...over });
  try {
    const cases = [
      [memory({ body: "the deploy token is ghp_x0x0x0x0x0x0x0x0x0x0x0x0x0x0x0x0x0x0" }), /^SECRET_DETECTED: .*GitHub token/],
      [memory({ file: "../outside.md" }), /^UNSAFE_PATH: /],
      [memory({ file: "/etc/cron.d/x.md" }), /^UNSAFE_PATH: /],
      [memory({ name: "Deploys" }), /^DUPLICATE_MEMORY: a memory named "Deploys" already exists in project_deploys\.md/],
      [memory({ description: "One line\nand another" }), /^[A-Z_]+: /],
    ];
    for (const [args, expected] of cases) {
      const r = await s.call("remember", args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(r.text, expected);
    }
    assert.deepEqual(tree(dir), before, "nothing written");
    // the second topic file fits under --max-files 2, the third does not
    assert.equal((await s.call("remember", memory({}))).isError, false);
    const over = await s.call("remember", memory({ name: "Q4 goals", description: "What the team aims to ship by the end of Q4 this year" }));
    assert.equal(over.isError, true);
    assert.match(over.text, /^LIMIT_EXCEEDED: the directory holds 2 topic files/);
    // an index at its 200 lines refuses a new entry
    const full = seeded();
    writeFileSync(join(full, "MEMORY.md"), `${Array.from({ length: 200 }, (_, i) => `- [Deploys ${i}](project_deploys.md) — hook`).join("\n")}\n`);
    const t = await connect(["--dir", full]);
    try {
      const r = await t.call("remember", memory({}));
      assert.equal(r.isError, true);
      assert.match(r.text, /^LIMIT_EXCEEDED: MEMORY\.md would have 201 lines, over its limit of 200/);
      assert.ok(!existsSync(join(full, "project_release_freeze.md")));
    } finally {
      await t.close();
    }
  } finally {
    await s.close();
  }
});

test("bad arguments never crash the server: error results for the tools' own checks, protocol errors for what the SDK refuses", async () => {
  const dir = seeded();
  const s = await connect(["--dir", dir]);
  try {
    const bad = [
      ["recall", {}, /^INVALID_ARGUMENT: recall: missing field `query`$/],
      ["recall", { query: 42 }, /^INVALID_ARGUMENT: recall: `query` must be a string, not a whole number$/],
      ["recall", { query: "deploys on tuesday", already_surfaced: "x" }, /`already_surfaced` must be a list/],
      ["recall", { query: "deploys on tuesday", already_surfaced: [1] }, /`already_surfaced\[0\]` must be a string/],
      ["recall", { query: "deploys on tuesday", limit: 3 }, /^INVALID_ARGUMENT: recall: unknown field `limit`/],
      // names every object has by its prototype are unknown fields too
      ["recall", JSON.parse('{"__proto__":{"query":"deploys on tuesday"}}'), /^INVALID_ARGUMENT: recall: missing field `query`/],
      ["recall", { query: "deploys on tuesday", constructor: 5 }, /^INVALID_ARGUMENT: recall: unknown field `constructor`/],
      ["forget", { file: "a.md", toString: "x" }, /^INVALID_ARGUMENT: forget: unknown field `toString`/],
      ["doctor", { hasOwnProperty: true }, /^INVALID_ARGUMENT: doctor: unknown field `hasOwnProperty`/],
      ["remember", { type: "fact", name: "a", description: "b", body: "c" }, /`type` must be one of "user", "feedback", "project", "reference"/],
      ["remember", { type: "user", name: "a", description: "b" }, /missing field `body`/],
      ["remember", { type: "user", name: "a", description: "b", body: null }, /missing field `body`/],
      ["forget", { file: ["a.md"] }, /`file` must be a string, not a list/],
      ["doctor", { stale_core_days: -1 }, /`stale_core_days` must be at least 0/],
      ["doctor", { stale_core_days: 1.5 }, /`stale_core_days` must be a whole number, not a number/],
      ["doctor", { stale_core_days: 1e308 }, /^INVALID_ARGUMENT: doctor: `stale_core_days` must be a whole number, not 1e\+308$/],
      ["doctor", { fix: "yes" }, /`fix` must be a boolean/],
      ["memory_view", {}, /^Invalid `view` command: missing field `path`$/],
      ["memory_view", { path: 7 }, /^Invalid `view` command: `path` must be a string, not a number$/],
      ["memory_insert", { path: "/memories/MEMORY.md", insert_line: "1", insert_text: "x" }, /`insert_line` must be a whole number, not a string/],
      ["memory_create", { path: "/memories/x.md", file_text: { deep: [1, 2, { a: null }] } }, /`file_text` must be a string, not an object/],
      ["memory_rename", { old_path: "/memories/project_deploys.md" }, /missing field `new_path`/],
      ["memory_view", { path: "/memories/project_deploys.md", view_range: [1, "x"] }, /`view_range` must hold whole numbers/],
    ];
    for (const [name, args, expected] of bad) {
      const r = await s.call(name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.match(r.text, expected, `${name} ${JSON.stringify(args)}`);
    }
    // a command field cannot redirect a memory_* tool to another command
    const view = await s.call("memory_view", { path: "/memories/project_deploys.md", command: "delete" });
    assert.equal(view.isError, false);
    assert.ok(existsSync(join(dir, "project_deploys.md")));
    // no arguments at all
    assert.match((await s.call("recall", undefined)).text, /missing field `query`/);
    // an unknown tool is a protocol error (-32602), as MCP says
    await assert.rejects(s.client.callTool({ name: "rm_rf", arguments: {} }), (e) => e.code === ErrorCode.InvalidParams && /Unknown tool: rm_rf/.test(e.message));
    // requests the SDK's own schemas refuse (arguments that are not an object, no uri): a JSON-RPC error, and the server goes on
    const protocolError = (e) => typeof e.code === "number" && e.code < 0 && /expected|Required|invalid/i.test(e.message);
    await assert.rejects(s.client.request({ method: "tools/call", params: { name: "recall", arguments: ["x"] } }, CallToolResultSchema), protocolError);
    await assert.rejects(s.client.request({ method: "resources/read", params: {} }, CallToolResultSchema), protocolError);
    // a huge argument is still only an error result
    const huge = await s.call("memory_create", { path: "/memories/huge.md", file_text: "x".repeat(2_000_000) });
    assert.equal(huge.isError, true);
    assert.ok(!existsSync(join(dir, "huge.md")));
    await s.client.ping();
    assert.equal((await s.call("memory_view", { path: "/memories/project_deploys.md" })).isError, false, "still serving");
    assert.equal(tree(dir)["project_deploys.md"], TOPIC, "nothing changed");
  } finally {
    await s.close();
  }
});

test("garbage on stdin is skipped; the server answers the next request, and exits 0 when stdin ends", async () => {
  const dir = seeded();
  const child = spawn(process.execPath, [bin, "mcp", "--dir", dir], { env: baseEnv(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  child.stdin.write("this is not json\n{\"jsonrpc\":\"2.0\",\"id\":\n[1,2,3]\n\n");
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`);
  const deadline = Date.now() + 20_000;
  while (!out.includes('"id":7') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const reply = out.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((m) => m.id === 7);
  assert.equal(reply?.result?.serverInfo?.name, "memdir", out);
  assert.equal(reply.result.protocolVersion, "2025-06-18");
  for (const line of out.split("\n").filter(Boolean)) JSON.parse(line); // stdout holds only protocol messages
  child.stdin.end();
  assert.equal(await exited, 0);
});

test("concurrent calls: 24 writes at once from one client and 2 × 8 from two servers on the same folder, no write lost", async () => {
  const dir = seeded();
  const a = await connect(["--dir", dir]);
  const b = await connect(["--dir", dir]);
  const topics = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"];
  const remember = (s, word, i) => s.call("remember", { type: "reference", name: `Dashboard ${word}`, description: `Where the ${word} service's ${i % 2 ? "latency" : "error"} graphs live`, body: `https://grafana.example/${word}` });
  try {
    const results = await Promise.all([
      ...topics.slice(0, 8).map((w, i) => remember(a, w, i)),
      ...topics.slice(8).map((w, i) => remember(b, w, i)),
      ...Array.from({ length: 8 }, (_, i) => a.call("memory_create", { path: `/memories/notes/n${i}.md`, file_text: `note ${i}\n` })),
      ...Array.from({ length: 6 }, () => a.call("recall", { query: "where are the latency graphs of the kilo service" })),
      ...Array.from({ length: 6 }, () => b.call("memory_view", { path: "/memories" })),
      a.call("doctor", {}),
    ]);
    for (const r of results) assert.equal(r.isError, false, r.text);
    const index = readFileSync(join(dir, "MEMORY.md"), "utf8");
    for (const w of topics) assert.match(index, new RegExp(`\\(reference_dashboard_${w}\\.md\\)`), w);
    assert.equal(index.trim().split("\n").length, 1 + topics.length);
    assert.equal(readdirSync(join(dir, "notes")).length, 8);
    const report = await a.call("doctor", {});
    assert.match(report.text, /^0 errors, /m);
    assert.doesNotMatch(report.text, /reference_dashboard/, "every memory indexed, none duplicated");
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test("--read-only serves recall, doctor (without fix), history and memory_view only", async () => {
  const dir = seeded();
  const s = await connect(["--dir", dir, "--read-only"]);
  try {
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["recall", "doctor", "history", "memory_view"]);
    assert.equal(tools.find((t) => t.name === "doctor").inputSchema.properties.fix, undefined);
    await assert.rejects(s.client.callTool({ name: "remember", arguments: {} }), /Unknown tool: remember/);
    assert.match((await s.call("doctor", { fix: true })).text, /unknown field `fix`/);
    assert.doesNotMatch(s.client.getInstructions(), /remember/);
  } finally {
    await s.close();
  }
});

test("--project serves Claude Code's folder for the project (CLAUDE_CONFIG_DIR honoured); a missing folder is made by the first write", async () => {
  const config = tempDir();
  const project = tempDir();
  mkdirSync(join(project, "src"));
  const s = await connect(["--project", project], { env: baseEnv({ CLAUDE_CONFIG_DIR: config }) });
  try {
    const expected = projectMemoryDir({ homeDir: "/unused", projectRoot: project, configDir: config });
    assert.equal(expected, `${join(config, "projects", sanitizePath(project), "memory")}/`);
    assert.ok(!existsSync(expected));
    assert.equal((await s.client.readResource({ uri: "memdir://index" })).contents[0].text, "");
    const r = await s.call("remember", { type: "user", name: "Role", description: "The user is a data engineer who writes Rust and Python", body: "Data engineer." });
    assert.equal(r.isError, false, r.text);
    assert.ok(existsSync(join(expected, "user_role.md")));
  } finally {
    await s.close();
  }
});

test("history, undo and if_match over MCP: each write recorded with the server's label, a forget undone with its index line, a stale if_match refused on every writing tool", async () => {
  const dir = seeded();
  const s = await connect(["--dir", dir]);
  try {
    const view = await s.call("memory_view", { path: "/memories/project_deploys.md" });
    const hash = /\(sha256 ([0-9a-f]{64}):/.exec(view.text)?.[1];
    assert.ok(hash, `a view gives the file's hash: ${view.text}`);
    // a person edits the file after the view: every writing tool refuses the stale hash
    writeFileSync(join(dir, "project_deploys.md"), readFileSync(join(dir, "project_deploys.md"), "utf8") + "\nEdited by a person.\n");
    const stale = [
      ["memory_str_replace", { path: "/memories/project_deploys.md", old_str: "Deploy on Tuesdays.", new_str: "Deploy on Wednesdays.", if_match: hash }],
      ["memory_insert", { path: "/memories/project_deploys.md", insert_line: 1, insert_text: "x", if_match: hash }],
      ["memory_delete", { path: "/memories/project_deploys.md", if_match: hash }],
      ["memory_rename", { old_path: "/memories/project_deploys.md", new_path: "/memories/project_deploys_old.md", if_match: hash }],
      ["forget", { file: "project_deploys.md", if_match: hash }],
      ["remember", { type: "project", name: "Deploys", description: "We deploy on Wednesdays now", body: "b", file: "project_deploys.md", if_match: hash }],
    ];
    for (const [tool, args] of stale) {
      const r = await s.call(tool, args);
      assert.equal(r.isError, true, `${tool}: ${r.text}`);
      assert.match(r.text, /changed since it was read/, tool);
    }
    assert.match(readFileSync(join(dir, "project_deploys.md"), "utf8"), /Edited by a person/, "nothing was written");
    // with the hash of what is there now, the write goes through
    const fresh = /\(sha256 ([0-9a-f]{64}):/.exec((await s.call("memory_view", { path: "/memories/project_deploys.md" })).text)[1];
    assert.equal((await s.call("forget", { file: "project_deploys.md", if_match: fresh })).isError, false);
    const log = await s.call("history", {});
    assert.match(log.text, /^\d{16}-\d{4} {2}\S+ {2}forget \(mcp\): MEMORY\.md changed, project_deploys\.md removed$/m);
    const id = log.text.split(/\s/)[0];
    const undone = await s.call("undo", { id });
    assert.equal(undone.isError, false, undone.text);
    assert.match(readFileSync(join(dir, "MEMORY.md"), "utf8"), /\(project_deploys\.md\)/, "the index line is back");
    assert.match(readFileSync(join(dir, "project_deploys.md"), "utf8"), /Edited by a person/, "the file as it was, the person's edit with it");
    assert.match((await s.call("history", { limit: 1 })).text, new RegExp(`undo: .* undoes ${id}|undo.*undoes ${id}`));
    const again = await s.call("undo", { id });
    assert.equal(again.isError, true);
    assert.match(again.text, /^CHANGED: change \d{16}-\d{4} was already undone/);
    // restore to just after the undo: a memory remembered since goes, the rest stays
    const undoId = (await s.call("history", { limit: 1 })).text.split(/\s/)[0];
    assert.equal((await s.call("remember", { type: "user", name: "Role", description: "The user is on the platform team", body: "Platform." })).isError, false);
    const at = new Date(Number(undoId.split("-")[0])).toISOString();
    const dry = await s.call("restore", { at, dry_run: true });
    assert.match(dry.text, /^Would restore MEMORY\.md, user_role\.md:/);
    assert.ok(existsSync(join(dir, "user_role.md")), "a dry run writes nothing");
    const restored = await s.call("restore", { at });
    assert.equal(restored.isError, false, restored.text);
    assert.equal(existsSync(join(dir, "user_role.md")), false);
    assert.doesNotMatch(readFileSync(join(dir, "MEMORY.md"), "utf8"), /user_role/);
    assert.match(readFileSync(join(dir, "MEMORY.md"), "utf8"), /\(project_deploys\.md\)/);
    assert.match((await s.call("restore", { at: "soon" })).text, /^INVALID_ARGUMENT: restore: `at` must be an ISO 8601 date or time/);
  } finally {
    await s.close();
  }
});
