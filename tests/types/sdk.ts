// Type-checked by `npm run lint`: memdir's handlers are what the SDK's betaMemoryTool() takes,
// as a user's code would write it against the published declarations.
import { betaMemoryTool, type MemoryToolHandlers } from "@anthropic-ai/sdk/helpers/beta/memory";
import { openMemory, type MemoryTool } from "memdir";

export async function plugIn(dir: string) {
  const memory = await openMemory({ dir });
  const tool: MemoryTool = memory.tool();
  const handlers: MemoryToolHandlers = tool;
  return betaMemoryTool(handlers);
}
