// Type-checked by `npm run lint`: memdir's handlers are what the SDK's betaMemoryTool() takes,
// as a user's code would write it against the published declarations — in both SDK majors
// the tests run (0.137 and the current 1.x, installed as `@anthropic-ai/sdk-current`).
import { betaMemoryTool, type MemoryToolHandlers } from "@anthropic-ai/sdk/helpers/beta/memory";
import { betaMemoryTool as currentBetaMemoryTool, type MemoryToolHandlers as CurrentMemoryToolHandlers } from "@anthropic-ai/sdk-current/helpers/beta/memory";
import { openMemory, type MemoryTool } from "memdir";

export async function plugIn(dir: string) {
  const memory = await openMemory({ dir });
  const tool: MemoryTool = memory.tool();
  const handlers: MemoryToolHandlers = tool;
  return betaMemoryTool(handlers);
}

export async function plugInCurrent(dir: string) {
  const memory = await openMemory({ dir });
  const handlers: CurrentMemoryToolHandlers = memory.tool();
  return currentBetaMemoryTool(handlers);
}
