/**
 * `memdir/ai-sdk`: memdir for the Vercel AI SDK (`ai`, an optional peer dependency).
 *
 * ```ts
 * import { openMemory } from "memdir";
 * import { memoryMiddleware, memoryTools, modelSelector } from "memdir/ai-sdk";
 * import { generateText, stepCountIs, wrapLanguageModel } from "ai";
 *
 * const memory = await openMemory({ projectRoot: process.cwd(), selector: modelSelector(cheapModel) });
 * const model = wrapLanguageModel({ model: mainModel, middleware: memoryMiddleware(memory) });
 * await generateText({ model, tools: memoryTools(memory), stopWhen: stepCountIs(5), messages });
 * ```
 */
export { memoryMiddleware } from "./middleware.js";
export type { MemoryMiddleware, MemoryMiddlewareOptions } from "./middleware.js";
export { forgetTool, memoryTools, rememberTool } from "./tools.js";
export type { MemoryToolOutput, RememberToolInput, RememberToolOptions } from "./tools.js";
export { modelSelector, toMemdirUsage } from "./selector.js";
export type { ModelSelectorOptions } from "./selector.js";
