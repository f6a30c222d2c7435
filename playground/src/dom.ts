/** Small DOM helpers: elements from a tag, attributes and children; the status line; errors as text. */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | null | undefined>;

/** `h("button", {class: "primary", onclick}, "Run")`: attributes, `on*` listeners, children (falsy ones skipped). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "value" && "value" in el) (el as HTMLInputElement).value = String(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replaces `el`'s children (falsy ones skipped). */
export function fill(el: HTMLElement, ...children: (Child | Child[])[]): void {
  el.replaceChildren(...children.flat().filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : String(c))));
}

/** The element with this id (the page's fixed skeleton: index.html). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

/** `MemdirError`s as `CODE: message`; anything else as its message. */
export function errorText(error: unknown): string {
  const e = error as { code?: string; message?: string };
  if (e && typeof e.code === "string" && typeof e.message === "string") return `${e.code}: ${e.message}`;
  return e?.message ?? String(error);
}

let statusTimer: ReturnType<typeof setTimeout> | undefined;

/** One line under the header: what just happened (errors in red, stay until the next message). */
export function say(text: string, kind: "ok" | "error" = "ok"): void {
  const el = byId("status");
  el.textContent = text;
  el.classList.toggle("error", kind === "error");
  clearTimeout(statusTimer);
  if (kind === "ok") statusTimer = setTimeout(() => (el.textContent = ""), 6000);
}

/** Thousands separated: 25,000. */
export const num = (n: number): string => n.toLocaleString("en");

/** A unified diff with its added, removed and hunk lines marked. */
export function diffView(diff: string): HTMLElement {
  const pre = h("pre", { class: "diff" });
  for (const line of diff.split("\n")) {
    const cls = line.startsWith("+++") || line.startsWith("---") ? "" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "";
    pre.append(h("span", cls ? { class: cls } : {}, line), "\n");
  }
  return pre;
}

export const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
export const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
