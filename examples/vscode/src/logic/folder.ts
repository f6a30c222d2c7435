/**
 * Where the memory is. The setting `memdir.folder` when set (relative to the first workspace
 * folder, or an absolute local path on the desktop); otherwise, on the desktop with a local
 * workspace, Claude Code's folder for it (`~/.claude/projects/<key>/memory`, `<key>` from the
 * git root: the main worktree's root, so worktrees share memory), and elsewhere (the web, a
 * virtual or remote workspace) `memory/` in the workspace.
 */
import { projectMemoryDir } from "memdir";
import type { FsApi, UriLike } from "./types.js";

export interface FolderPlatform {
  /** The user's home folder; `null` on the web (no home, no `~/.claude`). */
  homeDir: string | null;
  /** `CLAUDE_CONFIG_DIR`, replacing `~/.claude`, when set. */
  configDir: string | null;
}

export interface MemoryFolder<U> {
  uri: U;
  /** Why this folder: the setting, Claude Code's folder, or the workspace's `memory/`. */
  source: "setting" | "claude" | "workspace";
}

const isAbsolute = (path: string): boolean => path.startsWith("/") || path.startsWith("~") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");

/**
 * The memory folder for `workspace` (the first workspace folder, or none). Throws a sentence for a
 * setting that cannot work here, naming the setting (`what`: `memdir.folder`, or a scope's).
 */
export async function memoryFolder<U extends UriLike>(setting: string, workspace: U | undefined, api: FsApi<U>, platform: FolderPlatform, what = "memdir.folder"): Promise<MemoryFolder<U> | null> {
  const wanted = setting.trim();
  if (wanted) {
    if (isAbsolute(wanted)) {
      if (platform.homeDir === null) throw new Error(`${what} is an absolute path (${wanted}); on the web only a folder relative to the workspace can be used`);
      const expanded = wanted.startsWith("~") ? platform.homeDir + wanted.slice(1) : wanted;
      return { uri: api.file(expanded), source: "setting" };
    }
    if (workspace === undefined) return null;
    return { uri: api.joinPath(workspace, ...wanted.split(/[\\/]+/).filter(Boolean)), source: "setting" };
  }
  if (workspace === undefined) return null;
  if (platform.homeDir !== null && workspace.scheme === "file") {
    const root = await findProjectRoot(workspace, api);
    const dir = projectMemoryDir({ homeDir: platform.homeDir, projectRoot: root.fsPath, configDir: platform.configDir });
    return { uri: api.file(dir), source: "claude" };
  }
  return { uri: api.joinPath(workspace, "memory"), source: "workspace" };
}

const decoder = new TextDecoder();
const DIRECTORY = 2;
const FILE = 1;

/**
 * The project's root as Claude Code keys memory by it, read through `workspace.fs`: the nearest
 * folder at or above `start` holding `.git`; for a worktree (`.git` is a file,
 * `gitdir: <repo>/.git/worktrees/<name>`), the main worktree's root from its `commondir`.
 * Outside git, `start` itself.
 */
export async function findProjectRoot<U extends UriLike>(start: U, api: FsApi<U>): Promise<U> {
  let dir = start;
  for (;;) {
    const dotGit = api.joinPath(dir, ".git");
    const type = await Promise.resolve(api.fs.stat(dotGit)).then((st) => st.type, () => 0);
    if (type & DIRECTORY) return dir;
    if (type & FILE) {
      const text = await Promise.resolve(api.fs.readFile(dotGit)).then((b) => decoder.decode(b), () => "");
      const gitdir = /^gitdir:\s*(.+)$/m.exec(text)?.[1]?.trim();
      if (gitdir) {
        const worktreeGit = isAbsolute(gitdir) ? api.file(gitdir) : api.joinPath(dir, gitdir);
        const common = await Promise.resolve(api.fs.readFile(api.joinPath(worktreeGit, "commondir"))).then((b) => decoder.decode(b).trim(), () => "");
        if (common) {
          const commonDir = isAbsolute(common) ? api.file(common) : api.joinPath(worktreeGit, common);
          return api.joinPath(commonDir, "..");
        }
      }
      return dir;
    }
    const parent = api.joinPath(dir, "..");
    if (parent.path === dir.path) return start;
    dir = parent;
  }
}
