/**
 * What a command is: its help, the options it takes beyond the global ones, how many
 * positional arguments, and `run` (loaded lazily, so `--help` and `--version` never load the
 * WebAssembly core). The table itself is in `commands.ts`.
 */
import type { OptionName, OptionValues } from "./args.js";
import type { Output } from "./output.js";

/** What `run` receives. */
export interface CommandContext {
  command: string;
  values: OptionValues;
  positionals: string[];
  out: Output;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** One line, for `memdir --help`. */
  summary: string;
  /** The arguments shown after the name in `memdir --help`, e.g. `"<query>"`. */
  args?: string;
  /** The synopsis, e.g. `memdir recall "<query>" [options]`. */
  usage: string;
  /** More lines for `memdir <command> --help`. */
  details?: string;
  /** Options beyond the global ones (`--dir`, `--project`, `--json`, `--verbose`, `--help`). */
  options: readonly OptionName[];
  /** Global options this command does not take (`mcp`: no `--json`, its stdout is the protocol). */
  globalsLeftOut?: readonly OptionName[];
  /** Its own exit statuses, in place of the general ones in `--help`. */
  exitStatus?: string;
  /** Checks the positional arguments: throws a `UsageError` with an example when they are wrong. */
  positionals?: (args: string[]) => void;
  /** Runs the command; resolves with the exit status. */
  run: (ctx: CommandContext) => Promise<number>;
  /** A command that runs until its client goes (`memdir mcp`): V8's own tiering suits it. */
  longRunning?: boolean;
}

/** Options every command takes. */
export const GLOBAL_OPTIONS: readonly OptionName[] = ["dir", "layout", "project", "scopes", "scope", "agent", "json", "verbose", "help"];

/** The global options `command` takes. */
export function globalsOf(command: Command): OptionName[] {
  return GLOBAL_OPTIONS.filter((o) => !command.globalsLeftOut?.includes(o));
}
