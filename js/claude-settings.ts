/**
 * Claude Code's settings, as far as memory needs them (Node only): `autoMemoryDirectory` from
 * the settings it trusts — the managed (policy) file, the project's `.claude/settings.local.json`
 * and the user's `settings.json` — never from the project's shared `.claude/settings.json`, so a
 * repository cannot point memory elsewhere. Which one wins, and what is a safe folder, is the
 * core's rule (`projectMemoryDir`); this file only reads.
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { agentMemoryDir, projectMemoryDir, type AutoMemorySettings } from "./core.js";
import type { ScopeOptions } from "./api.js";
import { envKey } from "./open.js";
import { findProjectRoot } from "./git.js";

/** Where the managed settings are on this platform. */
function policyFile(): string {
  if (process.platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-settings.json";
  if (process.platform === "win32") return "C:\\Program Files\\ClaudeCode\\managed-settings.json";
  return "/etc/claude-code/managed-settings.json";
}

/** A settings file's `autoMemoryDirectory` when it is a string; a missing or bad file has none. */
async function settingOf(file: string): Promise<string | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
    const value = (parsed as { autoMemoryDirectory?: unknown } | null)?.autoMemoryDirectory;
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** `autoMemoryDirectory` from each trusted settings file. */
export async function readAutoMemorySettings(projectRoot: string, configDir: string | null, home: string = homedir()): Promise<AutoMemorySettings> {
  const [policy, local, user] = await Promise.all([
    settingOf(policyFile()),
    settingOf(join(projectRoot, ".claude", "settings.local.json")),
    settingOf(join(configDir ?? join(home, ".claude"), "settings.json")),
  ]);
  return { policy, local, user };
}

/** Claude Code's memory folder for a project: `autoMemoryDirectory` when set and safe, else `~/.claude/projects/<key>/memory/`. */
export async function claudeMemoryDir(start: string): Promise<string> {
  const projectRoot = await findProjectRoot(start);
  const configDir = envKey("CLAUDE_CONFIG_DIR") ?? null;
  const home = homedir();
  return projectMemoryDir({ homeDir: home, projectRoot, configDir, autoMemoryDirectory: await readAutoMemorySettings(projectRoot, configDir, home) });
}

/**
 * The scopes Claude Code keeps for a project, for `openMemory({ scopes })`, in order of
 * precedence: with `agent`, that subagent's own memory (`local`, `project`, `user` scopes, as
 * Claude Code's agent memory lays them out), then the project's auto memory (`project`:
 * `~/.claude/projects/<key>/memory/` or `autoMemoryDirectory`). Add a `user` scope of your own
 * for memory across projects (Claude Code has none).
 */
export async function claudeCodeScopes(options: { projectRoot: string; agent?: string }): Promise<ScopeOptions[]> {
  const projectRoot = await findProjectRoot(options.projectRoot);
  const home = homedir();
  const configDir = envKey("CLAUDE_CONFIG_DIR") ?? null;
  const scopes: ScopeOptions[] = [];
  if (options.agent !== undefined) {
    for (const scope of ["local", "project", "user"] as const) {
      scopes.push({ name: `agent-${scope}`, dir: agentMemoryDir({ scope, agentType: options.agent, homeDir: home, projectRoot, configDir }) });
    }
  }
  scopes.push({ name: "project", dir: await claudeMemoryDir(projectRoot) });
  return scopes;
}
