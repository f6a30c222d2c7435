/**
 * The Recall tab: a query through the memory's session, with the offline (lexical) selector,
 * Anthropic with the user's key (kept in this page's memory only, sent only to the provider),
 * or an OpenAI-compatible server (Ollama, llama.cpp). Shows the exact request (keys redacted),
 * the raw answer, rejected names with reasons, the chosen files, the blocks to inject, tokens,
 * cost and outcome; and the session: what was surfaced, and its budget.
 */
import { memoryAge } from "memdir/browser";
import type { FetchFunction, MemorySession, RecallResult } from "memdir/browser";
import type { App } from "./app.js";
import { byId, fill, errorText, h, num } from "./dom.js";

interface Exchange {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  status?: number;
  answer?: string;
  error?: string;
}

const SECRET_HEADERS = new Set(["x-api-key", "authorization", "api-key"]);

/** Why no selector ran (`RecallResult.skip`), in words. */
const SKIPS: Record<string, string> = {
  one_word: "skipped: a one-word query is not sent to the selector",
  budget_spent: "skipped: this session's budget for surfaced memories is spent",
  already_surfaced: "skipped: every memory that could be chosen was already surfaced this session",
  no_memories: "no memory files to choose from",
};

/** `fetch`, recording each request (keys redacted) and the raw text of its answer. */
function recordingFetch(log: Exchange[]): FetchFunction {
  return async (url, init) => {
    const headers = Object.fromEntries(Object.entries(init.headers).map(([k, v]) => [k, SECRET_HEADERS.has(k.toLowerCase()) ? "[redacted]" : v]));
    const exchange: Exchange = { url, method: init.method, headers, body: init.body };
    log.push(exchange);
    try {
      const response = await fetch(url, init);
      exchange.status = response.status;
      exchange.answer = await response.clone().text();
      return response;
    } catch (error) {
      exchange.error = errorText(error);
      throw error;
    }
  };
}

const pretty = (text: string) => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

interface Turn {
  query: string;
  result: RecallResult;
  addedUtf16: number;
}

