// Proves tests/mock/providers.mjs behaves as docs/providers.md §6 says: validation, thinking and
// max_tokens simulation, caching counters, flavour quirks, scripted outcomes, CORS, control plane.
import { after, before, beforeEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { estimateTokens, extractQuery, parseManifest, selectMemories, startMockProviders } from "./providers.mjs";

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
const SCHEMA = {
  type: "object",
  properties: { selected_memories: { type: "array", items: { type: "string" } } },
  required: ["selected_memories"],
  additionalProperties: false,
};

let mock;
before(async () => {
  mock = await startMockProviders();
});
beforeEach(() => mock.reset());
after(() => within(mock.close(), 2000, "close()"));

/** `promise`, or a rejection once `ms` pass: a broken mock fails the test instead of hanging it. */
function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
const activeTimeouts = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

const clean = (h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined && v !== null));
const post = (path, body, headers = {}) =>
  fetch(`${mock.url}${path}`, {
    method: "POST",
    headers: clean({ "content-type": "application/json", ...headers }),
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const AHEADERS = { "x-api-key": KEY, "anthropic-version": "2023-06-01" };
const abody = (extra = {}) => ({
  model: "claude-sonnet-4-6",
  max_tokens: 256,
  system: SYSTEM,
  messages: [{ role: "user", content: USER }],
  ...extra,
});
const anthropic = (body, headers = {}) => post("/v1/messages", body, { ...AHEADERS, ...headers });
async function json(res) {
  const text = await res.text();
  return JSON.parse(text);
}
async function anthropicError(res, status, type, messageRe) {
  assert.equal(res.status, status);
  const b = await json(res);
  assert.equal(b.type, "error");
  assert.equal(b.error.type, type);
  assert.match(b.request_id, /^req_/);
  assert.equal(res.headers.get("request-id"), b.request_id);
  if (messageRe) assert.match(b.error.message, messageRe);
  return b;
}
const textOf = (msg) => msg.content.find((b) => b.type === "text")?.text;
const chat = (flavour, body, headers = {}) =>
  post(flavour === "openai-bare" ? "/v1/chat/completions" : `/${flavour}/v1/chat/completions`, body, headers);
const obody = (extra = {}) => ({
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: USER },
  ],
  ...extra,
});
const OAUTH = { authorization: `Bearer ${OKEY}` };

// ---------------------------------------------------------------------------------------------

describe("default selection", () => {
  it("parses manifest lines with and without [type] and description", () => {
    const m = parseManifest(`noise\n${MANIFEST}\n- not a manifest line`);
    assert.deepEqual(
      m.map((e) => [e.type, e.path, e.description]),
      [
        ["project", "deploy.md", "staging deploy checklist"],
        ["user", "role.md", "user is a Go engineer"],
        ["feedback", "testing.md", "integration tests must hit a real DB"],
        [null, "notes/staging-db.md", null],
      ],
    );
  });

  it("takes the query after the last line-initial 'Query: ' up to the blank line", () => {
    assert.equal(extractQuery(`The Query: is below\nQuery: first\n\nQuery: deploy\nstaging now\n\nAvailable memories:`), "deploy\nstaging now");
    assert.equal(extractQuery("no query here"), "");
  });

  it("matches words of 4+ letters in path or description, case-insensitive, stop words ignored, ≤ 5 in manifest order", () => {
    assert.deepEqual(selectMemories(USER), EXPECTED);
    assert.deepEqual(selectMemories(`Query: ROLE of the Engineer\n\n${MANIFEST}`), ["role.md"]);
    assert.deepEqual(selectMemories(`Query: what about this with them\n\n${MANIFEST}`), []); // stop words only
    assert.deepEqual(selectMemories(`Query: a go db\n\n${MANIFEST}`), []); // words under 4 letters
    const many = Array.from({ length: 8 }, (_, i) => `- f${i}.md (2026-01-01T00:00:00.000Z): alpha topic`).join("\n");
    assert.deepEqual(selectMemories(`Query: alpha\n\n${many}`), ["f0.md", "f1.md", "f2.md", "f3.md", "f4.md"]);
  });
});

describe("anthropic: success", () => {
  it("returns the full message shape, deterministic usage, and the headers", async () => {
    const res = await anthropic(abody());
    assert.equal(res.status, 200);
    assert.match(res.headers.get("request-id"), /^req_/);
    assert.match(res.headers.get("content-type"), /application\/json/);
    assert.equal(res.headers.get("anthropic-ratelimit-requests-remaining"), "49");
    assert.ok(res.headers.get("anthropic-ratelimit-tokens-reset"));
    const b = await json(res);
    assert.match(b.id, /^msg_/);
    assert.equal(b.type, "message");
    assert.equal(b.role, "assistant");
    assert.equal(b.model, "claude-sonnet-4-6");
    assert.deepEqual(b.content, [{ type: "text", text: ANSWER }]);
    assert.equal(b.stop_reason, "end_turn");
    assert.equal(b.stop_sequence, null);
    assert.equal(b.stop_details, null);
    assert.deepEqual(b.usage, {
      input_tokens: Math.ceil((SYSTEM.length + USER.length) / 4),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: Math.ceil(ANSWER.length / 4),
      output_tokens_details: { thinking_tokens: 0 },
      service_tier: "standard",
    });
  });

  it("reads the prompt from system blocks and user text blocks, and accepts a Bearer token", async () => {
    const res = await anthropic(
      abody({
        system: [{ type: "text", text: SYSTEM }, { type: "text", text: `Available memories:\n${MANIFEST}` }],
        messages: [{ role: "user", content: [{ type: "text", text: `Query: ${QUERY}` }] }],
      }),
      { "x-api-key": undefined, authorization: `Bearer ${KEY}` },
    );
    assert.equal(res.status, 200);
    const b = await json(res);
    assert.equal(textOf(b), ANSWER);
    const chars = SYSTEM.length + `Available memories:\n${MANIFEST}`.length + `Query: ${QUERY}`.length;
    assert.equal(b.usage.input_tokens, Math.ceil(chars / 4));
  });

  it("lets a browser through when it sets the dangerous-direct-browser-access header", async () => {
    const res = await anthropic(abody(), { origin: "http://localhost:5173", "anthropic-dangerous-direct-browser-access": "true" });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "http://localhost:5173");
  });
});

