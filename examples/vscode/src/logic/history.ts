/**
 * The history in the editor (rules §4.6): "Show history" lists every change to the memory folder,
 * newest first (when, which route, which writer, each file and what happened to it); choosing one
 * shows the diff its undo would make and asks before writing. "Undo change…" and "Undo last
 * change" do the same for the changes that can still be undone. A file changed since the change
 * (a person's later edit) is never overwritten unless the user says so in a second, explicit
 * step: `CHANGED` names the file, and only "Overwrite" undoes with `force`. "Restore to…" brings
 * the whole memory back to how it was just after a chosen change, the same way.
 */
import { MemdirError } from "memdir";
import type { OpenedMemory, Prompts } from "./types.js";

/** One change as `memory.history()` gives it. */
export type HistoryEntry = Awaited<ReturnType<OpenedMemory["history"]>>[number];
type ReverseResult = Awaited<ReturnType<OpenedMemory["undo"]>>;

/** A QuickPick item for one change; `entry` is the change it stands for. */
export interface HistoryPick {
  label: string;
  description: string;
  detail: string;
  entry: HistoryEntry;
}

/** The label every change made through the extension carries. */
export const HISTORY_LABEL = "vscode";

const pad = (n: number) => String(n).padStart(2, "0");

/** `2026-12-03 12:00:05` in the local time zone. */
export function historyTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `created user_editor.md, changed MEMORY.md`. */
export function changesText(entry: HistoryEntry): string {
  return entry.changes.length === 0 ? "no file" : entry.changes.map((c) => `${c.action} ${c.path}`).join(", ");
}

/** The ids of the changes an undo (done) took back. */
function undoneIds(items: readonly HistoryEntry[]): Map<string, string> {
  const undone = new Map<string, string>();
  for (const item of items) if (item.status === "done" && item.undoes) undone.set(item.undoes, item.id);
  return undone;
}

/**
 * The history as QuickPick items, in the order given (newest first): route and writer as the
 * label, the time as the description, the files and actions as the detail, with what became of
 * the change (never made, undone, the undo of another).
 */
export function historyPicks(items: readonly HistoryEntry[], time: (ms: number) => string = historyTime): HistoryPick[] {
  const undone = undoneIds(items);
  return items.map((entry) => {
    const notes: string[] = [];
    if (entry.status !== "done") notes.push(`${entry.status}: never made`);
    if (entry.undoes) notes.push(`undoes ${entry.undoes}`);
    const by = undone.get(entry.id);
    if (by) notes.push(`undone by ${by}`);
    return {
      label: `${entry.route}${entry.label ? ` · ${entry.label}` : ""}`,
      description: time(entry.atMs),
      detail: `${changesText(entry)}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`,
      entry,
    };
  });
}

/**
 * The changes "Undo change…" offers, newest first: made (`done`), not taken back by a later
 * undo, and not themselves an undo (undoing an undo makes the change again: that is a choice
 * for "Show history", not for "Undo last change" pressed twice).
 */
export function undoable(items: readonly HistoryEntry[]): HistoryEntry[] {
  const undone = undoneIds(items);
  return items.filter((e) => e.status === "done" && !e.undoes && !undone.has(e.id) && e.changes.length > 0);
}

export interface HistoryUi extends Pick<Prompts, "confirm"> {
  /** The QuickPick; `undefined` when dismissed. */
  pick(items: HistoryPick[], options: { title: string; placeHolder: string }): Promise<HistoryPick | undefined>;
  /** Shows the undo's diff (a read-only diff document); resolves once it is shown. */
  showDiff(diff: string, entry: HistoryEntry): Promise<void>;
}

/** `undo` takes one change back; `restore` brings every file changed after a change back to how it was just after it. */
export type ReverseKind = "undo" | "restore";