export function setupRecall(app: App): void {
  const tab = byId("tab-recall");
  let session: MemorySession = app.memory.session();
  const turns: Turn[] = [];
  let apiKey = ""; // this page's memory only: never stored, never logged

  const choice = (value: string, label: string, checked = false) => h("label", {}, h("input", { type: "radio", name: "selector", value, checked }), label);
  const seg = h("div", { class: "seg", role: "radiogroup", "aria-label": "Selector" }, choice("lexical", "Offline (lexical)", true), choice("anthropic", "Anthropic"), choice("openai", "OpenAI-compatible"));
  const keyInput = h("input", { type: "password", id: "api-key", autocomplete: "off", placeholder: "sk-ant-…", "aria-label": "API key" });
  const modelInput = h("input", { type: "text", id: "model", placeholder: "default", "aria-label": "Model" });
  const baseInput = h("input", { type: "url", id: "base-url", placeholder: "https://api.anthropic.com", "aria-label": "Base URL" });
  const providerBox = h(
    "div",
    { class: "form", id: "provider-fields", hidden: true },
    h("div", { class: "row" }, h("label", {}, "API key (kept in this page only)", keyInput), h("label", {}, "Model", modelInput)),
    h("label", {}, "Base URL", baseInput),
    h("p", { class: "hint", id: "provider-hint" }, ""),
  );
  const queryInput = h("input", { type: "search", id: "query", placeholder: "Ask what the agent is about to do…  (Enter)", "aria-label": "Query" });
  const runButton = h("button", { class: "primary", id: "run-recall", type: "submit" }, "Recall");
  const form = h("form", { class: "form" }, seg, providerBox, h("div", { class: "query-row" }, queryInput, runButton));
  const resultBox = h("div", { id: "recall-result" });
  const sessionBox = h("div", { id: "session" });
  tab.replaceChildren(h("h2", {}, "Recall"), form, resultBox, sessionBox);

  const provider = () => (form.querySelector<HTMLInputElement>("input[name=selector]:checked")?.value ?? "lexical") as "lexical" | "anthropic" | "openai";
  const syncFields = () => {
    const p = provider();
    providerBox.hidden = p === "lexical";
    baseInput.placeholder = p === "anthropic" ? "https://api.anthropic.com" : "http://127.0.0.1:11434/v1";
    keyInput.placeholder = p === "anthropic" ? "sk-ant-…" : "optional for a local server";
    byId("provider-hint").textContent =
      p === "anthropic"
        ? "The key goes only to the provider, from this page, with the anthropic-dangerous-direct-browser-access header; it is forgotten when the page closes."
        : "Ollama (http://127.0.0.1:11434/v1) or llama.cpp's server (http://127.0.0.1:8080/v1); the server must allow this page's origin (CORS), e.g. OLLAMA_ORIGINS.";
  };
  seg.addEventListener("change", syncFields);
  keyInput.addEventListener("input", () => (apiKey = keyInput.value));

  const renderSession = () => {
    const max = app.limits.maxSessionUtf16;
    const used = session.surfacedUtf16;
    fill(
      sessionBox,
      h("h2", {}, "Session"),
      h("div", { class: "stats" }, h("span", { class: "stat", id: "session-budget" }, h("b", {}, num(used)), ` / ${num(max)} UTF-16 units surfaced`), h("span", { class: "stat" }, h("b", {}, turns.length), " queries"), h("button", { id: "reset-session", onclick: () => ((session = app.memory.session()), (turns.length = 0), renderSession()) }, "New session")),
      h("div", { class: "budget", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": max, "aria-valuenow": used }, h("div", { style: `width:${Math.min(100, (used / max) * 100).toFixed(2)}%` })),
      h("p", { class: "hint" }, "alreadySurfaced — sent with the next query, so these are not offered again:"),
      h("pre", { id: "already-surfaced" }, session.surfaced.length ? session.surfaced.join("\n") : "(none yet)"),
      turns.length
        ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "query"), h("th", {}, "outcome"), h("th", {}, "chosen"), h("th", {}, "units"))), h("tbody", {}, turns.map((t) => h("tr", {}, h("td", {}, t.query), h("td", {}, t.result.outcome), h("td", {}, t.result.memories.map((m) => m.path).join(", ") || "—"), h("td", {}, num(t.addedUtf16))))))
        : null,
    );
  };

  const renderResult = (query: string, result: RecallResult, log: Exchange[]) => {
    const u = result.usage;
    fill(
      resultBox,
      h(
        "div",
        { class: "result-head" },
        h("span", { class: `outcome ${result.outcome}`, id: "recall-outcome" }, result.outcome),
        h("span", { class: "stat" }, "selector ", h("b", {}, result.selector ?? "none"), result.model ? ` · ${result.model}` : ""),
        h("span", { class: "stat", id: "recall-latency" }, h("b", {}, `${result.latencyMs.toFixed(1)} ms`), result.modelLatencyMs ? ` (${result.selector === "lexical" ? "selection" : "model"} ${result.modelLatencyMs.toFixed(0)} ms)` : ""),
        h("span", { class: "stat", id: "recall-tokens" }, h("b", {}, num(u.inputTokens)), " in · ", h("b", {}, num(u.outputTokens)), " out", u.cacheReadInputTokens ? ` · ${num(u.cacheReadInputTokens)} cached` : "", u.cacheCreationInputTokens ? ` · ${num(u.cacheCreationInputTokens)} cache write` : ""),
        h("span", { class: "stat", id: "recall-cost" }, result.costUsd === null ? "cost: —" : `$${result.costUsd.toFixed(6)}`),
      ),
      result.error ? h("div", { class: result.outcome === "failed" ? "error-box" : "warning", id: "recall-error" }, result.error) : result.skip ? h("div", { class: "warning", id: "recall-error" }, SKIPS[result.skip] ?? result.skip) : null,
      h("h2", {}, `Chosen (${result.memories.length})`),
      result.memories.length
        ? h("ul", { id: "recall-chosen" }, result.memories.map((m) => h("li", {}, h("a", { href: "#", onclick: (e: Event) => (e.preventDefault(), void app.select(m.path)) }, h("code", {}, m.path)), ` — saved ${memoryAge(m.timeMs, Date.now())}, ${num(m.utf16Count)} units${m.truncated ? `, cut (${m.truncated})` : ""}`)))
        : h("p", { class: "muted" }, "Nothing chosen."),
      result.rejected.length
        ? h("div", {}, h("h2", {}, `Rejected (${result.rejected.length})`), h("table", { id: "recall-rejected" }, h("tbody", {}, result.rejected.map((r) => h("tr", {}, h("td", {}, h("code", {}, JSON.stringify(r.value))), h("td", {}, r.reason))))))
        : null,
      result.reminders.length ? h("h2", {}, "Blocks to inject") : null,
      ...result.reminders.map((text) => h("pre", { class: "reminder" }, text)),
      log.length
        ? h(
            "details",
            { id: "recall-exchange" },
            h("summary", {}, `The exact request${log.length > 1 ? `s (${log.length} attempts)` : ""} and the raw answer`),
            log.map((x) => [h("pre", { class: "request" }, `${x.method} ${x.url}\n${Object.entries(x.headers).map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${pretty(x.body)}`), h("pre", { class: "answer" }, x.error ? `no answer: ${x.error}` : `HTTP ${x.status}\n\n${pretty(x.answer ?? "")}`)]).flat(),
          )
        : result.selector === "lexical"
          ? h("p", { class: "hint" }, "The lexical selector ran in the page: no request left it.")
          : null,
    );
    turns.push({ query, result, addedUtf16: result.memories.reduce((a, m) => a + m.utf16Count, 0) });
    renderSession();
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const query = queryInput.value.trim();
    if (!query) return queryInput.focus();
    const p = provider();
    const log: Exchange[] = [];
    // the opened memory reads this object at each recall: set it for this query
    for (const key of ["apiKey", "model", "baseUrl", "fetch"] as const) delete app.selector[key];
    app.selector.provider = p;
    if (p !== "lexical") {
      if (apiKey) app.selector.apiKey = apiKey;
      if (modelInput.value.trim()) app.selector.model = modelInput.value.trim();
      if (baseInput.value.trim()) app.selector.baseUrl = baseInput.value.trim();
      else if (p === "openai") app.selector.baseUrl = "http://127.0.0.1:11434/v1";
      app.selector.fetch = recordingFetch(log);
    }
    runButton.disabled = true;
    resultBox.replaceChildren(h("p", { class: "muted" }, "Recalling…"));
    try {
      renderResult(query, await session.recall(query), log);
    } catch (error) {
      resultBox.replaceChildren(h("div", { class: "error-box" }, errorText(error)));
    } finally {
      runButton.disabled = false;
    }
  });
  syncFields();
  renderSession();
}
