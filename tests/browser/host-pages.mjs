// Loaded by the Chromium pages of tests/browser/hosts.test.mjs (served statically, no Node APIs):
// the shared host conformance cases over OpfsHost and IndexedDbHost, each case on a memory of its
// own, seeded through the browser's storage APIs directly (never through the host under test),
// and the helpers the cross-tab tests run in their pages.
import * as memdir from "/pkg/entry/browser.js";
import { hostCases } from "/tests/js/host-conformance.mjs";
import { assert } from "/tests/js/mini-assert.mjs";

export { memdir, assert };

let counter = 0;
/** A name no other case uses, in this page or another. */
export const freshName = (label) => `${label}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

const bytes = (content) => (typeof content === "string" ? new TextEncoder().encode(content) : content);

/** Writes `files` into OPFS at memdir/<name>/… with the raw API; `missing` leaves the folder out. */
export async function seedOpfs(name, files, { missing = false } = {}) {
  if (missing) return;
  const top = await (await (await navigator.storage.getDirectory()).getDirectoryHandle("memdir", { create: true })).getDirectoryHandle(name, { create: true });
  for (const [path, content] of Object.entries(files)) {
    const parts = path.split("/");
    let dir = top;
    for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part, { create: true });
    const writable = await (await dir.getFileHandle(parts.at(-1), { create: true })).createWritable();
    await writable.write(bytes(content));
    await writable.close();
  }
}

/** The database memdir:<name>, its store `files` made if new (as IndexedDbHost makes it). */
function openStore(name) {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(`memdir:${name}`, 1);
    req.onupgradeneeded = () => req.result.createObjectStore("files");
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Puts `files` into the database memdir:<name>, store `files`, as `{ data: Blob, size, mtimeMs }`. */
export async function seedIndexedDb(name, files, { missing = false } = {}) {
  if (missing) return;
  const db = await openStore(name);
  await new Promise((resolve, reject) => {
    const tx = db.transaction("files", "readwrite");
    for (const [path, content] of Object.entries(files)) {
      const data = bytes(content);
      tx.objectStore("files").put({ data: new Blob([data]), size: data.length, mtimeMs: Date.now() }, path);
    }
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

export const backends = {
  OpfsHost: {
    async make(files, options) {
      const name = freshName("conformance");
      await seedOpfs(name, files, options);
      const host = await memdir.OpfsHost.open(name);
      return { host, root: `opfs:/memdir/${name}`, absolute: (path) => `opfs:/memdir/${name}/${path}` };
    },
    open: (name) => memdir.OpfsHost.open(name),
  },
  IndexedDbHost: {
    async make(files, options) {
      const name = freshName("conformance");
      await seedIndexedDb(name, files, options);
      const host = await memdir.IndexedDbHost.open(name);
      return { host, root: `indexeddb:/memdir:${name}`, absolute: (path) => `indexeddb:/memdir:${name}/${path}` };
    },
    open: (name) => memdir.IndexedDbHost.open(name),
  },
};

/** Runs every shared case against `backend`; `[{ name, error }]`, `error` null when it passed. */
export async function runConformance(backend) {
  await memdir.init();
  const make = (files = {}, options = {}) => backends[backend].make(files, { missing: false, ...options });
  const results = [];
  for (const { name, run } of hostCases({ assert, openMemory: memdir.openMemory })) {
    try {
      await run(make);
      results.push({ name, error: null });
    } catch (error) {
      results.push({ name, error: `${error?.name}: ${error?.message}${error?.code ? ` (${error.code})` : ""}\n${error?.stack ?? ""}` });
    }
  }
  return results;
}

/** The names (sorted) in OPFS at memdir/<name>/<folder>, swap files included: what the host hides. */
export async function rawOpfsNames(name, folder = []) {
  let dir = await (await (await navigator.storage.getDirectory()).getDirectoryHandle("memdir")).getDirectoryHandle(name);
  for (const part of folder) dir = await dir.getDirectoryHandle(part);
  const names = [];
  for await (const [n] of dir.entries()) names.push(n);
  return names.sort();
}

/** Waits until `at` (ms since the epoch), so two pages start together. */
export const until = (at) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

/** A memory file's text. */
export const memoryText = (name, description) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\nbody\n`;

/**
 * `n` memories `a0.md`… written with the raw API of `backend` (never through a host), the
 * newest last: IndexedDB gets mtimes a minute apart, OPFS files are written a few ms apart.
 */
export async function seedMemories(backend, name, n, { folders = [], gapMs = 3 } = {}) {
  // the folders' files first: the oldest
  const files = {};
  for (const folder of folders) files[`${folder}/keep.md`] = memoryText(`Keep ${folder}`, `kept in ${folder}`);
  for (let i = 0; i < n; i++) files[`a${i}.md`] = memoryText(`A${i}`, `memory number ${i}`);
  if (backend === "IndexedDbHost") {
    const now = Date.now();
    await rawPut(name, Object.entries(files).map(([path, content], i, all) => [path, content, now - (all.length - i) * 60_000]));
    return;
  }
  for (const [path, content] of Object.entries(files)) {
    await seedOpfs(name, { [path]: content });
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  }
}

/** Puts `[path, content, mtimeMs]` rows straight into the store of memory `name` (behind any host's back: no event). */
export async function rawPut(name, rows) {
  const db = await openStore(name);
  await new Promise((resolve, reject) => {
    const tx = db.transaction("files", "readwrite");
    for (const [path, content, mtimeMs] of rows) {
      const data = bytes(content);
      tx.objectStore("files").put({ data: new Blob([data]), size: data.length, mtimeMs: mtimeMs ?? Date.now() }, path);
    }
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

/** Writes `path` of memory `name` behind memdir's back: the OPFS API (heard only by a FileSystemObserver) or a raw IndexedDB put (heard by nothing). */
export async function writeBehind(backend, name, path, content) {
  if (backend === "IndexedDbHost") return rawPut(name, [[path, content]]);
  return seedOpfs(name, { [path]: content });
}

/**
 * A host of `backend` for memory `name`, its `list` and `statMany` calls counted in `counts`
 * (`fast.statMany` calls the host's own `statMany`, so the count sees the cache's checks);
 * `observer: false` takes FileSystemObserver away from this page first.
 */
export async function countedHost(backend, name, { observer = true } = {}) {
  if (!observer) delete globalThis.FileSystemObserver;
  const host = await backends[backend].open(name);
  const counts = { lists: 0, statMany: 0 };
  const list = host.list.bind(host);
  const statMany = host.statMany?.bind(host);
  host.list = async () => {
    counts.lists++;
    return list();
  };
  if (statMany) {
    host.statMany = async (paths) => {
      counts.statMany++;
      return statMany(paths);
    };
  }
  return { host, counts };
}

/** Scans until `check(scan)` holds or `ms` pass; the last scan. */
export async function scanUntil(memory, check, ms = 3_000) {
  const until = Date.now() + ms;
  for (;;) {
    const scan = await memory.scan();
    if (check(scan) || Date.now() > until) return scan;
    await new Promise((r) => setTimeout(r, 20));
  }
}
