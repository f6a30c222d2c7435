/**
 * The memory the commands work on: the folder from the settings, a `workspaceFsHost` over it,
 * the selector from the settings and the secret key; reopened when any of them changes. Every
 * change made through it is recorded in the history with the label `vscode`.
 */
import { openMemory } from "memdir";
import { memoryFolder, type FolderPlatform, type MemoryFolder } from "./folder.js";
import { workspaceFsHost } from "./host.js";
import { HISTORY_LABEL } from "./history.js";
import { resolveSelector } from "./selector.js";
import type { FsApi, OpenedMemory, SecretsLike, Settings, UriLike } from "./types.js";

export interface Opened<U> {
  memory: OpenedMemory;
  folder: MemoryFolder<U>;
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
    const folder = await memoryFolder(settings.folder, this.deps.workspace(), this.deps.api, this.deps.platform);
    if (folder === null) return null;
    const { selector, warning } = await resolveSelector(settings, this.deps.secrets, { trusted: this.deps.trusted() });
    const memory = await openMemory({ host: workspaceFsHost(this.deps.api, folder.uri), selector, history: { label: HISTORY_LABEL }, ...(this.deps.now ? { now: this.deps.now } : {}) });
    return warning === undefined ? { memory, folder } : { memory, folder, selectorWarning: warning };
  }
}
