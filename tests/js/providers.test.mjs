// Recall through each provider, against the mock servers of tests/mock (real HTTP on
// 127.0.0.1): request shape per model, thinking blocks, refusals, cut-offs, bad JSON, unknown
// and traversal names, retries (429 retry-after, 529, 500, x-should-retry), timeouts, aborts,
// the schema fallback and prompt caching.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { copyExampleMemory } from "../../examples/ages.mjs";
import { openMemory } from "memdir";
import { startMockProviders } from "../mock/providers.mjs";

let mock, examples;
before(async () => {
  mock = await startMockProviders();
  examples = copyExampleMemory(); // ages from examples/ages.json, so the manifest order is the demo's
});
after(async () => {
  await mock.close();
  rmSync(join(examples, ".."), { recursive: true, force: true });
});
beforeEach(() => mock.reset());

const QUERY = "can we deploy the new dispatch screen to production on December 18?";
const anthropic = (extra = {}) => ({ provider: "anthropic", apiKey: "sk-ant-test", baseUrl: mock.url, ...extra });
const open = (selector, options = {}) => openMemory({ dir: examples, selector, ...options });
const bodies = () => mock.requests().filter((r) => r.path !== "/__mock/requests").map((r) => r.body);

test("anthropic, default model: the request each model accepts, and a selection", async () => {
  const memory = await open(anthropic());
  const r = await memory.recall(QUERY);
  assert.equal(r.outcome, "selected", r.error);
  assert.equal(r.selector, "anthropic");
  assert.equal(r.model, "claude-sonnet-5-5");
  assert.ok(r.memories.some((m) => m.path === "project_holiday_code_freeze.md"));
  const [req] = mock.requests();
  assert.equal(req.path, "/v1/messages");
  assert.equal(req.headers["x-api-key"], "sk-ant-test");
  assert.equal(req.headers["anthropic-version"], "2023-06-01");
  assert.equal(req.headers["anthropic-dangerous-direct-browser-access"], undefined);
  const b = req.body;
  assert.equal(b.max_tokens, 256);
  assert.deepEqual(b.thinking, { type: "between_tools" });
  assert.equal(b.output_config.effort, "low");
  assert.deepEqual(b.output_config.format.schema, { type: "object", properties: { selected_memories: { type: "array", items: { type: "string" } } }, required: ["selected_memories"], additionalProperties: false });
  for (const k of ["temperature", "top_p", "top_k"]) assert.equal(k in b, false, k);
  assert.equal(b.system[1].cache_control.type, "ephemeral");
  assert.match(b.system[1].text, /^Available memories:\n- /);
  assert.match(b.messages[0].content, /^Query: can we deploy/);
  assert.ok(r.usage.inputTokens + r.usage.cacheCreationInputTokens > 0 && r.usage.outputTokens > 0);
  assert.ok(r.costUsd > 0);
});

test("each model gets the thinking and effort settings it accepts (the mock rejects the rest)", async () => {
  const expected = {
    "claude-haiku-5-5": [{ type: "disabled" }, "low"],
    "claude-sonnet-5": [{ type: "disabled" }, "low"],
    "claude-sonnet-4-6": [undefined, "low"],
    "claude-sonnet-4-5-20250929": [undefined, undefined],
    "claude-haiku-4-5": [undefined, undefined],
  };
  for (const [model, [thinking, effort]] of Object.entries(expected)) {
    mock.reset();
    const r = await (await open(anthropic({ model }))).recall(QUERY);
    assert.equal(r.outcome, "selected", `${model}: ${r.error}`);
    const b = mock.requests()[0].body;
    assert.deepEqual(b.thinking, thinking, model);
    assert.equal(b.output_config?.effort, effort, model);
  }
});

test("a thinking block first is skipped; fenced JSON and JSON in prose are read", async () => {
  for (const kind of ["thinking_then_text", "fenced_json", "prose_json"]) {
    mock.script({ kind, selected: ["project_holiday_code_freeze.md"] });
    const r = await (await open(anthropic())).recall(QUERY);
    assert.equal(r.outcome, "selected", `${kind}: ${r.error}`);
    assert.deepEqual(r.memories.map((m) => m.path), ["project_holiday_code_freeze.md"]);
  }
});

