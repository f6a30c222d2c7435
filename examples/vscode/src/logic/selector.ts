/**
 * The recall selector from the settings (`memdir.provider`, `memdir.model`, `memdir.baseUrl`)
 * and the API key kept in `context.secrets` (never in settings, which sync and sit in files).
 */
import type { SelectorConfig } from "memdir";
import type { SecretsLike, Settings } from "./types.js";

export const PROVIDERS = ["lexical", "anthropic", "openai", "ollama"] as const;
type Provider = (typeof PROVIDERS)[number];

/** The secret storage key of a provider's API key. */
export const secretKey = (provider: string): string => `memdir.apiKey.${provider}`;

export interface ResolvedSelector {
  selector: SelectorConfig;
  /** Why the lexical selector is used instead of the configured provider, when it is. */
  warning?: string;
}

/**
 * The selector to open the memory with. A model provider gets its key from `secrets` and falls
 * back to the lexical selector when its call fails; without a key (Ollama needs none), in an
 * untrusted workspace, or for an unknown provider, recall uses the lexical selector and says why.
 */
export async function resolveSelector(settings: Pick<Settings, "provider" | "model" | "baseUrl">, secrets: SecretsLike, options: { trusted: boolean }): Promise<ResolvedSelector> {
  const provider = settings.provider.trim() || "lexical";
  const lexical: SelectorConfig = { provider: "lexical" };
  if (!(PROVIDERS as readonly string[]).includes(provider)) return { selector: lexical, warning: `memdir.provider "${provider}" is not one of ${PROVIDERS.join(", ")}: using the lexical selector` };
  if (provider === "lexical") return { selector: lexical };
  if (!options.trusted) return { selector: lexical, warning: "the workspace is not trusted: no model is called, using the lexical selector" };
  const apiKey = await secrets.get(secretKey(provider));
  if (!apiKey && provider !== "ollama") return { selector: lexical, warning: `no API key for ${provider}: run "memdir: Set API key"; using the lexical selector` };
  const selector: SelectorConfig = { provider: provider as Exclude<Provider, "lexical">, fallback: "lexical" };
  if (apiKey) selector.apiKey = apiKey;
  if (settings.model.trim()) selector.model = settings.model.trim();
  if (settings.baseUrl.trim()) selector.baseUrl = settings.baseUrl.trim();
  return { selector };
}
