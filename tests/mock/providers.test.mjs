// Proves what memdir's tests rely on in tests/mock/providers.mjs (docs/providers.md §6): the
// checks memdir's requests must pass, the answers memdir must handle (thinking first, cut by
// max_tokens, refused, bad JSON), caching counters, message threads (SDK 1.x), the scripted
// faults with their retry headers, echo, CORS and the control plane. A mock that let a wrong
// request through, or never produced the answer a test scripts, would let a memdir test pass wrongly.
import { after, before, beforeEach, test } from "node:test";
import assert from "node:assert/strict";
import { selectMemories, startMockProviders } from "./providers.mjs";

const KEY = "sk-ant-test";
const OKEY = "sk-openai-test";
const SYSTEM = "You select memory files that will clearly help answer the user's query. Return at most 5 filenames.";
const MANIFEST = [
  "- [project] deploy.md (2026-10-01T12:00:00.000Z): staging deploy checklist",
  "- [user] role.md (2026-09-12T08:30:00.000Z): user is a Go engineer",
  "- [feedback] testing.md (2026-08-30T17:05:11.000Z): integration tests must hit a real DB",
  "- notes/staging-db.md (2026-08-01T00:00:00.000Z)",
].join("\n");
const QUERY = "how do we deploy to staging?";
const USER = `Query: ${QUERY}\n\nAvailable memories:\n${MANIFEST}`;
const EXPECTED = ["deploy.md", "notes/staging-db.md"];
const ANSWER = JSON.stringify({ selected_memories: EXPECTED });
const SCHEMA = { type: "object", properties: { selected_memories: { type: "array", items: { type: "string" } } }, required: ["selected_memories"], additionalProperties: false };

let mock;
before(async () => (mock = await startMockProviders()));
beforeEach(() => mock.reset());
after(() => within(mock.close(), 2000, "close()"));

/** `promise`, or a rejection once `ms` pass: a broken mock fails the test instead of hanging it. */
function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
const until = (ok) => within((async () => { while (!ok()) await new Promise((r) => setTimeout(r, 5)); })(), 2000, "the mock seeing it");

const clean = (h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined));
const post = (path, body, headers = {}) =>
  fetch(`${mock.url}${path}`, { method: "POST", headers: clean({ "content-type": "application/json", ...headers }), body: typeof body === "string" ? body : JSON.stringify(body) });
const json = async (res) => JSON.parse(await res.text());

const AHEADERS = { "x-api-key": KEY, "anthropic-version": "2023-06-01" };
const abody = (extra = {}) => ({ model: "claude-sonnet-4-6", max_tokens: 256, system: SYSTEM, messages: [{ role: "user", content: USER }], ...extra });
const anthropic = (body, headers = {}) => post("/v1/messages", body, { ...AHEADERS, ...headers });
async function anthropicError(res, status, type, messageRe) {
  assert.equal(res.status, status);
  const b = await json(res);
  assert.equal(b.error.type, type);
  assert.equal(res.headers.get("request-id"), b.request_id);
  if (messageRe) assert.match(b.error.message, messageRe);
  return b;
}
const textOf = (msg) => msg.content.find((b) => b.type === "text")?.text;
const chat = (flavour, body, headers = {}) => post(flavour === "openai" ? "/v1/chat/completions" : `/${flavour}/v1/chat/completions`, body, headers);
const obody = (extra = {}) => ({ model: "gpt-4o-mini", messages: [{ role: "system", content: SYSTEM }, { role: "user", content: USER }], ...extra });
const OAUTH = { authorization: `Bearer ${OKEY}` };
const nbody = (extra = {}) => ({ model: "qwen3:8b", stream: false, messages: [{ role: "user", content: USER }], format: SCHEMA, options: { num_predict: 256 }, ...extra });

