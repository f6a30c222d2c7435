/**
 * What the model sees and what doctor says: the index as injected (where the cut falls, which
 * limit fired, the warning), the manifest the selector reads (dropped files apart), and doctor's
 * findings with the safe fixes as a diff to apply.
 */
import { formatManifest } from "memdir/core";
import type { FixPlan } from "memdir/core";
import type { App } from "./app.js";
import { byId, fill, diffView, errorText, h, num, say } from "./dom.js";

const WARNING = "\n\n> WARNING:";

/** What each view was last drawn from: it is drawn again only when that changed. */
const drawn = { index: "", manifest: "", doctor: "" };

export function renderIndex(app: App): void {
  const { index, indexText } = app.snap;
  const key = JSON.stringify([index, indexText]);
  if (key === drawn.index) return;
  drawn.index = key;
  const { maxIndexLines, maxIndexUtf16 } = app.limits;
  const cut = index.wasLineTruncated || index.wasSizeTruncated;
  const at = index.content.lastIndexOf(WARNING);
  const kept = cut && at >= 0 ? index.content.slice(0, at) : index.content;
  const warning = cut && at >= 0 ? index.content.slice(at + 2) : "";
  const fired = [index.wasLineTruncated ? `the line limit (${num(maxIndexLines)} lines)` : "", index.wasSizeTruncated ? `the size limit (${num(maxIndexUtf16)} UTF-16 units)` : ""].filter(Boolean);
  // the stored file's lines, marked where the model's copy stops
  const original = indexText.replace(/\r\n?/g, "\n").replace(/^\uFEFF/, "").trim();
  const keptLines = kept === "" ? 0 : kept.split("\n").length;
  const lastKept = kept.split("\n").at(-1) ?? "";
  const lines = original === "" ? [] : original.split("\n");
  const rows: HTMLElement[] = [];
  let cutShown = false;
  lines.forEach((line, i) => {
    const n = i + 1;
    if (cut && !cutShown && n === keptLines + 1 && (cutShown = true)) rows.push(h("div", { class: "cut", id: "index-cut" }, `✂ the model's copy ends here: ${fired.join(" and ")} fired; lines ${num(n)}–${num(lines.length)} are not loaded`));
    const partial = cut && n === keptLines && lastKept !== line;
    rows.push(h("div", { class: n > keptLines && cut ? "out" : "" }, h("span", { class: "n" }, n), partial ? `${lastKept}⟩ ${line.slice(lastKept.length)}` : line || " "));
    if (partial && (cutShown = true)) rows.push(h("div", { class: "cut", id: "index-cut" }, `✂ cut inside line ${n}: ${fired.join(" and ")} fired`));
  });
  fill(byId("tab-index"), 
    h("h2", {}, "MEMORY.md as the model sees it"),
    h(
      "div",
      { class: "stats" },
      h("span", { class: `stat${index.lineCount > maxIndexLines ? " over" : ""}`, id: "index-lines" }, h("b", {}, num(index.lineCount)), ` / ${num(maxIndexLines)} lines`),
      h("span", { class: `stat${index.utf16Count > maxIndexUtf16 ? " over" : ""}` }, h("b", {}, num(index.utf16Count)), ` / ${num(maxIndexUtf16)} UTF-16 units`),
      h("span", { class: "stat", id: "index-state" }, cut ? `cut: ${fired.join(" and ")}` : lines.length ? "loaded whole" : "empty: nothing is injected"),
      index.readPartially ? h("span", { class: "stat over" }, "read in part") : null,
    ),
    warning ? h("div", { class: "warning", id: "index-warning" }, warning.replace(/^> /, "")) : null,
    lines.length ? h("div", { class: "lines", id: "index-lines-view" }, rows) : h("p", { class: "muted" }, "MEMORY.md is missing or empty."),
    h("details", {}, h("summary", {}, "The exact text injected"), h("pre", { id: "index-prompt" }, index.prompt || "(nothing)")),
  );
}

