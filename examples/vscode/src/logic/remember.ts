/** "memdir: Remember…": type, name, description, body (the selection when there is one), then memdir's write rules. */
import { MEMORY_TYPES, MemdirError, type WriteResult } from "memdir";
import { chooseScope, writableScopes, type ScopedOpened } from "./scopes.js";
import type { OpenedMemory, Prompts, UriLike } from "./types.js";

/** The memory types, as memdir reads them. */
export const TYPES = MEMORY_TYPES;

export type RememberOutcome = { written: WriteResult & { scope?: string } } | { refused: { code: string; message: string } } | undefined;

/**
 * Asks for the memory and writes it with `memory.remember` (topic file and its `MEMORY.md`
 * line, atomically, under the lock). A refusal (a credential, a near-duplicate, a full index…)
 * comes back as `refused` with memdir's code; nothing is written then. `undefined`: cancelled.
 */
export async function rememberFlow<U extends UriLike>(memory: OpenedMemory, prompts: Prompts, selection = "", opened?: ScopedOpened<U>): Promise<RememberOutcome> {
  // with scopes, the scope first: asked when two or more can be written, the default first
  const asks = opened !== undefined && writableScopes(opened.scopes).length > 1;
  const steps = asks ? 5 : 4;
  let scope: string | undefined;
  if (opened !== undefined && opened.scopes.length > 0) {
    const chosen = await chooseScope(opened, prompts, `memdir: Remember (1/${steps})`);
    if (chosen === undefined) return undefined;
    if (chosen === null) return { refused: { code: "INVALID_ARGUMENT", message: "every scope in memdir.scopes is read-only: there is nowhere to write" } };
    scope = chosen.scope;
  }
  const step = (n: number) => `memdir: Remember (${asks ? n + 1 : n}/${steps})${scope !== undefined ? ` in scope ${scope}` : ""}`;
  const type = await prompts.pick([...TYPES], { title: step(1), placeHolder: "What kind of memory?" });
  if (type === undefined) return undefined;
  const name = await prompts.input({ title: step(2), prompt: "A short title (also the index entry's link text)" });
  if (!name) return undefined;
  const description = await prompts.input({ title: step(3), prompt: "One line the selector decides from" });
  if (!description) return undefined;
  const body = selection.trim() ? selection : await prompts.input({ title: step(4), prompt: "The memory (for feedback and project: the rule, then **Why:** and **How to apply:**)" });
  if (!body) return undefined;
  try {
    // a memory of several scopes writes into the scope named (memdir's ScopedMemory.remember)
    const input = { type, name, description, body, ...(scope !== undefined ? { scope } : {}) };
    return { written: await memory.remember(input) };
  } catch (error) {
    if (error instanceof MemdirError) return { refused: { code: error.code, message: error.message } };
    throw error;
  }
}
