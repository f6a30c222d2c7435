/**
 * Extraction after a turn (rules §4.7): the messages since the last run and the saved memories
 * go to the side query; the core checks what the model proposes and plans the writes; the mode
 * says whether they are only proposed, confirmed one by one, or written — as one change in the
 * history, which `undo` takes back whole. Never throws for a model, network or file problem:
 * the result says `failed`, and why.
 */
import { buildExtractionRequest, extractionReadPlan, parseExtraction, planExtraction } from "./core.js";
import type { ExtractionPlan, KeepMode, PlannedProposal, Proposal, Rejected, RefusedProposal, TurnMessage, Usage } from "./core.js";
import type { WriteResult } from "./api.js";
import { applyJournaled, recoverInterrupted } from "./history.js";
import { ioHost, withIoLock } from "./io.js";
import { scanWithHeads, type RecallContext } from "./recall.js";
import { askModel, NO_USAGE } from "./selectors.js";
import { takeSnapshot } from "./snapshot.js";
import type { WriteContext } from "./writes.js";

/** A message as agent frameworks hold it: text, or parts of which the text ones are read. */
export interface ConversationMessage {
  role: string;
  content: unknown;
}

/** A proposal as a `confirm` callback sees it: what would be written, and where. */
export type ProposedMemory = PlannedProposal;

/** How one extraction runs. */
export interface ExtractOptions {
  /** The messages to read (a session passes those since its last extraction). */
  messages: readonly ConversationMessage[];
  /** Default: the memory's `keep.extract`, else `suggest`. */
  mode?: KeepMode;
  /** `confirm` mode: approves each proposal (a prompt, a terminal question); a throw is a no. */
  confirm?: (proposal: ProposedMemory) => boolean | Promise<boolean>;
  /** The turn already wrote memory through a tool: nothing is extracted (default: false). */
  wroteMemory?: boolean;
  /** Recorded as each written memory's `metadata.originSessionId`. */
  sessionId?: string;
  signal?: AbortSignal;
  /** Deadline of the side query, retries included. Default: the selector's `timeoutMs`, else 60,000 ms. */
  timeoutMs?: number;
}

export type ExtractOutcome = "saved" | "proposed" | "nothing" | "skipped" | "declined" | "failed";

/** What an extraction did. */
export interface ExtractResult {
  outcome: ExtractOutcome;
  mode: KeepMode;
  /** Why nothing was asked: `off`, `no_messages`, `memory_written`. */
  skip?: "off" | "no_messages" | "memory_written";
  /** The proposals that pass every write rule: written (`saved`), or to approve (`proposed`). */
  proposals: PlannedProposal[];
  /** What was written, one per file (empty unless `saved`). */
  saved: WriteResult[];
  /** Proposals a write rule refused (a credential, the caps…), with the code `remember` would throw. */
  refused: RefusedProposal[];
  /** Operations of the answer refused for their shape (an unknown file, past five…). */
  rejected: Rejected[];
  /** The change in the history (`undo(historyId)` takes the whole extraction back). */
  historyId: string | null;
  selector: string | null;
  model: string | null;
  usage: Required<Usage>;
  costUsd: number | null;
  latencyMs: number;
  error?: string;
}

/** Sent to `onEvent` after every extraction. */
export interface ExtractEvent {
  type: "extract";
  outcome: ExtractOutcome;
  proposed: number;
  saved: number;
  refused: number;
  latencyMs: number;
  usage: Required<Usage>;
  costUsd: number | null;
  error?: string;
}