test("refusal, max_tokens cut-off and invalid JSON fail without throwing", async () => {
  for (const [kind, error] of [["refusal", /refusal/], ["max_tokens", /truncated/], ["invalid_json", /invalid_json/]]) {
    mock.script({ kind });
    const r = await (await open(anthropic())).recall(QUERY);
    assert.equal(r.outcome, "failed", kind);
    assert.match(r.error, error);
    assert.deepEqual(r.reminders, []);
  }
});

test("unknown and traversal names are refused and reported", async () => {
  mock.script({ kind: "text", text: JSON.stringify({ selected_memories: ["../../etc/passwd", "/etc/shadow", "made_up.md", "project_holiday_code_freeze.md"] }) });
  const r = await (await open(anthropic())).recall(QUERY);
  assert.equal(r.outcome, "selected");
  assert.deepEqual(r.memories.map((m) => m.path), ["project_holiday_code_freeze.md"]);
  assert.deepEqual(r.rejected.map((x) => x.reason), ["unsafe_path", "unsafe_path", "unknown"]);
});

test("retries: 429 with retry-after-ms, 529, a 500 then success; never x-should-retry:false or a spend cap", async () => {
  mock.script({ kind: "rate_limit" }, { kind: "overloaded" });
  let t = performance.now();
  let r = await (await open(anthropic())).recall(QUERY);
  assert.equal(r.outcome, "selected", r.error);
  assert.equal(mock.requests().length, 3);
  const [a, b] = mock.requests();
  assert.ok(b.receivedAt - a.receivedAt >= 45, `waited retry-after-ms: ${b.receivedAt - a.receivedAt} ms`);
  mock.reset();
  mock.script({ kind: "server_error" });
  r = await (await open(anthropic())).recall(QUERY);
  assert.equal(r.outcome, "selected");
  assert.equal(mock.requests().length, 2);
  for (const kind of ["server_error_no_retry", "rate_limit_spend_cap"]) {
    mock.reset();
    mock.script({ kind });
    r = await (await open(anthropic())).recall(QUERY);
    assert.equal(r.outcome, "failed", kind);
    assert.equal(mock.requests().length, 1, kind);
  }
  mock.reset();
  mock.script({ kind: "server_error" }, { kind: "server_error" }, { kind: "server_error" }, { kind: "server_error" });
  r = await (await open(anthropic())).recall(QUERY);
  assert.equal(r.outcome, "failed");
  assert.equal(mock.requests().length, 3, "the first attempt and 2 retries");
  assert.match(r.error, /HTTP 500 api_error/);
  assert.ok(performance.now() - t < 8000);
});

