/**
 * Writing through memdir's rules from the page: `remember` (a topic file and its index line),
 * `forget`, and the memory tool's six commands over `/memories`. The page decides nothing: a
 * refusal is the library's `MemdirError` or the tool's error result, shown as it comes.
 */
import type { App } from "./app.js";
import { MEMORY_TYPES } from "memdir/browser";
import { byId, fill, errorText, h, say } from "./dom.js";

const TOOL_FIELDS: Record<string, [string, string, "line" | "text" | "number"][]> = {
  view: [["path", "/memories", "line"]],
  create: [["path", "/memories/project_example.md", "line"], ["file_text", "---\nname: Example\ndescription: One line the selector reads\ntype: project\n---\n\nThe fact.\n", "text"]],
  str_replace: [["path", "/memories/", "line"], ["old_str", "", "text"], ["new_str", "", "text"]],
  insert: [["path", "/memories/", "line"], ["insert_line", "0", "number"], ["insert_text", "", "text"]],
  delete: [["path", "/memories/", "line"]],
  rename: [["old_path", "/memories/", "line"], ["new_path", "/memories/", "line"]],
};

export function setupWrite(app: App): void {
  const field = (label: string, control: HTMLElement) => h("label", {}, label, control);
  const type = h("select", { id: "rm-type" }, MEMORY_TYPES.map((t) => h("option", { value: t }, t)));
  const name = h("input", { type: "text", id: "rm-name", placeholder: "Release freeze" });
  const description = h("input", { type: "text", id: "rm-description", placeholder: "One line: what the selector reads to decide" });
  const body = h("textarea", { id: "rm-body", rows: 6, placeholder: "The rule or fact.\n\n**Why:** …\n**How to apply:** …" });
  const file = h("input", { type: "text", id: "rm-file", placeholder: "default: {type}_{name}.md — or an existing file to update" });
  const out = h("div", { id: "rm-result" });
  const remember = h(
    "form",
    { class: "form", id: "remember-form" },
    h("div", { class: "row" }, field("Type", type), field("Name", name)),
    field("Description", description),
    field("Body", body),
    field("File (optional)", file),
    h("div", { class: "row" }, h("button", { class: "primary", type: "submit", id: "rm-submit" }, "Remember"), h("span", { class: "hint" }, "memory.remember: the same checks as every host (credentials, duplicates, limits).")),
    out,
  );
  remember.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const result = await app.memory.remember({ type: type.value, name: name.value, description: description.value, body: body.value, file: file.value.trim() || null });
      out.replaceChildren(h("div", { class: "warning", style: "background:var(--ok-bg);color:var(--ok)" }, `${result.action}: ${result.file}\nindex: ${result.indexLine ?? "—"}`));
      say(`Remembered: ${result.file} (${result.action})`);
      await app.refresh();
      await app.select(result.file);
    } catch (error) {
      out.replaceChildren(h("div", { class: "error-box", id: "rm-error" }, errorText(error)));
    }
  });

  const command = h("select", { id: "tool-command", "aria-label": "Command" }, Object.keys(TOOL_FIELDS).map((c) => h("option", { value: c }, c)));
  const fields = h("div", { class: "form" });
  const toolOut = h("div", { id: "tool-result" });
  const drawFields = () => {
    const current = app.current ? `/memories/${app.current}` : "/memories/";
    fields.replaceChildren(
      ...TOOL_FIELDS[command.value]!.map(([key, example, kind]) => {
        const value = (key === "path" || key === "old_path") && command.value !== "view" && command.value !== "create" ? current : example;
        const control = kind === "text" ? h("textarea", { "data-key": key, rows: 4, value }) : h("input", { type: kind === "number" ? "number" : "text", "data-key": key, value });
        if (kind === "text") (control as HTMLTextAreaElement).value = value;
        return field(key, control);
      }),
    );
  };
  command.addEventListener("change", drawFields);
  const tool = h(
    "form",
    { class: "form", id: "tool-form" },
    h("div", { class: "row" }, field("Command", command), h("button", { class: "primary", type: "submit", id: "tool-run" }, "Run")),
    fields,
    toolOut,
  );
  tool.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input: Record<string, unknown> = { command: command.value };
    for (const el of Array.from(fields.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("[data-key]"))) {
      input[el.dataset.key!] = el.type === "number" ? Number(el.value) : el.value;
    }
    const { content, isError } = await app.memory.tool().execute(input);
    toolOut.replaceChildren(h("pre", { class: isError ? "error-box" : "", id: "tool-output" }, content));
    if (command.value !== "view") await app.refresh();
  });
  drawFields();

  fill(byId("tab-write"), h("h2", {}, "Remember"), remember);
  fill(byId("tab-tool"), 
    h("h2", {}, "The memory tool"),
    h("p", { class: "hint" }, "memory.tool().execute — the commands of Anthropic's memory_20250818 tool over /memories, as a model would send them."),
    tool,
  );
}

/** The editor's Forget button: `memory.forget` on the open file (its index lines go with it). */
export async function forgetCurrent(app: App): Promise<void> {
  const file = app.current;
  if (!file || file === "MEMORY.md") return;
  if (!confirm(`Forget ${file}? The file and its MEMORY.md line are removed.`)) return;
  try {
    await app.memory.forget(file);
    say(`Forgot ${file}.`);
    await app.select(null);
    await app.refresh();
  } catch (error) {
    say(errorText(error), "error");
  }
}
