/**
 * The side query through any AI SDK model: `openMemory({selector: modelSelector(model)})`.
 * The request is the core's (instructions, query and manifest, the JSON schema, 256 tokens);
 * the model's answer text goes back to the core, which validates it — so an answer that is not
 * JSON, names unknown files or was cut off is data (recall's outcome `failed`, with the reason),
 * never an exception in the agent's turn.
 */
import { generateText, type JSONSchema7, type LanguageModel, type LanguageModelUsage, type OutputInterface } from "ai";
import type { SelectorFunction, SelectorRequest } from "../../api.js";
import type { Usage } from "../../core.js";

export interface ModelSelectorOptions {
  /** Retries of the model call (the AI SDK's `maxRetries`). Default: the AI SDK's (2). */
  maxRetries?: number;
  /** Passed to the model as is, e.g. `{anthropic: {thinking: {type: "disabled"}}}`. */
  providerOptions?: Parameters<typeof generateText>[0]["providerOptions"];
}

/**
 * Asks for JSON with the core's schema (providers that support structured output use it) and
 * hands back the raw text: the core parses and checks it, as for every other selector.
 */
function selectionOutput(schema: Record<string, unknown>): OutputInterface<string, string, never> {
  return {
    name: "memdir-selection",
    responseFormat: Promise.resolve({ type: "json", schema: schema as JSONSchema7, name: "memory_selection" }),
    parseCompleteOutput: async ({ text }) => text,
    parsePartialOutput: async () => undefined,
    createElementStreamTransform: () => undefined,
  };
}

/** The AI SDK's usage in memdir's terms: uncached input, output, cache writes and reads. */
export function toMemdirUsage(usage: LanguageModelUsage): Usage {
  const read = usage.inputTokenDetails?.cacheReadTokens ?? 0;
  const write = usage.inputTokenDetails?.cacheWriteTokens ?? 0;
  const uncached = usage.inputTokenDetails?.noCacheTokens ?? Math.max(0, (usage.inputTokens ?? 0) - read - write);
  return { inputTokens: uncached, outputTokens: usage.outputTokens ?? 0, cacheCreationInputTokens: write, cacheReadInputTokens: read, cacheCreation1hInputTokens: 0 };
}

/** A selector that sends the side query through `model` (any AI SDK provider, or a gateway model id). */
export function modelSelector(model: LanguageModel, options: ModelSelectorOptions = {}): SelectorFunction {
  return async (request: SelectorRequest) => {
    const result = await generateText({
      model,
      system: request.system,
      prompt: request.user,
      maxOutputTokens: request.maxTokens,
      abortSignal: request.signal,
      output: selectionOutput(request.schema),
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.providerOptions ? { providerOptions: options.providerOptions } : {}),
    });
    // a cut or refused answer is a failure, whatever part of it parses (rules §3.5)
    if (result.finishReason === "length") throw new Error("the answer was cut off at the token limit (finish reason: length)");
    if (result.finishReason === "content-filter") throw new Error("the model refused to answer (finish reason: content-filter)");
    return { text: result.output ?? result.text, usage: toMemdirUsage(result.usage), model: result.response.modelId };
  };
}
