#!/usr/bin/env node
/**
 * The `memdir` command: where a project's memory is, its index, its files, and a recall —
 * the exact blocks an agent would inject this turn, with tokens and cost.
 *
 * Exit status: 0 success; 1 a recall or provider failure, a refused write, or doctor errors that
 * remain; 2 bad arguments; 3 no memory directory (missing, or a file where it should be).
 * The status is set with `process.exitCode`, never `process.exit`: output piped to a slow
 * reader arrives whole.
 *
 * The pieces: `args.ts` reads the command line, `commands.ts` is the command table,
 * `help.ts` the help, `output.ts` where things are written; one file per command group.
 */
import { nearest, OPTIONS, parseArgv, UsageError, type OptionName } from "./args.js";
import { GLOBAL_OPTIONS } from "./command.js";
import { COMMANDS } from "./commands.js";
import { commandHelp, generalHelp, version } from "./help.js";
import { setFlagsFromString } from "node:v8";
import { CliFailure } from "./failure.js";
import { Output, visibleControls } from "./output.js";

const optionsOf = (command: string | undefined): readonly OptionName[] => {
  const c = command === undefined ? undefined : COMMANDS[command];
  return c ? [...c.options, ...GLOBAL_OPTIONS, "version"] : (Object.keys(OPTIONS) as OptionName[]);
};

function unknownCommand(name: string): UsageError {
  const near = nearest(name, Object.keys(COMMANDS));
  return new UsageError(`unknown command "${name}"; ${near ? `did you mean ${near}?` : "see memdir --help"}`);
}

const debugEnv = (value: string | undefined): boolean => value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";

/** What the error handler needs to know once the arguments are read. */
interface Early {
  verbose: boolean;
  command: string | undefined;
}

async function main(argv: string[], early: Early): Promise<number> {
  // A command runs once and exits. V8 compiles the hot WebAssembly functions again with its
  // optimising compiler, in the background, and Node waits for those jobs before it exits
  // (40–100 ms measured, longer than the command's work); they would never run. The largest
  // tiering budget the flag takes leaves a short process on the baseline code (100,000,000 was
  // not enough: a hot helper such as memcmp, called millions of times on 200 files, spent it).
  // Lazy validation: a function body is validated when first compiled, not all ~800 KB when the
  // module is (~2 ms of every command's start; a command calls a small part of the core).
  // Set before the core is loaded (each command imports it when it runs).
  // A server (mcp) runs long: V8's own tiering suits it.
  early.command = argv.find((a) => Object.hasOwn(COMMANDS, a)); // for "see memdir <command> --help", should parsing fail
  if (!(early.command !== undefined && COMMANDS[early.command]!.longRunning)) {
    setFlagsFromString("--wasm-tiering-budget=2147483647");
    setFlagsFromString("--wasm-lazy-validation");
  }
  const args = parseArgv(argv, optionsOf);
  const { values, positionals } = args;
  const out = new Output({ json: Boolean(values.json), verbose: Boolean(values.verbose) || debugEnv(process.env.MEMDIR_DEBUG), secrets: [process.env.ANTHROPIC_API_KEY ?? "", process.env.OPENAI_API_KEY ?? ""] });
  early.verbose = out.verbose;
  const command = args.command;
  if (values.version) {
    out.write(`memdir ${version()}\n`);
    return 0;
  }
  if (command === "help") {
    const topic = positionals[0];
    if (topic !== undefined && !(topic in COMMANDS)) throw unknownCommand(topic);
    out.write(`${topic === undefined ? generalHelp() : commandHelp(topic)}\n`);
    return 0;
  }
  if (command !== undefined && !Object.hasOwn(COMMANDS, command)) throw unknownCommand(command);
  if (values.help) {
    out.write(`${command === undefined ? generalHelp() : commandHelp(command)}\n`);
    return 0;
  }
  if (command === undefined) {
    process.stderr.write(`memdir: a command is required\n\n${generalHelp()}\n`);
    return 2;
  }
  const spec = COMMANDS[command]!;
  for (const name of args.given) {
    if (optionsOf(command).includes(name)) continue;
    const owners = Object.entries(COMMANDS).filter(([, c]) => c.options.includes(name)).map(([n]) => n);
    throw new UsageError(`--${name} is not an option of ${command}${owners.length ? ` (it is one of ${owners.join(", ")})` : ""}`, command);
  }
  spec.positionals?.(positionals);
  return spec.run({ command, values, positionals, out, env: process.env });
}

const early: Early = { verbose: debugEnv(process.env.MEMDIR_DEBUG), command: undefined };
main(process.argv.slice(2), early).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const say = (line: string) => process.stderr.write(process.stderr.isTTY ? `memdir: ${visibleControls(line)}\n` : `memdir: ${line}\n`);
    if (error instanceof UsageError) {
      say(error.message);
      const command = error.command !== undefined && Object.hasOwn(COMMANDS, error.command) ? error.command : early.command;
      say(`see memdir ${command ? `${command} ` : ""}--help`);
      process.exitCode = 2;
    } else if (error instanceof CliFailure) {
      say(error.message);
      process.exitCode = error.exitCode;
    } else if (error instanceof Error && error.name === "MemdirError") {
      say(`${(error as Error & { code: string }).code}: ${error.message}`);
      if (early.verbose && error.stack) process.stderr.write(`${error.stack}\n`);
      process.exitCode = 1;
    } else {
      say(`internal error: ${(error as Error)?.message ?? String(error)} (a bug: please report it)`);
      if (error instanceof Error && error.stack) process.stderr.write(`${early.verbose ? error.stack : "run with --verbose for the stack trace"}\n`);
      process.exitCode = 1;
    }
  },
);