export function renderManifest(app: App): void {
  const { scan } = app.snap;
  const manifest = formatManifest(scan.memories);
  const key = JSON.stringify([manifest, scan.dropped, scan.diagnostics]);
  if (key === drawn.manifest) return;
  drawn.manifest = key;
  fill(byId("tab-manifest"), 
    h("h2", {}, "The manifest the selector reads"),
    h("p", { class: "hint" }, `${num(scan.memories.length)} of at most ${num(app.limits.maxFiles)} files, newest first: type, path, time and description of each.`),
    h("pre", { id: "manifest" }, manifest || "(no memories)"),
    h("h2", {}, `Dropped (${num(scan.dropped.length)})`),
    scan.dropped.length
      ? h("div", {}, h("p", { class: "hint" }, `Older than the newest ${num(app.limits.maxFiles)} files: never offered to the selector.`), h("pre", { id: "dropped" }, scan.dropped.map((m) => `${m.path}${m.description ? ` — ${m.description}` : ""}`).join("\n")))
      : h("p", { class: "muted", id: "dropped" }, "None: every file is within the cap."),
    h("h2", {}, `Diagnostics (${num(scan.diagnostics.length)})`),
    scan.diagnostics.length
      ? h("table", {}, h("tbody", {}, scan.diagnostics.map((d) => h("tr", {}, h("td", {}, h("code", {}, `${d.path}${d.line ? `:${d.line}` : ""}`)), h("td", {}, d.code), h("td", {}, d.message)))))
      : h("p", { class: "muted" }, "None."),
  );
}

let plan: FixPlan | null = null;

export function renderDoctor(app: App): void {
  const { doctor } = app.snap;
  const key = app.snap.doctorDone ? JSON.stringify(doctor) : "running";
  if (key === drawn.doctor) return; // a diff on screen stays while nothing changed
  drawn.doctor = key;
  if (!app.snap.doctorDone) return fill(byId("tab-doctor"), h("h2", {}, "Doctor"), h("p", { class: "muted" }, "Running…"));
  const order = { error: 0, warning: 1, info: 2 } as const;
  const findings = [...doctor.findings].sort((a, b) => order[a.severity] - order[b.severity] || (a.file < b.file ? -1 : 1));
  const planBox = h("div", { id: "fix-plan" });
  const showPlan = async () => {
    try {
      plan = await app.memory.planFixes();
      if (plan.effects.length === 0) {
        planBox.replaceChildren(h("p", { class: "muted" }, "Nothing doctor can fix safely."));
        return;
      }
      planBox.replaceChildren(
        h("h2", {}, `Safe fixes: ${plan.fixed} finding${plan.fixed === 1 ? "" : "s"}, ${plan.effects.length} file${plan.effects.length === 1 ? "" : "s"}`),
        diffView(plan.diff),
        h("div", { class: "row" }, h("button", { class: "primary", id: "apply-fixes", onclick: () => void apply() }, "Apply these fixes"), h("span", { class: "hint" }, `after: ${plan.after.errors} errors, ${plan.after.warnings} warnings`)),
      );
    } catch (error) {
      planBox.replaceChildren(h("div", { class: "error-box" }, errorText(error)));
    }
  };
  const apply = async () => {
    if (!plan) return;
    try {
      const after = await app.memory.applyFixes(plan);
      plan = null;
      say(`Fixes applied: ${after.errors} errors, ${after.warnings} warnings left.`);
      await app.refresh();
    } catch (error) {
      planBox.append(h("div", { class: "error-box" }, `${errorText(error)}${(error as { code?: string }).code === "CHANGED" ? "\nPlan again to see the fixes for the folder as it is now." : ""}`));
    }
  };
  fill(byId("tab-doctor"), 
    h("h2", {}, "Doctor"),
    h("div", { class: "stats" }, h("span", { class: "stat" }, h("b", {}, doctor.errors), " errors"), h("span", { class: "stat" }, h("b", {}, doctor.warnings), " warnings"), h("span", { class: "stat" }, h("b", {}, doctor.infos), " notes"), h("span", { class: "stat" }, h("b", {}, doctor.fixable), " fixable")),
    findings.length
      ? h(
          "table",
          { id: "findings" },
          h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, "where"), h("th", {}, "finding"))),
          h(
            "tbody",
            {},
            findings.map((f) =>
              h(
                "tr",
                {},
                h("td", {}, h("span", { class: `tag ${f.severity === "error" ? "err" : f.severity === "warning" ? "warn" : ""}` }, f.severity)),
                h("td", {}, h("a", { href: "#", onclick: (e: Event) => (e.preventDefault(), void app.select(f.file)) }, h("code", {}, `${f.file}${f.line ? `:${f.line}` : ""}`))),
                h("td", {}, h("code", {}, f.code), " ", f.message, f.fix ? h("div", { class: "hint" }, `fix: ${f.fix}`) : null),
              ),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No findings."),
    doctor.fixable ? h("div", { class: "row", style: "margin-top:10px" }, h("button", { id: "plan-fixes", onclick: () => void showPlan() }, "Show the safe fixes as a diff")) : null,
    planBox,
  );
}
