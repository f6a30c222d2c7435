/**
 * "memdir: Extract memories from the selection…" (rules §4.7): the selection (or the whole
 * document) is a conversation — a JSON array of `{role, content}` as agent frameworks log it, or
 * plain text read as the user's words — and memdir's extraction proposes what to keep. Each
 * proposal is shown and saved only when the user says so in a modal (the `confirm` mode); what
 * is saved is one change that "Undo change…" takes back.
 */
import type { OpenedMemory, Prompts } from "./types.js";

type ExtractResult = Awaited<ReturnType<OpenedMemory["extract"]>>;
type Proposed = ExtractResult["proposals"][number];

/** The conversation in `text`: JSON messages when it is such JSON, else one user message. */
export function conversationOf(text: string): { role: string; content: unknown }[] {
  try {
    const value: unknown = JSON.parse(text);
    const list = Array.isArray(value) ? value : (value as { messages?: unknown } | null)?.messages;
    if (Array.isArray(list) && list.every((m) => typeof (m as { role?: unknown } | null)?.role === "string")) return list as { role: string; content: unknown }[];
  } catch {
    // not JSON: the text as the user said it
  }
  return [{ role: "user", content: text }];
}

/** The modal's question for one proposal: where it goes and what it says. */
export function proposalQuestion(p: Proposed): string {
  const how = p.mergedInto ? `updates ${p.mergedInto} (almost the same memory)` : p.proposal.action === "supersede" ? `replaces ${p.proposal.file}` : p.action === "updated" ? `updates ${p.file}` : `new file ${p.file}`;
  return `Save this ${p.proposal.type} memory? (${how})\n\n${p.proposal.name} — ${p.proposal.description}\n\n${p.proposal.body.trim()}`;
}

/** Runs the extraction over `text`, asking before each write; `undefined` when there is nothing to read. */
export async function extractFlow(memory: OpenedMemory, prompts: Pick<Prompts, "confirm">, text: string): Promise<ExtractResult | undefined> {
  if (!text.trim()) return undefined;
  return memory.extract({ messages: conversationOf(text), mode: "confirm", confirm: (p) => prompts.confirm(proposalQuestion(p), "Save") });
}

/** What to tell the user, and how loudly. */
export function extractSummary(r: ExtractResult): { level: "info" | "warning" | "error"; message: string } {
  const files = r.saved.map((s) => s.file).join(", ");
  const refused = r.refused.length ? ` (${r.refused.length} refused: ${r.refused.map((x) => x.code).join(", ")})` : "";
  switch (r.outcome) {
    case "saved":
      return { level: "info", message: `memdir: saved ${files}${refused}` };
    case "declined":
      return { level: "info", message: "memdir: nothing saved" };
    case "nothing":
      return { level: "info", message: `memdir: nothing worth remembering${refused}` };
    case "skipped":
      return { level: "info", message: `memdir: nothing to read (${r.skip})` };
    case "proposed":
      return { level: "info", message: `memdir: ${r.proposals.length} proposed` };
    default:
      return { level: "error", message: `memdir: the extraction failed: ${r.error ?? "unknown"}` };
  }
}
