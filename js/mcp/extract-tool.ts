/**
 * The MCP `extract` tool (rules §4.7): the client hands over a conversation, the memory's
 * extraction proposes what to keep; `mode: "suggest"` (the default) returns the proposals with
 * nothing written (the client saves one with `remember`, or asks its user first), `"auto"`
 * writes what passes the rules as one change `undo` takes back. `confirm` needs a person to ask,
 * which the client is: it is suggest here.
 */
import type { ExtractResult } from "../api.js";
import type { McpTool, ToolContext, ToolReply } from "./tools.js";

function proposals(r: ExtractResult): string {
  return r.proposals
    .map((p) => {
      const how = p.mergedInto ? `update of ${p.mergedInto}, a near-duplicate` : p.proposal.action === "supersede" ? `replaces ${p.proposal.file}` : p.action;
      return `- ${p.file} (${how}) [${p.proposal.type}] ${p.proposal.name} — ${p.proposal.description}\n${p.proposal.body.trim()}`;
    })
    .join("\n\n");
}

/** The result in words for the model. */
export function extractText(r: ExtractResult): ToolReply {
  const n = r.proposals.length;
  const what = `${n} ${n === 1 ? "memory" : "memories"}`;
  const notes = [
    ...r.refused.map((x) => `refused ${x.proposal.name}: ${x.code}: ${x.message}`),
    ...r.rejected.map((x) => `rejected ${JSON.stringify(x.value).slice(0, 120)}: ${x.reason}`),
  ];
  const tail = notes.length ? `\n\n${notes.join("\n")}` : "";
  switch (r.outcome) {
    case "saved":
      return { text: `Saved ${what} (recorded as ${r.historyId}; undo takes them back):\n\n${proposals(r)}${tail}`, isError: false, changed: true };
    case "proposed":
      return { text: `Proposed ${what}; nothing was written (save one with remember, passing its file to update):\n\n${proposals(r)}${tail}`, isError: false, changed: false };
    case "nothing":
      return { text: `Nothing worth remembering.${tail}`, isError: false, changed: false };
    case "skipped":
      return { text: `Skipped: ${r.skip === "no_messages" ? "the conversation has no message with text" : r.skip}.`, isError: false, changed: false };
    default:
      return { text: `The extraction failed: ${r.error ?? r.outcome}.${tail}`, isError: true, changed: false };
  }
}

export function extractTool({ memory }: ToolContext): McpTool {
  return {
    name: "extract",
    title: "Extract memories from a conversation",
    description:
      "Reads a conversation and the saved memories, and proposes what is worth remembering in later conversations: new memories, updates of saved ones, or newer memories replacing ones no longer true. Each proposal is checked as remember checks a write (no credentials, no near-duplicates, the limits). " +
      'With mode "suggest" (the default) nothing is written: show the proposals to the user and save the approved ones with remember. With mode "auto" they are written as one change that undo takes back. Needs a model (it is not the lexical selector\'s work).',
    inputSchema: {
      type: "object",
      properties: {
        messages: {
          type: "array",
          items: { type: "object" },
          description: "The conversation since the last extraction, oldest first: [{role: \"user\" | \"assistant\" | \"tool\", content: \"text\"}].",
        },
        mode: { type: "string", enum: ["suggest", "auto"], description: "suggest (default): propose only. auto: write what passes the rules." },
      },
      required: ["messages"],
      additionalProperties: false,
    },
    annotations: { title: "Extract memories", readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    async run(args, signal) {
      const mode = args.mode === "auto" ? "auto" : "suggest";
      const result = await memory.extract({ messages: args.messages as { role: string; content: unknown }[], mode, ...(signal ? { signal } : {}) });
      return extractText(result);
    },
  };
}