describe("anthropic: validation", () => {
  it("401 on missing key, wrong key and wrong bearer", async () => {
    await anthropicError(await anthropic(abody(), { "x-api-key": undefined }), 401, "authentication_error");
    await anthropicError(await anthropic(abody(), { "x-api-key": "sk-ant-wrong" }), 401, "authentication_error", /invalid x-api-key/);
    await anthropicError(await anthropic(abody(), { "x-api-key": undefined, authorization: "Bearer nope" }), 401, "authentication_error");
  });

  it("401 with the CORS message when Origin comes without the dangerous header", async () => {
    const b = await anthropicError(await anthropic(abody(), { origin: "http://localhost:5173" }), 401, "authentication_error");
    assert.equal(b.error.message, "CORS requests must set 'anthropic-dangerous-direct-browser-access' header");
  });

  it("400 on a missing anthropic-version", async () => {
    const b = await anthropicError(await anthropic(abody(), { "anthropic-version": undefined }), 400, "invalid_request_error");
    assert.equal(b.error.message, "anthropic-version: header is required");
    await anthropicError(await anthropic(abody(), { "anthropic-version": "2099-01-01" }), 400, "invalid_request_error", /anthropic-version/);
  });

  it("400 on bad bodies", async () => {
    const cases = [
      ["{not json", /parsing the body/],
      [abody({ model: undefined }), /^model/],
      [abody({ max_tokens: undefined }), /^max_tokens/],
      [abody({ max_tokens: 0 }), /^max_tokens/],
      [abody({ max_tokens: 2.5 }), /^max_tokens/],
      [abody({ max_tokens: "256" }), /^max_tokens/],
      [abody({ messages: [] }), /^messages/],
      [abody({ messages: undefined }), /^messages/],
      [abody({ messages: [{ role: "user", content: USER }, { role: "assistant", content: "{" }] }), /final message|prefill/],
      [abody({ messages: [{ role: "system", content: USER }] }), /role/],
      [abody({ max_completion_tokens: 256 }), /max_completion_tokens: Extra inputs are not permitted/],
      [abody({ output_config: { format: { type: "json_object" } } }), /output_config\.format\.type/],
    ];
    for (const [body, re] of cases) {
      await anthropicError(await anthropic(body), 400, "invalid_request_error", re);
    }
  });

  it("404 not_found_error on an unknown model; every listed model is known", async () => {
    const b = await anthropicError(await anthropic(abody({ model: "claude-sonnet-9-9" })), 404, "not_found_error");
    assert.equal(b.error.message, "model: claude-sonnet-9-9");
    const ids = [
      "claude-sonnet-5-5", "claude-haiku-5-5", "claude-sonnet-5", "claude-sonnet-4-6", "claude-sonnet-4-5",
      "claude-sonnet-4-5-20250929", "claude-haiku-4-5", "claude-haiku-4-5-20251001", "claude-opus-5-5",
    ];
    for (const model of ids) {
      const res = await anthropic(abody({ model, max_tokens: 1024 }));
      assert.equal(res.status, 200, model);
      assert.equal((await json(res)).model, model);
    }
  });

  it("applies the per-model rules of docs/providers.md §6.2", async () => {
    const bad = [
      ["claude-sonnet-5-5", { thinking: { type: "disabled" } }, /between_tools/],
      ["claude-sonnet-5-5", { thinking: { type: "enabled", budget_tokens: 1024 } }, /enabled/],
      ["claude-sonnet-5-5", { temperature: 0 }, /temperature/],
      ["claude-sonnet-5-5", { top_p: 0.9 }, /top_p/],
      ["claude-sonnet-5-5", { top_k: 5 }, /top_k/],
      ["claude-sonnet-5-5", { tool_choice: { type: "any" } }, /tool_choice/],
      ["claude-sonnet-5-5", { tool_choice: { type: "tool", name: "x" } }, /tool_choice/],
      ["claude-sonnet-5-5", { messages: [{ role: "user", content: USER }, { role: "assistant", content: "{" }] }, /prefill/],
      ["claude-sonnet-5-5", { thinking: { type: "between_tools" }, output_config: { effort: "xhigh" } }, /effort/],
      ["claude-sonnet-5-5", { thinking: { type: "between_tools" }, output_config: { effort: "max" } }, /effort/],
      ["claude-haiku-5-5", { thinking: { type: "enabled", budget_tokens: 1024 } }, /enabled/],
      ["claude-haiku-5-5", { temperature: 0 }, /temperature/],
      ["claude-haiku-5-5", { messages: [{ role: "user", content: USER }, { role: "assistant", content: "{" }] }, /prefill/],
      ["claude-haiku-5-5", { thinking: { type: "disabled" }, output_config: { effort: "max" } }, /effort/],
      ["claude-sonnet-5", { thinking: { type: "enabled", budget_tokens: 1024 } }, /enabled/],
      ["claude-sonnet-5", { temperature: 0.2 }, /temperature/],
      ["claude-haiku-4-5", { output_config: { effort: "low" } }, /effort/],
      ["claude-sonnet-4-5-20250929", { output_config: { effort: "low" } }, /effort/],
      ["claude-sonnet-4-5", { temperature: 0, top_p: 0.9 }, /temperature.*top_p/],
    ];
    for (const [model, extra, re] of bad) {
      await anthropicError(await anthropic(abody({ model, ...extra })), 400, "invalid_request_error", re);
    }
    const good = [
      ["claude-sonnet-5-5", { thinking: { type: "between_tools" }, output_config: { effort: "low" } }],
      ["claude-haiku-5-5", { thinking: { type: "disabled" }, output_config: { effort: "low" } }],
      ["claude-sonnet-5", { thinking: { type: "disabled" }, output_config: { effort: "low" } }],
      ["claude-sonnet-4-6", { temperature: 0, top_p: 0.9, output_config: { effort: "low" } }],
      ["claude-haiku-4-5", { temperature: 0 }],
    ];
    for (const [model, extra] of good) {
      const res = await anthropic(abody({ model, ...extra }));
      assert.equal(res.status, 200, `${model} ${JSON.stringify(extra)}: ${await res.clone().text()}`);
    }
  });

  it("enforces the structured-output schema subset with the real messages", async () => {
    const withSchema = (schema) => abody({ output_config: { format: { type: "json_schema", schema } } });
    const arr = (extra) => ({ ...SCHEMA, properties: { selected_memories: { type: "array", items: { type: "string" }, ...extra } } });
    const cases = [
      [{ ...SCHEMA, additionalProperties: undefined }, "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"],
      [{ ...SCHEMA, additionalProperties: true }, "output_config.format.schema: For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false"],
      [arr({ maxItems: 5 }), "output_config.format.schema: For 'array' type, property 'maxItems' is not supported"],
      [arr({ minItems: 2 }), "output_config.format.schema: For 'array' type, 'minItems' values other than 0 or 1 are not supported"],
      [arr({ items: { type: "string", maxLength: 100 } }), /'maxLength' is not supported/],
      [arr({ items: { type: "string", minLength: 1 } }), /'minLength' is not supported/],
      [{ ...SCHEMA, properties: { n: { type: "integer", minimum: 0 } } }, /'minimum' is not supported/],
      [{ ...SCHEMA, properties: { n: { type: "number", maximum: 9 } } }, /'maximum' is not supported/],
      [{ ...SCHEMA, properties: { n: { type: "number", multipleOf: 2 } } }, /'multipleOf' is not supported/],
      [{ ...SCHEMA, properties: { o: { type: "object", properties: {} } } }, /must be explicitly set to false/],
    ];
    for (const [schema, expected] of cases) {
      const b = await anthropicError(await anthropic(withSchema(schema)), 400, "invalid_request_error");
      if (typeof expected === "string") assert.equal(b.error.message, expected);
      else assert.match(b.error.message, expected);
    }
    // legacy output_format: same rules, its own prefix; the good schema passes on both
    const legacy = await anthropicError(
      await anthropic(abody({ output_format: { type: "json_schema", schema: arr({ maxItems: 5 }) } })),
      400,
      "invalid_request_error",
    );
    assert.equal(legacy.error.message, "output_format.schema: For 'array' type, property 'maxItems' is not supported");
    assert.equal((await anthropic(withSchema(arr({ minItems: 1 })))).status, 200);
    assert.equal((await anthropic(abody({ output_format: { type: "json_schema", schema: SCHEMA } }))).status, 200);
  });
});