test("a hang past the timeout fails in time; an abort mid-request fails at once", async () => {
  mock.script({ hang: true });
  let t = performance.now();
  let r = await (await open(anthropic({ timeoutMs: 300 }))).recall(QUERY);
  assert.equal(r.outcome, "failed");
  assert.match(r.error, /timeout/);
  assert.ok(performance.now() - t < 2000);
  mock.script({ hang: true });
  const controller = new AbortController();
  t = performance.now();
  const pending = (await open(anthropic())).recall(QUERY, { signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  r = await pending;
  assert.equal(r.outcome, "failed");
  assert.match(r.error, /aborted/);
  assert.ok(performance.now() - t < 2000);
});

test("a body without end is cut at 1 MiB: the request is aborted and recall fails with the reason", async () => {
  for (const [selector, path] of [[anthropic(), "/v1/messages"], [{ provider: "openai", apiKey: "sk-openai-test", baseUrl: `${mock.url}/v1` }, "/v1/chat/completions"]]) {
    mock.reset();
    mock.script({ endless: true });
    // the deadline is far off: what ends this recall is the cap, not the clock
    const r = await (await open({ ...selector, timeoutMs: 60_000 })).recall(QUERY);
    assert.equal(r.outcome, "failed");
    assert.match(r.error, /^response_too_large: the response body ran past 1,048,576 bytes \(1 MiB\); the request was aborted$/);
    assert.deepEqual(r.memories, []);
    const [entry, ...more] = mock.requests();
    assert.equal(more.length, 0, "a body that is too large is not retried");
    assert.equal(entry.path, path);
    for (let i = 0; i < 200 && !mock.requests()[0].aborted; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(mock.requests()[0].aborted, true, "the client went away");
  }
});

test("with fallback, a failed model call is answered by the lexical selector, and says so", async () => {
  mock.script({ kind: "server_error_no_retry" });
  const r = await (await open(anthropic({ fallback: true }))).recall(QUERY);
  assert.equal(r.outcome, "selected");
  assert.equal(r.selector, "lexical");
  assert.match(r.error, /anthropic failed/);
});

test("a model that rejects the schema parameter is asked again with prompt-only JSON", async () => {
  mock.script({ status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "output_config.format: structured outputs are not supported for this model" }, request_id: "req_x" } });
  const r = await (await open(anthropic())).recall(QUERY);
  assert.equal(r.outcome, "selected", r.error);
  const [first, second] = bodies();
  assert.ok(first.output_config.format);
  assert.equal(second.output_config?.format, undefined);
  assert.equal(second.output_config?.effort, "low");
});

test("prompt caching: the manifest block is written once and read after, and reads cost less", async () => {
  const memory = await open(anthropic());
  const first = await memory.recall(QUERY);
  const second = await memory.recall("is the Rust pricing service ready to take all production traffic yet");
  assert.ok(first.usage.cacheCreationInputTokens > 500, JSON.stringify(first.usage));
  assert.equal(first.usage.cacheReadInputTokens, 0);
  assert.equal(second.usage.cacheReadInputTokens, first.usage.cacheCreationInputTokens);
  assert.equal(second.usage.cacheCreationInputTokens, 0);
  assert.ok(second.costUsd < first.costUsd / 2, `${second.costUsd} vs ${first.costUsd}`);
  mock.reset();
  const plain = await (await open(anthropic({ cache: false }))).recall(QUERY);
  assert.equal(typeof mock.requests()[0].body.system, "string");
  assert.equal(plain.usage.cacheReadInputTokens + plain.usage.cacheCreationInputTokens, 0);
});

test("openai-compatible servers: strict schema, max_tokens for local servers, refusals, cut-offs", async () => {
  const openai = (extra = {}) => ({ provider: "openai", apiKey: "sk-openai-test", baseUrl: `${mock.url}/v1`, model: "gpt-4o-mini", ...extra });
  let r = await (await open(openai())).recall(QUERY);
  assert.equal(r.outcome, "selected", r.error);
  const b = mock.requests()[0].body;
  assert.equal(b.response_format.type, "json_schema");
  assert.equal(b.response_format.json_schema.strict, true);
  assert.equal(b.max_tokens, 256);
  assert.equal(b.temperature, 0);
  assert.equal(mock.requests()[0].headers.authorization, "Bearer sk-openai-test");
  for (const [kind, error] of [["refusal", /refusal/], ["max_tokens", /truncated/]]) {
    mock.script({ kind });
    r = await (await open(openai())).recall(QUERY);
    assert.equal(r.outcome, "failed", kind);
    assert.match(r.error, error);
  }
  for (const flavour of ["ollama", "llamacpp", "lmstudio", "vllm"]) {
    mock.reset();
    r = await (await open(openai({ baseUrl: `${mock.url}/${flavour}/v1`, apiKey: undefined }))).recall(QUERY);
    assert.equal(r.outcome, "selected", `${flavour}: ${r.error}`);
  }
  mock.reset();
  mock.script({ kind: "unavailable" });
  r = await (await open(openai({ baseUrl: `${mock.url}/llamacpp/v1` }))).recall(QUERY);
  assert.equal(r.outcome, "selected", "503 Loading model is retried");
  assert.equal(mock.requests().length, 2);
});

test("ollama native: stream false, a schema format, num_predict; length cut-offs fail", async () => {
  const ollama = { provider: "ollama", baseUrl: mock.url, model: "qwen3:8b" };
  let r = await (await open(ollama)).recall(QUERY);
  assert.equal(r.outcome, "selected", r.error);
  const b = mock.requests()[0].body;
  assert.equal(b.stream, false);
  assert.equal(b.think, false);
  assert.equal(b.options.num_predict, 256);
  assert.equal(b.format.type, "object");
  assert.ok(r.usage.inputTokens > 0);
  mock.script({ kind: "max_tokens" });
  r = await (await open(ollama)).recall(QUERY);
  assert.equal(r.outcome, "failed");
  assert.match(r.error, /truncated/);
  r = await (await open({ ...ollama, model: "missing-model" })).recall(QUERY);
  assert.equal(r.outcome, "failed");
  assert.match(r.error, /HTTP 404/);
});
