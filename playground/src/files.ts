/**
 * The folder as a list: each file with its type, age, a stale marker (the core's freshness
 * text), whether the 200-file cap dropped it, and doctor's findings and scan diagnostics on it.
 */
import { memoryAge, memoryFreshnessText } from "memdir/browser";
import type { Memory } from "memdir/browser";
import type { App } from "./app.js";
import { byId, h, num } from "./dom.js";
import { isUserFile } from "./store.js";

interface Row {
  path: string;
  memory: Memory | null;
  dropped: boolean;
  errors: number;
  warnings: number;
  infos: number;
  diagnostics: number;
}

/** Rows in the order that matters: MEMORY.md, the memories newest first, the dropped ones, anything else. */
function rows(app: App): Row[] {
  const { scan, doctor, entries } = app.snap;
  const rank = new Map<string, number>();
  const byPath = new Map<string, { memory: Memory; dropped: boolean }>();
  scan.memories.forEach((m, i) => (rank.set(m.path, i), byPath.set(m.path, { memory: m, dropped: false })));
  scan.dropped.forEach((m, i) => (rank.set(m.path, 100_000 + i), byPath.set(m.path, { memory: m, dropped: true })));
  const counts = new Map<string, { error: number; warning: number; info: number; diagnostics: number }>();
  const count = (path: string) => counts.get(path) ?? counts.set(path, { error: 0, warning: 0, info: 0, diagnostics: 0 }).get(path)!;
  for (const f of doctor.findings) count(f.file)[f.severity]++;
  for (const d of scan.diagnostics) count(d.path).diagnostics++;
  const out = entries.filter(isUserFile).map((e): Row => {
    const known = byPath.get(e.path);
    const c = counts.get(e.path);
    return { path: e.path, memory: known?.memory ?? null, dropped: known?.dropped ?? false, errors: c?.error ?? 0, warnings: c?.warning ?? 0, infos: c?.info ?? 0, diagnostics: c?.diagnostics ?? 0 };
  });
  const order = (r: Row) => (r.path === "MEMORY.md" ? -1 : (rank.get(r.path) ?? 200_000));
  return out.sort((a, b) => order(a) - order(b) || (a.path < b.path ? -1 : 1));
}

let lastKey = "";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Redraws the list (filtered by the search box). */
export function renderFiles(app: App): void {
  const list = byId<HTMLUListElement>("file-list");
  const filter = byId<HTMLInputElement>("filter").value.trim().toLowerCase();
  const all = rows(app);
  const shown = filter ? all.filter((r) => r.path.toLowerCase().includes(filter) || (r.memory?.description ?? "").toLowerCase().includes(filter)) : all;
  const { scan, doctor } = app.snap;
  // nothing to draw when nothing shown changed (the common case while typing)
  const key = JSON.stringify([filter, app.snap.doctorDone, shown.map((r) => [r.path, r.memory?.type, r.memory?.timeMs ?? r.memory?.mtimeMs, r.memory?.description, r.dropped, r.errors, r.warnings, r.infos, r.diagnostics]), new Date(app.snap.nowMs).toDateString()]);
  if (key === lastKey && list.childElementCount === shown.length) {
    for (const li of Array.from(list.children) as HTMLElement[]) li.setAttribute("aria-selected", String(li.dataset.path === app.current));
    return;
  }
  lastKey = key;
  byId("files-summary").textContent =
    `${num(scan.memories.length)} memories` + (scan.dropped.length ? `, ${num(scan.dropped.length)} dropped` : "") + (app.snap.doctorDone ? ` · doctor: ${plural(doctor.errors, "error")}, ${plural(doctor.warnings, "warning")}` : " · doctor: running…") + (filter ? ` · ${shown.length} shown` : "");
  const items = shown.map((r) => {
    const m = r.memory;
    const time = m ? (m.timeMs ?? m.mtimeMs) : null;
    const freshness = time === null ? "" : memoryFreshnessText(time, app.snap.nowMs); // "" while fresh
    const meta = [
      r.path === "MEMORY.md" ? h("span", { class: "tag" }, "index") : m?.type ? h("span", { class: "tag" }, m.type) : m ? h("span", { class: "tag warn" }, "no type") : null,
      time !== null ? h("span", {}, memoryAge(time, app.snap.nowMs)) : null,
      freshness ? h("span", { class: "tag stale", title: freshness }, "stale") : null,
      r.dropped ? h("span", { class: "tag dropped", title: "Past the 200-file cap: the selector never sees it" }, "dropped") : null,
      r.errors ? h("span", { class: "tag err", title: "doctor errors" }, `${r.errors} error${r.errors > 1 ? "s" : ""}`) : null,
      r.warnings ? h("span", { class: "tag warn", title: "doctor warnings" }, `${r.warnings} warning${r.warnings > 1 ? "s" : ""}`) : null,
      r.infos ? h("span", { class: "tag", title: "doctor notes" }, `${r.infos} note${r.infos > 1 ? "s" : ""}`) : null,
      r.diagnostics ? h("span", { class: "tag warn", title: "scan diagnostics" }, `${r.diagnostics} diagnostic${r.diagnostics > 1 ? "s" : ""}`) : null,
    ];
    return h(
      "li",
      { role: "option", "data-path": r.path, "aria-selected": r.path === app.current ? "true" : "false", title: m?.description ?? r.path, onclick: () => void app.select(r.path) },
      h("div", { class: "path" }, r.path),
      h("div", { class: "meta" }, meta),
    );
  });
  list.replaceChildren(...items);
}

/** Arrow keys move through the list, Enter opens, as a listbox does. */
export function listKeys(app: App): void {
  const list = byId<HTMLUListElement>("file-list");
  list.addEventListener("keydown", (event) => {
    const items = Array.from(list.querySelectorAll<HTMLLIElement>("li"));
    if (items.length === 0) return;
    const at = items.findIndex((li) => li.dataset.path === app.current);
    let next = at;
    if (event.key === "ArrowDown") next = Math.min(items.length - 1, at + 1);
    else if (event.key === "ArrowUp") next = Math.max(0, at - 1);
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = items.length - 1;
    else return;
    event.preventDefault();
    const path = items[next]?.dataset.path;
    if (path) void app.select(path).then(() => list.querySelector(`li[data-path="${CSS.escape(path)}"]`)?.scrollIntoView({ block: "nearest" }));
  });
}
