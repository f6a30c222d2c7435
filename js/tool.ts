/**
 * memdir as the backend of Anthropic's `memory_20250818` memory tool. `memory.tool()` gives
 * one async function per command, shaped like the SDK's `MemoryToolHandlers`, so
 * `betaMemoryTool(memory.tool())` plugs it into the SDK's tool runner — and `execute()` serves
 * any other tool loop. memdir does not depend on the SDK.
 */
import { fileReadBytes, memoryToolInputSchema, planToolCommand, runToolCommand } from "./core.js";
import type { Limits, MemoryToolCommand, MemoryToolInputSchema, ToolResult } from "./core.js";
import { crossing } from "./edge.js";
import { MemdirError } from "./errors.js";
import type { MemoryHost } from "./host.js";
import { ioHost, withIoLock } from "./io.js";
import type { LockOptions } from "./lock.js";
import { applyJournaled, ifMatchOf, recoverInterrupted, type HistoryOptions } from "./history.js";
import { takeSnapshot } from "./snapshot.js";

/** Thrown by a handler for an error result: the SDK's tool runner sends `Error: <message>` with `is_error: true`. */
export class MemoryToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MemoryToolError";
  }
}

type Command<K extends MemoryToolCommand["command"]> = Extract<MemoryToolCommand, { command: K }>;

/** One async function per command (the SDK's `MemoryToolHandlers`), plus `execute` and the tool definition. */
export interface MemoryToolHandlers {
  view(command: Command<"view">): Promise<string>;
  create(command: Command<"create">): Promise<string>;
  str_replace(command: Command<"str_replace">): Promise<string>;
  insert(command: Command<"insert">): Promise<string>;
  delete(command: Command<"delete">): Promise<string>;
  rename(command: Command<"rename">): Promise<string>;
}

export interface MemoryTool extends MemoryToolHandlers {
  /** What goes in the request's `tools`: `{type: "memory_20250818", name: "memory"}`. */
  readonly definition: { type: "memory_20250818"; name: "memory" };
  /**
   * The JSON Schema of `execute`'s input (`memoryToolInputSchema()`): exact, with one schema
   * per command in its root `oneOf`. A model API that refuses a root `oneOf` (Anthropic's,
   * OpenAI's) takes `memoryToolInputSchema({ flat: true })` instead.
   */
  readonly inputSchema: MemoryToolInputSchema;
  /** Runs any command (the `input` of a `tool_use` block); never throws for the model's mistakes. */
  execute(input: unknown): Promise<{ content: string; isError: boolean }>;
}

const HOST_RETRY = new Set(["EEXIST", "ENOENT", "ENOTDIR"]);

const shown = (path: string) => (path === "" ? "/memories" : `/memories/${path}`);

/** The error result for a command that could not finish; its text names `/memories` paths only. */
function unfinished(command: string, error: unknown): ToolResult {
  const why = error instanceof MemdirError ? error.message : `an unexpected ${(error as Error)?.name ?? "error"}`;
  return { text: `The memory tool could not finish the ${command}: ${why}`, isError: true, effects: [] };
}

/** Runs one command through the core: plan, read, decide, write. Never throws. */
export async function runMemoryCommand(host: MemoryHost, input: unknown, limits: Limits, lock: LockOptions = {}, history: HistoryOptions & { now?: () => number } = {}): Promise<ToolResult> {
  let command: MemoryToolCommand;
  let plan;
  let ifMatch: string | undefined;
  try {
    // read the model's input once, bounded: the plan and the decision see the same command
    command = crossing({ command: input }).command as MemoryToolCommand;
    // `if_match` is the history's condition on the command's file, not part of Anthropic's command
    if (typeof command === "object" && command !== null && "if_match" in command) {
      const { if_match: condition, ...rest } = command as MemoryToolCommand & { if_match?: unknown };
      ifMatch = ifMatchOf(condition, "if_match");
      command = rest as MemoryToolCommand;
    }
    plan = planToolCommand(command);
  } catch (error) {
    return { text: `Invalid memory command: ${(error as Error).message}`, isError: true, effects: [] };
  }
  if (plan.result) return plan.result;
  const io = ioHost(host, shown);
  const once = async (): Promise<ToolResult> => {
    if (plan.writes) await recoverInterrupted(io, limits);
    for (let attempt = 0; ; attempt++) {
      // a host that resolves links can skip the listing when the command does not need it
      let list = plan.list === "always" || plan.list === "kinds" || !io.links;
      if (!list && plan.list === "ifDirectory") list = plan.resolve[0] === "" || (await io.stat(plan.resolve[0]!))?.kind === "directory";
      const snapshot = await takeSnapshot(io, { read: plan.read, resolve: plan.resolve, list: list && plan.list === "kinds" ? "kinds" : list, readBytes: fileReadBytes(limits) });
      const result = runToolCommand(command, snapshot, limits);
      if (result.isError || (result.effects.length === 0 && ifMatch === undefined)) return result;
      try {
        const { now = Date.now, ...options } = history;
        const target = plan.resolve[0];
        await applyJournaled(io, result.effects, { ...options, route: "tool", nowMs: now(), limits, ...(ifMatch !== undefined && target !== undefined ? { ifMatch: { path: target, sha256: ifMatch } } : {}) });
        return result;
      } catch (error) {
        // something changed between the read and the write: decide again on a fresh read
        if (attempt === 0 && HOST_RETRY.has((error as MemdirError).errno ?? "")) continue;
        return unfinished(command.command, error);
      }
    }
  };
  try {
    return plan.writes ? await withIoLock(host, once, lock) : await once();
  } catch (error) {
    return unfinished(command.command, error);
  }
}

/** The memory tool over a host. */
export function memoryTool(host: MemoryHost, limits: Limits, lock: LockOptions = {}, history: HistoryOptions & { now?: () => number } = {}): MemoryTool {
  const handler = async (command: MemoryToolCommand): Promise<string> => {
    const result = await runMemoryCommand(host, command, limits, lock, history);
    if (result.isError) throw new MemoryToolError(result.text);
    return result.text;
  };
  return {
    definition: { type: "memory_20250818", name: "memory" },
    get inputSchema() {
      return memoryToolInputSchema();
    },
    view: (c) => handler({ ...c, command: "view" }),
    create: (c) => handler({ ...c, command: "create" }),
    str_replace: (c) => handler({ ...c, command: "str_replace" }),
    insert: (c) => handler({ ...c, command: "insert" }),
    delete: (c) => handler({ ...c, command: "delete" }),
    rename: (c) => handler({ ...c, command: "rename" }),
    async execute(input) {
      const result = await runMemoryCommand(host, input, limits, lock, history);
      return { content: result.text, isError: result.isError };
    },
  };
}
