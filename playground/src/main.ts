/**
 * The memdir playground: a memory folder kept in this browser (OPFS, else IndexedDB), edited
 * in CodeMirror, and everything memdir makes of it — the index as the model sees it, the
 * manifest, doctor, recall with its session, and writes through the library's rules.
 */
import { defaultLimits, init, openMemory } from "memdir/browser";
import type { SelectorConfig } from "memdir/browser";
import type { DoctorReport } from "memdir/core";
import type { App, Snapshot } from "./app.js";
import { byId, decode, errorText, h, say } from "./dom.js";
import { createEditor } from "./editor.js";
import { listKeys, renderFiles } from "./files.js";
import { renderHistory } from "./history.js";
import { renderDoctor, renderIndex, renderManifest } from "./inspect.js";
import { setupRecall } from "./query.js";
import { openStore, readAll, replaceAll, saveFile, seedFiles, seedIfEmpty } from "./store.js";
import type { Incoming } from "./store.js";
import { download, fromDirectoryHandle, fromFileList, fromZip, toZip } from "./transfer.js";
import { forgetCurrent, setupWrite } from "./write.js";

const SAVE_DELAY_MS = 300;
/** Doctor runs again this long after the last save of an edit. */
const DOCTOR_DELAY_MS = 1500;
const NO_REPORT: DoctorReport = { findings: [], errors: 0, warnings: 0, infos: 0, fixable: 0 };
const TABS = ["index", "manifest", "doctor", "recall", "write", "tool", "history"];

