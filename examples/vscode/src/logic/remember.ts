/** "memdir: Remember…": type, name, description, body (the selection when there is one), then memdir's write rules. */
import { MEMORY_TYPES, MemdirError, type WriteResult } from "memdir";
import type { OpenedMemory, Prompts } from "./types.js";

/** The memory types, as memdir reads them. */
export const TYPES = MEMORY_TYPES;

export type RememberOutcome = { written: WriteResult } | { refused: { code: string; message: string } } | undefined;

/**
 * Asks for the memory and writes it with `memory.remember` (topic file and its `MEMORY.md`
 * line, atomically, under the lock). A refusal (a credential, a near-duplicate, a full index…)
 * comes back as `refused` with memdir's code; nothing is written then. `undefined`: cancelled.
 */
export async function rememberFlow(memory: OpenedMemory, prompts: Prompts, selection = ""): Promise<RememberOutcome> {
  const type = await prompts.pick([...TYPES], { title: "memdir: Remember (1/4)", placeHolder: "What kind of memory?" });
  if (type === undefined) return undefined;
  const name = await prompts.input({ title: "memdir: Remember (2/4)", prompt: "A short title (also the index entry's link text)" });
  if (!name) return undefined;
  const description = await prompts.input({ title: "memdir: Remember (3/4)", prompt: "One line the selector decides from" });
  if (!description) return undefined;
  const body = selection.trim() ? selection : await prompts.input({ title: "memdir: Remember (4/4)", prompt: "The memory (for feedback and project: the rule, then **Why:** and **How to apply:**)" });
  if (!body) return undefined;
  try {
    return { written: await memory.remember({ type, name, description, body }) };
  } catch (error) {
    if (error instanceof MemdirError) return { refused: { code: error.code, message: error.message } };
    throw error;
  }
}