test("the default answer: names the manifest files sharing a 4+ letter word with the query, stop words aside, ≤ 5, in manifest order; the same on every route", async () => {
  assert.deepEqual(selectMemories(USER), EXPECTED);
  assert.deepEqual(selectMemories(`Query: what about this with them\n\n${MANIFEST}`), []);
  const many = Array.from({ length: 8 }, (_, i) => `- f${i}.md (2026-01-01T00:00:00.000Z): alpha topic`).join("\n");
  assert.deepEqual(selectMemories(`Query: alpha\n\n${many}`), ["f0.md", "f1.md", "f2.md", "f3.md", "f4.md"]);
  const a = await json(await anthropic(abody()));
  assert.deepEqual([a.content, a.stop_reason], [[{ type: "text", text: ANSWER }], "end_turn"]);
  assert.equal(a.usage.input_tokens, Math.ceil((SYSTEM.length + USER.length) / 4));
  assert.equal(a.usage.output_tokens, Math.ceil(ANSWER.length / 4));
  assert.equal((await json(await chat("openai", obody(), OAUTH))).choices[0].message.content, ANSWER);
  for (const flavour of ["ollama", "llamacpp", "lmstudio", "vllm"]) assert.equal((await json(await chat(flavour, obody()))).choices[0].message.content, ANSWER, flavour);
  const n = await json(await post("/api/chat", nbody()));
  assert.deepEqual([n.message.content, n.done_reason, n.prompt_eval_count > 0], [ANSWER, "stop", true]);
});

test("anthropic: auth (x-api-key or Bearer), anthropic-version, and the browser header when an Origin is sent", async () => {
  await anthropicError(await anthropic(abody(), { "x-api-key": undefined }), 401, "authentication_error");
  await anthropicError(await anthropic(abody(), { "x-api-key": "sk-ant-wrong" }), 401, "authentication_error", /invalid x-api-key/);
  assert.equal((await anthropic(abody(), { "x-api-key": undefined, authorization: `Bearer ${KEY}` })).status, 200);
  await anthropicError(await anthropic(abody(), { "anthropic-version": undefined }), 400, "invalid_request_error", /anthropic-version/);
  await anthropicError(await anthropic(abody(), { origin: "http://app.test" }), 401, "authentication_error", /anthropic-dangerous-direct-browser-access/);
  assert.equal((await anthropic(abody(), { origin: "http://app.test", "anthropic-dangerous-direct-browser-access": "true" })).status, 200);
});

test("anthropic: the body: required fields, unknown fields, a user turn last, known models", async () => {
  const bad = [["{not json", /parsing the body/], [abody({ max_tokens: undefined }), /^max_tokens/], [abody({ max_tokens: 0 }), /^max_tokens/], [abody({ messages: [] }), /^messages/],
    [abody({ messages: [{ role: "user", content: USER }, { role: "assistant", content: "{" }] }), /final message/], [abody({ max_completion_tokens: 256 }), /max_completion_tokens: Extra inputs are not permitted/], [abody({ stream: true }), /stream/]];
  for (const [body, re] of bad) await anthropicError(await anthropic(body), 400, "invalid_request_error", re);
  await anthropicError(await anthropic(abody({ model: "claude-sonnet-9-9" })), 404, "not_found_error");
  for (const model of ["claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-5-5", "claude-sonnet-5", "claude-sonnet-4-5-20250929", "claude-haiku-4-5"])
    assert.equal((await anthropic(abody({ model, max_tokens: 1024 }))).status, 200, model);
});

test("anthropic: the per-model rules of §6.2, and the structured-output schema subset", async () => {
  const budget = { thinking: { type: "enabled", budget_tokens: 1024 } };
  const bad = {
    "claude-sonnet-5-5": [[{ thinking: { type: "disabled" } }, /between_tools/], [budget, /enabled/], [{ temperature: 0 }, /temperature/], [{ tool_choice: { type: "any" } }, /tool_choice/],
      [{ messages: [{ role: "user", content: USER }, { role: "assistant", content: "{" }] }, /prefill/], [{ thinking: { type: "between_tools" }, output_config: { effort: "max" } }, /effort/]],
    "claude-haiku-5-5": [[budget, /enabled/], [{ thinking: { type: "disabled" }, output_config: { effort: "xhigh" } }, /effort/]],
    "claude-sonnet-5": [[{ top_p: 0.9 }, /top_p/]],
    "claude-haiku-4-5": [[{ output_config: { effort: "low" } }, /effort/]],
    "claude-sonnet-4-5-20250929": [[{ temperature: 0, top_p: 0.9 }, /temperature.*top_p/]],
  };
  for (const [model, cases] of Object.entries(bad))
    for (const [extra, re] of cases) await anthropicError(await anthropic(abody({ model, ...extra })), 400, "invalid_request_error", re);
  const withSchema = (schema) => abody({ output_config: { format: { type: "json_schema", schema } } });
  const items = (extra) => ({ ...SCHEMA, properties: { selected_memories: { type: "array", items: { type: "string" }, ...extra } } });
  const schemas = [[{ ...SCHEMA, additionalProperties: undefined }, /'additionalProperties' must be explicitly set to false/], [items({ maxItems: 5 }), /'maxItems' is not supported/],
    [items({ minItems: 2 }), /'minItems' values other than 0 or 1/], [items({ items: { type: "string", maxLength: 100 } }), /'maxLength' is not supported/]];
  for (const [schema, re] of schemas) await anthropicError(await anthropic(withSchema(schema)), 400, "invalid_request_error", re);
  assert.equal((await anthropic(abody({ model: "claude-sonnet-5-5", thinking: { type: "between_tools" }, output_config: { effort: "low", format: { type: "json_schema", schema: SCHEMA } } }))).status, 200);
});