async function start(): Promise<void> {
  const started = performance.now();
  const steps: Record<string, number> = {};
  let last = started;
  const step = (name: string) => ((steps[name] = Math.round(performance.now() - last)), (last = performance.now()));
  await init();
  step("init");
  const host = await openStore();
  const seeded = await seedIfEmpty(host);
  step("storage");
  const selector: SelectorConfig = { provider: "lexical" };
  // every change memdir makes is recorded under this name (a person's edits in the editor are not memdir's)
  const memory = await openMemory({ host, selector, history: { label: "playground" } });
  const limits = defaultLimits();

  let pending: { path: string; text: string } | null = null;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  let refreshing: Promise<void> | null = null;
  let again = false;
  let wantDoctor = false;
  let doctorTimer: ReturnType<typeof setTimeout> | undefined;
  let selecting = 0;
  /** The open file's text as last read or written: what the editor started from. */
  let onDisk: string | null = null;

  const editor = createEditor(
    byId("editor"),
    (text) => {
      if (!app.current) return;
      pending = { path: app.current, text };
      byId("save-state").textContent = "editing…";
      clearTimeout(saveTimer);
      saveTimer = setTimeout(() => void flush(), SAVE_DELAY_MS);
    },
    () => void flush(),
  );

  /** Writes the editor's pending text, then reads the folder again. */
  const flush = async () => {
    clearTimeout(saveTimer);
    const job = pending;
    pending = null;
    if (!job) return;
    try {
      byId("save-state").textContent = "saving…";
      await saveFile(host, job.path, job.text);
      if (job.path === app.current) onDisk = job.text;
      byId("save-state").textContent = "saved";
      // doctor reads every file whole: while the user types it waits for a pause
      await app.refresh({ doctor: false });
      clearTimeout(doctorTimer);
      doctorTimer = setTimeout(() => void app.refresh(), DOCTOR_DELAY_MS);
    } catch (error) {
      byId("save-state").textContent = "not saved";
      say(`${job.path}: ${errorText(error)}`, "error");
    }
  };

  /**
   * The folder read again; `withDoctor: false` leaves doctor and the history for later (the first
   * load: the list comes sooner; an edit being typed: the editor's saves are not memdir's changes).
   */
  const read = async (withDoctor = true): Promise<Snapshot> => {
    const [entries, scan, index, doctor, indexText, history] = await Promise.all([
      host.list(),
      memory.scan(),
      memory.index(),
      withDoctor ? memory.doctor() : null,
      host.readFile("MEMORY.md").then(decode, () => ""),
      withDoctor ? memory.history().catch((error: unknown) => errorText(error)) : null,
    ]);
    const historyError = typeof history === "string" ? history : null;
    return { entries, scan, index, doctor: doctor ?? NO_REPORT, doctorDone: doctor !== null, indexText, history: Array.isArray(history) ? history : [], historyError, nowMs: Date.now() };
  };

  /** The list, and the view on screen (the others are drawn when shown). */
  const draw = () => {
    renderFiles(app);
    drawView(app);
  };

  /**
   * The open file changed on disk (remember, the memory tool, doctor's fixes, another tab):
   * the editor shows the new text when it holds no edit of its own; else it keeps the edit,
   * which the next save writes over the change, and says so.
   */
  const syncEditor = async () => {
    const path = app.current;
    if (path === null || onDisk === null || pending) return;
    if (!app.snap.entries.some((e) => e.path === path && e.kind === "file")) {
      byId("save-state").textContent = "removed from the folder";
      return;
    }
    let text: string;
    try {
      text = decode(await host.readFile(path));
    } catch {
      return;
    }
    if (path !== app.current || pending || text === onDisk) return;
    if (editor.text() === onDisk) {
      editor.reload(text);
      byId("save-state").textContent = "reloaded: changed on disk";
    } else byId("save-state").textContent = "changed on disk; your edit will replace it";
    onDisk = text;
  };

  const app: App = {
    host,
    memory,
    selector,
    limits,
    snap: await read(false).finally(() => step("read")),
    current: null,
    // one reading at a time; a change during one asks for one more
    refresh({ doctor = true } = {}) {
      wantDoctor ||= doctor;
      if (doctor) clearTimeout(doctorTimer);
      if (refreshing) {
        again = true;
        return refreshing;
      }
      refreshing = (async () => {
        let failures = 0;
        do {
          again = false;
          const withDoctor = wantDoctor;
          wantDoctor = false;
          let next: Snapshot;
          try {
            next = await read(withDoctor);
          } catch (error) {
            // a read that met a write under way (a file renamed into place as it was read): the
            // views would stay as they were until the next change; read again, a few times
            if (++failures > 3) throw error;
            say(`reading the folder again: ${errorText(error)}`, "error");
            await new Promise((resolve) => setTimeout(resolve, 100 * failures));
            wantDoctor ||= withDoctor;
            again = true;
            continue;
          }
          // without doctor (an edit being typed): the last report stays until doctor runs again
          app.snap = withDoctor ? next : { ...next, doctor: app.snap.doctor, doctorDone: app.snap.doctorDone, history: app.snap.history, historyError: app.snap.historyError };
          draw();
          await syncEditor();
        } while (again);
      })().finally(() => (refreshing = null));
      return refreshing;
    },
    async select(path) {
      const turn = ++selecting; // a later click wins over a read still under way
      await flush();
      if (turn !== selecting) return;
      app.current = path;
      const forget = byId<HTMLButtonElement>("forget-file");
      forget.disabled = !path || path === "MEMORY.md";
      byId("file-name").textContent = path ?? "—";
      byId("save-state").textContent = "";
      onDisk = null;
      if (path === null) editor.open("", true);
      else {
        try {
          const text = decode(await host.readFile(path));
          if (turn !== selecting) return;
          editor.open(text);
          onDisk = text;
        } catch (error) {
          if (turn !== selecting) return;
          editor.open("", true);
          say(`${path}: ${errorText(error)}`, "error");
        }
      }
      for (const li of Array.from(byId("file-list").querySelectorAll("li"))) li.setAttribute("aria-selected", String(li.dataset.path === path));
    },
  };

  byId("backend").textContent = host.backend === "opfs" ? "stored in OPFS" : "stored in IndexedDB";
  setupRecall(app);
  setupWrite(app);
  draw();
  listKeys(app);
  await app.select(app.snap.entries.some((e) => e.path === "MEMORY.md") ? "MEMORY.md" : null);
  wire(app, flush);

  step("draw");
  const loadMs = performance.now() - started;
  document.body.dataset.steps = JSON.stringify(steps); // where the load time went, ms
  document.body.dataset.ready = "true";
  document.body.dataset.loadMs = loadMs.toFixed(1); // from this script's start
  document.body.dataset.readyMs = performance.now().toFixed(1); // from the navigation's start
  say(`${seeded ? "Seeded with the example memory. " : ""}${app.snap.scan.memories.length + app.snap.scan.dropped.length} memories loaded in ${loadMs.toFixed(0)} ms.`);
  await app.refresh(); // now with doctor
  document.body.dataset.doctorMs = (performance.now() - started).toFixed(1);
}