describe("anthropic: API version 2026-10-21 (SDK 1.x)", () => {
  const CURRENT = { "anthropic-version": "2026-10-21" };

  it("is served, with the key as a bearer token as SDK 1.x sends it", async () => {
    const res = await anthropic(abody(), { ...CURRENT, "x-api-key": undefined, authorization: `Bearer ${KEY}` });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(textOf(await json(res))).selected_memories, EXPECTED);
  });

  it("refuses temperature, top_p and top_k, even at a default value; 2023-06-01 still takes them", async () => {
    for (const field of ["temperature", "top_p", "top_k"]) {
      const value = field === "top_k" ? 40 : 1;
      await anthropicError(await anthropic(abody({ [field]: value }), CURRENT), 400, "invalid_request_error", new RegExp(`^${field}: Extra inputs are not permitted$`));
      assert.equal((await anthropic(abody({ [field]: value }))).status, 200, `${field} under 2023-06-01`);
    }
  });

  it("takes system messages in `messages`; 2023-06-01 does not", async () => {
    const messages = [{ role: "system", content: "Answer in JSON." }, { role: "user", content: USER }];
    assert.equal((await anthropic(abody({ messages }), CURRENT)).status, 200);
    await anthropicError(await anthropic(abody({ messages })), 400, "invalid_request_error", /messages\.0\.role: Input should be 'user' or 'assistant'$/);
  });

  it("refuses a document block in an assistant message and citations on a user's text block", async () => {
    const doc = { type: "document", source: { type: "text", media_type: "text/plain", data: "x" } };
    const withDoc = [{ role: "user", content: "hi" }, { role: "assistant", content: [doc] }, { role: "user", content: USER }];
    await anthropicError(await anthropic(abody({ messages: withDoc }), CURRENT), 400, "invalid_request_error", /^messages\.1\.content\.0: `document` blocks/);
    const cited = [{ role: "user", content: [{ type: "text", text: USER, citations: [{ type: "char_location", cited_text: "x" }] }] }];
    await anthropicError(await anthropic(abody({ messages: cited }), CURRENT), 400, "invalid_request_error", /^messages\.0\.content\.0\.citations/);
    assert.equal((await anthropic(abody({ messages: [{ role: "user", content: [{ type: "text", text: USER, citations: [] }] }] }), CURRENT)).status, 200);
  });
});

describe("anthropic: message threads", () => {
  const THREADS = { "anthropic-version": "2026-10-21", "anthropic-beta": "message-threads-2026-08-12" };
  const threaded = (body, headers = {}) => anthropic(body, { ...THREADS, ...headers });
  const cont = (id, messages, extra = {}) => ({ model: "claude-sonnet-4-6", max_tokens: 256, messages, thread: { type: "continue", previous_message_id: id }, ...extra });
  const THANKS = [{ role: "user", content: "Thanks. Anything else?" }];
  async function created() {
    const res = await threaded(abody({ thread: { type: "create" } }));
    assert.equal(res.status, 200);
    return (await json(res)).id;
  }

  it("a continue sends only the new messages: the server answers from the conversation it holds", async () => {
    const id = await created();
    const res = await threaded(cont(id, THANKS));
    assert.equal(res.status, 200);
    const reply = await json(res);
    // the query and manifest are only in the held first message
    assert.deepEqual(JSON.parse(textOf(reply)).selected_memories, EXPECTED);
    assert.ok(reply.usage.input_tokens > estimateTokens(THANKS[0].content), "the held conversation counts as input");
    // the same messages without the thread: no query, no manifest
    const alone = await json(await anthropic({ ...cont(id, THANKS), thread: undefined, system: SYSTEM }, { "anthropic-version": "2026-10-21" }));
    assert.deepEqual(JSON.parse(textOf(alone)).selected_memories, []);
    // and the reply continues in turn
    assert.equal((await threaded(cont(reply.id, THANKS))).status, 200);
  });

  it("each response is continued once; an unknown one is thread_not_found", async () => {
    const id = await created();
    assert.equal((await threaded(cont(id, THANKS))).status, 200);
    const again = await anthropicError(await threaded(cont(id, THANKS)), 400, "invalid_request_error");
    assert.equal(again.error.details.error_code, "thread_already_continued");
    const lost = await anthropicError(await threaded(cont("msg_01unknown", THANKS)), 404, "not_found_error");
    assert.equal(lost.error.details.error_code, "thread_not_found");
    mock.reset();
    assert.equal((await anthropicError(await threaded(cont(id, THANKS)), 404, "not_found_error")).error.details.error_code, "thread_not_found", "reset() forgets threads");
  });

  it("a continue carries no system or tools, and keeps the thread's model", async () => {
    const id = await created();
    await anthropicError(await threaded(cont(id, THANKS, { system: SYSTEM })), 400, "invalid_request_error", /^system: a thread continue cannot set/);
    await anthropicError(await threaded(cont(id, THANKS, { tools: [] })), 400, "invalid_request_error", /^tools: a thread continue cannot set/);
    const other = await anthropicError(await threaded(cont(id, THANKS, { model: "claude-sonnet-5-5" })), 400, "invalid_request_error", /model/);
    assert.equal(other.error.details.error_code, "thread_fingerprint_mismatch");
    assert.equal((await threaded(cont(id, THANKS))).status, 200, "a refused continue does not use up the response");
  });

  it("needs the beta; thinking and cache_control are thread_unsupported_request, naming them", async () => {
    await anthropicError(await anthropic(abody({ thread: { type: "create" } }), { "anthropic-version": "2026-10-21" }), 400, "invalid_request_error", /message-threads-2026-08-12/);
    await anthropicError(await threaded(abody({ thread: { type: "resume" } })), 400, "invalid_request_error", /^thread\.type/);
    const b = await anthropicError(
      await threaded(abody({ thread: { type: "create" }, thinking: { type: "adaptive" }, system: [{ type: "text", text: SYSTEM, cache_control: { type: "ephemeral" } }] })),
      400,
      "invalid_request_error",
    );
    assert.deepEqual(b.error.details, { error_code: "thread_unsupported_request", unsupported: ["cache_control", "thinking"] });
  });
});

