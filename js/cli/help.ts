/** The help texts, built from the command table and the options, so they never drift from what is parsed. */
import { readFileSync } from "node:fs";
import { OPTIONS, type OptionName, type OptionSpec } from "./args.js";
import { GLOBAL_OPTIONS, globalsOf } from "./command.js";
import { COMMANDS } from "./commands.js";

const WIDTH = 100;
const OPTION_COLUMN = 24;
const COMMAND_COLUMN = 30;

/** memdir's version, from its package.json (next to `pkg/`). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
  return pkg.version ?? "unknown";
}

function wrap(text: string, indent: number, first: string): string {
  const lines: string[] = [];
  let line = first.padEnd(indent);
  for (const word of text.split(" ")) {
    if (line.trim().length > 0 && line.length + word.length + 1 > WIDTH && line.length > indent) {
      lines.push(line.trimEnd());
      line = " ".repeat(indent);
    }
    line += line.length === indent || line.endsWith(" ") ? word : ` ${word}`;
  }
  lines.push(line.trimEnd());
  return lines.join("\n");
}

function optionLine(name: OptionName): string {
  const spec: OptionSpec = OPTIONS[name];
  const flag = `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.value ? ` <${spec.value}>` : ""}`;
  const head = `  ${flag}`;
  return head.length >= OPTION_COLUMN - 1 ? `${head}\n${wrap(spec.help, OPTION_COLUMN, "")}` : wrap(spec.help, OPTION_COLUMN, head);
}

const FOOTER = `Keys come from ANTHROPIC_API_KEY and OPENAI_API_KEY; MEMDIR_DEBUG=1 is --verbose.
Exit status: 0 success; 1 a failed recall, a refused write, or doctor errors that remain;
2 bad arguments; 3 no memory directory (missing, or a file where it should be).`;

/** `memdir --help`. */
export function generalHelp(): string {
  const commands = Object.entries(COMMANDS).map(([name, c]) => {
    const head = `  memdir ${name}${c.args ? ` ${c.args}` : ""}`;
    return head.length >= COMMAND_COLUMN - 1 ? `${head}\n${wrap(c.summary, COMMAND_COLUMN, "")}` : wrap(c.summary, COMMAND_COLUMN, head);
  });
  return [
    "memdir — long-term memory for AI agents, in plain Markdown files",
    "",
    "Usage: memdir <command> [options]",
    "",
    "Commands:",
    ...commands,
    wrap("the options of a command (or: memdir <command> --help)", COMMAND_COLUMN, "  memdir help <command>"),
    "",
    'Example: memdir recall "how do we deploy?" --dir ./memory',
    "",
    "Options of every command:",
    ...[...GLOBAL_OPTIONS, "version" as const].map(optionLine),
    "",
    FOOTER,
  ].join("\n");
}

/** `memdir <command> --help`. */
export function commandHelp(name: string): string {
  const c = COMMANDS[name]!;
  return [
    `memdir ${name} — ${c.summary}`,
    "",
    `Usage: ${c.usage}`,
    ...(c.details ? ["", c.details] : []),
    "",
    "Options:",
    ...[...c.options, ...globalsOf(c)].map(optionLine),
    "",
    c.exitStatus ? `${FOOTER.split("\nExit status:")[0]}\nExit status: ${c.exitStatus}` : FOOTER,
  ].join("\n");
}
