/**
 * Which selector a recall uses, and why, in words: from `--provider`, `--fallback` and the
 * keys in the environment (the same default as `openMemory`'s, decided by the core).
 */
import type { SelectorConfig } from "../entry/node.js";
import { defaultSelector } from "../core.js";
import { nearest, UsageError, wholeNumber } from "./args.js";
import type { CommandContext } from "./command.js";
import { debugFetch } from "./debug.js";

const PROVIDERS = ["anthropic", "openai", "ollama", "lexical"] as const;
/** The deadline a timer can hold: 2^31 - 1 ms (24.8 days); Node fires a longer one at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

export interface SelectorChoice {
  config: SelectorConfig;
  /** Why this selector: shown in the output and as `selectorReason` in `--json`. */
  reason: string;
}

/** `--base-url`: an http(s) URL the provider's path is appended to, so no query string, and no user or password (fetch refuses them). */
function checkBaseUrl(raw: string, command: string): void {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    const guess = raw.includes("://") ? "" : ` (did you mean http://${raw}?)`;
    throw new UsageError(`--base-url takes an http:// or https:// URL, not ${JSON.stringify(raw)}${guess}`, command);
  }
  if (url.username || url.password) throw new UsageError("--base-url cannot hold a user or password (fetch refuses them); keys come from ANTHROPIC_API_KEY and OPENAI_API_KEY", command);
  if (url.search || url.hash) throw new UsageError(`--base-url cannot hold a query or fragment: the provider's path (/v1/…) is appended to it`, command);
}

/** The selector for `recall`, and why; a `UsageError` for a provider that cannot work without `--fallback`. */
export function chooseSelector(ctx: CommandContext): SelectorChoice {
  const { values: o, env, out } = ctx;
  const anthropicKey = env.ANTHROPIC_API_KEY || undefined;
  const openaiKey = env.OPENAI_API_KEY || undefined;
  const timeoutMs = wholeNumber("timeout", o.timeout, "a whole number of milliseconds", 1, MAX_TIMEOUT_MS);
  if (o.provider !== undefined && !(PROVIDERS as readonly string[]).includes(o.provider)) {
    const near = nearest(o.provider.toLowerCase(), PROVIDERS);
    throw new UsageError(`unknown provider "${o.provider}"${near ? `; did you mean ${near}?` : ""} (anthropic, openai, ollama or lexical)`, ctx.command);
  }
  if (o["base-url"] !== undefined) checkBaseUrl(o["base-url"], ctx.command);
  const provider = (o.provider ?? defaultSelector({ anthropicKey: Boolean(anthropicKey), openaiKey: Boolean(openaiKey) }).provider) as SelectorConfig["provider"];

  let reason: string;
  if (o.provider !== undefined) reason = `--provider ${provider}`;
  else if (provider === "anthropic") reason = "ANTHROPIC_API_KEY is set";
  else if (provider === "openai") reason = "OPENAI_API_KEY is set and ANTHROPIC_API_KEY is not";
  else reason = "no ANTHROPIC_API_KEY or OPENAI_API_KEY; set ANTHROPIC_API_KEY for model selection";

  const apiKey = provider === "anthropic" ? anthropicKey : provider === "openai" ? openaiKey : undefined;
  const missing =
    provider === "anthropic" && !apiKey ? "ANTHROPIC_API_KEY" : provider === "openai" && !apiKey && !o["base-url"] ? "OPENAI_API_KEY (or --base-url for a local server)" : undefined;
  if (missing) {
    if (!o.fallback) throw new UsageError(`--provider ${provider} needs ${missing}; set it, or add --fallback to choose with the lexical selector without it`, ctx.command);
    return { config: { provider: "lexical" }, reason: `--provider ${provider} needs ${missing}, which is not set; --fallback chose the lexical selector` };
  }

  if (provider === "lexical") {
    const ignored = (["model", "base-url", "timeout"] as const).filter((k) => o[k] !== undefined);
    if (ignored.length > 0) out.note(`${ignored.map((k) => `--${k}`).join(", ")} ignored: the lexical selector calls no model (${reason})`);
    return { config: { provider }, reason };
  }
  const config: SelectorConfig = { provider };
  if (apiKey) config.apiKey = apiKey;
  if (o.model) config.model = o.model;
  if (o["base-url"]) config.baseUrl = o["base-url"];
  if (timeoutMs !== undefined) config.timeoutMs = timeoutMs;
  if (o.fallback) config.fallback = true;
  if (out.verbose) config.fetch = debugFetch(out);
  return { config, reason };
}
