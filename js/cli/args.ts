/**
 * The command line, read: every option memdir knows, once, and a parser that answers a typo
 * with the nearest name ("unknown option --dri; did you mean --dir?") instead of Node's raw
 * `parseArgs` text. Options may come before or after the command; `--name=value` and `--`
 * work as usual; a value may start with a single dash (`--timeout -1` is the value "-1",
 * refused by its check with a sentence, not a parser riddle).
 */

import { DEFAULT_LIMITS, SELECTOR_DEFAULTS } from "../generated/defaults.js";

/** A problem with the command line: exit status 2, the message on stderr. */
export class UsageError extends Error {
  override name = "UsageError";
  /** The command whose help the message points at, if any. */
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

export interface OptionSpec {
  /** For an option that takes a value: its placeholder in help (`path`, `ms`). */
  value?: string;
  short?: string;
  help: string;
}

/** Every option, by name. Which command takes which is in the command table. */
export const OPTIONS = {
  dir: { value: "path", help: "the memory directory (default: Claude Code's, for --project)" },
  layout: { value: "memdir|sdk", help: "with --dir: sdk when the folder is the base path of the Anthropic SDK's local-filesystem memory tool (its files in <dir>/memories/)" },
  project: { value: "path", help: "the project whose memory to use (default: the current directory)" },
  scopes: { value: "list", help: "several memory folders as one, in order of precedence: name=path,name=path (name:ro=path is read-only), a .json file of [{name, dir, types, readOnly}], or claude (Claude Code's folders for --project)" },
  scope: { value: "name", help: "with --scopes: the scope a write goes to (remember, forget, touch), or the one folder a command works on (doctor, log, undo, …)" },
  agent: { value: "name", help: "with --scopes claude: the subagent whose own memory (agent-local, agent-project, agent-user) comes first" },
  provider: { value: "name", help: "anthropic | openai | ollama | lexical (default: anthropic when ANTHROPIC_API_KEY is set, openai when only OPENAI_API_KEY is, else lexical)" },
  model: { value: "id", help: "the side-query model (default: claude-sonnet-5-5, gpt-4o-mini, qwen3:8b)" },
  "base-url": { value: "url", help: "the provider's base URL (OpenAI-compatible servers, Ollama, a proxy)" },
  timeout: { value: "ms", help: `deadline of the side query, retries included (default ${SELECTOR_DEFAULTS.timeoutMs})` },
  fallback: { help: "when the model cannot be used (it fails, or its key is not set), choose with the lexical selector (default: choose nothing, as Claude Code does)" },
  "max-files": { value: "n", help: `topic files considered, newest first (default ${DEFAULT_LIMITS.maxFiles})` },
  "stale-core-days": { value: "n", help: "user/feedback memories unchanged for more days than this are reported (default 90)" },
  type: { value: "t", help: "user | feedback | project | reference" },
  name: { value: "n", help: "the memory's name (its file name is derived from it)" },
  description: { value: "d", help: "one line: what the memory is about (goes into MEMORY.md)" },
  file: { value: "f", help: "the topic file to write (default: derived from --type and --name)" },
  body: { value: "text", help: "the memory's body (default: read from stdin)" },
  supersedes: { value: "f", help: "the memory this one replaces: kept, marked superseded_by, out of the index and of recall" },
  fix: { help: "show the diff of the safe fixes, then ask before applying them (on a terminal)" },
  yes: { short: "y", help: "apply without asking (doctor --fix, undo, restore; needed where there is no terminal to ask on)" },
  "dry-run": { help: "show the diff, change nothing (doctor --fix, undo, restore)" },
  last: { help: "the newest change not undone yet" },
  "if-match": { value: "sha256", help: "write only if the file is still as read: its SHA-256 from scan --hashes; CHANGED (exit 1) otherwise" },
  hashes: { help: "each memory's SHA-256 (what --if-match takes), from its whole file" },
  at: { value: "time", help: "the time to bring the folder back to: an ISO date or time (2026-12-04T15:30:00Z) or ms since 1970" },
  since: { value: "time", help: "only the changes at or after this time (an ISO date or time, or ms since 1970)" },
  force: { help: "undo, restore: overwrite files changed since (a later edit is otherwise never overwritten: CHANGED); consolidate: ask the model even when no memories look alike" },
  messages: { value: "file", help: "the conversation: a JSON array of {role, content} (or plain text), - for stdin" },
  "max-files-changed": { value: "n", help: "files a consolidation may change, MEMORY.md not counted (default 10)" },
  mode: { value: "mode", help: "off | suggest (show the proposals, write nothing; the default) | confirm (ask for each) | auto (write what passes the rules)" },
  database: { value: "url", help: "a PostgreSQL database holding memories (memdir/postgres): postgres://user@host/db; the password may come from PGPASSWORD" },
  memory: { value: "id", help: "which memory of --database (one per user or tenant)" },
  replace: { help: "a target that holds files becomes the source's copy: its files not in the source are removed (without it, such a target is refused)" },
  "read-only": { help: "serve only recall, memory_view and doctor (without fixes)" },
  "no-index": { help: "leave MEMORY.md out of the server's instructions (for a client that loads it already, as Claude Code's auto memory does)" },
  json: { help: "machine-readable output on stdout" },
  verbose: { help: "print what happens to stderr: the side-query request (keys redacted), the raw answer, the injected blocks (also MEMDIR_DEBUG=1)" },
  help: { short: "h", help: "help (for a command: memdir <command> --help)" },
  version: { help: "the version of memdir" },
} as const satisfies Record<string, OptionSpec>;

/**
 * Names that were options once, and what to write now: one name per setting across the API
 * (`staleCoreDays`), the CLI (`--stale-core-days`) and MCP (`stale_core_days`), and one
 * default for `fallback` everywhere (off).
 */
const RENAMED: Record<string, string> = {
  "stale-days": "--stale-days is now --stale-core-days (the API's staleCoreDays, MCP's stale_core_days)",
  "no-fallback": "--no-fallback is gone: recall never falls back unless --fallback is given (the same default as the API and the CLI)",
};

export type OptionName = keyof typeof OPTIONS;
type ValueOf<K extends OptionName> = (typeof OPTIONS)[K] extends { value: string } ? string : boolean;
/** Parsed option values; absent options are `undefined`. */
export type OptionValues = { -readonly [K in OptionName]?: ValueOf<K> };

export interface ParsedArgs {
  /** The first positional argument. */
  command: string | undefined;
  /** The other positional arguments. */
  positionals: string[];
  values: OptionValues;
  /** Options in the order given (`--dir=x` as `dir`), to check them against the command. */
  given: OptionName[];
}

const takesValue = (name: OptionName): boolean => "value" in OPTIONS[name];
const isOptionName = (name: string): name is OptionName => Object.hasOwn(OPTIONS, name);

/**
 * Reads argv. Throws `UsageError` for an unknown option (with the nearest known one), a
 * missing value, a value given to a flag, or an option given twice.
 * `suggestFrom` narrows the suggestions to the options of the command, when it is known.
 */
export function parseArgv(argv: readonly string[], suggestFrom?: (command: string | undefined) => readonly OptionName[]): ParsedArgs {
  const positionals: string[] = [];
  const values: Record<string, string | boolean> = {};
  const given: OptionName[] = [];
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
    } else if (/^-[A-Za-z]$/.test(arg)) {
      const short = Object.entries(OPTIONS).find(([, spec]) => "short" in spec && spec.short === arg.slice(1));
      if (!short) {
        unknown.push(arg);
        continue;
      }
      name = short[0];
    } else {
      positionals.push(arg); // "-", "-1", words
      continue;
    }
    if (Object.hasOwn(RENAMED, name)) throw new UsageError(RENAMED[name]!);
    if (!isOptionName(name)) {
      unknown.push(inline === undefined ? arg : `--${name}`);
      continue;
    }
    let value: string | boolean;
    if (takesValue(name)) {
      if (inline !== undefined) value = inline;
      else {
        const next = argv[i + 1];
        // a value may start with one dash ("-1", "-"), not two: `--dir --json` forgot the path
        if (next === undefined || next.startsWith("--")) throw new UsageError(`--${name} needs a value: --${name} <${(OPTIONS[name] as OptionSpec).value}>`);
        value = next;
        i++;
      }
    } else {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value (got --${name}=${inline})`);
      value = true;
    }
    if (name in values) throw new UsageError(`--${name} is given twice`);
    values[name] = value;
    given.push(name);
  }
  const command = positionals.shift();
  if (unknown.length > 0 && !values.help && !values.version) {
    const first = unknown[0]!;
    throw new UsageError(`unknown option ${first}${suggestOption(first, (suggestFrom?.(command) ?? []) as readonly string[])}`, command);
  }
  return { command, positionals, values: values as OptionValues, given };
}

/** "; did you mean --dir?" for a mistyped option, the command's options first; "" when nothing is near. */
function suggestOption(typed: string, ofCommand: readonly string[]): string {
  const word = typed.replace(/^-+/, "");
  if (/^-[A-Za-z]$/.test(typed)) {
    // `-v`: the long options it may stand for
    const starting = Object.keys(OPTIONS).filter((o) => o.startsWith(word.toLowerCase()));
    return starting.length > 0 && starting.length <= 3 ? `; did you mean ${starting.map((o) => `--${o}`).join(" or ")}?` : "";
  }
  const near = nearest(word, ofCommand) ?? nearest(word, Object.keys(OPTIONS));
  return near ? `; did you mean --${near}?` : "";
}

/**
 * Edit distance with adjacent transpositions ("dri" → "dir" is one edit), for suggestions.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest candidate: a unique prefix match, else the least edits (at most a third of the word, at least 1). */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  if (w.length === 0) return undefined;
  const prefixed = candidates.filter((c) => c.startsWith(w));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(w.length / 3));
  for (const c of candidates) {
    const distance = editDistance(w, c);
    if (distance < bestDistance || (distance === bestDistance && best === undefined)) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * A whole number from an option, in `[min, max]`: digits only ("1e3", "0x10", " 5", "-1"
 * and "" are refused, which `Number` would take or turn into 0).
 */
export function wholeNumber(name: OptionName, raw: string | undefined, what: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} takes ${what} from ${min} to ${max.toLocaleString("en")}, not ${JSON.stringify(raw)}`);
  return n;
}