describe("anthropic: thinking and max_tokens", () => {
  it("Sonnet 5.5 without a thinking control thinks first and runs out of max_tokens mid-JSON", async () => {
    const b = await json(await anthropic(abody({ model: "claude-sonnet-5-5" })));
    assert.equal(b.content[0].type, "thinking");
    assert.equal(typeof b.content[0].signature, "string");
    assert.equal(b.stop_reason, "max_tokens");
    const text = textOf(b);
    assert.ok(ANSWER.startsWith(text) && text.length > 0 && text.length < ANSWER.length, text);
    assert.throws(() => JSON.parse(text));
    assert.equal(b.usage.output_tokens, 256);
    assert.ok(b.usage.output_tokens_details.thinking_tokens > 200);
  });

  it("thinking counts 300 tokens; with room, the answer is whole", async () => {
    const b = await json(await anthropic(abody({ model: "claude-haiku-5-5", max_tokens: 1024 })));
    assert.deepEqual(b.content.map((c) => c.type), ["thinking", "text"]);
    assert.equal(textOf(b), ANSWER);
    assert.equal(b.stop_reason, "end_turn");
    assert.equal(b.usage.output_tokens_details.thinking_tokens, 300);
    assert.equal(b.usage.output_tokens, 300 + Math.ceil(ANSWER.length / 4));
  });

  it("thinking off (between_tools on Sonnet 5.5, disabled on Haiku 5.5 / Sonnet 5) answers in 256 tokens", async () => {
    for (const [model, type] of [["claude-sonnet-5-5", "between_tools"], ["claude-haiku-5-5", "disabled"], ["claude-sonnet-5", "disabled"]]) {
      const b = await json(await anthropic(abody({ model, thinking: { type } })));
      assert.deepEqual(b.content, [{ type: "text", text: ANSWER }], model);
      assert.equal(b.stop_reason, "end_turn");
      assert.equal(b.usage.output_tokens_details.thinking_tokens, 0);
    }
    // between_tools does not switch Haiku 5.5 off
    const h = await json(await anthropic(abody({ model: "claude-haiku-5-5", thinking: { type: "between_tools" } })));
    assert.equal(h.content[0].type, "thinking");
  });

  it("a tiny max_tokens truncates even without thinking", async () => {
    const b = await json(await anthropic(abody({ max_tokens: 3 })));
    assert.equal(b.stop_reason, "max_tokens");
    assert.equal(textOf(b), ANSWER.slice(0, 12));
    assert.equal(b.usage.output_tokens, 3);
  });
});