test("anthropic: a tool_use must be answered by a tool_result in the next message", async () => {
  const use = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "memory", input: { command: "view", path: "/memories" } }] };
  const tools = [{ type: "memory_20250818", name: "memory" }];
  await anthropicError(await anthropic(abody({ tools, messages: [{ role: "user", content: "hi" }, use, { role: "user", content: "go on" }] })), 400, "invalid_request_error", /toolu_1/);
  const answered = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "Here're the files" }] };
  assert.equal((await anthropic(abody({ tools, messages: [{ role: "user", content: "hi" }, use, answered] }))).status, 200);
});

test("anthropic: API version 2026-10-21 (SDK 1.x): sampling parameters refused, system messages taken", async () => {
  const CURRENT = { "anthropic-version": "2026-10-21" };
  await anthropicError(await anthropic(abody({ temperature: 1 }), CURRENT), 400, "invalid_request_error", /^temperature: Extra inputs are not permitted$/);
  assert.equal((await anthropic(abody({ temperature: 1 }))).status, 200, "2023-06-01 still takes them");
  const messages = [{ role: "system", content: "Answer in JSON." }, { role: "user", content: USER }];
  assert.equal((await anthropic(abody({ messages }), CURRENT)).status, 200);
  await anthropicError(await anthropic(abody({ messages })), 400, "invalid_request_error", /role/);
});

const THREADS = { "anthropic-version": "2026-10-21", "anthropic-beta": "message-threads-2026-08-12" };
const threaded = (body) => anthropic(body, THREADS);
const cont = (id, extra = {}) => ({ model: "claude-sonnet-4-6", max_tokens: 256, messages: [{ role: "user", content: "Thanks." }], thread: { type: "continue", previous_message_id: id }, ...extra });

test("anthropic message threads (SDK 1.x's tool runner): a continue sends only the new messages and is answered from the held conversation, once; refusals name their error_code", async () => {
  const first = await json(await threaded(abody({ thread: { type: "create" } })));
  const reply = await json(await threaded(cont(first.id)));
  assert.deepEqual(JSON.parse(textOf(reply)).selected_memories, EXPECTED, "the query and manifest are only in the held first message");
  assert.equal((await anthropicError(await threaded(cont(first.id)), 400, "invalid_request_error")).error.details.error_code, "thread_already_continued");
  assert.equal((await anthropicError(await threaded(cont("msg_01unknown")), 404, "not_found_error")).error.details.error_code, "thread_not_found");
  await anthropicError(await threaded(cont(reply.id, { tools: [] })), 400, "invalid_request_error", /^tools: a thread continue cannot set/);
  assert.equal((await anthropicError(await threaded(cont(reply.id, { model: "claude-sonnet-5-5" })), 400, "invalid_request_error")).error.details.error_code, "thread_fingerprint_mismatch");
  assert.equal((await threaded(cont(reply.id))).status, 200, "a refused continue does not use up the response");
  await anthropicError(await anthropic(abody({ thread: { type: "create" } }), { "anthropic-version": "2026-10-21" }), 400, "invalid_request_error", /message-threads-2026-08-12/);
  const b = await anthropicError(await threaded(abody({ thread: { type: "create" }, thinking: { type: "adaptive" } })), 400, "invalid_request_error");
  assert.deepEqual(b.error.details, { error_code: "thread_unsupported_request", unsupported: ["thinking"] });
  assert.equal(mock.requests().at(-1).responseId, null);
  assert.equal(mock.requests()[0].responseId, first.id, "the log names the response a thread continues from");
});

