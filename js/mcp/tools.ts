/**
 * The MCP tools: `recall`, `remember`, `forget`, `doctor`, and the memory tool's six commands
 * as `memory_view` … `memory_rename`. Each calls the opened memory's own API (recall,
 * remember, forget, doctor, `tool().execute`), so every write rule is the one the library,
 * the CLI and the Anthropic memory tool apply. A refusal is an error result (`isError`) whose
 * text starts with memdir's code (`SECRET_DETECTED: …`) or, for the memory-tool commands,
 * is the command's own error text; a tool never throws for the model's input.
 *
 * One tool per memory-tool command rather than one `memory` tool with a `command` field:
 * each then has a flat schema (a single tool needs a root `oneOf`, which Anthropic's and
 * OpenAI's APIs refuse and Claude Code drops), and its own annotations, so a client can
 * allow `memory_view` without asking and confirm `memory_delete`.
 */
import { contentHash, memoryToolInputSchema } from "../core.js";
import { MEMORY_TYPES } from "../generated/defaults.js";
import type { DoctorReport, Limits, MemoryToolInputSchema } from "../core.js";
import type { OpenedMemory, RecallResult, ScopedMemory, SelectorConfig, WriteResult } from "../index.js";
import { argsProblem, type ObjectSchema } from "./args.js";
import { extractTool } from "./extract-tool.js";
import { consolidateTool } from "./consolidate-tool.js";

/** What a tool call returns. */
export interface ToolReply {
  text: string;
  isError: boolean;
  /** The memory changed: resource lists are stale. */
  changed: boolean;
}

/** MCP's tool annotations: hints for the client, not guarantees. */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  annotations: ToolAnnotations;
  /** `signal`: the call is no longer wanted (the client cancelled it, or disconnected): a recall stops its model call. */
  run(args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolReply>;
}

/** What the tools work on. */
export interface ToolContext {
  memory: OpenedMemory;
  /** The limits in force (the core's defaults with the memory's own): the descriptions name them. */
  limits: Limits;
  selector: SelectorConfig;
  /** Only the tools that cannot write: `recall`, `memory_view`, `doctor` without `fix`. */
  readOnly: boolean;
}

const ok = (text: string, changed = false): ToolReply => ({ text, isError: false, changed });
const failed = (text: string): ToolReply => ({ text, isError: true, changed: false });

/** A thrown error as an error result: memdir's code first, then its message. */
function refusal(error: unknown): ToolReply {
  const { code, message, name } = (error ?? {}) as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof code === "string" && typeof message === "string") return failed(`${code}: ${message}`);
  return failed(`INTERNAL: memdir failed unexpectedly (${typeof name === "string" ? name : "error"}${typeof message === "string" ? `: ${message}` : ""})`);
}

/** How the recall tool chooses, in words, for its description. */
export function selectorWords(selector: SelectorConfig): string {
  if (selector.provider === "lexical") {
    return "Chosen by memdir's lexical selector: words of the query matched against each memory's name, description and first lines, on this machine, with no model call (neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is set for this server, or --provider lexical was given). It stays silent unless a memory clearly matches, so name the specific things the task is about.";
  }
  const model = selector.model ? `model ${selector.model}` : "default model";
  const key = selector.provider === "anthropic" ? " (ANTHROPIC_API_KEY is set)" : selector.provider === "openai" && selector.apiKey ? " (OPENAI_API_KEY is set)" : "";
  const fallback = selector.fallback ? "; if that call fails, memdir's lexical selector chooses instead" : "";
  return `Chosen by a side query to ${selector.provider}'s ${model}${key}, which reads each memory's file name and description${fallback}.`;
}

function recallText(result: RecallResult): ToolReply {
  const n = result.memories.length;
  if (n > 0) {
    const by = result.selector === "lexical" || !result.model ? `the ${result.selector} selector` : `${result.selector} (${result.model})`;
    const note = result.error ? ` Note: ${result.error}.` : "";
    return ok(`${n} ${n === 1 ? "memory" : "memories"} chosen by ${by}: ${result.memories.map((m) => m.path).join(", ")}.${note}\n\n${result.reminders.join("\n\n")}`);
  }
  const why: Record<string, string> = {
    none_selected: "no memory clearly matches this query",
    no_memories: "there are no memories to choose from yet",
    already_surfaced: "every memory that could be chosen was already surfaced in this session (it is in the conversation above)",
    one_word: "a one-word query is not sent to the selector; ask in two or more words",
    budget_spent: "this session's budget for surfaced memories is spent",
    failed: "the recall failed",
  };
  const text = `No memory chosen: ${why[result.skip ?? result.outcome] ?? result.outcome}${result.error ? ` (${result.error})` : ""}.`;
  return result.outcome === "failed" ? failed(text) : ok(text);
}

