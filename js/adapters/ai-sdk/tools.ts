/**
 * `remember` and `forget` as AI SDK tools: the model saves a memory through the same rules as
 * `memory.remember()` (valid frontmatter, one index line, no credentials, no near-duplicates,
 * the limits). A refusal is thrown as the `MemdirError`, so the AI SDK reports it to the model
 * as a tool error (`tool-error`) and nothing is written.
 */
import { jsonSchema, tool, type JSONSchema7, type Tool } from "ai";
import type { OpenedMemory, RememberRequest, WriteResult } from "../../api.js";
import type { RememberInput } from "../../core.js";
import { MEMORY_TYPES } from "../../generated/defaults.js";

/** What the `remember` tool takes: `RememberInput` without the fields the app sets. */
export type RememberToolInput = Pick<RememberInput, "type" | "name" | "description" | "body" | "file" | "supersedes"> & { ifMatch?: string };

/** What the `remember` and `forget` tools return to the model. */
export interface MemoryToolOutput {
  /** The topic file, relative to the memory folder. */
  file: string;
  action: WriteResult["action"];
  /** The index line written (`null` for `forget`). */
  indexLine: string | null;
}

export interface RememberToolOptions {
  /** Recorded as the memory's `metadata.originSessionId`. */
  sessionId?: string;
}

/** What `ifMatch` means, for both tools. */
const IF_MATCH = "Optional: the file's content hash (SHA-256, hex) as the app read it. The change is made only if the file is still exactly that; otherwise the tool fails with CHANGED and nothing is written.";

const REMEMBER_SCHEMA = {
  type: "object",
  properties: {
    type: {
      type: "string",
      enum: [...MEMORY_TYPES],
      description: "user: who the user is; feedback: how to work (corrections and confirmed choices); project: decisions, goals, deadlines the code does not show; reference: where things live outside the code.",
    },
    name: { type: "string", description: "A short name: the memory's title in the index." },
    description: { type: "string", description: "One specific line saying what this memory is about: it decides when the memory is recalled." },
    body: { type: "string", description: "The memory. For feedback and project: the rule or fact, then a **Why:** line and a **How to apply:** line." },
    file: { type: "string", description: "Only to update an existing memory: its file, e.g. feedback_testing.md. Leave it out for a new one." },
    ifMatch: { type: "string", description: IF_MATCH },
    supersedes: { type: "string", description: "Only when this memory replaces one that no longer holds (a decision reversed, a preference changed): that memory's file. It is kept, marked as replaced, and recall no longer chooses it." },
  },
  required: ["type", "name", "description", "body"],
  additionalProperties: false,
} satisfies JSONSchema7;

const FORGET_SCHEMA = {
  type: "object",
  properties: { file: { type: "string", description: "The memory's file, relative to the memory folder, e.g. feedback_testing.md." }, ifMatch: { type: "string", description: IF_MATCH } },
  required: ["file"],
  additionalProperties: false,
} satisfies JSONSchema7;

const output = (r: WriteResult): MemoryToolOutput => ({ file: r.file, action: r.action, indexLine: r.indexLine });

/** The `remember` tool: writes a topic file and its one line in MEMORY.md (or updates a memory given its `file`). */
export function rememberTool(memory: OpenedMemory, options: RememberToolOptions = {}): Tool<RememberToolInput, MemoryToolOutput> {
  return tool({
    description: "Save a memory that will help in later conversations: one topic per call. It writes the topic file and its line in MEMORY.md, the index. Pass `file` to update an existing memory instead of adding a duplicate.",
    inputSchema: jsonSchema<RememberToolInput>(REMEMBER_SCHEMA),
    execute: async (input) => output(await memory.remember({ ...input, ...(options.sessionId ? { sessionId: options.sessionId } : {}) } as RememberRequest)),
  });
}

/** The `forget` tool: removes a memory's file and every index line linking to it. */
export function forgetTool(memory: OpenedMemory): Tool<{ file: string; ifMatch?: string }, MemoryToolOutput> {
  return tool({
    description: "Forget a memory that no longer holds: removes its file and its line in MEMORY.md.",
    inputSchema: jsonSchema<{ file: string; ifMatch?: string }>(FORGET_SCHEMA),
    execute: async ({ file, ifMatch }) => output(await memory.forget({ file, ...(ifMatch ? { ifMatch } : {}) })),
  });
}

/** `{remember, forget}`, ready for `generateText({tools})`: the names `instructions({via: "remember-tool"})` uses. */
export function memoryTools(memory: OpenedMemory, options: RememberToolOptions = {}) {
  return { remember: rememberTool(memory, options), forget: forgetTool(memory) };
}
