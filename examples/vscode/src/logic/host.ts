/**
 * The extension's `MemoryHost` over `vscode.workspace.fs`. memdir already ships one,
 * `VsCodeHost` (its API passed in, no dependency on `vscode`), which passes the host conformance
 * suite: whole-file writes to `.<name>.tmp-<hex>` renamed over the target with
 * `overwrite: true` (`false` for an exclusive create), parents made with `createDirectory`,
 * `FileSystemError` codes mapped to `ENOENT`/`EEXIST`/…, symbolic links never followed. This
 * binds it to the extension's `workspace.fs` and memory folder.
 */
import { VsCodeHost, type MemoryHost } from "memdir";
import type { FsApi, UriLike } from "./types.js";

/** A `MemoryHost` over `workspace.fs`, rooted at `dir` (local, remote or virtual). */
export function workspaceFsHost<U extends UriLike>(api: FsApi<U>, dir: U): MemoryHost {
  return new VsCodeHost<U>({ fs: api.fs, joinPath: api.joinPath, ...(api.watchTree ? { watchTree: api.watchTree } : {}) }, dir);
}