/** What an extraction works with: the opened memory's recall and write settings. */
export interface ExtractContext {
  recall: RecallContext;
  writes: WriteContext;
  /** The memory's `keep.extract`. */
  mode?: KeepMode;
  onEvent?: (event: ExtractEvent) => void;
  /** Runs the extraction's own write so that the memory does not count it as the turn's. */
  mute?: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** Text of a part of a message, as the SDKs hold them (`text`, tool calls and results). */
function partText(part: unknown): string {
  if (typeof part === "string") return part;
  if (part === null || typeof part !== "object") return "";
  const p = part as Record<string, unknown>;
  if (typeof p.text === "string") return p.text;
  const name = p.toolName ?? p.name;
  if ((p.type === "tool-call" || p.type === "tool_use") && typeof name === "string") return `(called the tool ${name})`;
  const output = p.output ?? p.result ?? p.content;
  if (p.type === "tool-result" || p.type === "tool_result") return outputText(output);
  return "";
}

/** A tool's output as text: a string, parts, or the AI SDK's `{type, value}`. */
function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map(partText).join("\n");
  if (output !== null && typeof output === "object" && "value" in output) {
    const value = (output as { value: unknown }).value;
    if (typeof value === "string") return value;
    try {
      return JSON.stringify(value) ?? "";
    } catch {
      return "";
    }
  }
  return "";
}

/**
 * The messages as the core reads them: role and text. The core sends at most 24,000 UTF-16
 * units of the newest; what crosses to it is bounded here so a huge tool output or a very
 * long conversation costs no more than that needs: the newest 4,000 messages, 65,536 units each.
 */
export function turnMessages(messages: readonly ConversationMessage[]): TurnMessage[] {
  if (!Array.isArray(messages)) return [];
  return messages.slice(-4_000).map((m) => {
    const content = (m as ConversationMessage | null)?.content;
    const text = typeof content === "string" ? content : Array.isArray(content) ? content.map(partText).filter(Boolean).join("\n") : "";
    return { role: String((m as ConversationMessage | null)?.role ?? ""), text: cutText(text, 65_536) };
  });
}

/** `text` cut to `units`, never between the two halves of a surrogate pair. */
function cutText(text: string, units: number): string {
  if (text.length <= units) return text;
  const code = text.charCodeAt(units - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? units - 1 : units);
}

const MODES: readonly KeepMode[] = ["off", "suggest", "confirm", "auto"];

/** A mode, or the error naming the four. */
export function keepMode(value: unknown, what: string): KeepMode {
  if (MODES.includes(value as KeepMode)) return value as KeepMode;
  throw new TypeError(`${what} must be "off", "suggest", "confirm" or "auto", got ${JSON.stringify(value)}`);
}

/** A result with nothing done yet: `failed` until the run says otherwise (`error` when given). */
export function emptyResult(mode: KeepMode, error?: string): ExtractResult {
  return { outcome: "failed", mode, proposals: [], saved: [], refused: [], rejected: [], historyId: null, selector: null, model: null, usage: NO_USAGE, costUsd: null, latencyMs: 0, ...(error ? { error } : {}) };
}

/** Asks the model; the proposals and what it refused, or why it failed. */
async function ask(ctx: ExtractContext, opts: ExtractOptions, result: ExtractResult, messages: TurnMessage[]): Promise<Proposal[] | null> {
  const { recall } = ctx;
  const scanned = await scanWithHeads(recall);
  const built = buildExtractionRequest({ messages, memories: scanned.result.memories, wroteMemory: opts.wroteMemory ?? false, nowMs: recall.now(), limits: recall.limits });
  if (built.skip) {
    result.outcome = "skipped";
    result.skip = built.skip;
    return null;
  }
  // an extraction writes a few memories, not five names: it gets a minute unless told otherwise
  const asked = await askModel(recall.selector, built.request, { what: "extraction", timeoutMs: opts.timeoutMs, defaultTimeoutMs: 60_000, signal: opts.signal });
  Object.assign(result, { selector: asked.selector, model: asked.model, usage: asked.usage, costUsd: asked.costUsd });
  if (asked.text === null) {
    result.error = asked.error;
    return null;
  }
  const parsed = parseExtraction(asked.text, built.request.candidates);
  result.rejected = parsed.rejected;
  if (parsed.failure) {
    result.error = `${parsed.failure.code}: ${parsed.failure.message}`;
    return null;
  }
  return parsed.proposals;
}

