/**
 * A host over VS Code's `vscode.workspace.fs`, for extensions. The API objects come in through
 * the constructor, so memdir has no dependency on `vscode`:
 *
 * ```ts
 * const host = new VsCodeHost({ fs: vscode.workspace.fs, joinPath: vscode.Uri.joinPath }, dirUri);
 * ```
 *
 * What `workspace.fs` cannot do, and how the host copes:
 * - no partial reads: `readFile(path, maxBytes)` (a head too) reads the whole file and cuts it;
 * - no `realpath`: a symbolic link's target is unknown, so every link is reported as
 *   `symlink_escape` and never followed by `list()`;
 * - `rename(…, { overwrite: true })` deletes the target and then moves the temporary file
 *   onto it, so a reader can find the file missing for a moment, but never half written.
 */
import { tempFileName } from "../core.js";
import { hostError, type HostEntry, type HostError, type HostFastPaths, type HostWatcher, type MemoryHost } from "../host.js";
import { bounded } from "../bounded.js";

/**
 * What `workspace.fs` returns: `vscode.Thenable` (older `vscode.d.ts` declare it on its own,
 * newer ones as `PromiseLike`); anything `await` can unwrap.
 */
export interface ThenableLike<T> {
  then(onfulfilled?: (value: T) => unknown, onrejected?: (reason: unknown) => unknown): unknown;
}

/** The parts of a `vscode.Uri` the host uses. */
export interface UriLike {
  readonly scheme: string;
  readonly path: string;
  toString(): string;
}

/** The parts of a `vscode.FileStat` the host uses; `mtime` is ms since the epoch. */
export interface FileStatLike {
  /** `vscode.FileType` bits: File = 1, Directory = 2, SymbolicLink = 64 (added to the target's type). */
  readonly type: number;
  readonly mtime: number;
  readonly size: number;
}

/**
 * The shape of `vscode.workspace.fs`. Failures are expected to be `vscode.FileSystemError`s,
 * whose `code` is `FileNotFound`, `FileExists`, `FileIsADirectory`, `FileNotADirectory`,
 * `NoPermissions`, `Unavailable` or `Unknown`.
 */
export interface FileSystemLike<U extends UriLike = UriLike> {
  stat(uri: U): ThenableLike<FileStatLike>;
  readDirectory(uri: U): ThenableLike<[string, number][]>;
  readFile(uri: U): ThenableLike<Uint8Array>;
  writeFile(uri: U, content: Uint8Array): ThenableLike<void>;
  delete(uri: U, options?: { recursive?: boolean; useTrash?: boolean }): ThenableLike<void>;
  rename(source: U, target: U, options?: { overwrite?: boolean }): ThenableLike<void>;
  createDirectory(uri: U): ThenableLike<void>;
}

/** The parts of a `vscode.FileSystemWatcher` the host uses. */
export interface FileSystemWatcherLike<U extends UriLike = UriLike> {
  onDidCreate(listener: (uri: U) => unknown): unknown;
  onDidChange(listener: (uri: U) => unknown): unknown;
  onDidDelete(listener: (uri: U) => unknown): unknown;
  dispose(): unknown;
}

/** What `VsCodeHost` needs from the `vscode` module: `workspace.fs` and `Uri.joinPath`. */
export interface VsCodeApi<U extends UriLike = UriLike> {
  fs: FileSystemLike<U>;
  /** `vscode.Uri.joinPath`; it works unbound. */
  joinPath(base: U, ...pathSegments: string[]): U;
  /**
   * A watcher of everything under `base`, for an opened memory's cache (optional: without it
   * every turn lists the folder). In an extension:
   * `(base) => vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(base, "**"))`.
   * VS Code watches folders outside the workspace too, and may drop events under load: the
   * cache treats them as hints and lists everything in the background now and then.
   */
  watchTree?(base: U): FileSystemWatcherLike<U>;
}

/** A folder an opened memory watches, and what it calls. */
interface FolderWatch {
  dir: string;
  onChange: (name: string | null) => void;
}

const FILE = 1;
const DIRECTORY = 2;
const SYMBOLIC_LINK = 64;
/** Stats in flight at once while listing. */
const LIST_CONCURRENCY = 32;

