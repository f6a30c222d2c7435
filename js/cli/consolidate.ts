/**
 * `memdir consolidate`: tidies the memory (rules §4.7). Shows the diff of what the core accepts of
 * the model's proposal (merges, supersessions, removals of what another memory says, a regrouped
 * index — never a lost word), then asks on a terminal; `--yes` applies without asking,
 * `--dry-run` only shows. What is applied is one change: `memdir undo <id>` takes it back.
 */
import type { ConsolidateResult } from "../api.js";
import { ask } from "./ask.js";
import { UsageError, wholeNumber } from "./args.js";
import type { CommandContext } from "./command.js";
import { openFromArgs, requireDirectory } from "./memory.js";
import { chooseSelector } from "./selector.js";

function format(r: ConsolidateResult, diffShown: boolean): string {
  const lines: string[] = [];
  if (r.diff && !diffShown) lines.push(r.diff.trimEnd());
  const files = r.filesChanged.length;
  const summary: Record<string, string> = {
    consolidated: `consolidated: ${files} file${files === 1 ? "" : "s"} changed (recorded as ${r.historyId}; memdir undo ${r.historyId} takes it back)`,
    proposed: `proposed: ${files} file${files === 1 ? "" : "s"} would change (nothing written)`,
    nothing: "nothing to consolidate",
    declined: "nothing written",
    busy: "another consolidation of this folder is running",
    not_due: `not due: ${r.due ?? ""}`,
    skipped: "skipped",
    failed: `failed: ${r.error ?? "the consolidation failed"}`,
  };
  lines.push(summary[r.outcome] ?? r.outcome);
  for (const c of r.changes) lines.push(`  ${c.kind}: ${c.files.join(", ")}${c.into ? ` → ${c.into}` : ""}`);
  for (const x of r.rejected) lines.push(`rejected (${x.reason}): ${JSON.stringify(x.value).slice(0, 160)}`);
  if (r.model !== null) lines.push(`tokens: ${r.usage.inputTokens} in, ${r.usage.outputTokens} out; cost ${r.costUsd === null ? "unknown" : `$${r.costUsd.toFixed(6)}`}`);
  return lines.join("\n");
}

/** `memdir consolidate`. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values: o, out } = ctx;
  if (o.yes && o["dry-run"]) throw new UsageError("--yes and --dry-run say opposite things: choose one", "consolidate");
  const maxFilesChanged = wholeNumber("max-files-changed", o["max-files-changed"], "a whole number of files", 1, 200);
  const choice = chooseSelector(ctx);
  const memory = await openFromArgs(ctx, choice.config, { oneFolder: true });
  await requireDirectory(ctx, memory.host.root);
  const asking = !o.yes && !o["dry-run"];
  if (asking && !process.stdin.isTTY) {
    out.err("memdir: nothing written: consolidate asks before it changes files, and there is no terminal to ask on; pass --yes to apply, or --dry-run to only look\n");
  }
  const mode = o["dry-run"] || (asking && !process.stdin.isTTY) ? "suggest" : o.yes ? "auto" : "confirm";
  // the diff a question showed is not printed again after the answer
  let diffShown = false;
  const result = await memory.consolidate({
    mode,
    ...(o.force ? { force: true } : {}),
    ...(maxFilesChanged !== undefined ? { maxFilesChanged } : {}),
    confirm: async (preview) => {
      diffShown = true;
      out.err(`${preview.diff}\n`);
      return ask(`Apply these changes to ${preview.filesChanged.length} file${preview.filesChanged.length === 1 ? "" : "s"}? [y/N] `);
    },
  });
  out.result(result, () => format(result, diffShown));
  if (result.outcome === "failed") return 1;
  return asking && !process.stdin.isTTY && result.outcome === "proposed" ? 2 : 0;
}
