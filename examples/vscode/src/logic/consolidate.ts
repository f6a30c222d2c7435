/**
 * "memdir: Consolidate memory…" (rules §4.7): memdir's consolidation proposes merges of
 * near-duplicates, supersessions, removals of what another memory already says and a regrouped
 * index — only what loses no word. The diff is shown first, and nothing is written unless the
 * user chooses Apply in a modal; what is applied is one change that "Undo change…" takes back.
 */
import type { OpenedMemory, Prompts } from "./types.js";

type ConsolidateResult = Awaited<ReturnType<OpenedMemory["consolidate"]>>;

export interface ConsolidateUi extends Pick<Prompts, "confirm"> {
  showDiff(diff: string): Promise<void>;
}

/** Runs a consolidation in confirm mode: the diff, then the modal. */
export function consolidateFlow(memory: OpenedMemory, ui: ConsolidateUi): Promise<ConsolidateResult> {
  return memory.consolidate({
    mode: "confirm",
    confirm: async (preview) => {
      await ui.showDiff(preview.diff);
      const n = preview.filesChanged.length;
      return ui.confirm(`Apply these changes to ${n} file${n === 1 ? "" : "s"} (${preview.changes.map((c) => c.kind).join(", ")})? The diff shows every change; Undo takes it back.`, "Apply");
    },
  });
}

/** What to tell the user, and how loudly. */
export function consolidateSummary(r: ConsolidateResult): { level: "info" | "error"; message: string } {
  switch (r.outcome) {
    case "consolidated":
      return { level: "info", message: `memdir: consolidated ${r.filesChanged.join(", ")}` };
    case "declined":
      return { level: "info", message: "memdir: nothing was changed" };
    case "nothing":
      return { level: "info", message: `memdir: nothing to consolidate${r.rejected.length ? ` (${r.rejected.length} proposals refused: ${[...new Set(r.rejected.map((x) => x.reason))].join(", ")})` : ""}` };
    case "busy":
      return { level: "info", message: "memdir: another consolidation of this memory is running" };
    default:
      return { level: "error", message: `memdir: the consolidation failed: ${r.error ?? r.outcome}` };
  }
}