/** The proposals checked against the folder as it is now (read without the lock: nothing is written). */
async function plan(ctx: ExtractContext, proposals: Proposal[], opts: ExtractOptions): Promise<ExtractionPlan> {
  const { writes } = ctx;
  const io = ioHost(writes.host);
  const snapshot = await takeSnapshot(io, extractionReadPlan(proposals, writes.limits), writes.concurrency);
  return planExtraction(proposals, snapshot, writes.limits, writes.now(), opts.sessionId ?? null);
}

/** Writes `proposals` under the lock, planned again on the folder as it is then: one change. */
async function save(ctx: ExtractContext, proposals: Proposal[], opts: ExtractOptions, result: ExtractResult): Promise<void> {
  const { writes } = ctx;
  const io = ioHost(writes.host);
  const own = ctx.mute ?? (<T>(fn: () => Promise<T>) => fn());
  await own(() => withIoLock(
    writes.host,
    async () => {
      await recoverInterrupted(io, writes.limits);
      const planned = await plan(ctx, proposals, opts);
      result.proposals = planned.planned;
      // what was refused before stays refused; the folder may have changed since: more may be
      result.refused = [...result.refused, ...planned.refused];
      const record = await applyJournaled(io, planned.effects, { ...writes.history, route: "extract", nowMs: writes.now(), limits: writes.limits });
      result.historyId = record?.id ?? null;
      result.saved = planned.planned.map((p) => ({ file: p.file, absolutePath: writes.host.absolutePath(p.file), action: p.action, indexLine: p.indexLine ?? null }));
    },
    writes.lock,
  ));
}

/** One extraction (see `OpenedMemory.extract`). */
export async function extract(ctx: ExtractContext, opts: ExtractOptions): Promise<ExtractResult> {
  const started = performance.now();
  const mode = opts.mode ?? ctx.mode ?? "suggest";
  const result = emptyResult(mode);
  try {
    keepMode(mode, "extract's mode");
    if (mode === "off") {
      result.outcome = "skipped";
      result.skip = "off";
    } else {
      const proposals = await ask(ctx, opts, result, turnMessages(opts.messages));
      if (proposals !== null) await decide(ctx, opts, mode, proposals, result);
    }
  } catch (error) {
    result.outcome = "failed";
    result.error = `extraction failed: ${(error as Error)?.message ?? String(error)}`;
  }
  result.latencyMs = performance.now() - started;
  const event: ExtractEvent = { type: "extract", outcome: result.outcome, proposed: result.proposals.length, saved: result.saved.length, refused: result.refused.length, latencyMs: result.latencyMs, usage: result.usage, costUsd: result.costUsd, ...(result.error ? { error: result.error } : {}) };
  try {
    ctx.onEvent?.(event);
  } catch {
    // a logging callback must not break extraction
  }
  return result;
}

/** What the mode does with the proposals. */
async function decide(ctx: ExtractContext, opts: ExtractOptions, mode: KeepMode, proposals: Proposal[], result: ExtractResult): Promise<void> {
  if (proposals.length === 0) {
    result.outcome = "nothing";
    return;
  }
  const planned = await plan(ctx, proposals, opts);
  result.proposals = planned.planned;
  result.refused = planned.refused;
  if (planned.planned.length === 0) {
    result.outcome = "nothing";
    return;
  }
  if (mode === "suggest") {
    result.outcome = "proposed";
    return;
  }
  let approved = planned.planned.map((p) => p.proposal);
  if (mode === "confirm") {
    if (!opts.confirm) throw new TypeError("confirm mode needs a `confirm` callback that approves each proposal");
    approved = [];
    for (const p of planned.planned) {
      let yes = false;
      try {
        yes = (await opts.confirm(p)) === true;
      } catch {
        yes = false;
      }
      if (yes) approved.push(p.proposal);
    }
    if (approved.length === 0) {
      result.outcome = "declined";
      return;
    }
  }
  await save(ctx, approved, opts, result);
  result.outcome = result.saved.length > 0 ? "saved" : "nothing";
}
