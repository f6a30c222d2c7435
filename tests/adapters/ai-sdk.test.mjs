// memdir/ai-sdk against the Vercel AI SDK itself (`ai`, its own mock models from `ai/test`):
// generateText and streamText over a model wrapped with memoryMiddleware, the remember and
// forget tools in the AI SDK's tool loop, and modelSelector as the side query's model.
import assert from "node:assert/strict";
import { test } from "node:test";
import { generateText, simulateReadableStream, stepCountIs, streamText, tool, jsonSchema, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { InMemoryHost, MemdirError, openMemory } from "memdir";
import { memoryMiddleware, memoryTools, modelSelector } from "memdir/ai-sdk";
import { selectMemories } from "../mock/providers.mjs";

const NOW = 1_780_000_000_000;
const DAY = 86_400_000;
const topic = (name, description, type, body) => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;
const DEPLOY = topic("Deploys", "Staging deploy checklist and who approves", "project", "Run the smoke tests, then ask Dana.");
const TESTING = topic("Testing", "Integration tests must hit a real database", "feedback", "Use a real DB.\n**Why:** mocks hid a migration bug.");
const INDEX = "- [Deploys](project_deploy.md) — Staging deploy checklist\n- [Testing](feedback_testing.md) — Integration tests hit a real database\n";

function host(files = {}) {
  return new InMemoryHost(
    {
      "MEMORY.md": { content: INDEX, mtimeMs: NOW },
      "project_deploy.md": { content: DEPLOY, mtimeMs: NOW - 2 * DAY },
      "feedback_testing.md": { content: TESTING, mtimeMs: NOW - DAY },
      ...files,
    },
    { root: "/mem", now: () => NOW },
  );
}

const usage = (input = 10, output = 5, cacheRead = 0) => ({
  inputTokens: { total: input, noCache: input - cacheRead, cacheRead, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const text = (t, finish = "stop") => ({ content: [{ type: "text", text: t }], finishReason: { unified: finish, raw: finish }, usage: usage(), warnings: [] });
const calls = (...list) => ({
  content: list.map(([toolName, input], i) => ({ type: "tool-call", toolCallId: `call_${i}_${toolName}`, toolName, input: JSON.stringify(input) })),
  finishReason: { unified: "tool-calls", raw: "tool_use" },
  usage: usage(),
  warnings: [],
});
const promptText = (prompt) =>
  prompt.flatMap((m) => (typeof m.content === "string" ? [m.content] : m.content.filter((p) => p.type === "text").map((p) => p.text))).join("\n\n");

/** The side query's model: answers, like the mock provider, with the manifest files that share a word with the query. */
function selectorModel() {
  return new MockLanguageModelV4({
    modelId: "mock-selector",
    doGenerate: async ({ prompt }) => ({ ...text(JSON.stringify({ selected_memories: selectMemories(promptText(prompt)) })), usage: usage(400, 12, 300) }),
  });
}

async function setup({ files, instructions, answers } = {}) {
  const side = selectorModel();
  const memory = await openMemory({ host: host(files), now: () => NOW, selector: modelSelector(side) });
  const main = new MockLanguageModelV4({ modelId: "mock-main", doGenerate: answers ?? [text("Done.")] });
  const middleware = memoryMiddleware(memory, instructions === undefined ? {} : { instructions });
  return { memory, side, main, middleware, model: wrapLanguageModel({ model: main, middleware }) };
}

const count = (haystack, needle) => haystack.split(needle).length - 1;
const lookup = tool({ description: "Look something up", inputSchema: jsonSchema({ type: "object", properties: { q: { type: "string" } } }), execute: async () => "found" });

test("the middleware injects the index into the system prompt and the turn's recalled memories once; a tool-call step of the turn gets them again without a second side query", async () => {
  const { memory, side, main, middleware, model } = await setup({ answers: [calls(["lookup", { q: "deploy" }]), text("Ask Dana.")] });
  const result = await generateText({ model, tools: { lookup }, stopWhen: stepCountIs(3), messages: [{ role: "user", content: "How do we deploy to staging?" }] });
  assert.equal(result.text, "Ask Dana.");
  assert.equal(side.doGenerateCalls.length, 1, "one side query for the user turn");
  assert.equal(main.doGenerateCalls.length, 2, "the tool-call step and the answer");
  const [first, second] = main.doGenerateCalls.map((c) => c.prompt);
  for (const prompt of [first, second]) {
    assert.equal(prompt[0].role, "system");
    assert.ok(prompt[0].content.startsWith(memory.instructions({ via: "remember-tool" })), "the instructions, in the words of the remember tool");
    assert.match(prompt[0].content, /Contents of \/mem\/MEMORY\.md \(the memory index, kept across conversations\):\n\n- \[Deploys\]\(project_deploy\.md\)/);
    const user = prompt[1];
    assert.equal(user.role, "user");
    assert.equal(user.content[0].text, "How do we deploy to staging?");
    assert.equal(user.content.length, 2, "the question, then one recalled memory");
    assert.match(user.content[1].text, /^<system-reminder>\nThis memory is 2 days old\.[\s\S]*Memory: \/mem\/project_deploy\.md:\n\n---\nname: Deploys/);
    assert.equal(count(JSON.stringify(prompt), "<system-reminder>"), 1, "the memory is in the prompt once");
  }
  assert.deepEqual(second.slice(0, 2), first.slice(0, 2), "the step's prefix is byte-identical: the prompt cache holds");
  assert.deepEqual(second.slice(2).map((m) => m.role), ["assistant", "tool"]);
  assert.deepEqual(middleware.session.surfaced, ["project_deploy.md"]);
});

test("across turns the session carries alreadySurfaced: a memory surfaces once per conversation, and earlier turns keep their blocks", async () => {
  const { side, main, middleware, model } = await setup({ answers: [text("Ask Dana."), text("Use a real database.")] });
  const messages = [{ role: "user", content: "How do we deploy to staging?" }];
  const first = await generateText({ model, messages });
  messages.push(...first.responseMessages, { role: "user", content: "Before the staging deploy, how should the database tests run?" });
  await generateText({ model, messages });
  assert.equal(side.doGenerateCalls.length, 2, "one side query a user turn");
  // the second side query no longer offers what the first surfaced
  const manifest = promptText(side.doGenerateCalls[1].prompt);
  assert.doesNotMatch(manifest, /project_deploy\.md/);
  assert.match(manifest, /feedback_testing\.md/);
  const prompt = main.doGenerateCalls[1].prompt;
  const reminders = prompt.filter((m) => m.role === "user").map((m) => m.content.slice(1).map((p) => p.text.match(/Memory[^\n]*: (\/mem\/\S+):/)[1]));
  assert.deepEqual(reminders, [["/mem/project_deploy.md"], ["/mem/feedback_testing.md"]], "each turn's memory after its own user message");
  assert.deepEqual(prompt.slice(0, 2), main.doGenerateCalls[0].prompt.slice(0, 2), "the first turn reads as it did");
  assert.deepEqual(middleware.session.surfaced, ["project_deploy.md", "feedback_testing.md"]);
  assert.ok(middleware.session.surfacedUtf16 > 0);
});

test("the tools the previous turn used are the side query's recent tools; a failed call is not", async () => {
  const failing = tool({ description: "Fails", inputSchema: jsonSchema({ type: "object" }), execute: async () => { throw new Error("no"); } });
  const { side, model } = await setup({ answers: [calls(["lookup", {}], ["failing", {}]), text("ok"), text("ok")] });
  const messages = [{ role: "user", content: "Look up the staging deploy checklist" }];
  const first = await generateText({ model, tools: { lookup, failing }, stopWhen: stepCountIs(3), messages });
  messages.push(...first.responseMessages, { role: "user", content: "And the database tests?" });
  await generateText({ model, tools: { lookup, failing }, messages });
  assert.doesNotMatch(promptText(side.doGenerateCalls[0].prompt), /Recently used tools/);
  assert.match(promptText(side.doGenerateCalls[1].prompt), /\n\nRecently used tools: lookup$/);
});

test("the remember tool writes through memdir's rules: a new memory and its index line; a secret is refused as a tool error and nothing is written", async () => {
  const secret = "aws key AKIAIOSFODNN7EXAMPLE";
  const { memory, main, model } = await setup({
    answers: [
      calls(
        ["remember", { type: "project", name: "Release freeze", description: "No deploys in the last week of each quarter", body: "Freeze from the 24th.\n**Why:** audits.\n**How to apply:** ask before deploying." }],
        ["remember", { type: "reference", name: "AWS", description: "The deploy key", body: secret }],
      ),
      text("Saved."),
    ],
  });
  const result = await generateText({ model, tools: memoryTools(memory), stopWhen: stepCountIs(3), messages: [{ role: "user", content: "Remember the release freeze, and the key." }] });
  const [saved, refused] = main.doGenerateCalls[1].prompt.at(-1).content;
  assert.deepEqual(saved.output, { type: "json", value: { file: "project_release_freeze.md", action: "created", indexLine: "- [Release freeze](project_release_freeze.md) — No deploys in the last week of each quarter" } });
  assert.equal(refused.output.type, "error-text");
  assert.match(refused.output.value, /^MemdirError: the body holds what looks like an AWS access key ID on line 1/);
  assert.ok(!refused.output.value.includes("AKIAIOSFODNN7EXAMPLE"), "the secret is not echoed to the model");
  const error = result.steps[0].content.find((p) => p.type === "tool-error");
  assert.ok(error.error instanceof MemdirError && error.error.code === "SECRET_DETECTED", "the app sees the typed error");
  // on disk: the memory and its line, nothing of the refused one
  const files = (await memory.host.list()).map((e) => e.path).filter((p) => !p.startsWith(".memdir")).sort();
  assert.deepEqual(files, ["MEMORY.md", "feedback_testing.md", "project_deploy.md", "project_release_freeze.md"]);
  // the tool's write is in the history, the refused one is not
  assert.deepEqual((await memory.history()).map((h) => [h.route, h.changes.map((c) => c.path)]), [["remember", ["MEMORY.md", "project_release_freeze.md"]]]);
  const index = new TextDecoder().decode(await memory.host.readFile("MEMORY.md"));
  assert.equal(index, `${INDEX}- [Release freeze](project_release_freeze.md) — No deploys in the last week of each quarter\n`);
  assert.equal((await memory.doctor()).findings.filter((f) => f.code === "not_indexed" || f.code === "secret").length, 0);
});

test("the remember tool's other refusals reach the model too, and forget removes a memory and its line", async () => {
  const { memory, main, model } = await setup({
    answers: [
      calls(
        ["remember", { type: "feedback", name: "Testing", description: "Integration tests must hit a real database", body: "again" }],
        ["remember", { type: "opinion", name: "X", description: "y z w", body: "b" }],
        ["remember", { type: "user", name: "Role", description: "Go engineer", body: "b", extra: 1 }],
        ["forget", { file: "project_deploy.md" }],
        ["forget", { file: "nothing.md" }],
      ),
      text("ok"),
    ],
  });
  await generateText({ model, tools: memoryTools(memory), stopWhen: stepCountIs(3), messages: [{ role: "user", content: "Tidy the memories up." }] });
  const outputs = main.doGenerateCalls[1].prompt.at(-1).content.map((p) => p.output);
  assert.deepEqual(outputs.map((o) => o.type), ["error-text", "error-text", "error-text", "json", "error-text"]);
  assert.match(outputs[0].value, /already exists in feedback_testing\.md: update it/);
  assert.match(outputs[1].value, /unknown type "opinion"/);
  assert.match(outputs[2].value, /extra/);
  assert.deepEqual(outputs[3].value, { file: "project_deploy.md", action: "forgotten", indexLine: null });
  assert.match(outputs[4].value, /nothing\.md/);
  const index = new TextDecoder().decode(await memory.host.readFile("MEMORY.md"));
  assert.equal(index, "- [Testing](feedback_testing.md) — Integration tests hit a real database\n");
});

test("the next turn's system prompt shows the index as the remember tool left it", async () => {
  const { memory, main, model } = await setup({
    answers: [calls(["remember", { type: "user", name: "Role", description: "The user is a senior Go engineer on the platform team", body: "Senior Go engineer." }]), text("Noted."), text("Hi.")],
  });
  const messages = [{ role: "user", content: "I am a senior Go engineer, remember that." }];
  const first = await generateText({ model, tools: memoryTools(memory), stopWhen: stepCountIs(3), messages });
  assert.doesNotMatch(main.doGenerateCalls[1].prompt[0].content, /\(user_role\.md\)/, "the index is read once a turn");
  messages.push(...first.responseMessages, { role: "user", content: "Hello again" });
  await generateText({ model, tools: memoryTools(memory), messages });
  assert.match(main.doGenerateCalls[2].prompt[0].content, /- \[Role\]\(user_role\.md\) — The user is a senior Go engineer/);
});

test("instructions follow the option; the app's own system prompt stays first; streamText is served the same way", async () => {
  const viaTool = await setup({ instructions: "memory-tool" });
  await generateText({ model: viaTool.model, system: "You are terse.", messages: [{ role: "user", content: "How do we deploy to staging?" }] });
  const prompt = viaTool.main.doGenerateCalls[0].prompt;
  assert.deepEqual(prompt.map((m) => m.role), ["system", "system", "user"]);
  assert.equal(prompt[0].content, "You are terse.");
  assert.match(prompt[1].content, /`\/memories` directory is this folder/);

  const none = await setup({ instructions: false });
  await generateText({ model: none.model, messages: [{ role: "user", content: "How do we deploy to staging?" }] });
  assert.match(none.main.doGenerateCalls[0].prompt[0].content, /^Contents of \/mem\/MEMORY\.md/);

  const side = selectorModel();
  const memory = await openMemory({ host: host(), now: () => NOW, selector: modelSelector(side) });
  const main = new MockLanguageModelV4({
    doStream: async () => ({
      stream: simulateReadableStream({
        initialDelayInMs: null,
        chunkDelayInMs: null,
        chunks: [
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Ask Dana." },
          { type: "text-end", id: "t" },
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage() },
        ],
      }),
    }),
  });
  const stream = streamText({ model: wrapLanguageModel({ model: main, middleware: memoryMiddleware(memory) }), messages: [{ role: "user", content: "How do we deploy to staging?" }] });
  assert.equal(await stream.text, "Ask Dana.");
  const streamed = main.doStreamCalls[0].prompt;
  assert.equal(streamed[0].role, "system");
  assert.match(streamed[1].content[1].text, /project_deploy\.md/);
});

test("an empty memory, a failing side query or an unreadable index never break the model call", async () => {
  const empty = await openMemory({ host: new InMemoryHost({}, { root: "/empty" }), selector: modelSelector(selectorModel()) });
  const main = new MockLanguageModelV4({ doGenerate: [text("Hi.")] });
  await generateText({ model: wrapLanguageModel({ model: main, middleware: memoryMiddleware(empty) }), prompt: "How do we deploy to staging?" });
  const prompt = main.doGenerateCalls[0].prompt;
  assert.deepEqual(prompt.map((m) => m.role), ["system", "user"]);
  assert.equal(prompt[0].content, empty.instructions({ via: "remember-tool" }), "instructions only: there is no index yet");
  assert.equal(prompt[1].content.length, 1);

  const events = [];
  const broken = await openMemory({
    host: host(),
    now: () => NOW,
    selector: modelSelector(new MockLanguageModelV4({ doGenerate: async () => { throw new Error("provider down"); } }), { maxRetries: 0 }),
  });
  const main2 = new MockLanguageModelV4({ doGenerate: [text("Hi.")] });
  await generateText({ model: wrapLanguageModel({ model: main2, middleware: memoryMiddleware(broken, { onRecall: (r) => events.push(r) }) }), prompt: "How do we deploy to staging?" });
  assert.equal(events[0].outcome, "failed");
  assert.match(events[0].error, /provider down/);
  assert.equal(main2.doGenerateCalls[0].prompt[1].content.length, 1, "no memory, no error: the turn goes on");
});

test("modelSelector sends the core's side query through the AI SDK model: system, query and manifest, 256 tokens, the JSON schema", async () => {
  const side = selectorModel();
  const memory = await openMemory({ host: host(), now: () => NOW, selector: modelSelector(side) });
  const r = await memory.recall("How do we deploy to staging?", { recentTools: ["Bash"] });
  assert.equal(r.outcome, "selected");
  assert.equal(r.selector, "function");
  assert.equal(r.model, "mock-selector");
  assert.deepEqual(r.memories.map((m) => m.path), ["project_deploy.md"]);
  // the AI SDK's usage in memdir's terms: uncached input, cache reads
  assert.deepEqual(r.usage, { inputTokens: 100, outputTokens: 12, cacheCreationInputTokens: 0, cacheReadInputTokens: 300, cacheCreation1hInputTokens: 0 });
  const call = side.doGenerateCalls[0];
  assert.equal(call.maxOutputTokens, 256);
  assert.deepEqual(call.prompt.map((m) => m.role), ["system", "user"]);
  assert.match(call.prompt[0].content, /at most 5/);
  assert.match(call.prompt[1].content[0].text, /^Query: How do we deploy to staging\?\n\nAvailable memories:\n- \[feedback\] feedback_testing\.md \(.*Z\): Integration tests must hit a real database\n- \[project\] project_deploy\.md/);
  assert.match(call.prompt[1].content[0].text, /\n\nRecently used tools: Bash$/);
  assert.equal(call.responseFormat.type, "json");
  assert.deepEqual(call.responseFormat.schema.required, ["selected_memories"]);
  assert.equal(call.responseFormat.schema.additionalProperties, false);
});

test("modelSelector: a bad answer is data — not JSON, unknown names, cut off, refused, or a model error give an outcome, never a throw", async () => {
  const recallWith = async (doGenerate) => {
    const memory = await openMemory({ host: host(), now: () => NOW, selector: modelSelector(new MockLanguageModelV4({ doGenerate }), { maxRetries: 0 }) });
    return memory.recall("How do we deploy to staging?");
  };
  const prose = await recallWith(text("I think the deploy checklist would help."));
  assert.equal(prose.outcome, "failed");
  assert.match(prose.error, /^invalid_json/);

  const unknown = await recallWith(text(JSON.stringify({ selected_memories: ["../../etc/passwd", "nope.md", "project_deploy.md"] })));
  assert.equal(unknown.outcome, "selected");
  assert.deepEqual(unknown.memories.map((m) => m.path), ["project_deploy.md"]);
  assert.deepEqual(unknown.rejected.map((x) => x.value), ["../../etc/passwd", "nope.md"]);

  const fenced = await recallWith(text("```json\n" + JSON.stringify({ selected_memories: ["feedback_testing.md"] }) + "\n```"));
  assert.deepEqual(fenced.memories.map((m) => m.path), ["feedback_testing.md"]);

  const cut = await recallWith(text('{"selected_memories": ["project_dep', "length"));
  assert.equal(cut.outcome, "failed");
  assert.match(cut.error, /cut off/);

  const refused = await recallWith(text("", "content-filter"));
  assert.equal(refused.outcome, "failed");
  assert.match(refused.error, /refused/);

  const down = await recallWith(async () => {
    throw new Error("503 overloaded");
  });
  assert.equal(down.outcome, "failed");
  assert.match(down.error, /^selector_error: .*503 overloaded/);

  const none = await recallWith(text(JSON.stringify({ selected_memories: [] })));
  assert.equal(none.outcome, "none_selected");
});

test("modelSelector honours the recall's deadline: a model that never answers is aborted", async () => {
  let aborted = false;
  const memory = await openMemory({
    host: host(),
    now: () => NOW,
    selector: modelSelector(
      new MockLanguageModelV4({
        doGenerate: ({ abortSignal }) =>
          new Promise((_, reject) => abortSignal.addEventListener("abort", () => ((aborted = true), reject(abortSignal.reason)), { once: true })),
      }),
      { maxRetries: 0 },
    ),
  });
  const r = await memory.recall("How do we deploy to staging?", { timeoutMs: 50 });
  assert.equal(r.outcome, "failed");
  assert.match(r.error, /^timeout/);
  assert.ok(aborted, "the model call saw the abort");
});

test("extract: after a finished turn the middleware extracts in the background, in the memory's mode, without the recalled blocks; a tool-call step does not", async () => {
  const asked = [];
  const extractor = new MockLanguageModelV4({
    modelId: "mock-extractor",
    doGenerate: async ({ prompt }) => {
      const t = promptText(prompt);
      // the side query's two kinds: selection (a manifest and a query) and extraction
      if (!t.includes("<conversation>")) return { ...text(JSON.stringify({ selected_memories: selectMemories(t) })), usage: usage(400, 12) };
      asked.push(t);
      return { ...text(JSON.stringify({ operations: [{ action: "create", file: null, type: "user", name: "Lives in Lyon", description: "The user lives in Lyon, France", body: "The user lives in Lyon." }] })), usage: usage(900, 60) };
    },
  });
  const h = host();
  const memory = await openMemory({ host: h, now: () => NOW, selector: modelSelector(extractor), keep: { extract: "auto" } });
  const results = [];
  const settled = new Promise((resolve) => {
    const main = new MockLanguageModelV4({ modelId: "mock-main", doGenerate: [calls(["lookup", { q: "deploy" }]), text("Ask Dana. Noted that you live in Lyon.")] });
    const model = wrapLanguageModel({ model: main, middleware: memoryMiddleware(memory, { extract: true, onExtract: (r) => (results.push(r), resolve()) }) });
    generateText({ model, tools: { lookup }, stopWhen: stepCountIs(3), messages: [{ role: "user", content: "How do we deploy to staging? I live in Lyon, by the way." }] });
  });
  await settled;
  assert.equal(asked.length, 1, "one extraction for the turn: not at the tool-call step");
  assert.match(asked[0], /\[user\] How do we deploy to staging\? I live in Lyon/);
  assert.match(asked[0], /\[assistant\] Ask Dana\. Noted that you live in Lyon\./);
  assert.doesNotMatch(asked[0], /<system-reminder>|Run the smoke tests/, "the recalled memory is not read as the user's words");
  assert.equal(results[0].outcome, "saved");
  assert.match(new TextDecoder().decode(await h.readFile("MEMORY.md")), /\[Lives in Lyon\]\(user_lives_in_lyon\.md\)/);

  // streamed: the answer is read from the deltas once the stream ends
  const streamedAnswer = new Promise((resolve) => {
    const main = new MockLanguageModelV4({
      doStream: async () => ({
        stream: simulateReadableStream({
          initialDelayInMs: null,
          chunkDelayInMs: null,
          chunks: [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Lyon it is, " },
            { type: "text-delta", id: "t", delta: "noted again." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage() },
          ],
        }),
      }),
    });
    const s = streamText({ model: wrapLanguageModel({ model: main, middleware: memoryMiddleware(memory, { extract: true, onExtract: resolve }) }), messages: [{ role: "user", content: "I moved to Lyon last year." }] });
    s.text.catch(() => {});
  });
  await streamedAnswer;
  assert.match(asked[1], /\[assistant\] Lyon it is, noted again\./);

  // off by default: no extraction at all
  const quiet = await setup();
  await generateText({ model: quiet.model, messages: [{ role: "user", content: "How do we deploy to staging?" }] });
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(quiet.side.doGenerateCalls.every((c) => !promptText(c.prompt).includes("<conversation>")));
});
