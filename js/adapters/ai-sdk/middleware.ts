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
import type { ExtractResult, MemorySession, OpenedMemory, RecallResult } from "../../api.js";
import type { WriteVia } from "../../core.js";

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"];
type Prompt = CallOptions["prompt"];
type Message = Prompt[number];
type StreamPart = Awaited<ReturnType<Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0]["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never;

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
  /**
   * Extraction after each finished turn (rules §4.7): when the model stops (not at a tool
   * call), `session.afterTurn` reads the conversation in the background, in the memory's
   * mode (`openMemory({keep: {extract}})`, default `suggest`: proposals to `onExtract`, nothing
   * written). It never delays or fails the call. Default `false`.
   */
  extract?: boolean;
  /** Called with each background extraction's result. */
  onExtract?: (result: ExtractResult) => void;
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
  // the blocks this middleware added to user messages: not the user's words, never extracted
  const injected = new Set<string>();

  /** A finished turn's conversation, as the user and the model said it, read in the background. */
  const afterTurn = (prompt: Prompt, answer: string, finish: unknown) => {
    const reason = typeof finish === "string" ? finish : (finish as { unified?: string } | undefined)?.unified;
    if (!options.extract || reason !== "stop") return;
    const messages: { role: string; content: unknown }[] = prompt
      .filter((m) => m.role !== "system")
      .map((m) => ({ role: m.role, content: Array.isArray(m.content) ? m.content.filter((p) => !(p.type === "text" && injected.has(p.text))) : m.content }));
    if (answer) messages.push({ role: "assistant", content: answer });
    void session.afterTurn(messages).then((result) => {
      try {
        options.onExtract?.(result);
      } catch {
        // a callback must not break the next turn
      }
    });
  };

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
      for (const blocks of reminders.values()) for (const b of blocks) injected.add(b);
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
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const answer = result.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
      afterTurn(params.prompt, answer, result.finishReason);
      return result;
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      if (!options.extract) return { stream, ...rest };
      let answer = "";
      let finish: unknown;
      const watch = new TransformStream<StreamPart, StreamPart>({
        transform(part, controller) {
          if (part.type === "text-delta") answer += part.delta;
          if (part.type === "finish") finish = part.finishReason;
          controller.enqueue(part);
        },
        flush() {
          afterTurn(params.prompt, answer, finish);
        },
      });
      return { stream: stream.pipeThrough(watch), ...rest };
    },
  };
}
