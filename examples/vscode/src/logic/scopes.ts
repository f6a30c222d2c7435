/**
 * Scopes in the editor (rules §1.6): the setting `memdir.scopes` — a list of
 * `{ name, folder, readOnly?, types? }`, in order of precedence — opens the memory with
 * `openMemory({ scopes })`, each scope a `workspaceFsHost` over its folder. Recall spans every
 * scope; a memory is `<scope>:<path>`; the commands that write ask which scope when two or more
 * can be written (the default write scope first).
 */
import { MemdirError } from "memdir";
import type { MemoryFolder } from "./folder.js";
import type { OpenedMemory, Prompts, UriLike } from "./types.js";

/** One entry of `memdir.scopes`, checked. */
export interface ScopeSetting {
  name: string;
  /** As `memdir.folder`: relative to the first workspace folder, an absolute local path (desktop), or `claude`. */
  folder: string;
  readOnly: boolean;
  types?: string[];
}

/** One scope of the opened memory: its own memory (`ScopedMemory.scope(name)`) and folder. */
export interface OpenedScope<U> {
  name: string;
  readOnly: boolean;
  /** The scope writes go to when they name none (`ScopedMemory.writeScope`). */
  isDefault: boolean;
  folder: MemoryFolder<U>;
  memory: OpenedMemory;
}

/** What the scope helpers read of `Opened`: the memory, its folder, and its scopes (`[]` without `memdir.scopes`). */
export interface ScopedOpened<U> {
  memory: OpenedMemory;
  folder: MemoryFolder<U>;
  scopes: OpenedScope<U>[];
}

const invalid = (message: string): MemdirError => new MemdirError("INVALID_ARGUMENT", `invalid argument: memdir.scopes: ${message}`);

/**
 * The setting as a list of scopes. Its shape is checked here (a list of objects, each with a
 * `folder`); the names (well formed, none twice, at most 8) and the types are checked by memdir
 * when the memory opens. Either way a bad setting is `INVALID_ARGUMENT`.
 */
export function scopeSettings(setting: unknown): ScopeSetting[] {
  if (setting === undefined || setting === null) return [];
  if (!Array.isArray(setting)) throw invalid("a list of { name, folder, readOnly?, types? }");
  return setting.map((s: unknown, i): ScopeSetting => {
    if (s === null || typeof s !== "object" || Array.isArray(s)) throw invalid(`[${i}] is not an object { name, folder }`);
    const { name, folder, readOnly, types } = s as Record<string, unknown>;
    const label = typeof name === "string" ? JSON.stringify(name) : `[${i}]`;
    if (typeof name !== "string") throw invalid(`[${i}] needs a name`);
    if (typeof folder !== "string" || folder.trim() === "") throw invalid(`scope ${label} needs a folder`);
    if (readOnly !== undefined && typeof readOnly !== "boolean") throw invalid(`scope ${label}: readOnly is true or false`);
    if (types !== undefined && (!Array.isArray(types) || !types.every((t) => typeof t === "string"))) throw invalid(`scope ${label}: types is a list of memory types`);
    return { name, folder: folder.trim(), readOnly: readOnly === true, ...(types ? { types: types as string[] } : {}) };
  });
}

/** The writable scopes, the default write scope first, then the others in order of precedence. */
export function writableScopes<U>(scopes: readonly OpenedScope<U>[]): OpenedScope<U>[] {
  const writable = scopes.filter((s) => !s.readOnly);
  return [...writable.filter((s) => s.isDefault), ...writable.filter((s) => !s.isDefault)];
}

/** How a folder reads in the view and the messages: its local path, or its URI. */
export function folderText(uri: UriLike): string {
  return uri.scheme === "file" ? uri.fsPath : uri.toString();
}

/** `project (default for writes): /work/project/memory`, one per scope, in order of precedence. */
export function scopeLines<U extends UriLike>(scopes: readonly OpenedScope<U>[]): string[] {
  return scopes.map((s) => `${s.name} (${s.readOnly ? "read-only" : s.isDefault ? "default for writes" : "writable"}): ${folderText(s.folder.uri)}`);
}