test("anthropic: Sonnet 5.5 without a thinking control thinks first and runs out of 256 tokens mid-JSON; between_tools answers whole", async () => {
  const b = await json(await anthropic(abody({ model: "claude-sonnet-5-5" })));
  assert.deepEqual([b.content[0].type, b.stop_reason], ["thinking", "max_tokens"]);
  const text = textOf(b);
  assert.ok(ANSWER.startsWith(text) && text.length > 0 && text.length < ANSWER.length, text);
  assert.equal(b.usage.output_tokens, 256);
  const off = await json(await anthropic(abody({ model: "claude-sonnet-5-5", thinking: { type: "between_tools" } })));
  assert.deepEqual([off.content, off.stop_reason], [[{ type: "text", text: ANSWER }], "end_turn"]);
  const roomy = await json(await anthropic(abody({ model: "claude-haiku-5-5", max_tokens: 1024 })));
  assert.deepEqual([roomy.content.map((c) => c.type), textOf(roomy)], [["thinking", "text"], ANSWER]);
  const tiny = await json(await anthropic(abody({ max_tokens: 3 })));
  assert.deepEqual([tiny.stop_reason, textOf(tiny)], ["max_tokens", ANSWER.slice(0, 12)]);
});

test("anthropic caching: a breakpoint over ≥ the model's minimum is written once, then read; below it nothing; reset() clears", async () => {
  const manifest = "Available memories:\n" + Array.from({ length: 40 }, (_, i) => `- [project] topic-${i}.md (2026-10-01T12:00:00.000Z): notes about subject number ${i}`).join("\n");
  const cached = (model, query = QUERY) =>
    abody({ model, thinking: model === "claude-sonnet-5-5" ? { type: "between_tools" } : undefined, system: [{ type: "text", text: SYSTEM }, { type: "text", text: manifest, cache_control: { type: "ephemeral" } }], messages: [{ role: "user", content: `Query: ${query}` }] });
  const prefix = Math.ceil((SYSTEM.length + manifest.length) / 4);
  assert.ok(prefix >= 512 && prefix < 1024, String(prefix));
  const first = (await json(await anthropic(cached("claude-sonnet-5-5")))).usage;
  assert.deepEqual([first.cache_creation_input_tokens, first.cache_read_input_tokens], [prefix, 0]);
  assert.equal(first.input_tokens, Math.ceil((SYSTEM.length + manifest.length + `Query: ${QUERY}`.length) / 4) - prefix);
  const second = (await json(await anthropic(cached("claude-sonnet-5-5", "other question")))).usage;
  assert.deepEqual([second.cache_creation_input_tokens, second.cache_read_input_tokens], [0, prefix]);
  for (let i = 0; i < 2; i++) assert.equal((await json(await anthropic(cached("claude-sonnet-4-6")))).usage.cache_creation_input_tokens, 0, "under 1024: not cached");
  mock.reset();
  assert.equal((await json(await anthropic(cached("claude-sonnet-5-5")))).usage.cache_read_input_tokens, 0);
});

test("openai: Bearer auth, strict schema rules, max_completion_tokens cuts with length; local servers need no key", async () => {
  assert.equal((await json(await chat("openai", obody()))).error.code, "invalid_api_key");
  const rf = (schema) => ({ type: "json_schema", json_schema: { name: "memory_selection", strict: true, schema } });
  for (const [schema, re] of [[{ ...SCHEMA, additionalProperties: undefined }, /'additionalProperties' is required/], [{ ...SCHEMA, required: [] }, /Missing 'selected_memories'/]]) {
    const res = await chat("openai", obody({ response_format: rf(schema) }), OAUTH);
    assert.equal(res.status, 400);
    assert.match((await json(res)).error.message, re);
  }
  assert.equal((await chat("openai", obody({ think: false }), OAUTH)).status, 400, "an unknown field");
  assert.equal((await chat("openai", obody({ response_format: rf(SCHEMA), max_tokens: 256, temperature: 0 }), OAUTH)).status, 200);
  const cut = await json(await chat("openai", obody({ max_completion_tokens: 2 }), OAUTH));
  assert.deepEqual([cut.choices[0].finish_reason, cut.choices[0].message.content], ["length", ANSWER.slice(0, 8)]);
  const ollama = await json(await chat("ollama", obody({ max_completion_tokens: 1, max_tokens: 2 })));
  assert.deepEqual([ollama.choices[0].finish_reason, ollama.choices[0].message.content], ["length", ANSWER.slice(0, 8)], "ollama reads max_tokens only");
  assert.equal((await chat("lmstudio", obody({ response_format: { type: "json_object" } }))).status, 400);
  assert.equal((await chat("ollama", obody({ model: "missing-model" }))).status, 404);
});

