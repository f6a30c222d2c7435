/**
 * The side query, performed: builds the request in the core, sends it with `fetch`
 * (injectable), retries as the core decides, and hands the body back to the core to decode.
 * Never throws for a model, network or timeout problem: the result carries a `failure`.
 */
import { buildProviderRequest, decodeProviderResponse, estimateCost, retryDecision, selectorDefaults } from "./core.js";
import type { ProviderName, SelectionRequest, Usage } from "./core.js";

/** A model provider, or `lexical` for the offline selector. */
export interface SelectorConfig {
  provider: ProviderName | "lexical";
  apiKey?: string;
  /** Default: `claude-sonnet-5-5` (anthropic), `gpt-4o-mini` (openai), `qwen3:8b` (ollama). */
  model?: string;
  /** E.g. `http://127.0.0.1:8080/v1` for llama.cpp's server, `http://localhost:1234/v1` for LM Studio. */
  baseUrl?: string;
  /** Default `globalThis.fetch`. */
  fetch?: FetchFunction;
  /** Deadline for the whole side query, retries included. Default 10,000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** When the model call fails, choose with the lexical selector instead (`true` or `"lexical"`). */
  fallback?: boolean | "lexical";
  /** Anthropic: put the manifest in a cacheable system block. Default true. */
  cache?: boolean;
}

/**
 * The `fetch` memdir calls for a side query: `globalThis.fetch` or your own (a proxy, a test
 * double). Declared by what memdir passes and reads, so any real `fetch` fits and no DOM
 * library is needed to type one.
 */
export type FetchFunction = (url: string, init: { method: string; headers: Record<string, string>; body: string; signal: AbortSignal }) => Promise<FetchResponse>;

/** What memdir reads of a response: status, headers, and the body (streamed when there is a `body`, else `text()`). */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null; forEach(callback: (value: string, key: string) => void): void };
  readonly body?: { getReader(): FetchBodyReader } | null | undefined;
  text(): Promise<string>;
}

/** A reader of a response body, as `ReadableStream.getReader()` gives. */
export interface FetchBodyReader {
  read(): Promise<{ done: boolean; value?: Uint8Array | undefined }>;
  cancel(reason?: unknown): Promise<void>;
}

/** What a caller-supplied selector function receives. */
export interface SelectorRequest {
  system: string;
  user: string;
  schema: Record<string, unknown>;
  maxTokens: number;
  signal: AbortSignal;
}

/** A selector supplied by the caller: returns the model's answer text (or text and usage). */
export type SelectorFunction = (request: SelectorRequest) => Promise<string | { text: string; usage?: Usage; model?: string }>;

/** The result of one side query. */
export interface SideQueryResult {
  text: string | null;
  usage: Required<Usage>;
  model: string;
  attempts: number;
  failure: { code: string; message: string } | null;
}

/** Usage of a call that reported none. */
export const NO_USAGE: Required<Usage> = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0, cacheCreation1hInputTokens: 0 };

/**
 * A page, or a web worker (a VS Code web extension's host, a page's worker): cross-origin `fetch`
 * under CORS, so Anthropic needs its direct-browser-access header. A worker has no `window` or
 * `document`, but `importScripts` (classic and module workers alike); Node, Deno and Bun have none.
 */
const isBrowser =
  (typeof (globalThis as { window?: unknown }).window !== "undefined" && typeof (globalThis as { document?: unknown }).document !== "undefined") ||
  typeof (globalThis as { importScripts?: unknown }).importScripts === "function";

/** The longest delay `setTimeout` keeps: 2^31 - 1 ms (24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * One deadline for the whole query, joined with the caller's signal. A plain timer rather
 * than `AbortSignal.timeout`, whose timer does not keep Node alive: a hung selector must
 * still time out in an otherwise idle process. `done()` clears it.
 */
function deadline(timeoutMs: number, signal?: AbortSignal): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const controller = new AbortController();
  let timedOut = false;
  // past 2^31 - 1 ms Node fires a timer at once (with a warning): a longer deadline is no deadline
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`the side query took longer than ${timeoutMs} ms`, "TimeoutError"));
  }, Math.min(timeoutMs, MAX_TIMER_MS));
  return {
    signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
    timedOut: () => timedOut,
    done: () => clearTimeout(timer),
  };
}

function stopped(timedOut: boolean, timeoutMs: number): { code: string; message: string } {
  return timedOut ? { code: "timeout", message: `the side query took longer than ${timeoutMs} ms` } : { code: "aborted", message: "the side query was aborted" };
}

/**
 * The body as text, or `null` once it runs past `maxBytes` (the core's `maxResponseBytes`:
 * an answer is at most 256 tokens and an error body a few KB; past it the request is aborted,
 * so a server that streams without end costs that much, not the process's memory). Then
 * `abort()` is called.
 */
