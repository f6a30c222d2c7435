/**
 * The memory the commands work on: the folder from the settings, a `workspaceFsHost` over it,
 * the selector from the settings and the secret key; reopened when any of them changes. Every
 * change made through it is recorded in the history with the label `vscode`.
 */
import { openMemory, type ScopeOptions } from "memdir";
import { memoryFolder, type FolderPlatform, type MemoryFolder } from "./folder.js";
import { workspaceFsHost } from "./host.js";
import { HISTORY_LABEL } from "./history.js";
import { scopeSettings, type OpenedScope } from "./scopes.js";
import { resolveSelector } from "./selector.js";
import type { FsApi, OpenedMemory, SecretsLike, Settings, UriLike } from "./types.js";

export interface Opened<U> {
  /** The memory: with `memdir.scopes`, memdir's `ScopedMemory` (recall and scan span every scope; a memory is `<scope>:<path>`). */
  memory: OpenedMemory;
  /** Its folder: with scopes, the default write scope's (the first scope's when every scope is read-only). */
  folder: MemoryFolder<U>;
  /** The scopes in order of precedence, from `memdir.scopes`; `[]` without it. */
  scopes: OpenedScope<U>[];
  /** Why recall uses the lexical selector instead of the configured one, when it does. */
  selectorWarning?: string;
}

export interface MemoryDeps<U extends UriLike> {
  api: FsApi<U>;
  platform: FolderPlatform;
  settings(): Settings;
  secrets: SecretsLike;
  workspace(): U | undefined;
  trusted(): boolean;
  /** Test clock; default `Date.now`. */
  now?: () => number;
}

/** Opens the memory lazily and keeps it until `invalidate()` (settings, key or workspace changed). */
export class MemoryProvider<U extends UriLike> {
  private current: Promise<Opened<U> | null> | null = null;
  constructor(private readonly deps: MemoryDeps<U>) {}

  /** The opened memory, or `null` when there is no folder to use (no workspace and no absolute setting). */
  get(): Promise<Opened<U> | null> {
    this.current ??= this.open().catch((error: unknown) => {
      this.current = null;
      throw error;
    });
    return this.current;
  }

  invalidate(): void {
    void this.current?.then((o) => o?.memory.close(), () => undefined);
    this.current = null;
  }

  private async open(): Promise<Opened<U> | null> {
    const settings = this.deps.settings();
    const scopes = scopeSettings(settings.scopes);
    if (scopes.length > 0) return this.openScopes(settings, scopes);
    const folder = await memoryFolder(settings.folder, this.deps.workspace(), this.deps.api, this.deps.platform);
    if (folder === null) return null;
    const { selector, warning } = await resolveSelector(settings, this.deps.secrets, { trusted: this.deps.trusted() });
    const memory = await openMemory({ host: workspaceFsHost(this.deps.api, folder.uri), selector, history: { label: HISTORY_LABEL }, ...(this.deps.now ? { now: this.deps.now } : {}) });
    return warning === undefined ? { memory, folder, scopes: [] } : { memory, folder, scopes: [], selectorWarning: warning };
  }

  /**
   * `memdir.scopes`: each scope's folder found as `memdir.folder` is (`claude` is the folder an
   * empty `memdir.folder` means: Claude Code's on the desktop), then `openMemory({ scopes })`,
   * which checks the names and refuses one folder under two names (`INVALID_ARGUMENT`).
   */
  private async openScopes(settings: Settings, scopes: ReturnType<typeof scopeSettings>): Promise<Opened<U> | null> {
    const folders: MemoryFolder<U>[] = [];
    for (const s of scopes) {
      const folder = await memoryFolder(s.folder === "claude" ? "" : s.folder, this.deps.workspace(), this.deps.api, this.deps.platform, `memdir.scopes' ${JSON.stringify(s.name)} folder`);
      if (folder === null) return null;
      folders.push(folder);
    }
    const { selector, warning } = await resolveSelector(settings, this.deps.secrets, { trusted: this.deps.trusted() });
    const memory = await openMemory({
      // memdir checks the types (an unknown one is INVALID_ARGUMENT)
      scopes: scopes.map((s, i) => ({ name: s.name, host: workspaceFsHost(this.deps.api, folders[i]!.uri), ...(s.readOnly ? { readOnly: true } : {}), ...(s.types ? { types: s.types as NonNullable<ScopeOptions["types"]> } : {}) })),
      selector,
      history: { label: HISTORY_LABEL },
      ...(this.deps.now ? { now: this.deps.now } : {}),
    });
    const opened: OpenedScope<U>[] = memory.scopes.map((s, i) => ({ name: s.name, readOnly: s.readOnly, isDefault: s.name === memory.writeScope, folder: folders[i]!, memory: s.memory }));
    const folder = (opened.find((s) => s.isDefault) ?? opened[0]!).folder;
    return warning === undefined ? { memory, folder, scopes: opened } : { memory, folder, scopes: opened, selectorWarning: warning };
  }
}
