/** The folder in and out of the page: a zip (fflate) both ways, or a folder from disk (copied in). */
import { unzipSync, zipSync } from "fflate";
import type { Incoming } from "./store.js";
import { incoming } from "./store.js";

/** A zip of `files` (stored under `memory/`). */
export function toZip(files: Map<string, Uint8Array>): Uint8Array {
  const tree: Record<string, Uint8Array> = {};
  for (const [path, bytes] of files) tree[`memory/${path}`] = bytes;
  return zipSync(tree, { level: 6, mtime: new Date() });
}

/** The Markdown files of a zip. */
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
  const raw: [string, Uint8Array][] = [];
  const walk = async (handle: FileSystemDirectoryHandle, prefix: string) => {
    for await (const child of handle.values()) {
      if (child.name.startsWith(".") || child.name === "node_modules") continue;
      if (child.kind === "directory") await walk(child as FileSystemDirectoryHandle, `${prefix}${child.name}/`);
      else if (child.name.toLowerCase().endsWith(".md")) raw.push([`${prefix}${child.name}`, new Uint8Array(await (await (child as FileSystemFileHandle).getFile()).arrayBuffer())]);
      else raw.push([`${prefix}${child.name}`, new Uint8Array(0)]);
    }
  };
  await walk(dir, "");
  return incoming(raw);
}

/** The files of an `<input type=file webkitdirectory>` (their paths start with the folder's name, taken off). */
export async function fromFileList(list: FileList): Promise<Incoming> {
  const raw: [string, Uint8Array][] = [];
  for (const file of Array.from(list)) {
    const full = file.webkitRelativePath || file.name;
    const path = full.includes("/") ? full.slice(full.indexOf("/") + 1) : full;
    raw.push([path, path.toLowerCase().endsWith(".md") ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(0)]);
  }
  return incoming(raw);
}
