/**
 * The MCP `consolidate` tool (rules §4.7): the memory tidied — near-duplicates merged, replaced
 * facts superseded, what another memory already says removed, the index regrouped — only what
 * loses no word. `dry_run` (the default) returns the diff; `dry_run: false` applies it as one
 * change `undo` takes back.
 */
import type { ConsolidateResult } from "../api.js";
import type { McpTool, ToolContext, ToolReply } from "./tools.js";

export function consolidateText(r: ConsolidateResult): ToolReply {
  const rejected = r.rejected.length ? `\n\nRefused: ${r.rejected.map((x) => `${x.reason} (${JSON.stringify(x.value).slice(0, 120)})`).join("; ")}` : "";
  const changes = r.changes.map((c) => `- ${c.kind}: ${c.files.join(", ")}${c.into ? ` → ${c.into}` : ""}`).join("\n");
  switch (r.outcome) {
    case "consolidated":
      return { text: `Consolidated (recorded as ${r.historyId}; undo takes it back):\n${changes}\n\n${r.diff}${rejected}`, isError: false, changed: true };
    case "proposed":
      return { text: `Would change (nothing written; call again with dry_run: false to apply):\n${changes}\n\n${r.diff}${rejected}`, isError: false, changed: false };
    case "nothing":
      return { text: `Nothing to consolidate.${rejected}`, isError: false, changed: false };
    case "busy":
      return { text: "Another consolidation of this memory is running.", isError: true, changed: false };
    default:
      return { text: `The consolidation failed: ${r.error ?? r.outcome}.${rejected}`, isError: true, changed: false };
  }
}

export function consolidateTool({ memory }: ToolContext): McpTool {
  return {
    name: "consolidate",
    title: "Consolidate the memory",
    description:
      "Tidies the memory: merges memories that say the same thing, marks memories replaced by newer ones, removes what another memory already says word for word, and regroups the index. Only changes that lose no word are made, at most 10 files a run. " +
      "By default (dry_run true) it returns the diff and writes nothing; show it to the user, then call again with dry_run: false to apply it as one change that undo takes back. Needs a model.",
    inputSchema: {
      type: "object",
      properties: {
        dry_run: { type: "boolean", description: "Only the diff (default true)." },
        max_files_changed: { type: "integer", minimum: 1, description: "Files a run may change (default 10)." },
        force: { type: "boolean", description: "Ask the model even when no memories look alike (it may still regroup the index). Default false." },
      },
      additionalProperties: false,
    },
    annotations: { title: "Consolidate the memory", readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    async run(args, signal) {
      const result = await memory.consolidate({
        mode: args.dry_run === false ? "auto" : "suggest",
        ...(typeof args.max_files_changed === "number" ? { maxFilesChanged: args.max_files_changed } : {}),
        ...(args.force === true ? { force: true } : {}),
        ...(signal ? { signal } : {}),
      });
      return consolidateText(result);
    },
  };
}