export type UndoOutcome =
  /** It would change nothing (the files are already as wanted). */
  | { status: "nothing"; kind: ReverseKind; entry: HistoryEntry }
  /** The user said no at the first question; nothing was written. */
  | { status: "cancelled"; kind: ReverseKind; entry: HistoryEntry }
  /** A file changed since and the user did not choose "Overwrite"; nothing was written. `message` names the file(s). */
  | { status: "changed"; kind: ReverseKind; entry: HistoryEntry; message: string }
  /** memdir refused (`NOT_FOUND`, a change never made, one already undone…); nothing was written. */
  | { status: "refused"; kind: ReverseKind; entry: HistoryEntry; code: string; message: string }
  | { status: "applied"; kind: ReverseKind; entry: HistoryEntry; result: ReverseResult; forced: boolean };

const isChanged = (error: unknown): error is MemdirError => error instanceof MemdirError && error.code === "CHANGED";

/** The first question: what the undo does, the diff being shown. */
export function undoQuestion(entry: HistoryEntry): string {
  return `Undo the ${entry.route} of ${historyTime(entry.atMs)} (${changesText(entry)})? The diff shows every change.`;
}

/** The first question of a restore. */
export function restoreQuestion(entry: HistoryEntry): string {
  return `Restore the memory to how it was just after the ${entry.route} of ${historyTime(entry.atMs)}? Every file changed since goes back; the diff shows every change.`;
}

/** The second question, after `CHANGED`: which file changed, and that "Overwrite" loses that edit. */
export function overwriteQuestion(message: string, kind: ReverseKind = "undo"): string {
  return `${message.replace(/\s*\(force to overwrite\)\s*$/, "")}. Overwrite the later edit with the content from ${kind === "undo" ? "before the change" : "then"}?`;
}

/**
 * An undo or a restore: its diff (a dry run) first, then the modal question; nothing is written
 * unless the user confirms. When a file changed since (`CHANGED`), the diff shown is the one that
 * overwrites it, and a second modal names the file and writes only on "Overwrite".
 */
async function reverseFlow(
  kind: ReverseKind,
  run: (options: { force?: boolean; dryRun?: boolean }) => Promise<ReverseResult>,
  ui: Omit<HistoryUi, "pick">,
  entry: HistoryEntry,
): Promise<UndoOutcome> {
  const refusal = (error: MemdirError): UndoOutcome => ({ status: "refused", kind, entry, code: error.code, message: error.message });
  let changed: string | undefined;
  let preview: ReverseResult;
  try {
    preview = await run({ dryRun: true });
  } catch (error) {
    if (!(error instanceof MemdirError)) throw error;
    if (!isChanged(error)) return refusal(error);
    changed = error.message;
    try {
      preview = await run({ dryRun: true, force: true });
    } catch (forced) {
      // not a later edit force could overwrite (already undone): memdir's first word stands
      if (forced instanceof MemdirError) return refusal(error);
      throw forced;
    }
  }
  if (preview.diff === "") return { status: "nothing", kind, entry };
  await ui.showDiff(preview.diff, entry);
  const action = kind === "undo" ? "Undo" : "Restore";
  if (!(await ui.confirm(kind === "undo" ? undoQuestion(entry) : restoreQuestion(entry), action))) return { status: "cancelled", kind, entry };
  if (changed === undefined) {
    try {
      return { status: "applied", kind, entry, result: await run({}), forced: false };
    } catch (error) {
      if (!(error instanceof MemdirError)) throw error;
      if (!isChanged(error)) return refusal(error);
      // a file changed between the diff and the answer: show what overwriting it would do
      changed = error.message;
      try {
        await ui.showDiff((await run({ dryRun: true, force: true })).diff, entry);
      } catch (forced) {
        if (forced instanceof MemdirError) return refusal(error);
        throw forced;
      }
    }
  }
  if (!(await ui.confirm(overwriteQuestion(changed, kind), "Overwrite"))) return { status: "changed", kind, entry, message: changed };
  try {
    return { status: "applied", kind, entry, result: await run({ force: true }), forced: true };
  } catch (error) {
    if (error instanceof MemdirError) return refusal(error);
    throw error;
  }
}

/** Undoes one change (`memory.undo(id)`) through its diff and the modal "Undo" (then "Overwrite" after `CHANGED`). */
export function undoFlow(memory: OpenedMemory, ui: Omit<HistoryUi, "pick">, entry: HistoryEntry): Promise<UndoOutcome> {
  return reverseFlow("undo", (o) => memory.undo(entry.id, o), ui, entry);
}