/** The scopes in one line, for the status message and the output channel; "" without scopes. */
export function scopesSummary<U extends UriLike>(scopes: readonly OpenedScope<U>[]): string {
  return scopes.length === 0 ? "" : `memdir scopes, the first wins when two disagree: ${scopeLines(scopes).join("; ")}`;
}

/** The memory a one-folder command works on: the whole memory without scopes, else one scope's. */
export interface ChosenScope {
  memory: OpenedMemory;
  /** The scope chosen; absent without `memdir.scopes`. */
  scope?: string;
}

/**
 * Which scope a command that writes works on. Without scopes: the memory, nothing asked. With
 * one writable scope: that one. With two or more: a quick pick of the writable scopes, the default
 * write scope first (`undefined` when dismissed). `null`: every scope is read-only.
 */
export async function chooseScope<U extends UriLike>(opened: ScopedOpened<U>, prompts: Pick<Prompts, "pick">, title: string): Promise<ChosenScope | null | undefined> {
  if (opened.scopes.length === 0) return { memory: opened.memory };
  const writable = writableScopes(opened.scopes);
  if (writable.length === 0) return null;
  if (writable.length === 1) return { memory: writable[0]!.memory, scope: writable[0]!.name };
  const names = writable.map((s) => s.name);
  const picked = await prompts.pick(names, {
    title,
    placeHolder: "Which scope? (the first is where writes go by default)",
    details: writable.map((s) => `${folderText(s.folder.uri)}${s.isDefault ? " · default for writes" : ""}`),
  });
  const scope = writable.find((s) => s.name === picked);
  return scope ? { memory: scope.memory, scope: scope.name } : undefined;
}

/** `memdir: History` → `memdir: History (scope team)` when a scope was chosen. */
export function scopedTitle(title: string, chosen: ChosenScope): string {
  return chosen.scope === undefined ? title : `${title} (scope ${chosen.scope})`;
}

/** A memory's path as the opened memory names it (`<scope>:<path>` with scopes), split: its scope's folder and its path there. */
export function locateMemory<U>(opened: ScopedOpened<U>, path: string): { scope: OpenedScope<U> | null; folder: U; file: string } {
  if (opened.scopes.length === 0) return { scope: null, folder: opened.folder.uri, file: path };
  const colon = path.indexOf(":");
  const scope = colon > 0 ? opened.scopes.find((s) => s.name === path.slice(0, colon)) : undefined;
  if (scope === undefined) throw new MemdirError("INVALID_ARGUMENT", `invalid argument: ${path} names no scope (scopes: ${opened.scopes.map((s) => s.name).join(", ")})`);
  return { scope, folder: scope.folder.uri, file: path.slice(colon + 1) };
}

/** The memory a file's URI is, as the opened memory names it (`<scope>:<path>` with scopes); `undefined` outside every memory folder. */
export function memoryPathOf<U extends UriLike>(opened: ScopedOpened<U>, uri: UriLike): string | undefined {
  const inside = (folder: UriLike): string | undefined => (uri.scheme === folder.scheme && uri.path.startsWith(`${folder.path}/`) ? uri.path.slice(folder.path.length + 1) : undefined);
  if (opened.scopes.length === 0) return inside(opened.folder.uri);
  // the longest folder first: a scope's folder may sit inside another's
  for (const s of [...opened.scopes].sort((a, b) => b.folder.uri.path.length - a.folder.uri.path.length)) {
    const file = inside(s.folder.uri);
    if (file !== undefined) return `${s.name}:${file}`;
  }
  return undefined;
}

/** Every folder the memory reads: its scopes', or its one folder. */
export function memoryFolders<U>(opened: ScopedOpened<U>): U[] {
  return opened.scopes.length === 0 ? [opened.folder.uri] : opened.scopes.map((s) => s.folder.uri);
}