async function readCapped(response: FetchResponse, abort: () => void, maxBytes: number): Promise<string | null> {
  if (Number(response.headers.get("content-length")) > maxBytes) {
    abort();
    return null;
  }
  const reader = typeof response.body?.getReader === "function" ? response.body.getReader() : null;
  if (reader === null) {
    // a caller's fetch that gives no stream: the text, still held to the cap
    const text = await response.text();
    return new TextEncoder().encode(text).length > maxBytes ? null : text;
  }
  const decoder = new TextDecoder(); // as response.text(): UTF-8, BOM dropped, bad bytes replaced
  let bytes = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    if (!value) throw new TypeError("the response body gave a chunk with no bytes");
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      abort();
      reader.cancel().catch(() => {});
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * A URL for a message: its user, password and query values hidden (a key can be put in any
 * of them, e.g. a proxy's `?key=`); the request's own key travels in a header, never here.
 */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username) u.username = "redacted";
    if (u.password) u.password = "redacted";
    for (const key of [...u.searchParams.keys()]) u.searchParams.set(key, "redacted");
    return u.href;
  } catch {
    return "an invalid URL";
  }
}

/**
 * Why a request got no response: the system's code (`ECONNREFUSED`, `ENOTFOUND`, …) when
 * there is one, not `fetch failed`. A message that quotes the URL quotes it as `shownUrl`
 * does, and never a credential: every form of each one the core named for the request
 * (`HttpRequest.secrets`), and the key.
 */
function networkReason(error: unknown, url: string, secrets: readonly string[], apiKey: string | undefined): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string; errors?: { code?: string }[] } };
  const cause = e?.cause;
  const code = cause?.code ?? cause?.errors?.find((x) => x?.code)?.code;
  let reason = String(code ?? cause?.message ?? e?.message ?? String(error));
  if (reason === "bad port") reason = `fetch refuses port ${new URL(url).port} (a blocked port)`;
  reason = reason.split(url).join(shownUrl(url));
  for (const secret of [...secrets, apiKey ?? ""]) if (secret.length >= 4) reason = reason.split(secret).join("[redacted]");
  return reason;
}

/** Runs the side query against a provider. */
export async function queryProvider(config: SelectorConfig & { provider: ProviderName }, request: SelectionRequest, signal?: AbortSignal): Promise<SideQueryResult> {
  const timeoutMs = config.timeoutMs ?? selectorDefaults().timeoutMs;
  const limit = deadline(timeoutMs, signal);
  try {
    return await attemptAll(config, request, limit, timeoutMs);
  } finally {
    limit.done();
  }
}

async function attemptAll(config: SelectorConfig & { provider: ProviderName }, request: SelectionRequest, limit: ReturnType<typeof deadline>, timeoutMs: number): Promise<SideQueryResult> {
  const defaults = selectorDefaults();
  const maxRetries = config.maxRetries ?? defaults.maxRetries;
  const doFetch: FetchFunction = config.fetch ?? globalThis.fetch;
  let structured = true;
  let attempt = 0;
  let attempts = 0;
  let model = config.model ?? "";
  for (;;) {
    const http = buildProviderRequest({
      provider: config.provider,
      request,
      model: config.model ?? null,
      baseUrl: config.baseUrl ?? null,
      apiKey: config.apiKey ?? null,
      browser: isBrowser,
      structured,
      cache: config.cache ?? true,
    });
    model = http.model;
    attempts++;
    let status = 0;
    let body: string | null = "";
    let headers: Record<string, string> = {};
    const thisAttempt = new AbortController(); // this attempt alone: aborted when its body runs past the cap
    try {
      const response = await doFetch(http.url, { method: "POST", headers: http.headers, body: http.body, signal: AbortSignal.any([limit.signal, thisAttempt.signal]) });
      status = response.status;
      response.headers.forEach((value, key) => (headers[key.toLowerCase()] = value));
      body = await readCapped(response, () => thisAttempt.abort(new Error("the response was too large")), defaults.maxResponseBytes);
    } catch (error) {
      if (limit.signal.aborted) return { text: null, usage: NO_USAGE, model, attempts, failure: stopped(limit.timedOut(), timeoutMs) };
      const decision = retryDecision({ status: 0, attempt, maxRetries, nowMs: Date.now(), jitter: Math.random() });
      if (!decision.retry) return { text: null, usage: NO_USAGE, model, attempts, failure: { code: "network", message: `could not reach ${shownUrl(http.url)}: ${networkReason(error, http.url, http.secrets, config.apiKey)}` } };
      try {
        await sleep(decision.delayMs, limit.signal);
      } catch {
        return { text: null, usage: NO_USAGE, model, attempts, failure: stopped(limit.timedOut(), timeoutMs) };
      }
      attempt++;
      continue;
    }
    if (body === null) {
      const mib = defaults.maxResponseBytes / 2 ** 20;
      const cap = `${defaults.maxResponseBytes.toLocaleString("en")} bytes${Number.isInteger(mib) ? ` (${mib} MiB)` : ""}`;
      return { text: null, usage: NO_USAGE, model, attempts, failure: { code: "response_too_large", message: `the response body ran past ${cap}; the request was aborted` } };
    }
    // the core hides the request's credentials in any failure it returns (an error body may echo them)
    const answer = decodeProviderResponse({ provider: config.provider, status, body, secrets: http.secrets });
    if (!answer.failure) return { text: answer.text, usage: answer.usage, model: answer.model ?? model, attempts, failure: null };
    if (answer.failure.schemaRejected && structured) {
      structured = false; // the model rejects the schema parameter: ask for JSON in the prompt alone
      continue;
    }
    if (answer.failure.code === "http_error") {
      const decision = retryDecision({ status, headers, body, attempt, maxRetries, nowMs: Date.now(), jitter: Math.random() });
      if (decision.retry) {
        try {
          await sleep(decision.delayMs, limit.signal);
        } catch {
          return { text: null, usage: answer.usage, model, attempts, failure: stopped(limit.timedOut(), timeoutMs) };
        }
        attempt++;
        continue;
      }
    }
    const from = answer.failure.code === "http_error" ? ` (from ${shownUrl(http.url)})` : "";
    return { text: null, usage: answer.usage, model: answer.model ?? model, attempts, failure: { code: answer.failure.code, message: `${answer.failure.message}${from}` } };
  }
}