/**
 * Brings the memory back to how it was just after `entry` (`memory.restore({ at })`: every change
 * made later taken back) through its diff and the modal "Restore" (then "Overwrite").
 */
export function restoreFlow(memory: OpenedMemory, ui: Omit<HistoryUi, "pick">, entry: HistoryEntry): Promise<UndoOutcome> {
  return reverseFlow("restore", (o) => memory.restore({ at: entry.atMs, ...o }), ui, entry);
}

export type HistoryOutcome = UndoOutcome | { status: "empty" } | { status: "dismissed" };

/**
 * "Show history" (`mode: "all"`), "Undo change…" (`"undo"`: only the changes still undoable) or
 * "Restore to…" (`"restore"`: the changes made): the QuickPick of the changes, newest first; the
 * one chosen goes through `undoFlow` (or `restoreFlow`): its diff, then the questions.
 * `empty`: nothing to list. `scope`: the scope whose history `memory` is, named in the title.
 */
export async function historyFlow(memory: OpenedMemory, ui: HistoryUi, { mode = "all", scope }: { mode?: "all" | "undo" | "restore"; scope?: string } = {}): Promise<HistoryOutcome> {
  const items = await memory.history();
  const keep = mode === "undo" ? new Set(undoable(items)) : null;
  const picks = historyPicks(items).filter((p) => (mode === "restore" ? p.entry.status === "done" : keep === null || keep.has(p.entry)));
  if (picks.length === 0) return { status: "empty" };
  const chosen = await ui.pick(picks, {
    // a scope's own history, in a memory of several scopes: the title says which
    title: `${{ all: "memdir: History", undo: "memdir: Undo change", restore: "memdir: Restore to…" }[mode]}${scope === undefined ? "" : ` (scope ${scope})`}`,
    placeHolder: {
      all: "Every change to the memory, newest first; choose one to see what undoing it would do",
      undo: "Which change to undo? Its diff is shown before anything is written",
      restore: "Back to just after which change? Every later change is taken back; the diff is shown first",
    }[mode],
  });
  if (chosen === undefined) return { status: "dismissed" };
  return mode === "restore" ? restoreFlow(memory, ui, chosen.entry) : undoFlow(memory, ui, chosen.entry);
}

/** "Undo last change": the newest change that can still be undone, through `undoFlow`. */
export async function undoLastFlow(memory: OpenedMemory, ui: Omit<HistoryUi, "pick">): Promise<UndoOutcome | { status: "empty" }> {
  const [last] = undoable(await memory.history());
  return last === undefined ? { status: "empty" } : undoFlow(memory, ui, last);
}

/** The message after an undo flow (for `showInformationMessage`, or a warning for `changed`/`refused`). */
export function undoSummary(outcome: HistoryOutcome): { level: "info" | "warning"; message: string } | null {
  switch (outcome.status) {
    case "dismissed":
      return null;
    case "empty":
      return { level: "info", message: "memdir: no change to undo in the history" };
    case "nothing":
      return { level: "info", message: outcome.kind === "undo" ? `memdir: undoing the ${outcome.entry.route} changes nothing: the files are already as before it` : "memdir: restoring changes nothing: the files are already as they were then" };
    case "cancelled":
      return { level: "info", message: "memdir: nothing was changed" };
    case "changed":
      return { level: "warning", message: `memdir: nothing was changed: ${outcome.message}` };
    case "refused":
      return { level: "warning", message: `memdir refused (${outcome.code}): ${outcome.message}` };
    case "applied":
      return {
        level: "info",
        message:
          outcome.kind === "undo"
            ? `memdir: undid the ${outcome.entry.route} of ${historyTime(outcome.entry.atMs)}${outcome.forced ? ", overwriting the later edit" : ""} (${changesText(outcome.entry)})`
            : `memdir: restored the memory to just after the ${outcome.entry.route} of ${historyTime(outcome.entry.atMs)}${outcome.forced ? ", overwriting the later edit" : ""}`,
      };
  }
}
