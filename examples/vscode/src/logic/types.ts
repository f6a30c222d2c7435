/**
 * The few shapes of the `vscode` API the logic uses, so it runs (and is tested) without VS Code:
 * `extension.ts` passes the real objects, the tests pass fakes.
 */
import type { OpenedMemory, VsCodeApi } from "memdir";

/** `vscode.workspace.fs` and the watcher, as `VsCodeHost` takes them (memdir's own shapes). */
type FileSystemLike<U extends UriLike> = VsCodeApi<U>["fs"];
type FileSystemWatcherLike<U extends UriLike> = ReturnType<NonNullable<VsCodeApi<U>["watchTree"]>>;

/** What `workspace.fs` returns: anything `await` unwraps (`vscode.Thenable`). */
export type ThenableLike<T> = PromiseLike<T>;

/** The parts of a `vscode.Uri` the logic reads. */
export interface UriLike {
  readonly scheme: string;
  readonly path: string;
  /** The platform path (`c:\x` on Windows); `file` URIs only. */
  readonly fsPath: string;
  toString(): string;
}

/** `vscode.workspace.fs`, as `VsCodeHost` takes it; failures are `FileSystemError`s with a `code` (`FileNotFound`, …). */
export type WorkspaceFs<U extends UriLike = UriLike> = FileSystemLike<U>;

/** `workspace.fs` with `Uri.joinPath` and `Uri.file`. */
export interface FsApi<U extends UriLike = UriLike> {
  fs: WorkspaceFs<U>;
  joinPath(base: U, ...pathSegments: string[]): U;
  file(path: string): U;
  /** `workspace.createFileSystemWatcher` of everything under `base` (optional). */
  watchTree?(base: U): FileSystemWatcherLike<U>;
}

/** `context.secrets`. */
export interface SecretsLike {
  get(key: string): ThenableLike<string | undefined>;
  store(key: string, value: string): ThenableLike<void>;
  delete(key: string): ThenableLike<void>;
}

/** The `memdir.*` settings. */
export interface Settings {
  folder: string;
  provider: string;
  model: string;
  baseUrl: string;
  staleDays: number;
  /** `memdir.scopes`, as the settings hold it (checked by `scopeSettings`); absent or `[]`: one folder, `folder`. */
  scopes?: unknown;
}

/** The prompts a command shows; `undefined` when the user cancelled. */
export interface Prompts {
  input(options: { title: string; prompt?: string; value?: string; placeHolder?: string }): Promise<string | undefined>;
  /** A QuickPick of `items`; `details[i]`, when given, is shown beside `items[i]`. Resolves with the item chosen. */
  pick(items: string[], options: { title: string; placeHolder?: string; details?: string[] }): Promise<string | undefined>;
  /** A modal question; resolves `true` only when the user chose `action`. */
  confirm(message: string, action: string): Promise<boolean>;
}

export type { OpenedMemory };