/** Runs a caller-supplied selector function under the same deadline and abort rules. */
export async function queryFunction(fn: SelectorFunction, request: SelectionRequest, timeoutMs = selectorDefaults().timeoutMs, signal?: AbortSignal): Promise<SideQueryResult> {
  const limit = deadline(timeoutMs, signal);
  const aborted = new Promise<never>((_, reject) => {
    if (limit.signal.aborted) reject(limit.signal.reason);
    limit.signal.addEventListener("abort", () => reject(limit.signal.reason), { once: true });
  });
  try {
    const out = await Promise.race([fn({ system: request.system, user: request.user, schema: request.schema, maxTokens: request.maxTokens, signal: limit.signal }), aborted]);
    const text = typeof out === "string" ? out : out?.text;
    if (typeof text !== "string") return { text: null, usage: NO_USAGE, model: "function", attempts: 1, failure: { code: "no_text", message: "the selector function returned no text" } };
    const usage = typeof out === "string" ? NO_USAGE : { ...NO_USAGE, ...out.usage };
    return { text, usage, model: typeof out === "string" ? "function" : (out.model ?? "function"), attempts: 1, failure: null };
  } catch (error) {
    if (limit.signal.aborted) return { text: null, usage: NO_USAGE, model: "function", attempts: 1, failure: stopped(limit.timedOut(), timeoutMs) };
    return { text: null, usage: NO_USAGE, model: "function", attempts: 1, failure: { code: "selector_error", message: (error as Error)?.message ?? String(error) } };
  } finally {
    limit.done();
  }
}

/** What a side query other than recall's got from the model (see {@link askModel}). */
export interface ModelAnswer {
  /** The answer, or `null` when there is none (`error` says why). */
  text: string | null;
  /** `anthropic`, `openai`, `ollama` or `function`; `null` when no model was asked. */
  selector: string | null;
  model: string | null;
  usage: Required<Usage>;
  costUsd: number | null;
  error?: string;
}

/**
 * A side query of the automatic writers (extraction, consolidation): the memory's selector
 * asked once, under a deadline — `timeoutMs`, else the selector's own, else `defaultTimeoutMs`.
 * The offline lexical selector only chooses among memories: it is no model to ask.
 */
export async function askModel(selector: SelectorConfig | SelectorFunction, request: SelectionRequest, o: { what: string; timeoutMs?: number | undefined; defaultTimeoutMs: number; signal?: AbortSignal | undefined }): Promise<ModelAnswer> {
  if (typeof selector !== "function" && selector.provider === "lexical") {
    return { text: null, selector: null, model: null, usage: NO_USAGE, costUsd: null, error: `${o.what} needs a model: the lexical selector only chooses among saved memories (configure a provider or a selector function)` };
  }
  const timeoutMs = o.timeoutMs ?? (typeof selector === "function" ? undefined : selector.timeoutMs) ?? o.defaultTimeoutMs;
  const side =
    typeof selector === "function"
      ? await queryFunction(selector, request, timeoutMs, o.signal)
      : await queryProvider({ ...selector, provider: selector.provider as ProviderName, timeoutMs }, request, o.signal);
  const answer: ModelAnswer = {
    text: side.text,
    selector: typeof selector === "function" ? "function" : selector.provider,
    model: side.model,
    usage: side.usage,
    costUsd: estimateCost({ model: side.model, usage: side.usage }).usd,
  };
  if (side.text === null) answer.error = side.failure ? `${side.failure.code}: ${side.failure.message}` : "the model gave no answer";
  return answer;
}
