// A local stand-in for the providers the memory "side query" talks to, faithful to
// docs/providers.md (§1 Anthropic, §3 OpenAI-compatible flavours, §3.2 / §6.4 Ollama
// native, §6 "What a the fake servers do"). Plain Node 20 ESM, no dependencies.
//
//   const mock = await startMockProviders();
//   mock.script({ kind: "rate_limit" }, { kind: "text", selected: ["a.md"] });
//   await fetch(`${mock.url}/v1/messages`, ...);
//   mock.requests(); mock.reset(); await mock.close();
//
// Routes: POST /v1/messages (Anthropic: API versions 2023-06-01 and 2026-10-21, message
// threads), POST [/<flavour>]/v1/chat/completions (flavours openai, ollama, llamacpp, lmstudio,
// vllm; the bare path is openai), POST /api/chat (Ollama native),
// OPTIONS * (CORS preflight), and the control plane POST /__mock/script, GET /__mock/requests,
// POST /__mock/reset for code that cannot call into this process (the browser test).
// Faults an outcome can script: `delayMs`, `hang` (never answers), `drop` (resets the
// connection), `endless` (a 200 whose body streams junk until the client goes away). `echo`
// fills a scripted body from the request, as a provider or proxy that quotes what it was sent:
// `{{headers}}` (the request's headers as JSON), `{{url}}` (its path and query),
// `{{header:NAME}}` (one header's value), `{{header-uri:NAME}}` (the same, URL-encoded).
import { createServer } from "node:http";
import { createHash, randomBytes } from "node:crypto";

// ---------------------------------------------------------------------------------------------
// Deterministic "model": manifest parsing, selection, token estimates

/** A manifest line: `- [type] path (ISO-mtime): description`, tag and description optional. */
const MANIFEST_LINE =
  /^- (?:\[([^\]\n]*)\] )?(.+?) \(([+-]?\d{4,6}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)\)(?:: (.*))?$/;

/** Words that never count as a match between the query and a memory. */
const STOP_WORDS = new Set(
  ("this that with from have what when where which there their about into does should would could " +
    "your yours them then than were been will just like some more also only over very make much " +
    "here they each other these those want need know please tell show give using used sure").split(" "),
);

/** Lower-cased words of at least 4 letters/digits, stop words removed. */
function wordsOf(text) {
  const out = new Set();
  for (const w of String(text).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (w.length >= 4 && !STOP_WORDS.has(w)) out.add(w);
  }
  return out;
}

/** Every manifest line in `text`, in order, de-duplicated by path. */
function parseManifest(text) {
  const seen = new Set();
  const out = [];
  for (const line of String(text).split(/\r?\n/)) {
    const m = MANIFEST_LINE.exec(line.trimEnd());
    if (!m || seen.has(m[2])) continue;
    seen.add(m[2]);
    out.push({ type: m[1] ?? null, path: m[2], mtime: m[3], description: m[4] ?? null });
  }
  return out;
}

/** The text after the last line-initial `Query: `, up to the first blank line ("" if none). */
function extractQuery(text) {
  const re = /(?:^|\n)Query: /g;
  let start = -1;
  for (let m = re.exec(text); m; m = re.exec(text)) start = m.index + m[0].length;
  if (start < 0) return "";
  const rest = text.slice(start);
  const blank = /\r?\n[ \t]*\r?\n/.exec(rest);
  return (blank ? rest.slice(0, blank.index) : rest).trim();
}

/** The default choice: manifest paths whose path or description shares a word with the query, ≤ 5. */
export function selectMemories(promptText) {
  const query = wordsOf(extractQuery(promptText));
  if (query.size === 0) return [];
  const picked = [];
  for (const entry of parseManifest(promptText)) {
    const words = wordsOf(`${entry.path} ${entry.description ?? ""}`);
    if ([...words].some((w) => query.has(w))) picked.push(entry.path);
    if (picked.length === 5) break;
  }
  return picked;
}

/** The mock's tokenizer: ceil(chars / 4), chars counted as JavaScript string length. */
function estimateTokens(chars) {
  return Math.ceil((typeof chars === "number" ? chars : String(chars).length) / 4);
}

const answerJson = (selected) => JSON.stringify({ selected_memories: selected });

/**
 * Simulated generation under a token limit. `reasoning` tokens are spent first. When
 * reasoning + answer tokens exceed `limit`, the text is cut to a strict prefix of the answer (at
 * least one token of text, so it is truncated mid-JSON) and the output count equals `limit`.
 */
function generate(answer, limit, reasoning = 0) {
  const need = reasoning + estimateTokens(answer);
  if (limit == null || need <= limit) return { text: answer, reasoning, output: need, truncated: false };
  const spent = Math.min(reasoning, Math.max(0, limit - 1));
  const cut = Math.max(0, Math.min(answer.length - 1, (limit - spent) * 4));
  return { text: answer.slice(0, cut), reasoning: spent, output: limit, truncated: true };
}

const halfCut = (answer) => answer.slice(0, Math.max(1, Math.floor(answer.length / 2)));

// ---------------------------------------------------------------------------------------------
// Scripted outcomes

const KINDS = Object.freeze([
  "rate_limit", "rate_limit_spend_cap", "overloaded", "server_error", "server_error_no_retry",
  "unavailable", "text", "thinking_then_text", "refusal", "max_tokens",
  "invalid_json", "fenced_json", "prose_json", "tool_use",
]);
const ERROR_KINDS = new Set(KINDS.slice(0, 6));

function checkOutcome(o, i) {
  const where = `outcome ${i}`;
  if (o === null || typeof o !== "object" || Array.isArray(o)) throw new TypeError(`${where}: must be an object`);
  const known = ["status", "headers", "body", "delayMs", "hang", "drop", "endless", "echo", "kind", "text", "selected", "calls"];
  for (const k of Object.keys(o)) if (!known.includes(k)) throw new TypeError(`${where}: unknown field ${k}`);
  if (o.kind !== undefined && !KINDS.includes(o.kind)) throw new TypeError(`${where}: unknown kind ${o.kind}`);
  if (o.status !== undefined && !(Number.isInteger(o.status) && o.status >= 100 && o.status <= 599))
    throw new TypeError(`${where}: status must be an HTTP status code`);
  if (o.headers !== undefined && (o.headers === null || typeof o.headers !== "object"))
    throw new TypeError(`${where}: headers must be an object`);
  if (o.delayMs !== undefined && !(typeof o.delayMs === "number" && o.delayMs >= 0))
    throw new TypeError(`${where}: delayMs must be a non-negative number`);
  if (o.text !== undefined && typeof o.text !== "string") throw new TypeError(`${where}: text must be a string`);
  if (o.echo !== undefined && typeof o.echo !== "boolean") throw new TypeError(`${where}: echo must be a boolean`);
  if (o.selected !== undefined && !(Array.isArray(o.selected) && o.selected.every((s) => typeof s === "string")))
    throw new TypeError(`${where}: selected must be an array of strings`);
  return structuredClone(o);
}

/** A scripted body with `{{headers}}`, `{{url}}`, `{{header:NAME}}`, `{{header-uri:NAME}}` filled from the request. */
function echoed(value, req) {
  if (typeof value === "string")
    return value.replace(/\{\{(headers|url|header:[\w-]+|header-uri:[\w-]+)\}\}/g, (_, what) => {
      if (what === "headers") return JSON.stringify(req.headers);
      if (what === "url") return req.url;
      const [kind, name] = what.split(":");
      const header = String(req.headers[name.toLowerCase()] ?? "");
      return kind === "header-uri" ? encodeURIComponent(header) : header;
    });
  if (Array.isArray(value)) return value.map((v) => echoed(v, req));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echoed(v, req)]));
  return value;
}