test("ollama /api/chat: num_predict cuts with done_reason length; NDJSON unless stream is false; 404 for a model not pulled", async () => {
  const b = await json(await post("/api/chat", nbody({ options: { num_predict: 3 } })));
  assert.deepEqual([b.done_reason, b.message.content, b.eval_count], ["length", ANSWER.slice(0, 12), 3]);
  const res = await post("/api/chat", nbody({ stream: undefined }));
  assert.equal(res.headers.get("content-type"), "application/x-ndjson");
  const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => l.message.content).join(""), ANSWER);
  assert.equal(lines.at(-1).done, true);
  assert.equal((await post("/api/chat", nbody({ format: 42 }))).status, 400);
  const missing = await post("/api/chat", nbody({ model: "missing-llama" }));
  assert.deepEqual([missing.status, (await json(missing)).error], [404, 'model "missing-llama" not found, try pulling it first']);
});

test("scripted error kinds on each route: status, and the retry headers memdir's retries read", async () => {
  const anth = [["rate_limit", 429, "rate_limit_error", { "retry-after": "1", "retry-after-ms": "50" }], ["rate_limit_spend_cap", 429, "rate_limit_error", { "retry-after": null, "retry-after-ms": null }],
    ["overloaded", 529, "overloaded_error", {}], ["server_error", 500, "api_error", { "x-should-retry": null }], ["server_error_no_retry", 500, "api_error", { "x-should-retry": "false" }], ["unavailable", 503, "api_error", {}]];
  for (const [kind, status, type, headers] of anth) {
    mock.script({ kind });
    const res = await anthropic(abody());
    const b = await anthropicError(res, status, type);
    for (const [h, v] of Object.entries(headers)) assert.equal(res.headers.get(h), v, `${kind} ${h}`);
    if (kind === "rate_limit_spend_cap") assert.equal(b.error.details.error_code, "enforced_spend_limit_reached");
  }
  for (const [route, kind, status, header] of [["openai", "rate_limit", 429, "retry-after-ms"], ["openai", "server_error_no_retry", 500, "x-should-retry"], ["llamacpp", "unavailable", 503, null], ["ollama-native", "rate_limit", 429, "retry-after"]]) {
    mock.script({ kind });
    const res = route === "ollama-native" ? await post("/api/chat", nbody()) : await chat(route, obody(), OAUTH);
    assert.equal(res.status, status, `${route} ${kind}`);
    if (header) assert.ok(res.headers.get(header), `${route} ${kind} ${header}`);
  }
});

