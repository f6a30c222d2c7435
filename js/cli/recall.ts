/**
 * `memdir recall "<query>"`: which memories a side query picks, and the blocks to inject —
 * with which selector chose and why, and every outcome in words.
 */
import type { RecallResult } from "../entry/node.js";
import { memoryAge } from "../core.js";
import type { CommandContext } from "./command.js";
import { openFromArgs, requireFolders } from "./memory.js";
import { chooseSelector } from "./selector.js";

/** What the CLI adds to a `RecallResult` in `--json`. */
export interface ExplainedRecall extends RecallResult {
  /** Why this selector chose (or why none ran). */
  selectorReason: string;
  /** The outcome in words. */
  outcomeReason: string;
}

/** The outcome in a sentence (the result's `skip` holds why no selector ran, `error` the failure). */
export function outcomeReason(r: RecallResult): string {
  switch (r.outcome) {
    case "selected":
      return `${r.memories.length} ${r.memories.length === 1 ? "memory" : "memories"} chosen`;
    case "none_selected":
      return `the ${r.selector} selector found no memory that helps with this query`;
    case "no_memories":
      return "there are no memory files to choose from (MEMORY.md alone is not a choice: it is always in the prompt)";
    case "skipped":
      if (r.skip === "budget_spent") return "this session's budget for surfaced memories is spent";
      if (r.skip === "already_surfaced") return "every memory that could be chosen was already surfaced this session";
      return "a one-word query is not sent to the selector (as in Claude Code); ask in two or more words";
    case "failed":
      return r.error ?? "the recall failed";
  }
}

function selectorReason(r: RecallResult, configured: { provider: string; reason: string }): string {
  if (r.selector === null) return r.outcome === "failed" ? configured.reason : "the query was not sent to a selector";
  // the model failed and --fallback let the lexical selector choose: the result's error says why
  if (r.selector === "lexical" && configured.provider !== "lexical") return `${r.error ?? `${configured.provider} failed`} (--fallback)`;
  return configured.reason;
}

function formatRecall(r: ExplainedRecall): string {
  const now = Date.now();
  const model = r.model && r.selector !== "lexical" ? ` (${r.model})` : "";
  const lines = [
    `selector: ${r.selector ?? "none"}${model} — ${r.selectorReason}`,
    `outcome:  ${r.outcome} — ${r.outcomeReason}`,
    `chosen:   ${r.memories.length ? r.memories.map((m) => `${m.path} (${memoryAge(m.timeMs, now)}${m.truncated ? `, cut: ${m.truncated}` : ""})`).join(", ") : "nothing"}`,
  ];
  if (r.rejected.length) lines.push(`rejected: ${r.rejected.map((x) => `${JSON.stringify(x.value)} (${x.reason})`).join(", ")}`);
  const u = r.usage;
  if (r.model !== null) {
    lines.push(`tokens:   ${u.inputTokens} in, ${u.outputTokens} out, ${u.cacheReadInputTokens} cache read, ${u.cacheCreationInputTokens} cache write`);
    lines.push(`cost:     ${r.costUsd === null ? "unknown (model not in the price table)" : `$${r.costUsd.toFixed(6)}`}`);
  }
  // the selection's share: the model call, or (lexical, a fallback too) all of the selection
  lines.push(`time:     ${r.latencyMs.toFixed(1)} ms (${r.selector === "lexical" ? "selection" : "model"} ${r.modelLatencyMs.toFixed(1)} ms)`);
  if (r.reminders.length) lines.push("", "# Blocks to inject", "", r.reminders.join("\n\n"));
  return lines.join("\n");
}

export async function run(ctx: CommandContext): Promise<number> {
  const { out } = ctx;
  const choice = chooseSelector(ctx);
  const memory = await openFromArgs(ctx, choice.config, { oneFolder: true });
  await requireFolders(ctx, memory);
  out.debug(`selector: ${choice.config.provider} — ${choice.reason}`);
  if (choice.config.provider === "lexical") out.debug("the lexical selector sends no side query");
  const result = await memory.recall(ctx.positionals[0]!);
  const { outcome, selector, ...rest } = result;
  const explained: ExplainedRecall = { outcome, outcomeReason: "", selector, selectorReason: selectorReason(result, { provider: choice.config.provider, reason: choice.reason }), ...rest };
  explained.outcomeReason = outcomeReason(result);
  out.debug(`outcome: ${outcome} — ${explained.outcomeReason}`);
  out.debug(`injected blocks: ${result.reminders.length}`, result.reminders.length ? result.reminders.join("\n\n") : undefined);
  out.result(explained, () => formatRecall(explained));
  if (outcome === "failed") {
    out.note(`recall failed: ${explained.outcomeReason}`);
    return 1;
  }
  return 0;
}
