/**
 * The project's root as Claude Code keys memory by it: the main worktree's root inside git
 * (so every worktree of a repository shares one memory), else the folder itself. Node only.
 */
import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";

export async function findProjectRoot(start: string): Promise<string> {
  let dir = resolve(start);
  for (;;) {
    const dotGit = join(dir, ".git");
    const st = await stat(dotGit).catch(() => null);
    if (st?.isDirectory()) return dir;
    if (st?.isFile()) {
      // a worktree: ".git" holds "gitdir: <repo>/.git/worktrees/<name>", whose "commondir" leads to <repo>/.git
      const gitdir = /^gitdir:\s*(.+)$/m.exec(await readFile(dotGit, "utf8"))?.[1]?.trim();
      if (gitdir) {
        const worktreeGit = isAbsolute(gitdir) ? gitdir : resolve(dir, gitdir);
        const common = (await readFile(join(worktreeGit, "commondir"), "utf8").catch(() => "")).trim();
        if (common) return dirname(resolve(worktreeGit, common));
      }
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) return resolve(start);
    dir = parent;
  }
}
