/**
 * `memdir extract --messages <file>`: what a conversation holds that is worth remembering
 * (rules §4.7). `--mode suggest` (the default) only shows the proposals; `confirm` asks on the
 * terminal for each (`--yes` approves them all); `auto` writes what passes the rules. A write
 * is one change in the history: `memdir undo` takes it back.
 */
import { readFile } from "node:fs/promises";
import type { ExtractResult } from "../api.js";
import type { KeepMode, PlannedProposal } from "../core.js";
import { ask } from "./ask.js";
import { UsageError } from "./args.js";
import type { CommandContext } from "./command.js";
import { CliFailure } from "./failure.js";
import { openFromArgs } from "./memory.js";
import { chooseSelector } from "./selector.js";
import { keepMode } from "../extract.js";

/** The most of a conversation read: far more than the 24,000 units the extraction sends. */
const MAX_MESSAGES_BYTES = 16 * 1024 * 1024;

/** The conversation: a JSON array of `{role, content}` (or `{messages: [...]}`); other text is one user message. */
export function parseMessages(text: string): { role: string; content: unknown }[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [{ role: "user", content: text }];
  }
  const list = Array.isArray(value) ? value : (value as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(list) || !list.every((m) => m !== null && typeof m === "object" && typeof (m as { role?: unknown }).role === "string")) {
    throw new UsageError("--messages takes a JSON array of {role, content} (or {messages: [...]}), or plain text", "extract");
  }
  return list as { role: string; content: unknown }[];
}

async function readMessages(path: string): Promise<string> {
  if (path === "-") {
    if (process.stdin.isTTY) throw new UsageError("--messages - reads the conversation from stdin: pipe it in", "extract");
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of process.stdin) {
      bytes += (chunk as Buffer).length;
      if (bytes > MAX_MESSAGES_BYTES) throw new CliFailure(1, `the conversation on stdin is over ${MAX_MESSAGES_BYTES.toLocaleString("en")} bytes`);
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_MESSAGES_BYTES) throw new CliFailure(1, `${path} is over ${MAX_MESSAGES_BYTES.toLocaleString("en")} bytes`);
    return bytes.toString("utf8");
  } catch (error) {
    if (error instanceof CliFailure) throw error;
    throw new UsageError(`--messages ${path} could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, "extract");
  }
}

function describe(p: PlannedProposal): string {
  const how = p.mergedInto ? `update of ${p.mergedInto} (a near-duplicate)` : p.proposal.action === "supersede" ? `replaces ${p.proposal.file}` : p.action;
  const body = p.proposal.body.trim().split("\n").map((l) => `    ${l}`).join("\n");
  return `  ${p.file} (${how}) [${p.proposal.type}] ${p.proposal.name} — ${p.proposal.description}\n${body}`;
}

function format(r: ExtractResult): string {
  const lines: string[] = [];
  const n = r.proposals.length;
  const what = `${n} ${n === 1 ? "memory" : "memories"}`;
  if (r.outcome === "saved") lines.push(`saved ${what} (recorded as ${r.historyId}; memdir undo ${r.historyId} takes them back):`);
  else if (r.outcome === "proposed") lines.push(`proposed ${what} (nothing written; --mode auto or confirm saves them):`);
  else if (r.outcome === "skipped") lines.push(`skipped: ${r.skip === "no_messages" ? "the conversation has no message with text" : r.skip === "off" ? "--mode off" : "the turn already wrote memory"}`);
  else if (r.outcome === "declined") lines.push("nothing written: every proposal was declined");
  else if (r.outcome === "nothing") lines.push("nothing worth remembering");
  else lines.push(`failed: ${r.error ?? "the extraction failed"}`);
  if (r.outcome === "saved" || r.outcome === "proposed") lines.push(...r.proposals.map(describe));
  for (const x of r.refused) lines.push(`refused: ${x.proposal.name} — ${x.code}: ${x.message}`);
  for (const x of r.rejected) lines.push(`rejected: ${JSON.stringify(x.value).slice(0, 120)} (${x.reason})`);
  if (r.model !== null) lines.push(`tokens: ${r.usage.inputTokens} in, ${r.usage.outputTokens} out; cost ${r.costUsd === null ? "unknown" : `$${r.costUsd.toFixed(6)}`}`);
  return lines.join("\n");
}

/** `memdir extract`. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values: o, out } = ctx;
  let mode: KeepMode;
  try {
    mode = keepMode(o.mode ?? "suggest", "--mode");
  } catch (error) {
    throw new UsageError((error as Error).message, "extract");
  }
  if (o.messages === undefined) throw new UsageError("extract needs the conversation: --messages <file.json> (or - for stdin)", "extract");
  if (mode === "confirm" && !o.yes && (o.messages === "-" || !process.stdin.isTTY)) {
    throw new CliFailure(2, "nothing written: --mode confirm asks on a terminal for each proposal, and there is none to ask on; pass --yes to save them all, or --mode suggest to only look");
  }
  const messages = parseMessages(await readMessages(o.messages));
  const choice = chooseSelector(ctx);
  const memory = await openFromArgs(ctx, choice.config, { oneFolder: true });
  const confirm = async (p: PlannedProposal) => {
    if (o.yes) return true;
    out.err(`${describe(p)}\n`);
    return ask(`Save ${p.file}? [y/N] `);
  };
  const result = await memory.extract({ messages, mode, confirm });
  out.result(result, () => format(result));
  return result.outcome === "failed" ? 1 : 0;
}
