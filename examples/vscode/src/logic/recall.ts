/** "memdir: Recall for this question…": ask, recall, and show what an agent would be given. */
import type { RecallResult } from "memdir";
import type { OpenedMemory, Prompts } from "./types.js";

/** Asks for the question (prefilled with `initial`, e.g. the selection) and recalls; `undefined` when cancelled. */
export async function recallFlow(memory: OpenedMemory, prompts: Prompts, initial = ""): Promise<{ query: string; result: RecallResult } | undefined> {
  const query = await prompts.input({ title: "memdir: Recall for this question", prompt: "The question or task an agent would get", value: initial, placeHolder: "How do we run the integration tests?" });
  if (query === undefined || query.trim() === "") return undefined;
  return { query, result: await memory.recall(query) };
}

const OUTCOMES: Record<string, string> = {
  selected: "selected",
  none_selected: "the selector chose nothing",
  no_memories: "no memories to choose from",
  failed: "failed",
};

const SKIPS: Record<string, string> = {
  one_word: "skipped: a one-word query is not sent to the selector",
  budget_spent: "skipped: the session's budget for surfaced memories is spent",
  already_surfaced: "skipped: every memory that could be chosen was already surfaced this session",
};

/**
 * The result as a Markdown document: the outcome, each memory with its age (and its scope, in a
 * memory of several scopes), then the exact blocks injected. `scopes`, when given, are listed
 * under the outcome in order of precedence (`name (read-only): folder`).
 */
export function recallMarkdown(query: string, result: RecallResult, scopes: readonly string[] = []): string {
  const lines = [`# Recall: ${query.replace(/\s+/g, " ")}`, ""];
  const cost = result.costUsd === null ? "" : `, $${result.costUsd.toFixed(5)}`;
  lines.push(`**${(result.outcome === "skipped" && result.skip && SKIPS[result.skip]) || OUTCOMES[result.outcome] || result.outcome}** by \`${result.selector ?? "none"}\`${result.model && result.selector !== "lexical" ? ` (${result.model})` : ""} in ${Math.round(result.latencyMs)} ms${cost}`);
  if (scopes.length > 0) lines.push("", `Scopes, the first wins when two disagree: ${scopes.join("; ")}`);
  // the lexical selector chose after the model failed: the error already says so ("anthropic failed (…); the lexical selector chose")
  if (result.error) lines.push("", `${result.selector === "lexical" && result.model ? "Note" : "Error"}: ${result.error}`);
  if (result.memories.length > 0) {
    lines.push("", "## Memories", "");
    for (const m of result.memories) lines.push(`- \`${m.path}\`${m.scope ? ` from the **${m.scope}** scope` : ""} — ${m.ageDays === 0 ? "today" : m.ageDays === 1 ? "yesterday" : `${m.ageDays} days old`}${m.truncated ? `, cut (${m.truncated})` : ""}`);
  }
  if (result.rejected.length > 0) {
    lines.push("", "## Rejected from the answer", "");
    for (const r of result.rejected) lines.push(`- ${JSON.stringify(r)}`);
  }
  if (result.reminders.length > 0) {
    lines.push("", "## What the agent is given", "");
    for (const text of result.reminders) lines.push("````text", text, "````", "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