/** `FileSystemError.code` → the file-system style code `MemoryHost` callers branch on. */
const ERROR_CODES: Readonly<Record<string, string>> = {
  FileNotFound: "ENOENT",
  FileExists: "EEXIST",
  FileIsADirectory: "EISDIR",
  FileNotADirectory: "ENOTDIR",
  NoPermissions: "EACCES",
  Unavailable: "EAGAIN",
};

/** A memory directory reached through `vscode.workspace.fs` (local, remote or virtual). */
export class VsCodeHost<U extends UriLike = UriLike> implements MemoryHost {
  /** The directory's URI, as a string. */
  readonly root: string;
  private readonly fs: FileSystemLike<U>;
  private readonly dir: U;
  private readonly joinPath: (base: U, ...pathSegments: string[]) => U;

  private readonly watchTree: ((base: U) => FileSystemWatcherLike<U>) | undefined;
  /** One `FileSystemWatcher` for the whole folder while any folder is watched, fanned out. */
  private treeWatcher: FileSystemWatcherLike<U> | null = null;
  private readonly folderWatches = new Set<FolderWatch>();

  /** `api` is `{ fs: vscode.workspace.fs, joinPath: vscode.Uri.joinPath }` (and optionally `watchTree`); `dir` is the memory directory. */
  constructor(api: VsCodeApi<U>, dir: U) {
    this.fs = api.fs;
    this.joinPath = api.joinPath;
    this.watchTree = api.watchTree;
    this.dir = dir;
    this.root = dir.toString();
  }

  readonly fast: HostFastPaths = { statMany: (paths) => this.statMany(paths) };

  /** `stat` of many paths (a few in flight at once): each the entry, `null` when absent, or the error met. */
  async statMany(paths: string[]): Promise<(HostEntry | null | HostError)[]> {
    return bounded(paths, LIST_CONCURRENCY, async (path) => {
      try {
        return await this.stat(path);
      } catch (error) {
        return error instanceof Error ? (error as HostError) : hostError("EIO", `${path}: ${String(error)}`);
      }
    });
  }

  /**
   * Hears changes in the folder `dir` through the one watcher of the whole memory folder (made
   * by `api.watchTree` when the first folder is watched, disposed with the last); `null` without
   * `watchTree`. A change is reported to each watched folder as the name of its entry that is,
   * or holds, what changed.
   */
  watch(dir: string, onChange: (name: string | null) => void): HostWatcher | null {
    if (!this.watchTree) return null;
    if (!this.treeWatcher) {
      let watcher: FileSystemWatcherLike<U>;
      try {
        watcher = this.watchTree(this.dir);
      } catch {
        return null;
      }
      const heard = (uri: U) => this.deliver(uri);
      watcher.onDidCreate(heard);
      watcher.onDidChange(heard);
      watcher.onDidDelete(heard);
      this.treeWatcher = watcher;
    }
    const w: FolderWatch = { dir, onChange };
    this.folderWatches.add(w);
    return {
      close: () => {
        if (!this.folderWatches.delete(w) || this.folderWatches.size > 0) return;
        const watcher = this.treeWatcher;
        this.treeWatcher = null;
        try {
          watcher?.dispose();
        } catch {
          // already disposed with the extension
        }
      },
    };
  }

  /** The path of `uri` under the memory folder, `""` for the folder itself, `null` elsewhere. */
  private relative(uri: U): string | null {
    if (uri.scheme !== this.dir.scheme) return null;
    const base = this.dir.path.replace(/\/+$/, "");
    if (uri.path === base) return "";
    return uri.path.startsWith(`${base}/`) ? uri.path.slice(base.length + 1) : null;
  }

  private deliver(uri: U): void {
    const path = this.relative(uri);
    for (const w of [...this.folderWatches]) {
      if (path === null) continue;
      const rest = w.dir === "" ? path : path.startsWith(`${w.dir}/`) ? path.slice(w.dir.length + 1) : null;
      if (rest === null || rest === "") continue;
      const slash = rest.indexOf("/");
      w.onChange(slash < 0 ? rest : rest.slice(0, slash));
    }
  }