describe("anthropic: prompt caching", () => {
  const bigManifest = (n) =>
    "Available memories:\n" +
    Array.from({ length: n }, (_, i) => `- [project] topic-${i}.md (2026-10-01T12:00:00.000Z): notes about subject number ${i}`).join("\n");
  const cached = (manifest, model, cc = { type: "ephemeral" }, query = QUERY) =>
    abody({
      model,
      thinking: model === "claude-sonnet-5-5" ? { type: "between_tools" } : undefined,
      system: [{ type: "text", text: SYSTEM }, { type: "text", text: manifest, cache_control: cc }],
      messages: [{ role: "user", content: `Query: ${query}` }],
    });

  it("writes a ≥ 512-token prefix on Sonnet 5.5, then reads it; input_tokens counts the rest", async () => {
    const manifest = bigManifest(40);
    const prefix = Math.ceil((SYSTEM.length + manifest.length) / 4);
    const total = Math.ceil((SYSTEM.length + manifest.length + `Query: ${QUERY}`.length) / 4);
    assert.ok(prefix >= 512 && prefix < 1024, String(prefix));
    const first = (await json(await anthropic(cached(manifest, "claude-sonnet-5-5")))).usage;
    assert.equal(first.cache_creation_input_tokens, prefix);
    assert.deepEqual(first.cache_creation, { ephemeral_5m_input_tokens: prefix, ephemeral_1h_input_tokens: 0 });
    assert.equal(first.cache_read_input_tokens, 0);
    assert.equal(first.input_tokens, total - prefix);
    // a different query after the breakpoint still hits
    const second = (await json(await anthropic(cached(manifest, "claude-sonnet-5-5", undefined, "other question")))).usage;
    assert.equal(second.cache_read_input_tokens, prefix);
    assert.equal(second.cache_creation_input_tokens, 0);
    assert.equal(second.input_tokens, Math.ceil((SYSTEM.length + manifest.length + "Query: other question".length) / 4) - prefix);
    // another model has its own cache; reset() clears it
    assert.equal((await json(await anthropic(cached(manifest, "claude-haiku-5-5", undefined)))).usage.cache_read_input_tokens, 0);
    mock.reset();
    assert.equal((await json(await anthropic(cached(manifest, "claude-sonnet-5-5")))).usage.cache_read_input_tokens, 0);
  });

  it("reports a 1h write in ephemeral_1h_input_tokens", async () => {
    const manifest = bigManifest(40);
    const prefix = Math.ceil((SYSTEM.length + manifest.length) / 4);
    const u = (await json(await anthropic(cached(manifest, "claude-sonnet-5-5", { type: "ephemeral", ttl: "1h" })))).usage;
    assert.deepEqual(u.cache_creation, { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: prefix });
  });

  it("below the model minimum nothing is cached and nothing fails", async () => {
    const manifest = bigManifest(40); // ~600 tokens: above 512, below 1024 and 4096
    for (const model of ["claude-sonnet-4-6", "claude-haiku-4-5"]) {
      for (let i = 0; i < 2; i++) {
        const res = await anthropic(cached(manifest, model));
        assert.equal(res.status, 200);
        const u = (await json(res)).usage;
        assert.equal(u.cache_creation_input_tokens, 0, model);
        assert.equal(u.cache_read_input_tokens, 0, model);
      }
    }
    const big = bigManifest(80); // ~1300 tokens: Sonnet 4.6 caches, Haiku 4.5 does not
    assert.ok((await json(await anthropic(cached(big, "claude-sonnet-4-6")))).usage.cache_creation_input_tokens > 1024);
    assert.equal((await json(await anthropic(cached(big, "claude-haiku-4-5")))).usage.cache_creation_input_tokens, 0);
  });

  it("top-level cache_control caches the whole prompt", async () => {
    const manifest = bigManifest(40);
    const body = abody({
      model: "claude-opus-5-5",
      thinking: { type: "disabled" },
      cache_control: { type: "ephemeral" },
      system: manifest,
      messages: [{ role: "user", content: `Query: ${QUERY}` }],
    });
    const total = Math.ceil((manifest.length + `Query: ${QUERY}`.length) / 4);
    const a = (await json(await anthropic(body))).usage;
    assert.equal(a.cache_creation_input_tokens, total);
    assert.equal(a.input_tokens, 0);
    const b = (await json(await anthropic(body))).usage;
    assert.equal(b.cache_read_input_tokens, total);
  });

  it("expires after the 5 minute TTL (fake clock) and rejects more than 4 breakpoints", async () => {
    let clock = 1_000_000;
    const m2 = await startMockProviders({ now: () => clock });
    try {
      const manifest = bigManifest(40);
      const send = () =>
        fetch(`${m2.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", ...AHEADERS },
          body: JSON.stringify(cached(manifest, "claude-sonnet-5-5")),
        }).then(json);
      assert.ok((await send()).usage.cache_creation_input_tokens > 0);
      clock += 299_000;
      assert.ok((await send()).usage.cache_read_input_tokens > 0); // the read refreshes the TTL
      clock += 299_000;
      assert.ok((await send()).usage.cache_read_input_tokens > 0);
      clock += 301_000;
      const late = (await send()).usage;
      assert.equal(late.cache_read_input_tokens, 0);
      assert.ok(late.cache_creation_input_tokens > 0);
    } finally {
      await m2.close();
    }
    const cc = { type: "ephemeral" };
    const five = abody({ system: Array.from({ length: 5 }, (_, i) => ({ type: "text", text: `block ${i}`, cache_control: cc })) });
    await anthropicError(await anthropic(five), 400, "invalid_request_error", /maximum of 4/);
  });
});

describe("openai flavours", () => {
  it("openai: 401 with the real body when the Bearer key is missing or wrong", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong" }]) {
      const res = await chat("openai-bare", obody(), headers);
      assert.equal(res.status, 401);
      assert.deepEqual(await json(res), {
        error: { message: "Incorrect API key provided", type: "invalid_request_error", param: null, code: "invalid_api_key" },
      });
    }
  });

  it("openai: full response shape and usage; bare path and /openai/ prefix agree", async () => {
    for (const path of ["openai-bare", "openai"]) {
      const res = await chat(path, obody({ max_completion_tokens: 256 }), OAUTH);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("x-request-id"), /^req_/);
      const b = await json(res);
      assert.match(b.id, /^chatcmpl-/);
      assert.equal(b.object, "chat.completion");
      assert.equal(b.model, "gpt-4o-mini");
      assert.deepEqual(b.choices[0].message, { role: "assistant", content: ANSWER, refusal: null, annotations: [] });
      assert.equal(b.choices[0].finish_reason, "stop");
      const prompt = Math.ceil((SYSTEM.length + USER.length) / 4);
      const completion = Math.ceil(ANSWER.length / 4);
      assert.deepEqual(b.usage, {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      });
      assert.equal(b.system_fingerprint, "fp_mock");
    }
  });

  it("openai: strict schema rules, name pattern, unknown fields", async () => {
    const rf = (schema, extra = {}) => ({ type: "json_schema", json_schema: { name: "memory_selection", strict: true, schema, ...extra } });
    const bad = [
      [obody({ response_format: rf({ ...SCHEMA, additionalProperties: undefined }) }), /'additionalProperties' is required/, "response_format"],
      [obody({ response_format: rf({ ...SCHEMA, required: [] }) }), /Missing 'selected_memories'/, "response_format"],
      [obody({ response_format: rf({ anyOf: [SCHEMA] }) }), /type: "object"/, "response_format"],
      [obody({ response_format: rf(SCHEMA, { name: "bad name!" }) }), /name/, "response_format.json_schema.name"],
      [obody({ think: false }), /Unrecognized request argument supplied: think/, null],
    ];
    for (const [body, re, param] of bad) {
      const res = await chat("openai", body, OAUTH);
      assert.equal(res.status, 400);
      const e = (await json(res)).error;
      assert.match(e.message, re);
      assert.equal(e.type, "invalid_request_error");
      assert.equal(e.param, param);
    }
    // maxItems is fine on OpenAI; non-strict skips the checks
    const items = { ...SCHEMA, properties: { selected_memories: { type: "array", items: { type: "string" }, maxItems: 5 } } };
    assert.equal((await chat("openai", obody({ response_format: rf(items) }), OAUTH)).status, 200);
    assert.equal((await chat("openai", obody({ response_format: rf({ type: "object" }, { strict: false }) }), OAUTH)).status, 200);
  });

  it("openai: reasoning models reject max_tokens and spend reasoning tokens inside max_completion_tokens", async () => {
    for (const model of ["o1-mini", "o3", "o4-mini", "gpt-5", "gpt-5.1-mini"]) {
      const res = await chat("openai", obody({ model, max_tokens: 256 }), OAUTH);
      assert.equal(res.status, 400, model);
      const e = (await json(res)).error;
      assert.equal(e.param, "max_tokens");
      assert.match(e.message, /max_completion_tokens/);
    }
    assert.equal((await chat("openai", obody({ model: "gpt-4o-mini", max_tokens: 256 }), OAUTH)).status, 200);
    // default effort (medium, 300 tokens) overruns 256 → length; low fits
    const medium = await json(await chat("openai", obody({ model: "gpt-5", max_completion_tokens: 256 }), OAUTH));
    assert.equal(medium.choices[0].finish_reason, "length");
    assert.equal(medium.usage.completion_tokens, 256);
    assert.notEqual(medium.choices[0].message.content, ANSWER);
    const low = await json(await chat("openai", obody({ model: "gpt-5", max_completion_tokens: 256, reasoning_effort: "low" }), OAUTH));
    assert.equal(low.choices[0].finish_reason, "stop");
    assert.equal(low.choices[0].message.content, ANSWER);
    assert.equal(low.usage.completion_tokens_details.reasoning_tokens, 64);
    assert.equal(low.usage.completion_tokens, 64 + Math.ceil(ANSWER.length / 4));
  });

  it("openai: max_completion_tokens truncates with finish_reason length", async () => {
    const b = await json(await chat("openai", obody({ max_completion_tokens: 2 }), OAUTH));
    assert.equal(b.choices[0].finish_reason, "length");
    assert.equal(b.choices[0].message.content, ANSWER.slice(0, 8));
    assert.equal(b.usage.completion_tokens, 2);
  });

  it("openai: repeated ≥ 1024-token prefixes report cached_tokens", async () => {
    const long = "x".repeat(6000);
    const body = (q) => obody({ messages: [{ role: "system", content: long }, { role: "user", content: `Query: ${q}` }] });
    const a = await json(await chat("openai", body("one"), OAUTH));
    assert.equal(a.usage.prompt_tokens_details.cached_tokens, 0);
    const b = await json(await chat("openai", body("two"), OAUTH));
    assert.equal(b.usage.prompt_tokens_details.cached_tokens, 1408); // floor(6000/4)=1500 → 1024 + 3×128
  });

  it("ollama compat: no auth, max_tokens honoured, max_completion_tokens ignored, three usage counters", async () => {
    const ignored = await chat("ollama", obody({ model: "qwen3:8b", max_completion_tokens: 1 }));
    assert.equal(ignored.status, 200);
    const a = await json(ignored);
    assert.equal(a.system_fingerprint, "fp_ollama");
    assert.equal(a.choices[0].message.content, ANSWER);
    assert.deepEqual(Object.keys(a.usage).sort(), ["completion_tokens", "prompt_tokens", "total_tokens"]);
    const b = await json(await chat("ollama", obody({ model: "qwen3:8b", max_tokens: 2 })));
    assert.equal(b.choices[0].finish_reason, "length");
    assert.equal(b.choices[0].message.content, ANSWER.slice(0, 8));
    const missing = await chat("ollama", obody({ model: "missing-model" }));
    assert.equal(missing.status, 404);
    assert.deepEqual(await json(missing), {
      error: { message: 'model "missing-model" not found, try pulling it first', type: "not_found_error", param: null, code: null },
    });
  });

  it("llama.cpp: the three schema shapes, grammar conflict, timings", async () => {
    const shapes = [
      { response_format: { type: "json_schema", json_schema: { schema: SCHEMA } } },
      { response_format: { type: "json_object", schema: SCHEMA } },
      { json_schema: SCHEMA },
    ];
    for (const extra of shapes) {
      const res = await chat("llamacpp", obody({ max_tokens: 256, ...extra }));
      assert.equal(res.status, 200);
      const b = await json(res);
      assert.equal(b.choices[0].message.content, ANSWER);
      assert.equal(b.timings.predicted_n, Math.ceil(ANSWER.length / 4));
      assert.equal(b.timings.prompt_n, b.usage.prompt_tokens);
    }
    const both = await chat("llamacpp", obody({ json_schema: SCHEMA, grammar: "root ::= \"{}\"" }));
    assert.equal(both.status, 400);
    assert.deepEqual(await json(both), {
      error: { code: 400, message: 'Either "json_schema" or "grammar" can be specified, but not both', type: "invalid_request_error" },
    });
    const odd = await chat("llamacpp", obody({ response_format: { type: "yaml" } }));
    assert.equal(odd.status, 400);
    assert.match((await json(odd)).error.message, /must be one of "text" or "json_object", but got: yaml/);
    assert.equal((await chat("llamacpp", obody(), { authorization: "Bearer wrong" })).status, 401);
  });

  it("lmstudio rejects json_object; vllm rejects guided_json and accepts structured_outputs", async () => {
    const lm = await chat("lmstudio", obody({ response_format: { type: "json_object" } }));
    assert.equal(lm.status, 400);
    assert.match((await json(lm)).error.message, /json_schema/);
    assert.equal((await chat("lmstudio", obody({ response_format: { type: "json_schema", json_schema: { name: "m", schema: SCHEMA } } }))).status, 200);
    const v = await chat("vllm", obody({ guided_json: SCHEMA }));
    assert.equal(v.status, 400);
    const ve = (await json(v)).error;
    assert.match(ve.message, /guided_json/);
    assert.equal(ve.code, 400);
    const ok = await chat("vllm", obody({ structured_outputs: { json: SCHEMA }, max_tokens: 256 }));
    assert.equal(ok.status, 200);
    assert.equal((await json(ok)).choices[0].message.content, ANSWER);
  });
});

describe("ollama native /api/chat", () => {
  const nbody = (extra = {}) => ({
    model: "qwen3:8b",
    stream: false,
    think: false,
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: USER },
    ],
    format: SCHEMA,
    options: { temperature: 0, num_predict: 256 },
    ...extra,
  });

  it("stream:false returns one final object with counts and durations", async () => {
    const res = await post("/api/chat", nbody());
    assert.equal(res.status, 200);
    const b = await json(res);
    assert.equal(b.model, "qwen3:8b");
    assert.ok(!Number.isNaN(Date.parse(b.created_at)));
    assert.deepEqual(b.message, { role: "assistant", content: ANSWER });
    assert.equal(b.done, true);
    assert.equal(b.done_reason, "stop");
    assert.equal(b.prompt_eval_count, Math.ceil((SYSTEM.length + USER.length) / 4));
    assert.equal(b.eval_count, Math.ceil(ANSWER.length / 4));
    for (const k of ["total_duration", "load_duration", "prompt_eval_duration", "eval_duration"]) assert.equal(typeof b[k], "number");
    assert.equal((await post("/api/chat", nbody({ format: "json" }))).status, 200);
    assert.equal((await post("/api/chat", nbody({ format: 42 }))).status, 400);
  });

  it("num_predict truncates with done_reason length", async () => {
    const b = await json(await post("/api/chat", nbody({ options: { num_predict: 3 } })));
    assert.equal(b.done_reason, "length");
    assert.equal(b.message.content, ANSWER.slice(0, 12));
    assert.equal(b.eval_count, 3);
  });

  it("streams NDJSON when stream is omitted or true", async () => {
    for (const stream of [undefined, true]) {
      const res = await post("/api/chat", nbody({ stream }));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/x-ndjson");
      const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l));
      assert.ok(lines.length > 1);
      assert.ok(lines.slice(0, -1).every((l) => l.done === false));
      const last = lines.at(-1);
      assert.equal(last.done, true);
      assert.equal(last.done_reason, "stop");
      assert.equal(lines.map((l) => l.message.content).join(""), ANSWER);
    }
  });

  it("404 for a model that is not pulled", async () => {
    const res = await post("/api/chat", nbody({ model: "missing-llama" }));
    assert.equal(res.status, 404);
    assert.deepEqual(await json(res), { error: 'model "missing-llama" not found, try pulling it first' });
  });
});

describe("scripted outcomes", () => {
  it("anthropic error kinds: status, error type, retry headers", async () => {
    const cases = [
      ["rate_limit", 429, "rate_limit_error", { "retry-after": "1", "retry-after-ms": "50" }],
      ["rate_limit_spend_cap", 429, "rate_limit_error", { "retry-after": null, "retry-after-ms": null }],
      ["overloaded", 529, "overloaded_error", {}],
      ["server_error", 500, "api_error", { "x-should-retry": null }],
      ["server_error_no_retry", 500, "api_error", { "x-should-retry": "false" }],
      ["unavailable", 503, "api_error", {}],
      ["timeout_error", 504, "timeout_error", {}],
    ];
    for (const [kind, status, type, headers] of cases) {
      mock.script({ kind });
      const res = await anthropic(abody());
      const b = await anthropicError(res, status, type);
      for (const [h, v] of Object.entries(headers)) assert.equal(res.headers.get(h), v, `${kind} ${h}`);
      if (kind === "rate_limit_spend_cap") assert.equal(b.error.details.error_code, "enforced_spend_limit_reached");
    }
  });

  it("anthropic success kinds", async () => {
    mock.script(
      { kind: "text", text: '{"selected_memories":["../../etc/passwd","a","b","c","d","e"],"extra":1}' },
      { kind: "text", selected: ["role.md"] },
      { kind: "thinking_then_text", selected: ["role.md"] },
      { kind: "refusal" },
      { kind: "max_tokens" },
      { kind: "invalid_json" },
      { kind: "fenced_json", selected: ["role.md"] },
      { kind: "prose_json", selected: ["role.md"] },
    );
    const get = async () => json(await anthropic(abody()));
    const role = JSON.stringify({ selected_memories: ["role.md"] });
    assert.equal(textOf(await get()), '{"selected_memories":["../../etc/passwd","a","b","c","d","e"],"extra":1}');
    const t = await get();
    assert.equal(textOf(t), role);
    assert.equal(t.usage.output_tokens, Math.ceil(role.length / 4));
    const th = await get();
    assert.deepEqual(th.content.map((c) => c.type), ["thinking", "text"]);
    assert.equal(th.content[1].text, role);
    assert.equal(th.stop_reason, "end_turn");
    assert.ok(th.usage.output_tokens_details.thinking_tokens > 0);
    const r = await get();
    assert.deepEqual(r.content, []);
    assert.equal(r.stop_reason, "refusal");
    assert.deepEqual(r.stop_details, { type: "refusal", category: "cyber", explanation: null });
    const m = await get();
    assert.equal(m.stop_reason, "max_tokens");
    assert.ok(ANSWER.startsWith(textOf(m)) && textOf(m).length < ANSWER.length);
    assert.equal(m.usage.output_tokens, 256);
    const broken = textOf(await get());
    assert.throws(() => JSON.parse(broken));
    assert.equal(textOf(await get()), "```json\n" + role + "\n```");
    const prose = textOf(await get());
    assert.ok(prose.includes(role) && !prose.startsWith("{"));
  });

  it("openai-flavour kinds", async () => {
    const cases = [
      ["openai", "rate_limit", 429, (e) => e.code === "rate_limit_exceeded"],
      ["openai", "rate_limit_spend_cap", 429, (e) => e.code === "insufficient_quota"],
      ["openai", "server_error", 500, (e) => e.type === "server_error"],
      ["llamacpp", "unavailable", 503, (e) => e.message === "Loading model" && e.type === "unavailable_error" && e.code === 503],
      ["openai", "unavailable", 503, () => true],
      ["openai", "overloaded", 503, () => true],
      ["vllm", "timeout_error", 504, () => true],
    ];
    for (const [flavour, kind, status, check] of cases) {
      mock.script({ kind });
      const res = await chat(flavour, obody(), OAUTH);
      assert.equal(res.status, status, kind);
      assert.ok(check((await json(res)).error), `${flavour} ${kind}`);
      if (kind === "rate_limit") assert.equal(res.headers.get("retry-after-ms"), "50");
      if (kind === "rate_limit_spend_cap") assert.equal(res.headers.get("retry-after"), null);
    }
    mock.script({ kind: "server_error_no_retry" });
    assert.equal((await chat("openai", obody(), OAUTH)).headers.get("x-should-retry"), "false");

    mock.script({ kind: "refusal" }, { kind: "max_tokens" }, { kind: "fenced_json" }, { kind: "thinking_then_text" }, { kind: "invalid_json" });
    const r = (await json(await chat("openai", obody(), OAUTH))).choices[0];
    assert.equal(r.message.content, null);
    assert.equal(typeof r.message.refusal, "string");
    const m = (await json(await chat("openai", obody({ max_completion_tokens: 256 }), OAUTH))).choices[0];
    assert.equal(m.finish_reason, "length");
    assert.ok(ANSWER.startsWith(m.message.content) && m.message.content.length < ANSWER.length);
    assert.equal((await json(await chat("openai", obody(), OAUTH))).choices[0].message.content, "```json\n" + ANSWER + "\n```");
    const th = await json(await chat("openai", obody(), OAUTH));
    assert.ok(th.usage.completion_tokens_details.reasoning_tokens > 0);
    assert.equal(th.choices[0].message.content, ANSWER);
    const invalid = (await json(await chat("openai", obody(), OAUTH))).choices[0].message.content;
    assert.throws(() => JSON.parse(invalid));
    // local servers put thinking inline
    mock.script({ kind: "thinking_then_text" });
    const local = (await json(await chat("vllm", obody()))).choices[0].message.content;
    assert.match(local, /^<think>[\s\S]*<\/think>\s*\{"selected_memories"/);
  });

  it("ollama native kinds", async () => {
    const base = { model: "qwen3:8b", stream: false, messages: [{ role: "user", content: USER }], options: { num_predict: 256 } };
    mock.script({ kind: "max_tokens" }, { kind: "unavailable" }, { kind: "text", selected: [] }, { kind: "rate_limit" });
    const m = await json(await post("/api/chat", base));
    assert.equal(m.done_reason, "length");
    assert.ok(m.message.content.length < ANSWER.length);
    const u = await post("/api/chat", base);
    assert.equal(u.status, 503);
    assert.equal(typeof (await json(u)).error, "string");
    assert.equal((await json(await post("/api/chat", base))).message.content, '{"selected_memories":[]}');
    const rl = await post("/api/chat", base);
    assert.equal(rl.status, 429);
    assert.equal(rl.headers.get("retry-after"), "1");
  });

  it("raw outcomes skip validation; kind outcomes are validated first and still consumed", async () => {
    mock.script(
      { status: 418, headers: { "x-custom": "yes" }, body: { hello: "world" } },
      { status: 200, body: "{not json" },
      { kind: "text", text: "unused" },
    );
    const a = await post("/v1/messages", {}); // no key, no version: raw answer anyway
    assert.equal(a.status, 418);
    assert.equal(a.headers.get("x-custom"), "yes");
    assert.deepEqual(await json(a), { hello: "world" });
    const b = await post("/api/chat", {});
    assert.equal(b.status, 200);
    assert.equal(await b.text(), "{not json");
    await anthropicError(await post("/v1/messages", abody()), 401, "authentication_error"); // kind: auth still checked
    const after = await json(await anthropic(abody()));
    assert.equal(textOf(after), ANSWER); // the kind outcome was consumed by the failed request
  });

  it("status / headers / body override a kind's response, which is still validated", async () => {
    mock.script({ kind: "text", text: "x", status: 201 }, { kind: "overloaded", body: { custom: true } });
    await anthropicError(await post("/v1/messages", abody()), 401, "authentication_error"); // no key: validated
    const next = await anthropic(abody());
    assert.equal(next.status, 529);
    assert.deepEqual(await json(next), { custom: true });
    mock.script({ kind: "text", text: "x", status: 201 });
    const ok = await anthropic(abody());
    assert.equal(ok.status, 201);
    assert.equal(textOf(await json(ok)), "x");
  });

  it("FIFO across routes, then back to the default", async () => {
    assert.equal(mock.script({ kind: "text", text: "one" }, { kind: "text", text: "two" }), 2);
    assert.equal(textOf(await json(await anthropic(abody()))), "one");
    assert.equal((await json(await chat("openai", obody(), OAUTH))).choices[0].message.content, "two");
    assert.equal(textOf(await json(await anthropic(abody()))), ANSWER);
  });

  it("script() rejects malformed outcomes", () => {
    assert.throws(() => mock.script({ kind: "nope" }), /unknown kind/);
    assert.throws(() => mock.script({ status: 42 }), /status/);
    assert.throws(() => mock.script({ selected: "a.md" }), /selected/);
    assert.throws(() => mock.script({ delay_ms: 5 }), /unknown field/);
  });

  it("delayMs delays the answer; headers merge onto a kind", async () => {
    mock.script({ delayMs: 150, kind: "text", text: "late", headers: { "x-extra": "1" } });
    const t0 = performance.now();
    const res = await anthropic(abody());
    assert.ok(performance.now() - t0 >= 140);
    assert.equal(res.headers.get("x-extra"), "1");
    assert.equal(textOf(await json(res)), "late");
  });

  it("a client that gives up during delayMs aborts the wait (no timer left behind)", async () => {
    const before = activeTimeouts();
    mock.script({ delayMs: 10_000 });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 50);
    await assert.rejects(
      fetch(`${mock.url}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", ...AHEADERS }, body: JSON.stringify(abody()), signal: ctrl.signal }),
      { name: "AbortError" },
    );
    await new Promise((r) => setTimeout(r, 50));
    const [entry] = mock.requests().slice(-1);
    assert.equal(entry.aborted, true);
    assert.equal(entry.status, null);
    assert.ok(activeTimeouts() <= before, "the delay timer is cleared when the client goes away");
  });

  it("drop resets the connection", async () => {
    mock.script({ drop: true });
    const dropped = fetch(`${mock.url}/v1/messages`, {
      method: "POST",
      headers: AHEADERS,
      body: JSON.stringify(abody()),
      signal: AbortSignal.timeout(1000),
    });
    await assert.rejects(dropped, (e) => e instanceof TypeError && e.name !== "TimeoutError"); // a reset, not our timeout
    assert.equal(mock.requests()[0].status, null);
    assert.equal((await anthropic(abody())).status, 200);
  });

  it("endless streams a body without end until the client goes away", async () => {
    mock.script({ endless: true });
    const res = await anthropic(abody());
    assert.equal(res.status, 200);
    const reader = res.body.getReader();
    const first = (await reader.read()).value;
    assert.match(new TextDecoder().decode(first.subarray(0, 16)), /^\{"junk":"x+$/);
    let read = first.byteLength;
    while (read < 4 << 20) read += (await reader.read()).value.byteLength;
    await reader.cancel();
    const settled = () => mock.requests()[0].aborted;
    await within((async () => { while (!settled()) await new Promise((r) => setTimeout(r, 5)); })(), 2000, "the mock seeing the client go");
    const [entry] = mock.requests();
    assert.equal(entry.status, 200);
    assert.ok(entry.bytesSent >= read, `${entry.bytesSent} bytes sent, ${read} read`);
    assert.equal((await anthropic(abody())).status, 200, "the next request is answered as usual");
  });

  it("hang never answers: the client times out, and close() ends hanging sockets at once", async () => {
    mock.script({ hang: true });
    await assert.rejects(
      fetch(`${mock.url}/v1/messages`, { method: "POST", headers: AHEADERS, body: JSON.stringify(abody()), signal: AbortSignal.timeout(100) }),
      { name: "TimeoutError" },
    );
    const m2 = await startMockProviders();
    m2.script({ hang: true }, { delayMs: 60_000 });
    const rescue = new AbortController(); // only used if close() fails, so the suite still ends
    const p1 = fetch(`${m2.url}/api/chat`, { method: "POST", body: "{}", signal: rescue.signal });
    const p2 = fetch(`${m2.url}/api/chat`, { method: "POST", body: "{}", signal: rescue.signal });
    p1.catch(() => {});
    p2.catch(() => {});
    while (m2.requests().length < 2) await new Promise((r) => setTimeout(r, 5));
    try {
      await within(m2.close(), 500, "close() with hanging requests");
    } catch (error) {
      rescue.abort();
      throw error;
    }
    await assert.rejects(p1, (e) => e instanceof TypeError);
    await assert.rejects(p2, (e) => e instanceof TypeError);
    await m2.close(); // idempotent
  });

  it("echo fills a scripted body from the request (a provider or proxy that quotes what it was sent); a path with no route is quoted with its query", async () => {
    mock.script({ status: 401, echo: true, body: { error: { message: "bad key {{header:x-api-key}} at {{url}}", sent: "{{headers}}", encoded: ["{{header-uri:X-Api-Key}}"] } } });
    const res = await anthropic(abody(), { "x-api-key": "k/ey 1" });
    assert.equal(res.status, 401);
    const b = await json(res);
    assert.equal(b.error.message, "bad key k/ey 1 at /v1/messages");
    assert.equal(JSON.parse(b.error.sent)["x-api-key"], "k/ey 1");
    assert.deepEqual(b.error.encoded, ["k%2Fey%201"]);
    // a plain-text body, and without echo the braces stay as written
    mock.script({ status: 500, echo: true, headers: { "content-type": "text/plain" }, body: "upstream: {{header:anthropic-version}}" }, { status: 500, body: "{{url}}" });
    assert.equal(await (await anthropic(abody())).text(), "upstream: 2023-06-01");
    assert.equal(await (await anthropic(abody())).text(), "{{url}}");
    assert.throws(() => mock.script({ echo: "yes" }), /echo must be a boolean/);
    const lost = await post("/v1?key=q-secret/chat/completions", {});
    assert.equal(lost.status, 404);
    assert.equal((await json(lost)).error, "mock: no route for POST /v1?key=q-secret/chat/completions");
  });
});

describe("CORS, control plane, request log", () => {
  it("answers preflights and exposes headers on every response", async () => {
    const pre = await fetch(`${mock.url}/v1/messages`, {
      method: "OPTIONS",
      headers: { origin: "http://app.test", "access-control-request-method": "POST", "access-control-request-headers": "x-api-key, X-Stainless-OS" },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "http://app.test");
    assert.equal(pre.headers.get("access-control-allow-methods"), "POST, OPTIONS");
    const allowed = pre.headers.get("access-control-allow-headers");
    for (const h of ["x-api-key", "anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access", "content-type", "authorization"])
      assert.ok(allowed.includes(h), h);
    assert.ok(allowed.includes("x-stainless-os"));
    const err = await anthropic(abody(), { "x-api-key": undefined });
    assert.equal(err.headers.get("access-control-allow-origin"), "*");
    for (const h of ["request-id", "retry-after", "x-request-id"]) assert.ok(err.headers.get("access-control-expose-headers").includes(h), h);
    assert.equal(mock.requests().length, 1); // the preflight is not logged
  });

  it("the HTTP control plane scripts, lists and resets", async () => {
    const s = await fetch(`${mock.url}/__mock/script`, { method: "POST", body: JSON.stringify([{ kind: "overloaded" }, { kind: "text", text: "x" }]) });
    assert.deepEqual(await s.json(), { queued: 2 });
    assert.equal((await anthropic(abody())).status, 529);
    assert.equal(textOf(await json(await anthropic(abody({ metadata: { user_id: "u1" } })))), "x");
    const list = await (await fetch(`${mock.url}/__mock/requests`)).json();
    assert.equal(list.length, 2);
    assert.equal(list[1].body.metadata.user_id, "u1");
    assert.equal(list[1].status, 200);
    const bad = await fetch(`${mock.url}/__mock/script`, { method: "POST", body: JSON.stringify([{ kind: "bogus" }]) });
    assert.equal(bad.status, 400);
    assert.equal((await fetch(`${mock.url}/__mock/reset`, { method: "POST" })).status, 200);
    assert.deepEqual(await (await fetch(`${mock.url}/__mock/requests`)).json(), []);
    mock.script({ kind: "overloaded" });
    await fetch(`${mock.url}/__mock/reset`, { method: "POST" });
    assert.equal((await anthropic(abody())).status, 200); // the queue was cleared too
  });

  it("logs method, path, lower-cased headers, parsed or raw body, receivedAt", async () => {
    const t0 = Date.now();
    await anthropic(abody(), { "X-Mixed-Case": "v" });
    await post("/api/chat?x=1", "not json");
    await post("/nowhere", {});
    const [a, b, c] = mock.requests();
    assert.equal(a.method, "POST");
    assert.equal(a.path, "/v1/messages");
    assert.equal(a.headers["x-mixed-case"], "v");
    assert.equal(a.headers["x-api-key"], KEY);
    assert.deepEqual(a.body, abody());
    assert.ok(a.receivedAt >= t0 && a.receivedAt <= Date.now());
    assert.equal(b.path, "/api/chat");
    assert.equal(b.body, "not json");
    assert.equal(c.status, 404);
    // requests() is a snapshot
    mock.requests()[0].method = "GET";
    assert.equal(mock.requests()[0].method, "POST");
    assert.equal(estimateTokens("abcde"), 2);
  });
});