function findingsText(report: DoctorReport): string {
  const lines = report.findings.map((f) => `${f.file}${f.line ? `:${f.line}` : ""}: ${f.severity} ${f.code}: ${f.message}${f.fix ? ` [fix: ${f.fix}]` : ""}`);
  lines.push(`${report.errors} errors, ${report.warnings} warnings, ${report.infos} notes; ${report.fixable} fixable`);
  return lines.join("\n");
}


/** "200 lines and 4 KB": how an injected memory is cut, from the limits in force. */
export function injectCut(limits: Limits): string {
  const bytes = limits.maxInjectBytes % 1024 === 0 ? `${limits.maxInjectBytes / 1024} KB` : `${limits.maxInjectBytes.toLocaleString("en")} bytes`;
  return `${limits.maxInjectLines.toLocaleString("en")} lines and ${bytes}`;
}

function recallTool({ memory, selector, limits }: ToolContext): McpTool {
  return {
    name: "recall",
    title: "Recall memories",
    description:
      `Finds the memories that help with a task and returns them as an agent would inject them: at most ${limits.maxSelected}, each a <system-reminder> block cut to ${injectCut(limits)}, with a warning when the memory is old enough to verify. ` +
      `${selectorWords(selector)} Call it at the start of a task, and when the user refers to earlier work. Describe the task in a few words: a one-word query is skipped.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: "What the task is about, in a few words (e.g. the user's request)." },
        already_surfaced: { type: "array", items: { type: "string" }, description: "Paths recalled earlier in this conversation (as this tool listed them), so they are not returned again." },
      },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { title: "Recall memories", readOnlyHint: true, openWorldHint: selector.provider !== "lexical" },
    async run(args, signal) {
      const result = await memory.recall(args.query as string, { alreadySurfaced: (args.already_surfaced as string[] | undefined) ?? [], ...(signal ? { signal } : {}) });
      return recallText(result);
    },
  };
}

/**
 * In a memory of several scopes (rules §1.6): the `scope` argument of the writers, its values
 * the scopes that take writes, each with its folder; nothing otherwise.
 */
function scopeProperty(memory: ToolContext["memory"], what: string): Record<string, unknown> {
  const scopes = (memory as Partial<ScopedMemory>).scopes?.filter((s) => !s.readOnly);
  if (!scopes?.length) return {};
  const listed = scopes.map((s) => `${s.name} (${s.memory.host.root})`).join(", ");
  return { scope: { type: "string", enum: scopes.map((s) => s.name), description: `${what} Scopes that take writes: ${listed}. Default: ${(memory as ScopedMemory).writeScope ?? "by the memory's type"}.` } };
}

/** The `scope` argument as the writers take it. */
const scopeArg = (args: Record<string, unknown>) => (typeof args.scope === "string" ? { scope: args.scope } : {});

function rememberTool({ memory }: ToolContext): McpTool {
  return {
    name: "remember",
    title: "Remember",
    description:
      "Saves one memory: a topic file with its frontmatter, and its one line in MEMORY.md, the index (added, or updated in place when the file exists). Refused, with nothing written, when it holds a credential, duplicates another memory, or would push the index or the folder past a limit. " +
      "Save what the code, git history and project instructions do not show: who the user is, how they want you to work (corrections and confirmed choices), project decisions, goals and deadlines (absolute dates), where things live outside the code. Not code patterns, debugging recipes or the state of the current task. One topic a memory: update an existing one (same `file`) rather than adding a near-duplicate.",
    inputSchema: {
      type: "object",
      properties: {
        type: {
          type: "string",
          enum: [...MEMORY_TYPES],
          description: "user: the user's role, goals, expertise and preferences. feedback: guidance on how to work, what to avoid and what to keep doing. project: decisions, goals, incidents and deadlines that the code and git do not show. reference: where things live outside the code (dashboards, channels, runbooks).",
        },
        name: { type: "string", description: "A short title; also the index entry's link text." },
        description: { type: "string", description: "One specific line saying what the memory is about: recall chooses by it. Also the index entry's hook." },
        body: { type: "string", description: "The memory. For feedback and project: the rule or fact, then a **Why:** line and a **How to apply:** line." },
        file: { type: "string", description: "The topic file to write or update, relative to the memory folder (e.g. feedback_testing.md). Default: the type and a slug of the name." },
        if_match: { type: "string", description: IF_MATCH },
        supersedes: { type: "string", description: "Only when this memory replaces one that no longer holds (a decision reversed, a preference changed): that memory's file. It is kept, marked superseded_by this one, its index line goes, and recall no longer chooses it." },
        ...scopeProperty(memory, "The scope to save in: the user's own for what concerns only them, the shared one for what the project or team should know."),
      },
      required: ["type", "name", "description", "body"],
      additionalProperties: false,
    },
    annotations: { title: "Remember", readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    async run(args) {
      const input = { type: args.type as string, name: args.name as string, description: args.description as string, body: args.body as string, ...(typeof args.file === "string" ? { file: args.file } : {}), ...(typeof args.supersedes === "string" ? { supersedes: args.supersedes } : {}), ...(typeof args.if_match === "string" ? { ifMatch: args.if_match } : {}), ...scopeArg(args) };
      try {
        const done: WriteResult & { scope?: string } = await memory.remember(input);
        return ok(`${done.action} ${done.file}${done.scope ? ` in scope ${done.scope}` : ""} (${done.absolutePath})\nindex line: ${done.indexLine}`, true);
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

function touchTool({ memory }: ToolContext): McpTool {
  return {
    name: "touch",
    title: "Confirm a memory",
    description:
      "Records that a memory was checked and still holds: its metadata.modified becomes now, nothing else changes, and it is no longer flagged as old (the staleness reminder, doctor's stale_core_memory). Use it after verifying a memory the reminder called old; correct it with remember instead if it no longer holds.",
    inputSchema: {
      type: "object",
      properties: { file: { type: "string", description: "The topic file, relative to the memory folder (e.g. user_role.md)." }, if_match: { type: "string", description: IF_MATCH }, ...scopeProperty(memory, "The scope the file is in (or give the file as scope:path, as recall lists it).") },
      required: ["file"],
      additionalProperties: false,
    },
    annotations: { title: "Confirm a memory", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args) {
      try {
        const done = await memory.touch({ file: args.file as string, ...(typeof args.if_match === "string" ? { ifMatch: args.if_match } : {}), ...scopeArg(args) });
        return ok(`touched ${done.file}: confirmed true now`, true);
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

function forgetTool({ memory }: ToolContext): McpTool {
  return {
    name: "forget",
    title: "Forget",
    description: "Removes a memory: its topic file and every MEMORY.md line that links to it. Use it for a memory that turned out wrong or no longer holds. NOT_FOUND when neither exists.",
    inputSchema: {
      type: "object",
      properties: { file: { type: "string", description: "The topic file, relative to the memory folder (e.g. feedback_testing.md)." }, if_match: { type: "string", description: IF_MATCH }, ...scopeProperty(memory, "The scope the file is in (or give the file as scope:path, as recall lists it).") },
      required: ["file"],
      additionalProperties: false,
    },
    annotations: { title: "Forget", readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args) {
      try {
        const done = await memory.forget({ file: args.file as string, ...(typeof args.if_match === "string" ? { ifMatch: args.if_match } : {}), ...scopeArg(args) });
        return ok(`forgot ${done.file}: the file and its MEMORY.md line are gone`, true);
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

function doctorTool({ memory, readOnly, limits }: ToolContext): McpTool {
  const properties: ObjectSchema["properties"] = {
    stale_core_days: { type: "integer", minimum: 0, description: "User and feedback memories older than this many days are reported. Default 90." },
  };
  if (!readOnly) properties.fix = { type: "boolean", description: "Apply the safe fixes (never deleting anything that may still be true) and show their diff. Default false: only report." };
  return {
    name: "doctor",
    title: "Check the memory",
    description:
      `Checks the memory folder against its rules: content in MEMORY.md instead of one-line entries, links to missing files, files missing from the index, files past the ${limits.maxFiles.toLocaleString("en")}-file cap, an index over its limits, missing or malformed frontmatter, vague descriptions, duplicated topics, stale core memories, credentials. Each finding names a file, a line and, where one is safe, a fix.` +
      (readOnly ? "" : " With fix: true, applies the safe fixes and returns their diff and what remains."),
    inputSchema: { type: "object", properties, additionalProperties: false },
    annotations: { title: "Check the memory", readOnlyHint: readOnly, destructiveHint: false, openWorldHint: false },
    async run(args) {
      const options = typeof args.stale_core_days === "number" ? { staleCoreDays: args.stale_core_days } : {};
      try {
        if (args.fix !== true) return ok(findingsText(await memory.doctor(options)));
        const plan = await memory.planFixes(options);
        if (plan.effects.length === 0) return ok(`nothing to fix\n${findingsText(plan.before)}`);
        const after = await memory.applyFixes(plan, options);
        return ok(`fixed ${plan.fixed}:\n${plan.diff}\nremaining:\n${findingsText(after)}`, true);
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

/** One MCP tool per memory-tool command, its schema the core's schema for that command. */
function memoryCommandTools({ memory, readOnly }: ToolContext, schema: MemoryToolInputSchema): McpTool[] {
  const tool = memory.tool();
  return (schema.oneOf ?? [])
    .filter((variant) => !readOnly || variant.title === "view")
    .map((variant) => {
      const command = variant.title;
      const { command: _, ...properties } = variant.properties;
      const writes = command !== "view";
      return {
        name: `memory_${command}`,
        title: `Memory: ${command}`,
        description: `${variant.description} Works on the memory folder's files directly, as Anthropic's memory tool (the ${command} command): paths are under /memories. The same rules hold as for remember and forget.`,
        inputSchema: { type: "object", properties: writes ? { ...properties, if_match: { type: "string", description: IF_MATCH } } : properties, required: variant.required.filter((f) => f !== "command") },
        annotations: {
          title: `Memory: ${command}`,
          readOnlyHint: !writes,
          ...(writes ? { destructiveHint: command === "str_replace" || command === "delete", idempotentHint: command === "delete" } : {}),
          openWorldHint: false,
        },
        async run(args) {
          const result = await tool.execute({ ...args, command });
          // a file's view ends with its hash: what a later write passes as if_match
          const hash = !writes && !result.isError ? await viewedHash(memory, args.path) : null;
          return { text: hash ? `${result.content}\n(sha256 ${hash}: pass it as if_match to change this file only if it is still as viewed)` : result.content, isError: result.isError, changed: writes && !result.isError };
        },
      } satisfies McpTool;
    });
}

/** What `if_match` means, for every tool that writes. */
const IF_MATCH = "Optional: the sha256 a view of the file gave. The change is made only if the file is still exactly as viewed; otherwise CHANGED and nothing is written (someone edited it since: view it again).";

/** The SHA-256 of a file a view showed (`null` for a folder, or a path that is not one). */
async function viewedHash(memory: OpenedMemory, path: unknown): Promise<string | null> {
  if (typeof path !== "string" || !path.startsWith("/memories/")) return null;
  try {
    const bytes = await memory.host.readFile(path.slice("/memories/".length));
    return contentHash(bytes);
  } catch {
    return null;
  }
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** `history`: every change memdir made to the folder, newest first. */
function historyTool({ memory }: ToolContext): McpTool {
  return {
    name: "history",
    title: "History of the memory",
    description: "Lists the changes memdir made to the memory folder, newest first: when, which route (remember, forget, tool, doctor, undo, restore) and writer, and each file created, changed or removed. Each change has an id that undo takes.",
    inputSchema: {
      type: "object",
      properties: {
        file: { type: "string", description: "Only the changes of this file (relative to the memory folder)." },
        limit: { type: "integer", minimum: 1, description: "At most this many changes. Default 20." },
      },
      additionalProperties: false,
    },
    annotations: { title: "History of the memory", readOnlyHint: true, openWorldHint: false },
    async run(args) {
      try {
        const items = await memory.history(typeof args.file === "string" ? { file: args.file } : {});
        const shown = items.slice(0, typeof args.limit === "number" ? args.limit : 20);
        if (shown.length === 0) return ok("No change recorded.");
        const lines = shown.map((h) => `${h.id}  ${when(h.atMs)}  ${h.route}${h.label ? ` (${h.label})` : ""}${h.status === "done" ? "" : ` [${h.status}]`}${h.undoes ? ` undoes ${h.undoes}` : ""}: ${h.changes.map((c) => `${c.path} ${c.action}`).join(", ")}`);
        return ok(`${lines.join("\n")}${items.length > shown.length ? `\n… ${items.length - shown.length} older` : ""}`);
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

/** `undo`: one change taken back, refused when a file changed since. */
function undoTool({ memory }: ToolContext): McpTool {
  return {
    name: "undo",
    title: "Undo a change",
    description: "Takes back one change from history (by its id): each file as it was before it; a forgotten memory comes back with its index line. Refused with CHANGED, nothing written, when a file changed since (a later edit is never overwritten). With dry_run, only shows the diff.",
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: "The change's id, from history." },
        dry_run: { type: "boolean", description: "Show the diff; change nothing. Default false." },
      },
      required: ["id"],
      additionalProperties: false,
    },
    annotations: { title: "Undo a change", readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    async run(args) {
      try {
        const done = await memory.undo(args.id as string, { dryRun: args.dry_run === true });
        if (!done.applied) return ok(done.files.length > 0 ? `Would undo ${args.id as string} (${done.files.join(", ")}):\n${done.diff}` : "Nothing to undo: the files are already as before that change.");
        return ok(`Undid ${args.id as string} (recorded as ${done.record?.id ?? "no change"}):\n${done.diff}`, true);
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

/** `restore`: every file memdir changed since a time, as it was then. */
function restoreTool({ memory }: ToolContext): McpTool {
  return {
    name: "restore",
    title: "Restore the memory to a time",
    description: "Brings every file memdir changed after a time back to how it was then (as far back as the history reaches). Refused with CHANGED, nothing written, for a file changed outside memdir since. With dry_run, only shows the diff.",
    inputSchema: {
      type: "object",
      properties: {
        at: { type: "string", minLength: 1, description: "The time: an ISO 8601 date or time (2026-12-04T15:30:00Z), e.g. a change's time from history." },
        dry_run: { type: "boolean", description: "Show the diff; change nothing. Default false." },
      },
      required: ["at"],
      additionalProperties: false,
    },
    annotations: { title: "Restore the memory to a time", readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    async run(args) {
      const at = Date.parse(args.at as string);
      if (!Number.isFinite(at)) return failed(`INVALID_ARGUMENT: restore: \`at\` must be an ISO 8601 date or time, not ${JSON.stringify(args.at)}`);
      try {
        const done = await memory.restore({ at, dryRun: args.dry_run === true });
        if (done.files.length === 0) return ok("Nothing to restore: the files memdir changed since then are already as they were.");
        return done.applied ? ok(`Restored ${done.files.join(", ")} (recorded as ${done.record?.id ?? "no change"}):\n${done.diff}`, true) : ok(`Would restore ${done.files.join(", ")}:\n${done.diff}`);
      } catch (error) {
        return refusal(error);
      }
    },
  };
}