  private uri(segments: string[]): U {
    return segments.length === 0 ? this.dir : this.joinPath(this.dir, ...segments);
  }

  absolutePath(path: string): string {
    return this.uri(path.split("/")).toString();
  }

  /** Lists recursively; symbolic links are reported as `symlink_escape` and not followed. */
  async list(): Promise<HostEntry[]> {
    const entries: HostEntry[] = [];
    const walk = async (segments: string[], self: HostEntry | null): Promise<void> => {
      let children: [string, number][];
      try {
        children = await this.fs.readDirectory(this.uri(segments));
      } catch (error) {
        const code = fsCode(error);
        if (self === null) {
          if (code === "FileNotFound" || code === "FileNotADirectory") return; // no memory directory yet
          throw toHostError(error, "");
        }
        if (code !== "FileNotFound") self.problem = "unreadable"; // else: vanished while listing
        return;
      }
      children.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const found = await bounded(children, LIST_CONCURRENCY, async ([name, type]) => {
        const path = [...segments, name].join("/");
        try {
          return toEntry(path, await this.fs.stat(this.uri([...segments, name])));
        } catch (error) {
          if (fsCode(error) === "FileNotFound") return null; // vanished between readDirectory and stat
          return toEntry(path, { type, mtime: 0, size: 0 }, "unreadable");
        }
      });
      for (const [i, entry] of found.entries()) {
        if (entry === null) continue;
        entries.push(entry);
        const [name, type] = children[i]!;
        if (entry.kind === "directory" && !(type & SYMBOLIC_LINK)) await walk([...segments, name], entry);
      }
    };
    await walk([], null);
    return entries;
  }

  async stat(path: string): Promise<HostEntry | null> {
    const st = await this.statOrNull(path.split("/"), path);
    return st === null ? null : toEntry(path, st);
  }

  /** Reads the whole file, then cuts it to `maxBytes` when given. */
  async readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
    const data = await this.readRegular(path);
    return maxBytes === undefined || maxBytes >= data.length ? data : data.slice(0, Math.max(0, maxBytes));
  }

  /**
   * Writes `.<name>.tmp-<random>` next to the target, then renames it over the target
   * (`overwrite: true`; `overwrite: false` when `exclusive`, so a file that appeared meanwhile
   * is not replaced). Parent folders are created with `createDirectory`.
   */
  async writeFile(path: string, data: Uint8Array, options: { exclusive?: boolean } = {}): Promise<void> {
    const segments = path.split("/");
    const name = segments.pop()!;
    const target = this.uri([...segments, name]);
    const existing = await this.statOrNull([...segments, name], path);
    if (existing !== null && existing.type & DIRECTORY) throw hostError("EISDIR", `${path} is a directory`);
    if (existing !== null && options.exclusive) throw hostError("EEXIST", `${path} already exists`);
    if (existing === null) await this.mkdirp(segments, path);
    const tmp = this.uri([...segments, tempFileName(name, randomHex(6))]);
    try {
      await this.fs.writeFile(tmp, data);
      await this.fs.rename(tmp, target, { overwrite: !options.exclusive });
    } catch (error) {
      try {
        await this.fs.delete(tmp, { recursive: false, useTrash: false });
      } catch {
        // never written, or already gone
      }
      throw toHostError(error, path);
    }
  }

  /** Deletes a file or a whole directory (`recursive: true`, `useTrash: false`). */
  async remove(path: string): Promise<void> {
    try {
      await this.fs.delete(this.uri(path.split("/")), { recursive: true, useTrash: false });
    } catch (error) {
      throw toHostError(error, path);
    }
  }

  /**
   * Renames with `overwrite: false`, so an existing destination fails with `EEXIST`; creates the
   * destination's folder first (once the source is known to exist).
   */
  async rename(from: string, to: string): Promise<void> {
    const toSegments = to.split("/");
    if ((await this.statOrNull(from.split("/"), from)) === null) throw hostError("ENOENT", `${from} does not exist`);
    if (toSegments.length > 1) await this.mkdirp(toSegments.slice(0, -1), to);
    try {
      await this.fs.rename(this.uri(from.split("/")), this.uri(toSegments), { overwrite: false });
    } catch (error) {
      throw toHostError(error, `${from} -> ${to}`);
    }
  }

  /** `workspace.fs.stat`, with a missing entry (or a file where a folder should be) as `null`. */
  private async statOrNull(segments: string[], path: string): Promise<FileStatLike | null> {
    try {
      return await this.fs.stat(this.uri(segments));
    } catch (error) {
      const code = fsCode(error);
      if (code === "FileNotFound" || code === "FileNotADirectory") return null;
      throw toHostError(error, path);
    }
  }

  private async isDirectory(uri: U): Promise<boolean> {
    try {
      return ((await this.fs.stat(uri)).type & DIRECTORY) !== 0;
    } catch {
      return false;
    }
  }

  /** The bytes of a regular file; refuses directories and devices before reading. */
  private async readRegular(path: string): Promise<Uint8Array> {
    const segments = path.split("/");
    try {
      const st = await this.fs.stat(this.uri(segments));
      if (st.type & DIRECTORY) throw hostError("EISDIR", `${path} is a directory`);
      if (!(st.type & FILE)) throw hostError("EINVAL", `${path} is not a regular file`);
      return await this.fs.readFile(this.uri(segments));
    } catch (error) {
      throw toHostError(error, path);
    }
  }

  /**
   * Creates the folder `segments` (relative to the root). `workspace.fs.createDirectory` already
   * creates parents and accepts an existing folder; a bare `FileSystemProvider` does neither,
   * so on `FileNotFound` each level is created in turn.
   */
  private async mkdirp(segments: string[], path: string): Promise<void> {
    const create = async (uri: U): Promise<"done" | "parent_missing"> => {
      try {
        await this.fs.createDirectory(uri);
        return "done";
      } catch (error) {
        const code = fsCode(error);
        if (code === "FileNotFound") return "parent_missing";
        if (code !== "FileExists") throw toHostError(error, path);
        if (await this.isDirectory(uri)) return "done";
        throw hostError("ENOTDIR", `${path}: a parent folder is a file`);
      }
    };
    if ((await create(this.uri(segments))) === "done") return;
    for (let i = 0; i <= segments.length; i++) {
      if ((await create(this.uri(segments.slice(0, i)))) === "parent_missing") {
        throw hostError("ENOENT", `${path}: cannot create the folder ${this.uri(segments.slice(0, i)).toString()}`);
      }
    }
  }
}