test("scripted answer kinds: thinking first, refusal, max_tokens, invalid, fenced and prose JSON, tool_use, on anthropic and openai", async () => {
  const role = JSON.stringify({ selected_memories: ["role.md"] });
  const kinds = ["thinking_then_text", "refusal", "max_tokens", "invalid_json", "fenced_json", "prose_json"].map((kind) => ({ kind, selected: ["role.md"] }));
  mock.script(...kinds, { kind: "tool_use", text: "Let me look.", calls: [{ name: "memory", input: { command: "view", path: "/memories" } }] });
  const get = async () => json(await anthropic(abody()));
  const th = await get();
  assert.deepEqual([th.content.map((c) => c.type), th.content[1].text, th.stop_reason], [["thinking", "text"], role, "end_turn"]);
  const r = await get();
  assert.deepEqual([r.content, r.stop_reason, r.stop_details.type], [[], "refusal", "refusal"]);
  const m = await get();
  assert.ok(m.stop_reason === "max_tokens" && role.startsWith(textOf(m)) && textOf(m).length < role.length);
  const broken = textOf(await get());
  assert.throws(() => JSON.parse(broken));
  assert.equal(textOf(await get()), "```json\n" + role + "\n```");
  const prose = textOf(await get());
  assert.ok(prose.includes(role) && !prose.startsWith("{"));
  const tool = await get();
  assert.equal(tool.stop_reason, "tool_use");
  assert.deepEqual(tool.content.map((c) => [c.type, c.name, c.input]), [["text", undefined, undefined], ["tool_use", "memory", { command: "view", path: "/memories" }]]);
  assert.match(tool.content[1].id, /^toolu_/);
  mock.script({ kind: "refusal" }, { kind: "max_tokens" }, { kind: "thinking_then_text" });
  const or = (await json(await chat("openai", obody(), OAUTH))).choices[0];
  assert.deepEqual([or.message.content, typeof or.message.refusal], [null, "string"]);
  assert.equal((await json(await chat("openai", obody({ max_completion_tokens: 256 }), OAUTH))).choices[0].finish_reason, "length");
  assert.match((await json(await chat("vllm", obody()))).choices[0].message.content, /^<think>[\s\S]*<\/think>\s*\{"selected_memories"/, "local servers put thinking inline");
});

test("scripts: raw outcomes skip validation; kind outcomes are validated and still consumed; overrides merge; FIFO; malformed scripts throw", async () => {
  mock.script({ status: 200, body: "<html>502 Bad Gateway</html>" }, { kind: "text", text: "one" }, { kind: "overloaded", body: { custom: true }, headers: { "x-extra": "1" } }, { kind: "text", text: "two" });
  assert.equal(await (await post("/v1/messages", {})).text(), "<html>502 Bad Gateway</html>", "no key, no version: the raw answer anyway");
  await anthropicError(await post("/v1/messages", abody()), 401, "authentication_error"); // "one" consumed by a refused request
  const over = await anthropic(abody());
  assert.deepEqual([over.status, over.headers.get("x-extra"), await json(over)], [529, "1", { custom: true }]);
  assert.equal((await json(await chat("openai", obody(), OAUTH))).choices[0].message.content, "two");
  assert.equal(textOf(await json(await anthropic(abody()))), ANSWER, "then back to the default");
  assert.throws(() => mock.script({ kind: "nope" }), /unknown kind/);
  assert.throws(() => mock.script({ delay_ms: 5 }), /unknown field/);
  assert.throws(() => mock.script({ echo: "yes" }), /echo must be a boolean/);
});

test("delayMs holds the answer back (a client that gives up first is logged as aborted, unanswered), then answers; drop resets the connection", async () => {
  mock.script({ delayMs: 20, kind: "text", text: "late" });
  assert.equal(textOf(await json(await anthropic(abody()))), "late");
  mock.script({ delayMs: 10_000 });
  await assert.rejects(fetch(`${mock.url}/v1/messages`, { method: "POST", headers: AHEADERS, body: JSON.stringify(abody()), signal: AbortSignal.timeout(50) }), { name: "TimeoutError" });
  await until(() => mock.requests()[1].aborted);
  assert.equal(mock.requests()[1].status, null);
  mock.script({ drop: true });
  await assert.rejects(fetch(`${mock.url}/v1/messages`, { method: "POST", headers: AHEADERS, body: JSON.stringify(abody()), signal: AbortSignal.timeout(1000) }), (e) => e instanceof TypeError && e.name !== "TimeoutError");
  assert.equal((await anthropic(abody())).status, 200);
});

test("endless streams a 200 without end until the client goes away", async () => {
  mock.script({ endless: true });
  const res = await anthropic(abody());
  assert.equal(res.status, 200);
  const reader = res.body.getReader();
  let read = 0;
  while (read < 4 << 20) read += (await reader.read()).value.byteLength;
  await reader.cancel();
  await until(() => mock.requests()[0].aborted);
  assert.ok(mock.requests()[0].bytesSent >= read);
  assert.equal((await anthropic(abody())).status, 200, "the next request is answered as usual");
});

test("hang never answers, and close() ends hanging sockets at once", async () => {
  const m2 = await startMockProviders();
  m2.script({ hang: true }, { hang: true });
  const rescue = new AbortController(); // only used if close() fails, so the suite still ends
  const pending = [1, 2].map(() => fetch(`${m2.url}/api/chat`, { method: "POST", body: "{}", signal: rescue.signal }).catch((e) => e));
  await until(() => m2.requests().length === 2);
  await within(m2.close(), 500, "close() with hanging requests").catch((e) => (rescue.abort(), Promise.reject(e)));
  for (const p of pending) assert.ok((await p) instanceof TypeError);
});

test("echo fills a scripted body from the request; a path with no route is quoted with its query", async () => {
  mock.script(
    { status: 401, echo: true, body: { error: { message: "bad key {{header:x-api-key}} at {{url}}", sent: "{{headers}}", encoded: "{{header-uri:X-Api-Key}}" } } },
    { status: 500, echo: true, headers: { "content-type": "text/plain" }, body: "upstream: {{header:anthropic-version}}" },
    { status: 500, body: "{{url}}" },
  );
  const b = await json(await anthropic(abody(), { "x-api-key": "k/ey 1" }));
  assert.equal(b.error.message, "bad key k/ey 1 at /v1/messages");
  assert.equal(JSON.parse(b.error.sent)["x-api-key"], "k/ey 1");
  assert.equal(b.error.encoded, "k%2Fey%201");
  assert.equal(await (await anthropic(abody())).text(), "upstream: 2023-06-01");
  assert.equal(await (await anthropic(abody())).text(), "{{url}}", "without echo the braces stay");
  const lost = await post("/v1?key=q-secret/chat/completions", {});
  assert.deepEqual([lost.status, (await json(lost)).error], [404, "mock: no route for POST /v1?key=q-secret/chat/completions"]);
});

test("CORS: answers preflights with the Anthropic and SDK headers, and exposes the retry headers", async () => {
  const pre = await fetch(`${mock.url}/v1/messages`, { method: "OPTIONS", headers: { origin: "http://app.test", "access-control-request-method": "POST", "access-control-request-headers": "x-api-key, X-Stainless-OS" } });
  assert.deepEqual([pre.status, pre.headers.get("access-control-allow-origin"), pre.headers.get("access-control-allow-methods")], [204, "http://app.test", "POST, OPTIONS"]);
  const allowed = pre.headers.get("access-control-allow-headers");
  for (const h of ["x-api-key", "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access", "content-type", "authorization", "x-stainless-os"]) assert.ok(allowed.includes(h), h);
  const res = await anthropic(abody());
  for (const h of ["request-id", "retry-after", "retry-after-ms", "x-should-retry"]) assert.ok(res.headers.get("access-control-expose-headers").includes(h), h);
  assert.equal(mock.requests().length, 1, "the preflight is not logged");
});

test("the HTTP control plane scripts, lists and resets; the log holds method, path, lower-cased headers, body, status", async () => {
  const s = await fetch(`${mock.url}/__mock/script`, { method: "POST", body: JSON.stringify([{ kind: "overloaded" }, { kind: "text", text: "x" }]) });
  assert.deepEqual(await s.json(), { queued: 2 });
  assert.equal((await anthropic(abody())).status, 529);
  assert.equal(textOf(await json(await anthropic(abody(), { "X-Mixed-Case": "v" }))), "x");
  await post("/api/chat?x=1", "not json");
  const [, a, b] = await (await fetch(`${mock.url}/__mock/requests`)).json();
  assert.deepEqual([a.method, a.path, a.headers["x-mixed-case"], a.body, a.status], ["POST", "/v1/messages", "v", abody(), 200]);
  assert.deepEqual([b.path, b.body], ["/api/chat", "not json"]);
  assert.equal((await fetch(`${mock.url}/__mock/script`, { method: "POST", body: JSON.stringify([{ kind: "bogus" }]) })).status, 400);
  mock.script({ kind: "overloaded" });
  assert.equal((await fetch(`${mock.url}/__mock/reset`, { method: "POST" })).status, 200);
  assert.deepEqual(await (await fetch(`${mock.url}/__mock/requests`)).json(), []);
  assert.equal((await anthropic(abody())).status, 200, "the queue was cleared too");
});
