/** The folder in and out of the page: a zip (fflate) both ways, or a folder from disk (copied in). */
import { unzipSync, zipSync, type Zippable } from "fflate";
import type { Incoming, StoredFile } from "./store.js";
import { incoming } from "./store.js";

/** A zip of `files` (under `memory/`, oldest first, each with its time). */
export function toZip(files: Map<string, StoredFile>): Uint8Array {
  const tree: Zippable = {};
  for (const [path, { bytes, mtimeMs }] of files) tree[`memory/${path}`] = [bytes, { mtime: new Date(Math.max(mtimeMs, Date.UTC(1980, 0, 2))) }];
  return zipSync(tree, { level: 6 });
}

/** The Markdown files of a zip, in its order (memdir's exports: oldest first). */
export function fromZip(bytes: Uint8Array): Incoming {
  return incoming(Object.entries(unzipSync(bytes)), true);
}

/** Offers `bytes` as a download. */
export function download(bytes: Uint8Array, name: string, type: string): void {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A folder chosen with `showDirectoryPicker` (read only), its files relative to it. */
export async function fromDirectoryHandle(dir: FileSystemDirectoryHandle): Promise<Incoming> {
  const raw: [string, Uint8Array, number][] = [];
  const walk = async (handle: FileSystemDirectoryHandle, prefix: string) => {
    for await (const child of handle.values()) {
      if (child.name.startsWith(".") || child.name === "node_modules") continue;
      if (child.kind === "directory") await walk(child as FileSystemDirectoryHandle, `${prefix}${child.name}/`);
      else {
        const file = await (child as FileSystemFileHandle).getFile();
        raw.push([`${prefix}${child.name}`, child.name.toLowerCase().endsWith(".md") ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(0), file.lastModified]);
      }
    }
  };
  await walk(dir, "");
  return incoming(oldestFirst(raw));
}

/** The files of an `<input type=file webkitdirectory>` (their paths start with the folder's name, taken off). */
export async function fromFileList(list: FileList): Promise<Incoming> {
  const raw: [string, Uint8Array, number][] = [];
  for (const file of Array.from(list)) {
    const full = file.webkitRelativePath || file.name;
    const path = full.includes("/") ? full.slice(full.indexOf("/") + 1) : full;
    raw.push([path, path.toLowerCase().endsWith(".md") ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(0), file.lastModified]);
  }
  return incoming(oldestFirst(raw));
}

/** Files from disk, oldest first: written in that order, the newest stay the newest. */
function oldestFirst(raw: [string, Uint8Array, number][]): [string, Uint8Array][] {
  return raw.sort((a, b) => a[2] - b[2] || (a[0] < b[0] ? -1 : 1)).map(([path, bytes]) => [path, bytes]);
}