/** Buttons, file inputs, tabs and keys. */
function wire(app: App, flush: () => Promise<void>): void {
  const replaceWith = async (what: string, incoming: Incoming) => {
    if (incoming.files.size === 0) return say(`${what}: no Markdown files found.${incoming.skipped.length ? ` Skipped: ${incoming.skipped.join("; ")}` : ""}`, "error");
    if (!confirm(`Replace the folder in this page with ${incoming.files.size} files from ${what}?`)) return;
    await flush();
    await replaceAll(app.host, incoming.files);
    await app.refresh();
    await app.select(incoming.files.has("MEMORY.md") ? "MEMORY.md" : null);
    say(`${what}: ${incoming.files.size} files.${incoming.skipped.length ? ` Skipped ${incoming.skipped.length}: ${incoming.skipped.slice(0, 5).join("; ")}${incoming.skipped.length > 5 ? "; …" : ""}` : ""}`);
  };
  const guard = (fn: () => Promise<void>) => () => void fn().catch((error) => say(errorText(error), "error"));

  byId("export-zip").addEventListener("click", guard(async () => {
    await flush();
    const files = await readAll(app.host);
    download(toZip(files), "memory.zip", "application/zip");
    say(`Exported ${files.size} files as memory.zip.`);
  }));
  const zipInput = byId<HTMLInputElement>("zip-input");
  byId("import-zip").addEventListener("click", () => zipInput.click());
  zipInput.addEventListener("change", guard(async () => {
    const file = zipInput.files?.[0];
    zipInput.value = "";
    if (file) await replaceWith(file.name, fromZip(new Uint8Array(await file.arrayBuffer())));
  }));
  const dirInput = byId<HTMLInputElement>("dir-input");
  byId("open-folder").addEventListener("click", guard(async () => {
    if (window.showDirectoryPicker) {
      let dir: FileSystemDirectoryHandle;
      try {
        dir = await window.showDirectoryPicker({ mode: "read" });
      } catch {
        return; // cancelled
      }
      await replaceWith(`the folder ${dir.name}`, await fromDirectoryHandle(dir));
    } else dirInput.click();
  }));
  dirInput.addEventListener("change", guard(async () => {
    const files = dirInput.files;
    if (files?.length) await replaceWith("the folder", await fromFileList(files));
    dirInput.value = "";
  }));
  byId("reset").addEventListener("click", guard(async () => {
    const incoming = { files: seedFiles(), skipped: [] };
    await replaceWith("the example memory", incoming);
  }));
  byId("new-file").addEventListener("click", guard(async () => {
    const name = prompt("New file (relative path, .md):", "project_new_topic.md")?.trim();
    if (!name) return;
    if (app.snap.entries.some((e) => e.path === name)) return void (await app.select(name));
    await saveFile(app.host, name, `---\nname: \ndescription: \ntype: project\n---\n\n`);
    await app.refresh();
    await app.select(name);
  }));
  byId("forget-file").addEventListener("click", () => void forgetCurrent(app));
  byId("filter").addEventListener("input", () => renderFiles(app));

  const tabs = Array.from(document.querySelectorAll<HTMLButtonElement>("[role=tab]"));
  const show = (name: string, focus = false) => {
    shown = name;
    drawView(app);
    for (const tab of tabs) {
      const on = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      byId(`tab-${tab.dataset.tab}`).hidden = !on;
      if (on && focus) tab.focus();
    }
    if (name === "recall") byId("query").focus();
  };
  for (const tab of tabs) {
    tab.addEventListener("click", () => show(tab.dataset.tab!));
    tab.addEventListener("keydown", (event) => {
      const at = TABS.indexOf(tab.dataset.tab!);
      if (event.key === "ArrowRight") show(TABS[(at + 1) % TABS.length]!, true);
      else if (event.key === "ArrowLeft") show(TABS[(at + TABS.length - 1) % TABS.length]!, true);
    });
  }
  show("index");
  document.addEventListener("keydown", (event) => {
    const typing = event.target instanceof HTMLElement && (event.target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName));
    if (event.altKey && /^[1-7]$/.test(event.key)) {
      event.preventDefault();
      show(TABS[Number(event.key) - 1]!, true);
    } else if (event.altKey && event.key.toLowerCase() === "n") {
      event.preventDefault();
      byId("new-file").click();
    } else if (event.key === "/" && !typing) {
      event.preventDefault();
      byId("filter").focus();
    }
  });
  addEventListener("beforeunload", () => void flush());
}

/** The view on screen. */
let shown = "index";

/** Draws the view on screen from the last reading, if it is one drawn from it. */
function drawView(app: App): void {
  if (shown === "index") renderIndex(app);
  else if (shown === "manifest") renderManifest(app);
  else if (shown === "doctor") renderDoctor(app);
  else if (shown === "history") renderHistory(app);
}

function showFatal(error: unknown): void {
  document.body.dataset.ready = "error";
  byId("status").replaceChildren(h("span", {}, `The playground could not start: ${errorText(error)}`));
  byId("status").classList.add("error");
}

if ("serviceWorker" in navigator && location.protocol !== "file:") {
  navigator.serviceWorker.register("./sw.js").catch(() => {});
}
start().catch(showFatal);