/**
 * What the model answers when nothing is scripted: the selection — or, for memdir's other side
 * queries, told apart by the answer their instructions ask for, nothing to save
 * (`{"operations": []}`) or nothing to consolidate.
 */
export function defaultAnswer(promptText, selected) {
  if (/\{"operations": \[/.test(promptText)) return JSON.stringify({ operations: [] });
  if (/\{"merges": \[/.test(promptText)) return JSON.stringify({ merges: [], supersessions: [], removals: [], index: [] });
  return answerJson(selected);
}

/** The answer text a success kind is built from. */
function scriptedAnswer(outcome, fallbackSelected, promptText = "") {
  const base = outcome.text ?? (outcome.selected ? answerJson(outcome.selected) : defaultAnswer(promptText, fallbackSelected));
  switch (outcome.kind) {
    case "fenced_json":
      return "```json\n" + base + "\n```";
    case "prose_json":
      return `Here are the memories that will help:\n${base}\nLet me know if you need anything else.`;
    case "invalid_json":
      return outcome.text ?? `{"selected_memories": ${JSON.stringify(outcome.selected ?? fallbackSelected).slice(0, -1)},`;
    default:
      return base;
  }
}

const THINKING_TEXT = "Looking for manifest entries that share words with the query.";
const REFUSAL_TEXT = "I'm sorry, but I can't help with that request.";
const signatureOf = (text) => "EqQB" + createHash("sha256").update(text).digest("base64");

// ---------------------------------------------------------------------------------------------
// Anthropic tables

const ANTHROPIC_MODELS = {
  "claude-sonnet-5-5": { rules: "sonnet-5-5", gen5: true, cacheMin: 512 },
  "claude-haiku-5-5": { rules: "haiku-5-5", gen5: true, cacheMin: 512 },
  "claude-opus-5-5": { rules: "opus-5-5", gen5: true, cacheMin: 512 },
  "claude-sonnet-5": { rules: "sonnet-5", gen5: true, cacheMin: 1024 },
  "claude-sonnet-4-6": { rules: "sonnet-4-6", gen5: false, cacheMin: 1024 },
  "claude-sonnet-4-5": { rules: "4-5", gen5: false, cacheMin: 1024 },
  "claude-sonnet-4-5-20250929": { rules: "4-5", gen5: false, cacheMin: 1024 },
  "claude-haiku-4-5": { rules: "4-5", gen5: false, cacheMin: 4096 },
  "claude-haiku-4-5-20251001": { rules: "4-5", gen5: false, cacheMin: 4096 },
};

const ANTHROPIC_FIELDS = new Set([
  "model", "max_tokens", "messages", "system", "metadata", "stop_sequences", "stream", "temperature",
  "top_p", "top_k", "thinking", "tools", "tool_choice", "output_config",
  "service_tier", "container", "mcp_servers", "context_management", "inference_geo",
]);
/** The API versions the mock serves: the classic one, and the one SDK 1.x sends. */
const API_2026_10_21 = "2026-10-21";
const ANTHROPIC_VERSIONS = ["2023-06-01", API_2026_10_21];
/** Removed in 2026-10-21: a request that sends any of them is refused, even at a default value. */
const SAMPLING = ["temperature", "top_p", "top_k"];
/** The beta that lets a request carry `thread` (SDK 1.x's tool runner sends it). */
const MESSAGE_THREADS_BETA = "message-threads-2026-08-12";
/** Request fields a thread cannot carry: a request with one gets `thread_unsupported_request`. */
const THREAD_UNSUPPORTED = ["cache_control", "context_management", "thinking"];
const THINKING_TYPES = ["enabled", "disabled", "adaptive", "between_tools"];
const EFFORTS = ["low", "medium", "high", "xhigh", "max"];
const SIMULATED_THINKING_TOKENS = 300;
const SCRIPTED_THINKING_TOKENS = 52;

/** Whether the model thinks up front with this `thinking` setting. */
function anthropicThinks(spec, thinking) {
  const t = thinking?.type;
  switch (spec.rules) {
    case "sonnet-5-5":
      return t !== "between_tools";
    case "haiku-5-5":
    case "sonnet-5":
      return t !== "disabled";
    case "opus-5-5":
      return t !== "disabled" && t !== "between_tools";
    default:
      return t === "enabled" || t === "adaptive";
  }
}

/** The first rule of Anthropic's structured-output schema subset that `schema` breaks, or null. */
function anthropicSchemaError(schema, prefix) {
  const fail = (m) => `${prefix}: ${m}`;
  const typesOf = (node) => (Array.isArray(node.type) ? node.type : node.type ? [node.type] : []);
  const walk = (node) => {
    if (node === null || typeof node !== "object") return null;
    if (Array.isArray(node)) {
      for (const n of node) {
        const e = walk(n);
        if (e) return e;
      }
      return null;
    }
    const types = typesOf(node);
    if (types.includes("object") || (node.properties && !types.length)) {
      if (node.additionalProperties === true)
        return fail("For 'object' type, 'additionalProperties: true' is not supported. Please set 'additionalProperties' to false");
      if (node.additionalProperties !== false)
        return fail("For 'object' type, 'additionalProperties' must be explicitly set to false");
    }
    if ("maxItems" in node) return fail("For 'array' type, property 'maxItems' is not supported");
    if ("minItems" in node && node.minItems !== 0 && node.minItems !== 1)
      return fail("For 'array' type, 'minItems' values other than 0 or 1 are not supported");
    for (const k of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
      if (k in node) return fail(`For '${types.find((t) => t === "integer") ?? "number"}' type, property '${k}' is not supported`);
    }
    for (const k of ["minLength", "maxLength"]) {
      if (k in node) return fail(`For 'string' type, property '${k}' is not supported`);
    }
    for (const k of ["properties", "$defs", "definitions", "patternProperties"]) {
      if (node[k] && typeof node[k] === "object") {
        const e = walk(Object.values(node[k]));
        if (e) return e;
      }
    }
    for (const k of ["items", "prefixItems", "anyOf", "allOf", "oneOf", "not", "additionalProperties"]) {
      if (node[k] && typeof node[k] === "object") {
        const e = walk(node[k]);
        if (e) return e;
      }
    }
    return null;
  };
  return walk(schema);
}

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible tables

const FLAVOURS = ["openai", "ollama", "llamacpp", "lmstudio", "vllm"];
const OPENAI_FIELDS = new Set([
  "model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "n", "stop",
  "stream", "stream_options", "presence_penalty", "frequency_penalty", "logit_bias", "logprobs",
  "top_logprobs", "user", "seed", "tools", "tool_choice", "parallel_tool_calls", "response_format",
  "reasoning_effort", "service_tier", "store", "metadata", "modalities", "audio", "prediction",
  "web_search_options", "verbosity", "prompt_cache_key", "safety_identifier", "functions", "function_call",
]);

/** The first OpenAI strict-mode rule `schema` breaks, or null. */
function openaiStrictError(schema, name) {
  const head = `Invalid schema for response_format '${name}': `;
  if (!schema || typeof schema !== "object" || schema.type !== "object" || schema.anyOf)
    return `${head}schema must be a JSON Schema of 'type: "object"', got 'type: "${schema?.type ?? "None"}'.`;
  const walk = (node, ctx) => {
    if (node === null || typeof node !== "object") return null;
    const where = `In context=(${ctx.map((c) => `'${c}'`).join(", ")}), `;
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes("object")) {
      if (node.additionalProperties !== false)
        return `${head}${where}'additionalProperties' is required to be supplied and to be false.`;
      const keys = Object.keys(node.properties ?? {});
      const required = Array.isArray(node.required) ? node.required : [];
      const missing = keys.find((k) => !required.includes(k));
      if (missing !== undefined)
        return `${head}${where}'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
      for (const k of keys) {
        const e = walk(node.properties[k], [...ctx, "properties", k]);
        if (e) return e;
      }
    }
    if (node.items) {
      const e = walk(node.items, [...ctx, "items"]);
      if (e) return e;
    }
    for (const k of ["anyOf", "$defs", "definitions"]) {
      if (node[k] && typeof node[k] === "object") {
        for (const [key, sub] of Object.entries(node[k])) {
          const e = walk(sub, [...ctx, k, key]);
          if (e) return e;
        }
      }
    }
    return null;
  };
  return walk(schema, []);
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const present = (v) => v !== undefined && v !== null;
const base62 = (n) => {
  const abc = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return [...randomBytes(n)].map((b) => abc[b % 62]).join("");
};
const sha256 = (s) => createHash("sha256").update(s).digest("hex");

/** Text of a message `content` (string or blocks; only text blocks count). */
function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .filter((b) => isObject(b) && (b.type === "text" || b.type === undefined) && typeof b.text === "string")
      .map((b) => b.text)
      .join("\n");
  }
  return "";
}

function parseJson(raw) {
  if (raw === "") return { ok: false, value: raw, error: "empty body" };
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return { ok: false, value: raw, error: error.message };
  }
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    let done = false;
    const finish = (v) => {
      if (!done) {
        done = true;
        resolve(v);
      }
    };
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => finish(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => finish(null));
    req.on("close", () => finish(null));
  });
}

/** Wait `ms`, or resolve false early if the client goes away. */
function waitOrAbort(ms, res) {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve(false);
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off("close", onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once("close", onClose);
  });
}

const EXPOSE = "request-id, retry-after, retry-after-ms, x-request-id, x-should-retry";
const ALLOW_HEADERS =
  "x-api-key, anthropic-version, anthropic-beta, anthropic-dangerous-direct-browser-access, content-type, authorization";

// ---------------------------------------------------------------------------------------------

/**
 * Start the mock on a free port.
 * @param {{apiKey?: string, openaiKey?: string, host?: string}} [options]
 */
export async function startMockProviders(options = {}) {
  const { apiKey = "sk-ant-test", openaiKey = "sk-openai-test", host = "127.0.0.1" } = options;
  const now = Date.now;

  let queue = [];
  let log = [];
  const anthropicCache = new Set(); // keys of the cached prompt prefixes
  const threads = new Map(); // response id -> {model, system, tools, messages, continued}
  const sockets = new Set();
  let seq = 0;

  // ---- Anthropic -----------------------------------------------------------------------------

  const requestId = () => `req_011C${base62(20)}`;

  const anthropicHeaders = (id) => ({ "request-id": id, "content-type": "application/json" });

  function anthropicError(status, type, message, extra = {}) {
    const id = requestId();
    const error = { type, message, ...extra };
    return { status, headers: anthropicHeaders(id), body: { type: "error", error, request_id: id } };
  }

  /** Blocks of the prompt, in cache-prefix order (system, then messages), with breakpoints. */
  function anthropicBlocks(body) {
    const blocks = [];
    const sys = body.system;
    if (typeof sys === "string") blocks.push({ role: "system", text: sys, cc: null });
    else if (Array.isArray(sys)) for (const b of sys) blocks.push({ role: "system", text: b.text ?? "", cc: b.cache_control ?? null });
    for (const m of body.messages) {
      if (typeof m.content === "string") blocks.push({ role: m.role, text: m.content, cc: null });
      else
        for (const b of m.content) {
          blocks.push({ role: m.role, text: typeof b.text === "string" ? b.text : "", cc: b.cache_control ?? null });
        }
    }
    return blocks;
  }

  /** Authentication and the API version: the checks made before the body is read. */
  function anthropicHeaderError(headers) {
    const E = (status, type, message) => anthropicError(status, type, message);
    if (headers.origin !== undefined && String(headers["anthropic-dangerous-direct-browser-access"]).toLowerCase() !== "true")
      return E(401, "authentication_error", "CORS requests must set 'anthropic-dangerous-direct-browser-access' header");
    const key = headers["x-api-key"];
    const auth = headers.authorization;
    if (key !== apiKey && auth !== `Bearer ${apiKey}`) {
      if (key !== undefined) return E(401, "authentication_error", "invalid x-api-key");
      if (auth !== undefined) return E(401, "authentication_error", "Invalid bearer token");
      return E(401, "authentication_error", "x-api-key header is required");
    }
    const version = headers["anthropic-version"];
    if (version === undefined) return E(400, "invalid_request_error", "anthropic-version: header is required");
    if (!ANTHROPIC_VERSIONS.includes(version)) return E(400, "invalid_request_error", `anthropic-version: invalid version '${version}'`);
    return null;
  }

  function validateAnthropic(headers, parsed) {
    const E = (status, type, message) => anthropicError(status, type, message);
    const invalid = (m) => E(400, "invalid_request_error", m);
    const headerError = anthropicHeaderError(headers);
    if (headerError) return headerError;
    // 2026-10-21 (SDK 1.x): no sampling parameters, system messages in `messages`
    const current = headers["anthropic-version"] === API_2026_10_21;
    if (!parsed.ok) return invalid(`There was an error parsing the body of your request: ${parsed.error}`);
    const body = parsed.value;
    if (!isObject(body)) return invalid("Input should be a valid dictionary or object");
    for (const k of Object.keys(body)) {
      if (!ANTHROPIC_FIELDS.has(k) || (current && SAMPLING.includes(k))) return invalid(`${k}: Extra inputs are not permitted`);
    }
    if (typeof body.model !== "string" || body.model === "") return invalid("model: Field required");
    if (body.max_tokens === undefined) return invalid("max_tokens: Field required");
    if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1)
      return invalid("max_tokens: Input should be a positive integer");
    if (!Array.isArray(body.messages)) return invalid("messages: Field required");
    if (body.messages.length === 0) return invalid("messages: at least one message is required");
    const roles = current ? ["user", "assistant", "system"] : ["user", "assistant"];
    for (const [i, m] of body.messages.entries()) {
      if (!isObject(m)) return invalid(`messages.${i}: Input should be a valid dictionary`);
      if (!roles.includes(m.role)) return invalid(`messages.${i}.role: Input should be ${roles.map((r) => `'${r}'`).join(", ").replace(/, ([^,]*)$/, " or $1")}`);
      if (m.role === "system") {
        if (m.content !== undefined && typeof m.content !== "string" && !Array.isArray(m.content)) return invalid(`messages.${i}.content: Input should be a valid string or list`);
        continue;
      }
      if (typeof m.content !== "string" && !Array.isArray(m.content)) return invalid(`messages.${i}.content: Field required`);
      if (Array.isArray(m.content) && !m.content.every((b) => isObject(b) && typeof b.type === "string"))
        return invalid(`messages.${i}.content: every content block needs a type`);
      const finalAssistant = i === body.messages.length - 1 && m.role === "assistant";
      const empty = contentText(m.content) === "" && !(Array.isArray(m.content) && m.content.some((b) => b.type !== "text"));
      if (empty && !finalAssistant)
        return invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    }
    const sys = body.system;
    if (sys !== undefined && typeof sys !== "string") {
      if (!Array.isArray(sys) || !sys.every((b) => isObject(b) && b.type === "text" && typeof b.text === "string"))
        return invalid("system: Input should be a valid string or a list of text blocks");
      if (sys.some((b) => b.text === "")) return invalid("system: text content blocks must be non-empty");
    }
    const spec = ANTHROPIC_MODELS[body.model];
    const gen55 = spec?.rules === "sonnet-5-5" || spec?.rules === "haiku-5-5";
    // tools: the memory tool's definition, and every tool_use answered right after (providers.md §4)
    if (body.tools !== undefined) {
      if (!Array.isArray(body.tools)) return invalid("tools: Input should be a valid list");
      for (const [i, t] of body.tools.entries()) {
        if (!isObject(t)) return invalid(`tools.${i}: Input should be a valid dictionary`);
        if (t.type === "memory_20250818" && t.name !== "memory") return invalid(`tools.${i}.name: Input should be 'memory'`);
      }
    }
    for (const [i, m] of body.messages.entries()) {
      if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
      const ids = m.content.filter((b) => b.type === "tool_use").map((b) => b.id);
      if (ids.length === 0) continue;
      const next = body.messages[i + 1];
      const answered = new Set(Array.isArray(next?.content) ? next.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id) : []);
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length)
        return invalid(`messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
      for (const b of next.content.filter((b) => b.type === "tool_result")) {
        if (b.is_error !== undefined && typeof b.is_error !== "boolean") return invalid(`messages.${i + 1}.content: tool_result.is_error: Input should be a valid boolean`);
        if (b.content !== undefined && typeof b.content !== "string" && !Array.isArray(b.content)) return invalid(`messages.${i + 1}.content: tool_result.content: Input should be a valid string or list`);
      }
    }
    if (body.messages.filter((m) => m.role !== "system").at(-1)?.role !== "user") {
      return invalid(
        gen55
          ? "This model does not support assistant message prefill. The conversation must end with a user message."
          : "messages: the final message must have role 'user'",
      );
    }
    if (!spec) return E(404, "not_found_error", `model: ${body.model}`);
    if (body.stream === true) return invalid("stream: the mock does not implement streaming; send stream:false or omit it");

    const thinking = body.thinking;
    if (thinking !== undefined) {
      if (!isObject(thinking) || !THINKING_TYPES.includes(thinking.type))
        return invalid(`thinking.type: Input should be ${THINKING_TYPES.map((t) => `'${t}'`).join(", ")}`);
      if (thinking.type === "enabled" && !Number.isInteger(thinking.budget_tokens))
        return invalid("thinking.enabled.budget_tokens: Field required");
    }
    const oc = body.output_config;
    if (oc !== undefined && oc !== null && !isObject(oc)) return invalid("output_config: Input should be an object");
    const effort = oc?.effort ?? null;
    if (effort !== null && !EFFORTS.includes(effort))
      return invalid(`output_config.effort: Input should be ${EFFORTS.map((e) => `'${e}'`).join(", ")}`);
    const format = present(oc?.format) ? oc.format : null;
    if (format) {
      if (!isObject(format) || format.type !== "json_schema") return invalid("output_config.format.type: Input should be 'json_schema'");
      if (!isObject(format.schema)) return invalid("output_config.format.schema: Field required");
    }

    // Per-model rules: providers.md §6.2.
    const tType = thinking?.type;
    const sampling = ["temperature", "top_p", "top_k"].find((k) => present(body[k]));
    switch (spec.rules) {
      case "sonnet-5-5":
        if (tType === "disabled") return invalid("thinking.type: 'disabled' is not supported for this model; use 'between_tools'");
        if (tType === "enabled")
          return invalid("thinking.type: 'enabled' (thinking budgets) is not supported for this model; use 'adaptive' or 'between_tools'");
        if (sampling) return invalid(`${sampling}: sampling parameters (temperature, top_p, top_k) are not supported for this model`);
        if (isObject(body.tool_choice) && (body.tool_choice.type === "any" || body.tool_choice.type === "tool"))
          return invalid(`tool_choice.type: '${body.tool_choice.type}' (forced tool use) is not supported for this model`);
        if (tType === "between_tools" && (effort === "xhigh" || effort === "max"))
          return invalid(`output_config.effort: '${effort}' is not supported with thinking type 'between_tools'; use 'low', 'medium' or 'high'`);
        break;
      case "haiku-5-5":
        if (tType === "enabled")
          return invalid("thinking.type: 'enabled' (thinking budgets) is not supported for this model; use 'adaptive' or 'disabled'");
        if (sampling) return invalid(`${sampling}: sampling parameters (temperature, top_p, top_k) are not supported for this model`);
        if (tType === "disabled" && (effort === "xhigh" || effort === "max"))
          return invalid(`output_config.effort: '${effort}' is not supported with thinking type 'disabled'; use 'low', 'medium' or 'high'`);
        break;
      case "sonnet-5":
        if (tType === "enabled")
          return invalid("thinking.type: 'enabled' (thinking budgets) is not supported for this model; use 'adaptive' or 'disabled'");
        if (sampling) return invalid(`${sampling}: sampling parameters (temperature, top_p, top_k) are not supported for this model`);
        break;
      case "4-5":
        if (effort !== null) return invalid("output_config.effort: effort is not supported for this model");
        if (present(body.temperature) && present(body.top_p))
          return invalid("`temperature` and `top_p` cannot both be specified for this model. Please use only one.");
        break;
      default:
        break;
    }

    if (format) {
      const e = anthropicSchemaError(format.schema, "output_config.format.schema");
      if (e) return invalid(e);
    }

    // cache_control on blocks: at most 4 breakpoints, each {type: "ephemeral"} (memdir sets no ttl).
    const marks = anthropicBlocks(body).filter((b) => b.cc).map((b) => b.cc);
    for (const cc of marks) {
      if (!isObject(cc) || cc.type !== "ephemeral" || cc.ttl !== undefined) return invalid("cache_control: the mock takes {type: 'ephemeral'} only (it does not simulate ttl)");
    }
    if (marks.length > 4) return invalid(`A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`);
    return null;
  }

  /**
   * Cache simulation (providers.md §6.2): counters for this request, updating the cache. Entries
   * do not expire (a test runs well inside the 5-minute TTL); reset() clears them.
   */
  function anthropicCacheUsage(body, spec, totalTokens) {
    const blocks = anthropicBlocks(body);
    const breakpoints = [];
    blocks.forEach((b, i) => b.cc && breakpoints.push(i));
    if (!breakpoints.length) return { read: 0, written: 0 };
    const prefixChars = [];
    const prefixKeys = [];
    let chars = 0;
    let acc = `${body.model}\u0000`;
    for (const b of blocks) {
      chars += b.text.length;
      acc += `${b.role}\u0001${b.text}\u0002`;
      prefixChars.push(chars);
      prefixKeys.push(sha256(acc));
    }
    const tokensAt = (i) => Math.min(totalTokens, estimateTokens(prefixChars[i]));
    // Longest cached prefix at any block boundary up to the last breakpoint (lookback).
    let hit = -1;
    for (let i = Math.max(...breakpoints); i >= 0; i--) {
      if (anthropicCache.has(prefixKeys[i])) {
        hit = i;
        break;
      }
    }
    const read = hit >= 0 ? tokensAt(hit) : 0;
    let covered = read;
    for (const index of breakpoints) {
      if (index <= hit) continue;
      const tokens = tokensAt(index);
      if (tokens < spec.cacheMin) continue; // silently not cached
      anthropicCache.add(prefixKeys[index]);
      covered = Math.max(covered, tokens);
    }
    return { read, written: covered - read };
  }

  function anthropicMessage(body, content, stopReason, outputTokens, thinkingTokens, stopDetails = null) {
    const spec = ANTHROPIC_MODELS[body.model];
    const texts = anthropicBlocks(body).map((b) => b.text);
    const total = estimateTokens(texts.reduce((n, s) => n + s.length, 0));
    const cache = anthropicCacheUsage(body, spec, total);
    const created = cache.written;
    const id = requestId();
    return {
      status: 200,
      headers: anthropicHeaders(id),
      body: {
        id: `msg_01${base62(22)}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        stop_details: stopDetails,
        container: null,
        usage: {
          input_tokens: total - cache.read - created,
          cache_creation_input_tokens: created,
          cache_read_input_tokens: cache.read,
          cache_creation: { ephemeral_5m_input_tokens: created, ephemeral_1h_input_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { thinking_tokens: thinkingTokens },
          service_tier: "standard",
        },
      },
    };
  }

  /**
   * Message threads (the `message-threads-2026-08-12` beta, which SDK 1.x's tool runner uses):
   * `thread: {type: "create"}` is a full request whose conversation the server then holds under
   * the response's `id`; `thread: {type: "continue", previous_message_id}` sends only the new
   * messages, and no `system` or `tools` (the thread keeps its own). Returns the request as a
   * full one, or the error the API gives. Each response can be continued once.
   */
  function resolveThread(headers, body) {
    const invalid = (m, details) => anthropicError(400, "invalid_request_error", m, details ? { details } : {});
    const betas = String(headers["anthropic-beta"] ?? "").split(",").map((b) => b.trim());
    if (!betas.includes(MESSAGE_THREADS_BETA))
      return { error: invalid(`thread: requires the anthropic-beta header '${MESSAGE_THREADS_BETA}'`) };
    const { thread, ...rest } = body;
    if (!isObject(thread) || (thread.type !== "create" && thread.type !== "continue"))
      return { error: invalid("thread.type: Input should be 'create' or 'continue'") };
    const unsupported = THREAD_UNSUPPORTED.filter((field) =>
      field === "cache_control" ? JSON.stringify(rest).includes('"cache_control":{') : present(rest[field]),
    );
    if (unsupported.length)
      return {
        error: invalid(`thread: Threads do not support ${unsupported.join(", ")}; send the full conversation without \`thread\``, {
          error_code: "thread_unsupported_request",
          unsupported,
        }),
      };
    if (thread.type === "create") return { body: rest, thread: { previous: null } };
    if (typeof thread.previous_message_id !== "string") return { error: invalid("thread.continue.previous_message_id: Field required") };
    for (const field of ["system", "tools"])
      if (present(rest[field])) return { error: invalid(`${field}: a thread continue cannot set \`${field}\`; the thread keeps the one it was created with`) };
    const held = threads.get(thread.previous_message_id);
    if (!held)
      return {
        error: anthropicError(404, "not_found_error", `thread: no thread state for previous_message_id '${thread.previous_message_id}'`, {
          details: { error_code: "thread_not_found" },
        }),
      };
    if (held.continued)
      return { error: invalid(`thread: '${thread.previous_message_id}' was already continued; continue from the thread's latest response`, { error_code: "thread_already_continued" }) };
    if (rest.model !== held.model)
      return { error: invalid(`thread: model differs from the value stored with the thread ('${held.model}')`, { error_code: "thread_fingerprint_mismatch" }) };
    if (!Array.isArray(rest.messages)) return { error: invalid("messages: Field required") };
    const full = { ...rest, messages: [...held.messages, ...rest.messages] };
    if (held.system !== undefined) full.system = held.system;
    if (held.tools !== undefined) full.tools = held.tools;
    return { body: full, thread: { previous: thread.previous_message_id } };
  }

  function anthropicRoute(ctx) {
    const { headers, outcome } = ctx;
    let { parsed } = ctx;
    const headerError = anthropicHeaderError(headers);
    if (headerError) return { ...headerError, rejected: true };
    let thread = null;
    if (parsed.ok && isObject(parsed.value) && present(parsed.value.thread)) {
      const resolved = resolveThread(headers, parsed.value);
      if (resolved.error) return { ...resolved.error, rejected: true };
      thread = resolved.thread;
      parsed = { ok: true, value: resolved.body };
    }
    const r = anthropicAnswer(headers, parsed, outcome);
    if (thread && !r.rejected && r.status === 200 && r.body?.type === "message") {
      const body = parsed.value;
      if (thread.previous) threads.get(thread.previous).continued = true;
      threads.set(r.body.id, {
        model: body.model,
        system: body.system,
        tools: body.tools,
        messages: [...body.messages, { role: "assistant", content: r.body.content }],
        continued: false,
      });
    }
    return r;
  }

  function anthropicAnswer(headers, parsed, outcome) {
    const failure = validateAnthropic(headers, parsed);
    if (failure) return { ...failure, rejected: true };
    const body = parsed.value;
    const spec = ANTHROPIC_MODELS[body.model];
    const prompt = anthropicBlocks(body).map((b) => b.text).join("\n\n");
    const selected = selectMemories(prompt);
    const thinkingBlock = () => ({ type: "thinking", thinking: THINKING_TEXT, signature: signatureOf(THINKING_TEXT) });
    const kind = outcome?.kind;
    if (kind && ERROR_KINDS.has(kind)) {
      switch (kind) {
        case "rate_limit": {
          const r = anthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit");
          Object.assign(r.headers, { "retry-after": "1", "retry-after-ms": "50" });
          return r;
        }
        case "rate_limit_spend_cap":
          return anthropicError(429, "rate_limit_error", "You have reached your specified workspace API usage limits. You will regain access on the first of next month.", {
            details: { error_code: "enforced_spend_limit_reached" },
          });
        case "overloaded":
          return anthropicError(529, "overloaded_error", "Overloaded");
        case "server_error":
          return anthropicError(500, "api_error", "Internal server error");
        case "server_error_no_retry": {
          const r = anthropicError(500, "api_error", "Internal server error");
          r.headers["x-should-retry"] = "false";
          return r;
        }
        case "unavailable":
          return anthropicError(503, "api_error", "Service unavailable");
      }
    }
    if (kind === "refusal") {
      return anthropicMessage(body, [], "refusal", 0, 0, { type: "refusal", category: "cyber", explanation: null });
    }
    if (kind === "tool_use") {
      // { kind: "tool_use", text?, calls: [{ name, input }] }: the model asks for tools
      const content = outcome.text ? [{ type: "text", text: outcome.text }] : [];
      for (const call of outcome.calls ?? []) content.push({ type: "tool_use", id: `toolu_01${base62(22)}`, name: call.name, input: call.input });
      return anthropicMessage(body, content, "tool_use", 20 * content.length, 0);
    }
    if (kind === "max_tokens") {
      const text = halfCut(scriptedAnswer(outcome, selected, prompt));
      return anthropicMessage(body, [{ type: "text", text }], "max_tokens", body.max_tokens, 0);
    }
    if (kind === "thinking_then_text") {
      const text = scriptedAnswer(outcome, selected, prompt);
      const out = SCRIPTED_THINKING_TOKENS + estimateTokens(text);
      return anthropicMessage(body, [thinkingBlock(), { type: "text", text }], "end_turn", out, SCRIPTED_THINKING_TOKENS);
    }
    if (kind) {
      const text = scriptedAnswer(outcome, selected, prompt);
      return anthropicMessage(body, [{ type: "text", text }], "end_turn", estimateTokens(text), 0);
    }
    // Default: deterministic selection, with simulated up-front thinking where it is on.
    const thinks = anthropicThinks(spec, body.thinking);
    let reasoning = thinks ? SIMULATED_THINKING_TOKENS : 0;
    if (thinks && body.thinking?.type === "enabled") reasoning = Math.min(reasoning, body.thinking.budget_tokens);
    const g = generate(defaultAnswer(prompt, selected), body.max_tokens, reasoning);
    const content = thinks ? [thinkingBlock(), { type: "text", text: g.text }] : [{ type: "text", text: g.text }];
    return anthropicMessage(body, content, g.truncated ? "max_tokens" : "end_turn", g.output, g.reasoning);
  }

  // ---- OpenAI-compatible -----------------------------------------------------------------------

  function openaiError(flavour, status, message, { type = "invalid_request_error", param = null, code = null } = {}) {
    const headers = { "content-type": "application/json" };
    let body;
    switch (flavour) {
      case "llamacpp":
        body = { error: { code: status, message, type } };
        break;
      case "vllm":
        body = { error: { message, type: status >= 500 ? "InternalServerError" : "BadRequestError", param: null, code: status } };
        break;
      case "ollama":
        body = { error: { message, type, param: null, code: null } };
        break;
      default:
        body = { error: { message, type, param, code } };
        headers["x-request-id"] = `req_${randomBytes(16).toString("hex")}`;
    }
    return { status, headers, body };
  }

  function validateOpenai(flavour, headers, parsed) {
    const bad = (message, extra = {}) => openaiError(flavour, 400, message, extra);
    const auth = headers.authorization;
    const authFailure = () =>
      flavour === "llamacpp"
        ? openaiError(flavour, 401, "Invalid API Key", { type: "authentication_error" })
        : openaiError(flavour, 401, "Incorrect API key provided", { code: "invalid_api_key" });
    if (flavour === "openai" && auth !== `Bearer ${openaiKey}`) return authFailure();
    if (["llamacpp", "lmstudio", "vllm"].includes(flavour) && auth !== undefined && auth !== `Bearer ${openaiKey}`) return authFailure();
    if (!parsed.ok)
      return bad("We could not parse the JSON body of your request. The API expects a JSON payload, but what was sent was not valid JSON.");
    const body = parsed.value;
    if (!isObject(body)) return bad("The request body must be a JSON object.");
    if (flavour === "openai") {
      for (const k of Object.keys(body)) if (!OPENAI_FIELDS.has(k)) return bad(`Unrecognized request argument supplied: ${k}`);
    }
    if (typeof body.model !== "string" || body.model === "") return bad("you must provide a model parameter", { param: "model" });
    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return bad("[] is too short - 'messages'", { param: "messages" });
    for (const [i, m] of body.messages.entries()) {
      if (!isObject(m) || typeof m.role !== "string")
        return bad(`Missing required parameter: 'messages[${i}].role'.`, { param: `messages[${i}].role`, code: "missing_required_parameter" });
    }
    if (body.model.startsWith("missing")) {
      if (flavour === "ollama")
        return openaiError(flavour, 404, `model "${body.model}" not found, try pulling it first`, { type: "not_found_error" });
      return openaiError(flavour, 404, `The model \`${body.model}\` does not exist or you do not have access to it.`, { code: "model_not_found" });
    }
    if (body.stream === true) return bad("stream: the mock does not implement streaming; send stream:false or omit it", { param: "stream" });
    for (const k of ["max_tokens", "max_completion_tokens"]) {
      if (present(body[k]) && !(Number.isInteger(body[k]) && body[k] >= 1))
        return bad(`Invalid '${k}': integer below minimum value. Expected a value >= 1, but got ${JSON.stringify(body[k])} instead.`, {
          param: k,
          code: "integer_below_min_value",
        });
    }

    // Structured output per flavour.
    const rf = body.response_format;
    if (present(rf) && !isObject(rf)) return bad("Invalid type for 'response_format': expected an object.", { param: "response_format" });
    const rfType = rf?.type;
    switch (flavour) {
      case "openai":
        if (present(rf)) {
          if (!["text", "json_object", "json_schema"].includes(rfType))
            return bad(`Invalid value: '${rfType}'. Supported values are: 'text', 'json_object', and 'json_schema'.`, { param: "response_format.type" });
          if (rfType === "json_schema") {
            const js = rf.json_schema;
            if (!isObject(js)) return bad("Missing required parameter: 'response_format.json_schema'.", { param: "response_format.json_schema" });
            if (typeof js.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(js.name))
              return bad("Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", {
                param: "response_format.json_schema.name",
              });
            if (js.strict === true) {
              const e = openaiStrictError(js.schema, js.name);
              if (e) return bad(e, { param: "response_format" });
            }
          }
        }
        break;
      case "ollama":
        if (present(rf) && !["text", "json_object", "json_schema"].includes(rfType)) return bad(`invalid response format type: ${rfType}`);
        if (present(body.reasoning_effort) && !["high", "medium", "low", "none"].includes(body.reasoning_effort))
          return bad(`invalid reasoning value: '${body.reasoning_effort}' (must be "high", "medium", "low", or "none")`);
        break;
      case "lmstudio":
        if (present(rf) && !["text", "json_schema"].includes(rfType)) return bad(`'response_format.type' must be 'json_schema' or 'text'`, { param: "response_format" });
        break;
      default: // llamacpp, vllm
        if (present(rf) && !["text", "json_object", "json_schema"].includes(rfType)) return bad(`Invalid response_format type: ${rfType}`);
    }
    return null;
  }

  function openaiLimit(flavour, body) {
    switch (flavour) {
      case "openai":
        return body.max_completion_tokens ?? body.max_tokens ?? null;
      case "ollama":
        return body.max_tokens ?? null; // Ollama has no max_completion_tokens field
      default:
        return body.max_tokens ?? body.max_completion_tokens ?? null;
    }
  }

  function openaiCompletion(flavour, body, { content, refusal = null, finish, completion, reasoning = 0 }) {
    const texts = body.messages.map((m) => contentText(m.content));
    const promptTokens = estimateTokens(texts.reduce((n, s) => n + s.length, 0));
    // Only api.openai.com has a separate refusal field; local servers just answer in prose.
    const message = { role: "assistant", content: flavour !== "openai" && refusal !== null ? refusal : content };
    const created = Math.floor(now() / 1000);
    const usage3 = { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion };
    const headers = { "content-type": "application/json" };
    const res = { id: `chatcmpl-${base62(24)}`, object: "chat.completion", created, model: body.model };
    switch (flavour) {
      case "openai": {
        Object.assign(message, { refusal, annotations: [] });
        Object.assign(res, {
          choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
          usage: {
            ...usage3,
            prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
            completion_tokens_details: { reasoning_tokens: reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
          },
          service_tier: "default",
          system_fingerprint: "fp_mock",
        });
        headers["x-request-id"] = `req_${randomBytes(16).toString("hex")}`;
        break;
      }
      case "ollama":
        res.id = `chatcmpl-${100 + (seq % 900)}`;
        Object.assign(res, {
          system_fingerprint: "fp_ollama",
          choices: [{ index: 0, message, finish_reason: finish }],
          usage: usage3,
        });
        break;
      case "llamacpp":
      case "lmstudio":
        Object.assign(res, { system_fingerprint: body.model, choices: [{ index: 0, message, logprobs: null, finish_reason: finish }], usage: usage3 });
        break;
      case "vllm":
        Object.assign(message, { refusal: null, reasoning_content: null, tool_calls: [] });
        Object.assign(res, {
          choices: [{ index: 0, message, logprobs: null, finish_reason: finish, stop_reason: null }],
          usage: { ...usage3, prompt_tokens_details: null },
          prompt_logprobs: null,
        });
        break;
    }
    return { status: 200, headers, body: res };
  }

  function openaiRoute(flavour, ctx) {
    const { headers, parsed, outcome } = ctx;
    const failure = validateOpenai(flavour, headers, parsed);
    if (failure) return { ...failure, rejected: true };
    const body = parsed.value;
    const prompt = body.messages.map((m) => contentText(m.content)).join("\n\n");
    const selected = selectMemories(prompt);
    const limit = openaiLimit(flavour, body);
    const kind = outcome?.kind;
    const E = (status, message, extra) => openaiError(flavour, status, message, extra);
    switch (kind) {
      case "rate_limit": {
        const r = E(429, "Rate limit reached for requests. Please try again in 1s.", { type: "requests", code: "rate_limit_exceeded" });
        Object.assign(r.headers, { "retry-after": "1", "retry-after-ms": "50" });
        return r;
      }
      case "rate_limit_spend_cap":
        return E(429, "You exceeded your current quota, please check your plan and billing details.", {
          type: "insufficient_quota",
          code: "insufficient_quota",
        });
      case "overloaded":
        return E(503, "The engine is currently overloaded, please try again later.", { type: "server_error" });
      case "server_error":
        return E(500, "The server had an error while processing your request. Sorry about that!", { type: "server_error" });
      case "server_error_no_retry": {
        const r = E(500, "The server had an error while processing your request. Sorry about that!", { type: "server_error" });
        r.headers["x-should-retry"] = "false";
        return r;
      }
      case "unavailable":
        if (flavour === "llamacpp") return E(503, "Loading model", { type: "unavailable_error" });
        if (flavour === "ollama") return E(503, "server busy, please try again.  maximum pending requests exceeded", { type: "api_error" });
        return E(503, "Service Unavailable", { type: "server_error" });
      case "refusal":
        return openaiCompletion(flavour, body, { content: null, refusal: REFUSAL_TEXT, finish: "stop", completion: estimateTokens(REFUSAL_TEXT) });
      case "max_tokens": {
        const text = halfCut(scriptedAnswer(outcome, selected, prompt));
        return openaiCompletion(flavour, body, { content: text, finish: "length", completion: limit ?? estimateTokens(text) });
      }
      case "thinking_then_text": {
        const answer = scriptedAnswer(outcome, selected, prompt);
        if (flavour === "openai") {
          const completion = SCRIPTED_THINKING_TOKENS + estimateTokens(answer);
          return openaiCompletion(flavour, body, { content: answer, finish: "stop", completion, reasoning: SCRIPTED_THINKING_TOKENS });
        }
        const text = `<think>\n${THINKING_TEXT}\n</think>\n\n${answer}`;
        return openaiCompletion(flavour, body, { content: text, finish: "stop", completion: estimateTokens(text) });
      }
      case undefined:
        break;
      default: {
        const text = scriptedAnswer(outcome, selected, prompt);
        return openaiCompletion(flavour, body, { content: text, finish: "stop", completion: estimateTokens(text) });
      }
    }
    const g = generate(defaultAnswer(prompt, selected), limit);
    return openaiCompletion(flavour, body, { content: g.text, finish: g.truncated ? "length" : "stop", completion: g.output });
  }

  // ---- Ollama native ------------------------------------------------------------------------

  function ollamaRoute(ctx) {
    const { parsed, outcome } = ctx;
    const err = (status, error, rejected = true) => ({
      status,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: { error },
      rejected,
    });
    if (!parsed.ok) return err(400, `invalid character looking for beginning of value: ${parsed.error}`);
    const body = parsed.value;
    if (!isObject(body)) return err(400, "json: cannot unmarshal into Go value of type api.ChatRequest");
    if (typeof body.model !== "string" || body.model === "") return err(400, "model is required");
    if (body.model.startsWith("missing")) return err(404, `model "${body.model}" not found, try pulling it first`);
    const f = body.format;
    if (present(f) && f !== "" && f !== "json" && !isObject(f)) return err(400, 'invalid format: expected "json" or a valid JSON schema');
    if (present(body.messages) && !Array.isArray(body.messages)) return err(400, "messages must be an array");
    if (present(body.options) && !isObject(body.options)) return err(400, "options must be an object");
    const messages = body.messages ?? [];
    const streaming = body.stream !== false;
    const createdAt = new Date(now()).toISOString();

    const kind = outcome?.kind;
    switch (kind) {
      case "rate_limit": {
        const r = err(429, "rate limit exceeded, please try again later", false);
        Object.assign(r.headers, { "retry-after": "1", "retry-after-ms": "50" });
        return r;
      }
      case "rate_limit_spend_cap":
        return err(429, "you have reached your usage limit", false);
      case "overloaded":
      case "unavailable":
        return err(503, "server busy, please try again.  maximum pending requests exceeded", false);
      case "server_error":
        return err(500, "llama runner process has terminated: exit status 2", false);
      case "server_error_no_retry": {
        const r = err(500, "llama runner process has terminated: exit status 2", false);
        r.headers["x-should-retry"] = "false";
        return r;
      }
    }

    const promptTokens = estimateTokens(messages.reduce((n, m) => n + contentText(m?.content).length, 0));
    const prompt = messages.map((m) => contentText(m?.content)).join("\n\n");
    const selected = selectMemories(prompt);
    const limit = Number.isInteger(body.options?.num_predict) && body.options.num_predict > 0 ? body.options.num_predict : null;
    let text;
    let doneReason = "stop";
    let evalCount;
    if (kind === "refusal") {
      text = REFUSAL_TEXT;
    } else if (kind === "max_tokens") {
      text = halfCut(scriptedAnswer(outcome, selected, prompt));
      doneReason = "length";
      evalCount = limit ?? estimateTokens(text);
    } else if (kind === "thinking_then_text") {
      text = `<think>\n${THINKING_TEXT}\n</think>\n\n${scriptedAnswer(outcome, selected, prompt)}`;
    } else if (kind) {
      text = scriptedAnswer(outcome, selected, prompt);
    } else {
      const g = generate(defaultAnswer(prompt, selected), limit);
      text = g.text;
      if (g.truncated) doneReason = "length";
      evalCount = g.output;
    }
    evalCount ??= estimateTokens(text);
    const stats = {
      total_duration: 1_000_000 + promptTokens * 100_000 + evalCount * 1_000_000 + 500_000,
      load_duration: 1_000_000,
      prompt_eval_count: promptTokens,
      prompt_eval_duration: promptTokens * 100_000,
      eval_count: evalCount,
      eval_duration: evalCount * 1_000_000,
    };
    const final = { model: body.model, created_at: createdAt, message: { role: "assistant", content: "" }, done_reason: doneReason, done: true, ...stats };
    if (!streaming) {
      final.message.content = text;
      return { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: final };
    }
    const lines = [];
    for (let i = 0; i < text.length; i += 8) {
      lines.push({ model: body.model, created_at: createdAt, message: { role: "assistant", content: text.slice(i, i + 8) }, done: false });
    }
    lines.push(final);
    return { status: 200, headers: { "content-type": "application/x-ndjson" }, body: lines.map((l) => JSON.stringify(l) + "\n").join("") };
  }

  // ---- HTTP plumbing -----------------------------------------------------------------------

  function routeOf(method, path) {
    if (method !== "POST") return null;
    if (path === "/v1/messages") return { name: "anthropic", run: anthropicRoute };
    if (path === "/api/chat") return { name: "ollama-native", run: ollamaRoute };
    if (path === "/v1/chat/completions") return { name: "openai", run: (ctx) => openaiRoute("openai", ctx) };
    const m = /^\/([a-z]+)\/v1\/chat\/completions$/.exec(path);
    if (m && FLAVOURS.includes(m[1])) return { name: m[1], run: (ctx) => openaiRoute(m[1], ctx) };
    return null;
  }

  function send(res, status, headers, body) {
    if (res.destroyed || res.writableEnded) return false;
    const h = { ...headers };
    let payload = "";
    if (body !== undefined) {
      payload = typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      if (!Object.keys(h).some((k) => k.toLowerCase() === "content-type")) h["content-type"] = "application/json";
    }
    res.writeHead(status, h);
    res.end(payload);
    return true;
  }

  function control(req, res, path, raw) {
    if (req.method === "POST" && path === "/__mock/script") {
      const parsed = parseJson(raw);
      try {
        if (!parsed.ok) throw new TypeError(`body is not JSON: ${parsed.error}`);
        const list = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
        api.script(...list);
      } catch (error) {
        return send(res, 400, {}, { error: error.message });
      }
      return send(res, 200, {}, { queued: queue.length });
    }
    if (req.method === "GET" && path === "/__mock/requests") return send(res, 200, {}, api.requests());
    if (req.method === "POST" && path === "/__mock/reset") {
      api.reset();
      return send(res, 200, {}, { ok: true });
    }
    return send(res, 404, {}, { error: `mock: no control route ${req.method} ${path}` });
  }

  async function handle(req, res) {
    const path = new URL(req.url, "http://mock").pathname;
    const origin = req.headers.origin;
    res.setHeader("access-control-allow-origin", origin ?? "*");
    res.setHeader("access-control-expose-headers", EXPOSE);
    if (origin) res.setHeader("vary", "Origin");
    if (req.method === "OPTIONS") {
      req.resume();
      // The fixed list of providers.md §6.1, plus whatever the browser asks for (the real API lets the
      // SDK's x-stainless-* headers through).
      const asked = String(req.headers["access-control-request-headers"] ?? "")
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h && !ALLOW_HEADERS.includes(h));
      return send(res, 204, {
        "access-control-allow-headers": [ALLOW_HEADERS, ...asked].join(", "),
        "access-control-allow-methods": "POST, OPTIONS",
        "access-control-max-age": "0",
      });
    }
    const raw = await readBody(req);
    if (raw === null) return; // client went away while sending
    if (path.startsWith("/__mock/")) return control(req, res, path, raw);

    const parsed = parseJson(raw);
    const route = routeOf(req.method, path);
    const entry = {
      method: req.method,
      path,
      headers: { ...req.headers },
      body: parsed.value,
      receivedAt: now(),
      route: route?.name ?? null,
      outcome: null,
      status: null,
      aborted: false,
      responseId: null,
    };
    log.push(entry);
    seq++;
    // the path and query as received, as a proxy's "no route" page quotes them
    if (!route) return (entry.status = 404), send(res, 404, {}, { error: `mock: no route for ${req.method} ${req.url}` });

    const outcome = queue.shift() ?? null;
    entry.outcome = outcome;
    res.once("close", () => {
      if (!res.writableFinished) entry.aborted = true;
    });
    if (outcome?.hang) return; // answered never; the socket is destroyed by the client or close()
    if (outcome?.delayMs > 0 && !(await waitOrAbort(outcome.delayMs, res))) return;
    if (outcome?.drop) {
      req.socket.destroy();
      return;
    }
    if (outcome?.endless) return streamJunk(res, entry);
    let r;
    const scripted = outcome?.echo ? echoed(outcome.body, req) : outcome?.body;
    if (outcome && !outcome.kind && (outcome.status !== undefined || outcome.body !== undefined)) {
      r = { status: outcome.status ?? 200, headers: outcome.headers ?? {}, body: scripted };
    } else {
      r = route.run({ headers: req.headers, parsed, outcome });
      if (outcome && !r.rejected) {
        if (outcome.status !== undefined) r.status = outcome.status;
        if (outcome.headers) r.headers = { ...r.headers, ...outcome.headers };
        if (outcome.body !== undefined) r.body = scripted;
      }
    }
    entry.responseId = isObject(r.body) && typeof r.body.id === "string" ? r.body.id : null; // a thread continues from it
    if (send(res, r.status, r.headers, r.body)) entry.status = r.status;
  }

  /**
   * A 200 whose body never ends: JSON-looking junk in 64 KiB chunks, written as fast as the
   * client reads, until it goes away (or close()). `entry.bytesSent` counts what was written.
   */
  function streamJunk(res, entry) {
    const chunk = Buffer.from('{"junk":"' + "x".repeat(64 * 1024 - 9));
    entry.status = 200;
    entry.bytesSent = 0;
    res.writeHead(200, { "content-type": "application/json" });
    const pump = () => {
      while (!res.destroyed && !res.writableEnded) {
        entry.bytesSent += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
    };
    pump();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      send(res, 500, {}, { error: `mock internal error: ${error?.stack ?? error}` });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.on("clientError", (_error, socket) => socket.destroy());

  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address();
  const hostPart = host.includes(":") ? `[${host}]` : host;
  let closing = null;

  const api = {
    url: `http://${hostPart}:${port}`,
    /** Enqueue outcomes, consumed one per provider request, FIFO. Returns the queue length. */
    script(...outcomes) {
      const checked = outcomes.map((o, i) => checkOutcome(o, i));
      queue.push(...checked);
      return queue.length;
    },
    /** A snapshot of every provider request received so far (control-plane and OPTIONS excluded). */
    requests() {
      return structuredClone(log);
    },
    /** Clear the script queue, the request log and all cache state. */
    reset() {
      queue = [];
      log = [];
      anthropicCache.clear();
      threads.clear();
    },
    /** Stop listening and destroy every open socket, hanging ones included. */
    close() {
      closing ??= new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
  return api;
}
