/**
 * The playground's folder: one memory kept by `browserHost` (OPFS, else IndexedDB), seeded with
 * the example memory on first load; whole-folder reads and replacements for export, import and
 * "open folder". Paths coming from outside are checked by the core (`checkRelativePath`) before
 * the host sees them.
 */
import { browserHost, withLock } from "memdir/browser";
import { checkRelativePath, parseTempFile } from "memdir/core";
import type { HostEntry, MemoryHost } from "memdir/browser";
import seed from "virtual:seed";
import { encode } from "./dom.js";

/** The name of the playground's memory in the browser's storage. */
export const STORE_NAME = "playground";
/** A file bigger than this is not imported (memdir itself refuses to rewrite past 1 MiB). */
const MAX_IMPORT_FILE_BYTES = 4 * 2 ** 20;
/** At most this many files are imported at once. */
const MAX_IMPORT_FILES = 5000;

export async function openStore(): Promise<MemoryHost & { backend: string }> {
  return browserHost(STORE_NAME);
}

/** The example memory as files. */
export function seedFiles(): Map<string, Uint8Array> {
  return new Map(Object.entries(seed).map(([path, text]) => [path, encode(text)]));
}

/** Whether an entry is the user's (not memdir's lock, history or a temporary file, not hidden). */
export function isUserFile(entry: HostEntry): boolean {
  if (entry.kind !== "file") return false;
  const name = entry.path.slice(entry.path.lastIndexOf("/") + 1);
  return !entry.path.split("/").some((part) => part.startsWith(".")) && parseTempFile(name) === null;
}

/** A file read whole, with its modification time. */
export interface StoredFile {
  bytes: Uint8Array;
  mtimeMs: number;
}

/**
 * Every file of the folder, oldest first (ties by path). The browser's storage cannot set a
 * file's time, so an import writes files in the order it gets them: keeping the oldest first
 * keeps which files are newest, what the 200-file cap goes by.
 */
export async function readAll(host: MemoryHost): Promise<Map<string, StoredFile>> {
  const out = new Map<string, StoredFile>();
  const entries = (await host.list()).filter(isUserFile).sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : 1));
  for (const entry of entries) out.set(entry.path, { bytes: await host.readFile(entry.path), mtimeMs: entry.mtimeMs });
  return out;
}

/** What an import keeps and what it leaves out, and why. */
export interface Incoming {
  files: Map<string, Uint8Array>;
  skipped: string[];
}

/**
 * Sorts files from outside (a zip, a folder): a common top folder is taken off (a zip's), hidden files and
 * folders (`.git/`, `__MACOSX/`), files that are not Markdown, too large, or whose path the core
 * refuses are skipped with a reason.
 */
export function incoming(raw: [string, Uint8Array][], stripCommonTop = false): Incoming {
  const files = new Map<string, Uint8Array>();
  const skipped: string[] = [];
  let entries = raw.filter(([p]) => !p.endsWith("/"));
  const tops = new Set(entries.map(([p]) => (p.includes("/") ? p.slice(0, p.indexOf("/")) : "")));
  if (stripCommonTop && tops.size === 1 && !tops.has("")) {
    const [top] = tops;
    entries = entries.map(([p, b]) => [p.slice(top!.length + 1), b]);
  }
  for (const [path, bytes] of entries) {
    if (path.split("/").some((part) => part.startsWith(".") || part === "__MACOSX")) continue;
    if (!path.toLowerCase().endsWith(".md")) {
      skipped.push(`${path}: not a Markdown file`);
      continue;
    }
    if (bytes.byteLength > MAX_IMPORT_FILE_BYTES) {
      skipped.push(`${path}: larger than ${MAX_IMPORT_FILE_BYTES / 2 ** 20} MiB`);
      continue;
    }
    try {
      checkRelativePath(path);
    } catch (error) {
      skipped.push(`${path}: ${(error as Error).message}`);
      continue;
    }
    if (files.size >= MAX_IMPORT_FILES) {
      skipped.push(`${path}: past ${MAX_IMPORT_FILES} files`);
      continue;
    }
    files.set(path, bytes);
  }
  return { files, skipped };
}

/** Replaces the whole folder with `files`, written in their order (oldest first), holding memdir's write lock (no other tab writes meanwhile). */
export async function replaceAll(host: MemoryHost, files: Map<string, Uint8Array>): Promise<void> {
  await withLock(host, async () => {
    const tops = new Set((await host.list()).filter((e) => e.path !== ".memdir.lock" && !e.path.startsWith(".memdir.lock")).map((e) => e.path.split("/")[0]!));
    for (const top of tops) await host.remove(top);
    for (const [path, bytes] of files) await host.writeFile(path, bytes);
  });
}

/** Writes one file as an editor does (the user's own edit, atomic, under the write lock). */
export async function saveFile(host: MemoryHost, path: string, text: string): Promise<void> {
  checkRelativePath(path);
  await withLock(host, () => host.writeFile(path, encode(text)));
}

/** Fills an empty folder with the example memory; `true` when it did. */
export async function seedIfEmpty(host: MemoryHost): Promise<boolean> {
  if ((await host.list()).some(isUserFile)) return false;
  await replaceAll(host, seedFiles());
  return true;
}