function toEntry(path: string, st: FileStatLike, problem?: string): HostEntry {
  const mtimeMs = st.mtime;
  let entry: HostEntry;
  if (st.type & SYMBOLIC_LINK) entry = { path, kind: "other", mtimeMs, size: 0, problem: "symlink_escape" };
  else if (st.type & DIRECTORY) entry = { path, kind: "directory", mtimeMs, size: 0 };
  else if (st.type & FILE) entry = { path, kind: "file", mtimeMs, size: st.size };
  else entry = { path, kind: "other", mtimeMs, size: 0, problem: "not_a_file" };
  if (problem !== undefined && entry.problem === undefined) entry.problem = problem;
  return entry;
}

/** The `code` of a `FileSystemError` (or anything with a string `code`). */
function fsCode(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/**
 * A `FileSystemError` as a `HostError` (`FileNotFound` → `ENOENT`, …, `Unknown` → `EIO`), keeping
 * it as `cause`. Errors that already carry a POSIX code pass through; errors without a `code`
 * (bugs, cancellation) are rethrown unchanged.
 */
function toHostError(error: unknown, path: string): unknown {
  const code = fsCode(error);
  if (code === undefined || /^E[A-Z]+$/.test(code)) return error;
  const message = error instanceof Error && error.message ? error.message : code;
  const mapped: HostError = hostError(ERROR_CODES[code] ?? "EIO", path ? `${path}: ${message}` : message);
  mapped.cause = error;
  return mapped;
}

function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  if (typeof globalThis.crypto?.getRandomValues === "function") globalThis.crypto.getRandomValues(buffer);
  else for (let i = 0; i < bytes; i++) buffer[i] = Math.floor(Math.random() * 256);
  return Array.from(buffer, (b) => b.toString(16).padStart(2, "0")).join("");
}