/** The tools, in the order a client lists them. */
export function mcpTools(context: ToolContext): McpTool[] {
  const own = context.readOnly
    ? [recallTool(context), doctorTool(context), historyTool(context)]
    : [recallTool(context), rememberTool(context), forgetTool(context), touchTool(context), extractTool(context), consolidateTool(context), doctorTool(context), historyTool(context), undoTool(context), restoreTool(context)];
  return [...own, ...memoryCommandTools(context, memoryToolInputSchema())];
}

/**
 * Runs a tool on a client's arguments: checked against its schema first; never throws.
 * `signal` aborts what can stop early (a recall's model call); a write runs to its end.
 */
export async function callTool(tool: McpTool, args: unknown, signal?: AbortSignal): Promise<ToolReply> {
  // memory-tool commands are checked by the core itself, with the memory tool's own texts
  const given = args ?? {};
  const own = !tool.name.startsWith("memory_");
  const isObject = typeof given === "object" && given !== null && !Array.isArray(given);
  const problem = own ? argsProblem(tool.inputSchema, given) : isObject ? null : "the arguments must be an object";
  if (problem) return failed(`INVALID_ARGUMENT: ${tool.name}: ${problem}`);
  try {
    return await tool.run(given as Record<string, unknown>, signal);
  } catch (error) {
    return refusal(error);
  }
}
