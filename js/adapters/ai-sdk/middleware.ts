/**
 * The memory as AI SDK language-model middleware (`wrapLanguageModel({model, middleware})`):
 * every call gets the instructions and the index (`MEMORY.md`) as a system message, and each
 * user turn's recalled memories as `<system-reminder>` text after that turn's user message.
 *
 * A user turn is recalled once: the tool-call steps of the same turn (the same last user
 * message, followed by tool results) get the same blocks again, byte for byte, without a
 * second side query — each step is a fresh call that must still see them, and an unchanged
 * prefix keeps the provider's prompt cache. Earlier turns keep their blocks where their user
 * messages are. The session carries `alreadySurfaced` and the budget across turns, so a
 * memory surfaces once per conversation: use one middleware (or one `session`) per conversation.
 */
import type { LanguageModelMiddleware } from "ai";
import type { MemorySession, OpenedMemory, RecallResult } from "../../api.js";
import type { WriteVia } from "../../core.js";

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"];
type Prompt = CallOptions["prompt"];
type Message = Prompt[number];

export interface MemoryMiddlewareOptions {
  /** The conversation's recall state. Default: a new `memory.session()` for this middleware. */
  session?: MemorySession;
  /**
   * The instructions' words, as the model writes its memories (`memory.instructions({via})`):
   * `remember-tool` (default: give it `memoryTools(memory)`), `memory-tool`, `files`; `false`
   * leaves them out (the index is still injected).
   */
  instructions?: WriteVia | false;
  /** Called after each turn's recall, with the query it was made for. */
  onRecall?: (result: RecallResult, query: string) => void;
}

/** The middleware, and the session it recalls in. */
export interface MemoryMiddleware extends LanguageModelMiddleware {
  readonly session: MemorySession;
}

/** What a user turn adds to every call it makes. */
interface Turn {
  /** Instructions and index, read when the turn started. */
  system: string;
  /** The recalled `<system-reminder>` blocks. */
  reminders: string[];
}

/** A user message of the prompt: where it is, and what identifies its turn. */
interface UserMessage {
  at: number;
  key: string;
  query: string;
}

const FAILED_OUTPUTS = new Set(["error-text", "error-json", "execution-denied"]);

function userMessages(prompt: Prompt): UserMessage[] {
  const out: UserMessage[] = [];
  prompt.forEach((message, at) => {
    if (message.role !== "user") return;
    const query = message.content
      .filter((part) => part.type === "text")
      .map((part) => part.text)
      .join("\n");
    out.push({ at, key: `${at}\u0000${query}`, query });
  });
  return out;
}

/** Tools whose calls succeeded between the previous user message and the last one. */
function recentTools(prompt: Prompt, users: UserMessage[]): string[] {
  const from = users.at(-2)?.at ?? 0;
  const to = users.at(-1)?.at ?? 0;
  const names = new Set<string>();
  for (const message of prompt.slice(from, to)) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && !FAILED_OUTPUTS.has(part.output.type)) names.add(part.toolName);
    }
  }
  return [...names];
}

/** The instructions and memory middleware for `memory` (see the module's notes). */
export function memoryMiddleware(memory: OpenedMemory, options: MemoryMiddlewareOptions = {}): MemoryMiddleware {
  const session = options.session ?? memory.session();
  const via = options.instructions === undefined ? "remember-tool" : options.instructions;
  const turns = new Map<string, Promise<Turn>>();

  const startTurn = async (query: string, tools: string[]): Promise<Turn> => {
    const [index, recalled] = await Promise.all([
      memory.index().catch(() => null),
      session.recall(query, { recentTools: tools }).catch(() => null),
    ]);
    if (recalled) {
      try {
        options.onRecall?.(recalled, query);
      } catch {
        // a logging callback must not break the model call
      }
    }
    const system = [via === false ? "" : memory.instructions({ via }), index?.prompt ?? ""].filter(Boolean).join("\n\n");
    return { system, reminders: recalled?.reminders ?? [] };
  };

  return {
    specificationVersion: "v4",
    session,
    async transformParams({ params }) {
      const users = userMessages(params.prompt);
      const last = users.at(-1);
      if (!last) return params;
      if (!turns.has(last.key)) turns.set(last.key, startTurn(last.query, recentTools(params.prompt, users)));
      const turn = await turns.get(last.key)!;
      const reminders = new Map<number, string[]>();
      for (const user of users) {
        const blocks = user === last ? turn.reminders : ((await turns.get(user.key))?.reminders ?? []);
        if (blocks.length) reminders.set(user.at, blocks);
      }
      const prompt: Message[] = params.prompt.map((message, at) => {
        const blocks = reminders.get(at);
        if (!blocks || message.role !== "user") return message;
        return { ...message, content: [...message.content, ...blocks.map((text) => ({ type: "text" as const, text }))] };
      });
      if (turn.system) {
        const leading = prompt.findIndex((m) => m.role !== "system");
        prompt.splice(leading < 0 ? prompt.length : leading, 0, { role: "system", content: turn.system });
      }
      return { ...params, prompt };
    },
  };
}
