// openMemory end to end over an in-memory host and a caller-supplied selector: outcomes,
// rendering, sessions, budget, prefetch, events — and that recall never throws.
import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemoryHost, openMemory } from "memdir";

const DAY = 86_400_000;
const NOW = 1_780_000_000_000;
const fm = (description, type = "project", body = "Body.") => `---\nname: x\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;

function host() {
  return new InMemoryHost({
    "MEMORY.md": { content: "- [Deploy](project_deploy.md) — staging checklist\n", mtimeMs: NOW },
    "project_deploy.md": { content: fm("Staging deploy checklist"), mtimeMs: NOW - 3 * DAY },
    "feedback_tests.md": { content: fm("Integration tests must hit a real database", "feedback"), mtimeMs: NOW - 1000 },
    "user_role.md": { content: fm("Senior Go engineer", "user"), mtimeMs: NOW - DAY },
    "reference_big.md": { content: fm("API error codes table", "reference", `| TW-E0000 | ${"x".repeat(60)} |\n`.repeat(300)), mtimeMs: NOW - 10 * DAY },
  }, { root: "/mem" });
}

const answering = (names, extra = {}) => async (req) => ({ text: JSON.stringify({ selected_memories: names }), usage: { inputTokens: Math.ceil(req.user.length / 4), outputTokens: 9 }, model: "claude-haiku-5-5", ...extra });

test("selected: blocks in the model's order, stale header, usage and cost", async () => {
  const events = [];
  let seen;
  const memory = await openMemory({ host: host(), now: () => NOW, onEvent: (e) => events.push(e), selector: async (req) => ((seen = req), answering(["project_deploy.md", "feedback_tests.md", "nope.md"])(req)) });
  const r = await memory.recall("how do we deploy to staging?", { recentTools: ["Bash"] });
  assert.equal(r.outcome, "selected");
  assert.equal(r.selector, "function");
  assert.deepEqual(r.memories.map((m) => [m.path, m.ageDays, m.absolutePath]), [["project_deploy.md", 3, "/mem/project_deploy.md"], ["feedback_tests.md", 0, "/mem/feedback_tests.md"]]);
  assert.match(r.memories[0].header, /^This memory is 3 days old\./);
  assert.equal(r.memories[1].header, "Memory (saved today): /mem/feedback_tests.md:");
  assert.equal(r.reminders[0], r.memories[0].text);
  assert.ok(r.reminders[0].startsWith("<system-reminder>\n") && r.reminders[0].endsWith("\n</system-reminder>"));
  assert.deepEqual(r.rejected, [{ value: "nope.md", reason: "unknown" }]);
  assert.match(seen.user, /^Query: how do we deploy to staging\?\n\nAvailable memories:\n- \[feedback\] feedback_tests\.md/);
  assert.match(seen.user, /\n\nRecently used tools: Bash$/);
  assert.equal(seen.maxTokens, 256);
  assert.equal(r.usage.outputTokens, 9);
  assert.equal(r.costUsd, (r.usage.inputTokens * 0.1 + 9 * 0.5) / 1e6);
  assert.equal(events.length, 1);
  assert.deepEqual({ ...events[0], latencyMs: 0 }, { type: "recall", outcome: "selected", selector: "function", candidates: 4, selected: 2, ages: [3, 0], latencyMs: 0, usage: r.usage, costUsd: r.costUsd });
});

test("none_selected, no_memories and skipped are told apart", async () => {
  const events = [];
  const memory = await openMemory({ host: host(), now: () => NOW, onEvent: (e) => events.push(e), selector: answering([]) });
  assert.equal((await memory.recall("anything relevant here?")).outcome, "none_selected");
  assert.equal((await memory.recall("deploy")).outcome, "skipped");
  const empty = await openMemory({ host: new InMemoryHost({ "MEMORY.md": "x" }), selector: async () => assert.fail("no model call without candidates") });
  assert.equal((await empty.recall("deploy to staging")).outcome, "no_memories");
  assert.deepEqual(events.map((e) => [e.outcome, e.candidates]), [["none_selected", 4], ["skipped", 0]]);
});

test("failures never throw: a selector that throws, bad JSON, a hang past the timeout, an abort", async () => {
  const cases = [
    [async () => { throw new Error("boom"); }, /selector_error: boom/],
    [async () => "not json", /invalid_json/],
    [() => new Promise(() => {}), /timeout/],
  ];
  for (const [selector, error] of cases) {
    const memory = await openMemory({ host: host(), selector });
    const r = await memory.recall("deploy to staging", { timeoutMs: 50 });
    assert.equal(r.outcome, "failed");
    assert.match(r.error, error);
    assert.deepEqual(r.memories, []);
  }
  const memory = await openMemory({ host: host(), selector: () => new Promise(() => {}) });
  const controller = new AbortController();
  const pending = memory.recall("deploy to staging", { signal: controller.signal });
  controller.abort();
  const r = await pending;
  assert.equal(r.outcome, "failed");
  assert.match(r.error, /aborted/);
});

test("a truncated memory is cut at the byte limit with a note naming the full path", async () => {
  const memory = await openMemory({ host: host(), now: () => NOW, selector: answering(["reference_big.md"]) });
  const r = await memory.recall("what does error X mean");
  assert.equal(r.memories[0].truncated, "bytes");
  assert.ok(Buffer.byteLength(r.memories[0].content.split("\n\n> ")[0]) <= 4096);
  assert.match(r.memories[0].content, /truncated \(4096-byte limit\)\. Read the whole file at: \/mem\/reference_big\.md$/);
});

test("a session remembers what it surfaced, spends its budget, and reset() starts over", async () => {
  const calls = [];
  const memory = await openMemory({ host: host(), now: () => NOW, limits: { maxSessionUtf16: 200 }, selector: async (req) => (calls.push(req.user), { text: JSON.stringify({ selected_memories: ["project_deploy.md", "feedback_tests.md"] }) }) });
  const s = memory.session();
  const first = await s.recall("deploy to staging");
  assert.deepEqual(first.memories.map((m) => m.path), ["project_deploy.md", "feedback_tests.md"]);
  assert.deepEqual(s.surfaced, ["project_deploy.md", "feedback_tests.md"]);
  assert.equal(s.surfacedUtf16, first.memories.reduce((n, m) => n + m.content.length, 0));
  assert.ok(s.surfacedUtf16 < 200);
  const second = await s.recall("deploy to staging again");
  assert.doesNotMatch(calls[1], /project_deploy\.md|feedback_tests\.md/);
  assert.equal(second.outcome, "none_selected");
  assert.deepEqual(second.rejected.map((x) => x.reason), ["already_surfaced", "already_surfaced"]);
  s.reset();
  assert.deepEqual(s.surfaced, []);
  assert.equal((await s.recall("deploy to staging")).memories.length, 2);
  const big = await openMemory({ host: host(), now: () => NOW, limits: { maxSessionUtf16: 10 }, selector: answering(["project_deploy.md"]) });
  const bs = big.session();
  await bs.recall("deploy to staging");
  const spent = await bs.recall("deploy to staging please");
  assert.equal(spent.outcome, "skipped");
  assert.equal(spent.skip, "budget_spent");
  assert.equal(spent.error, undefined);
});

test("a repeated question in one session: skipped because already surfaced, a reason and no error (issue 26)", async () => {
  const events = [];
  const only = new InMemoryHost({ "MEMORY.md": "- [Deploys](project_deploy.md) — Staging deploy checklist\n", "project_deploy.md": "---\nname: Deploys\ndescription: Staging deploy checklist\ntype: project\n---\nRun the smoke tests first.\n" });
  let calls = 0;
  const memory = await openMemory({ host: only, now: () => NOW, onEvent: (e) => events.push(e), selector: async () => { calls++; return { text: '{"selected_memories":["project_deploy.md"]}' }; } });
  const s = memory.session();
  const first = await s.recall("how do we deploy to staging?");
  assert.equal(first.outcome, "selected");
  const again = await s.recall("how do we deploy to staging?");
  assert.equal(again.outcome, "skipped");
  assert.equal(again.skip, "already_surfaced");
  assert.equal(again.error, undefined);
  assert.equal(calls, 1, "no model call for a memory the session has");
  assert.deepEqual(events.map((e) => [e.outcome, e.skip ?? null, "error" in e]), [["selected", null, false], ["skipped", "already_surfaced", false]]);
  // a fresh session asks again; an empty memory is still no_memories
  assert.equal((await memory.session().recall("how do we deploy to staging?")).outcome, "selected");
  const empty = await openMemory({ host: new InMemoryHost({ "MEMORY.md": "x" }), selector: async () => assert.fail("no call") });
  const none = await empty.recall("how do we deploy to staging?");
  assert.deepEqual([none.outcome, none.skip, none.error], ["no_memories", "no_memories", undefined]);
});

test("prefetch: taken later without waiting; ended before it settles, it is aborted and marks nothing", async () => {
  let release;
  const memory = await openMemory({ host: host(), now: () => NOW, selector: (req) => new Promise((resolve, reject) => {
    release = () => resolve({ text: '{"selected_memories":["user_role.md"]}' });
    req.signal.addEventListener("abort", () => reject(req.signal.reason));
  }) });
  const s = memory.session();
  const p = s.prefetch("who is the user here");
  assert.equal(p.settled, false);
  assert.equal(p.take(), undefined);
  // the selector is asked once the scan is done (a first scan in a process can take tens of ms)
  while (!release) await new Promise((r) => setTimeout(r, 5));
  assert.equal(p.take(), undefined, "not settled while the selector has not answered");
  release();
  await p.promise;
  assert.equal(p.settled, true);
  assert.deepEqual(s.surfaced, []);
  assert.equal(p.take().memories[0].path, "user_role.md");
  assert.deepEqual(s.surfaced, ["user_role.md"]);
  assert.equal(p.take(), undefined);

  const q = s.prefetch("who else is on the team");
  q.end();
  const r = await q.promise;
  assert.equal(r.outcome, "failed");
  assert.match(r.error, /aborted/);
  assert.deepEqual(s.surfaced, ["user_role.md"]);
});

test("index() and instructions()", async () => {
  const memory = await openMemory({ host: host() });
  const index = await memory.index();
  assert.equal(index.content, "- [Deploy](project_deploy.md) — staging checklist");
  assert.equal(index.prompt, "Contents of /mem/MEMORY.md (the memory index, kept across conversations):\n\n- [Deploy](project_deploy.md) — staging checklist");
  const none = await openMemory({ host: new InMemoryHost({}) });
  assert.deepEqual({ ...(await none.index()) }, { content: "", lineCount: 0, utf16Count: 0, wasLineTruncated: false, wasSizeTruncated: false, prompt: "", readPartially: false });
  const text = memory.instructions();
  assert.match(text, /`\/mem`/);
  for (const word of ["user", "feedback", "project", "reference", "MEMORY.md", "**Why:**", "What not to save"]) assert.ok(text.includes(word), word);
  assert.equal(memory.instructions({ via: "files" }), text, "files is the default");
  // through the memory tool the model sees /memories, and is told which real folder that is
  const viaTool = memory.instructions({ via: "memory-tool" });
  assert.match(viaTool, /`\/mem`/);
  assert.match(viaTool, /`\/memories` directory is this folder/);
  assert.doesNotMatch(viaTool, /write files in it directly/);
  const viaRemember = memory.instructions({ via: "remember-tool" });
  assert.match(viaRemember, /`\/mem`/);
  assert.match(viaRemember, /`remember` tool/);
  assert.throws(() => memory.instructions({ via: "mcp" }), { code: "INVALID_ARGUMENT" });
});

test("the lexical selector runs offline and can choose nothing", async () => {
  const memory = await openMemory({ host: host(), now: () => NOW, selector: { provider: "lexical" } });
  const r = await memory.recall("the staging deploy checklist please");
  assert.equal(r.selector, "lexical");
  assert.deepEqual(r.memories.map((m) => m.path), ["project_deploy.md"]);
  assert.equal((await memory.recall("quantum chromodynamics lecture notes")).outcome, "none_selected");
});
