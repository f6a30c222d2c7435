/**
 * The history panel: every change memdir made to the folder (remember, forget, the memory tool,
 * doctor's fixes, undo, restore), newest first, each with its files, and "Undo": the diff first
 * (`dryRun`), applied on a second click. A file changed since (a person's edit in the editor,
 * which memdir does not record) is refused with `CHANGED`: the page says so and overwrites it
 * only when asked ("Overwrite", `force`).
 */
import type { HistoryItem } from "memdir/core";
import type { App } from "./app.js";
import { byId, diffView, errorText, fill, h, num, say } from "./dom.js";

/** What the panel was last drawn from: an undo being looked at stays on screen while it holds. */
let drawn = "";

const ACTION_TAG: Record<string, string> = { created: "ok", changed: "", removed: "err" };
const STATUS_NOTE: Record<string, string> = {
  aborted: "did not happen: taken back before it was made",
  interrupted: "interrupted: taken back on the next write",
};

const when = (ms: number) => new Date(ms).toLocaleString("en", { dateStyle: "medium", timeStyle: "medium" });
const isChanged = (error: unknown) => (error as { code?: string }).code === "CHANGED";

export function renderHistory(app: App): void {
  const { history } = app.snap;
  const key = app.snap.doctorDone ? JSON.stringify([history, app.snap.historyError]) : "reading";
  if (key === drawn) return;
  drawn = key;
  const head = [
    h("h2", {}, "History"),
    h("p", { class: "hint" }, "Every change memdir made to this folder, newest first: remember, forget, the memory tool, doctor's fixes, undo. Your own edits in the editor are yours, not memdir's: they are not recorded, and an undo never overwrites one unless you say so."),
  ];
  if (!app.snap.doctorDone) return fill(byId("tab-history"), head, h("p", { class: "muted" }, "Reading…"));
  if (app.snap.historyError) return fill(byId("tab-history"), head, h("div", { class: "error-box", id: "history-error" }, app.snap.historyError));
  const items = new Map(history.map((item) => [item.id, item]));
  fill(
    byId("tab-history"),
    head,
    history.length
      ? h("ol", { id: "history-list", class: "history" }, history.map((item) => entry(app, item, items)))
      : h("p", { class: "muted", id: "history-empty" }, "No changes yet: remember something, run the memory tool or apply doctor's fixes."),
  );
}

/** One change: when, how, who, its files, and its Undo. */
function entry(app: App, item: HistoryItem, all: Map<string, HistoryItem>): HTMLElement {
  const box = h("div", { class: "undo-box" });
  const undone = item.undoes ? all.get(item.undoes) : undefined;
  const canUndo = item.status === "done" && item.changes.length > 0;
  return h(
    "li",
    { class: "history-item", "data-id": item.id, "data-route": item.route },
    h(
      "div",
      { class: "row" },
      h("time", { datetime: new Date(item.atMs).toISOString(), class: "when" }, when(item.atMs)),
      h("span", { class: "tag route" }, item.route),
      item.label ? h("span", { class: "label muted", title: "who made the change" }, item.label) : null,
      h("span", { class: `tag status${item.status === "done" ? " ok" : " warn"}`, title: STATUS_NOTE[item.status] ?? "" }, item.status),
      h("span", { class: "spacer" }),
      canUndo ? h("button", { type: "button", class: "undo", title: "Show what taking this change back does, then apply it", onclick: () => void preview(app, item, box) }, "Undo") : null,
    ),
    item.undoes ? h("div", { class: "hint" }, `takes back the ${undone ? `${undone.route} of ${when(undone.atMs)}` : `change ${item.undoes}`}`) : null,
    h(
      "ul",
      { class: "changes" },
      item.changes.map((c) =>
        h(
          "li",
          { "data-path": c.path, "data-action": c.action },
          h("span", { class: `tag ${ACTION_TAG[c.action] ?? ""}` }, c.action),
          " ",
          h("a", { href: "#", onclick: (e: Event) => (e.preventDefault(), void app.select(c.path)) }, h("code", {}, c.path)),
          c.withheld ? h("span", { class: "hint" }, ` (content not kept: ${c.withheld})`) : null,
        ),
      ),
    ),
    box,
  );
}

/** The undo as a diff (nothing changed yet), with the button that applies it. */
async function preview(app: App, item: HistoryItem, box: HTMLElement): Promise<void> {
  try {
    const plan = await app.memory.undo(item.id, { dryRun: true });
    if (!plan.diff.trim()) return void box.replaceChildren(h("p", { class: "muted" }, "Nothing to take back: the files are already as they were before this change."));
    box.replaceChildren(
      diffView(plan.diff),
      h("div", { class: "row" }, h("button", { type: "button", class: "primary undo-apply", onclick: () => void apply(app, item, box, false) }, "Apply this undo"), cancel(box)),
    );
  } catch (error) {
    if (isChanged(error)) await refused(app, item, box, error);
    else box.replaceChildren(h("div", { class: "error-box" }, errorText(error)));
  }
}

/**
 * `CHANGED`: a file was edited since the change. The refusal as it comes, what overwriting would
 * do (the forced diff, nothing changed yet), and the explicit button that does it.
 */
async function refused(app: App, item: HistoryItem, box: HTMLElement, error: unknown): Promise<void> {
  let diff: HTMLElement | null = null;
  try {
    const plan = await app.memory.undo(item.id, { dryRun: true, force: true });
    diff = plan.diff.trim() ? diffView(plan.diff) : null;
  } catch {
    // the refusal alone still says what is wrong
  }
  fill(
    box,
    h("div", { class: "error-box undo-changed" }, `${errorText(error)}\nNothing was changed. Overwrite to take the change back anyway: the later edit is lost (the overwrite is recorded, and can be undone in turn).`),
    diff,
    h("div", { class: "row" }, h("button", { type: "button", class: "primary undo-overwrite", onclick: () => void apply(app, item, box, true) }, "Overwrite"), cancel(box)),
  );
}

async function apply(app: App, item: HistoryItem, box: HTMLElement, force: boolean): Promise<void> {
  for (const button of Array.from(box.querySelectorAll("button"))) button.disabled = true;
  try {
    const result = await app.memory.undo(item.id, { force });
    const files = result.record?.changes.length ?? 0;
    say(result.applied ? `Undone: the ${item.route} of ${when(item.atMs)} (${num(files)} file${files === 1 ? "" : "s"}).` : "Nothing to take back.");
    box.replaceChildren();
    await app.refresh();
  } catch (error) {
    if (!force && isChanged(error)) await refused(app, item, box, error);
    else box.replaceChildren(h("div", { class: "error-box" }, errorText(error)));
  }
}

const cancel = (box: HTMLElement) => h("button", { type: "button", class: "undo-cancel", onclick: () => box.replaceChildren() }, "Cancel");
