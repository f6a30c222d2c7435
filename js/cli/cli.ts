/**
 * The `memdir` command: where a project's memory is, its index, its files, and a recall —
 * the exact blocks an agent would inject this turn, with tokens and cost.
 *
 * Exit status: 0 success; 1 a recall or provider failure, a refused write, or doctor errors that
 * remain; 2 bad arguments; 3 no memory directory (missing, or a file where it should be).
 * `runCli` resolves with the status (`main.ts`, the process, sets `process.exitCode` from it).
 *
 * The pieces: `args.ts` reads the command line, `commands.ts` is the command table,
 * `help.ts` the help, `output.ts` where things are written; one file per command group.
 */
import { nearest, OPTIONS, parseArgv, UsageError, type OptionName } from "./args.js";
import { globalsOf } from "./command.js";
import { COMMANDS } from "./commands.js";
import { commandHelp, generalHelp, version } from "./help.js";
import { CliFailure } from "./failure.js";
import { Output, visibleControls, type CliStreams } from "./output.js";

const optionsOf = (command: string | undefined): readonly OptionName[] => {
  const c = command === undefined ? undefined : COMMANDS[command];
  return c ? [...c.options, ...globalsOf(c), "version"] : (Object.keys(OPTIONS) as OptionName[]);
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

async function main(argv: string[], env: NodeJS.ProcessEnv, streams: CliStreams, early: Early): Promise<number> {
  early.command = argv.find((a) => Object.hasOwn(COMMANDS, a)); // for "see memdir <command> --help", should parsing fail
  const args = parseArgv(argv, optionsOf);
  const { values, positionals } = args;
  const out = new Output({ json: Boolean(values.json), verbose: Boolean(values.verbose) || debugEnv(env.MEMDIR_DEBUG), secrets: [env.ANTHROPIC_API_KEY ?? "", env.OPENAI_API_KEY ?? ""], streams });
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
    out.err(`memdir: a command is required\n\n${generalHelp()}\n`);
    return 2;
  }
  const spec = COMMANDS[command]!;
  for (const name of args.given) {
    if (optionsOf(command).includes(name)) continue;
    const owners = Object.entries(COMMANDS).filter(([, c]) => c.options.includes(name)).map(([n]) => n);
    throw new UsageError(`--${name} is not an option of ${command}${owners.length ? ` (it is one of ${owners.join(", ")})` : ""}`, command);
  }
  spec.positionals?.(positionals);
  return spec.run({ command, values, positionals, out, env });
}

/**
 * Runs the `memdir` command line in this process: the arguments after `memdir`, the environment
 * it reads keys and MEMDIR_DEBUG from, and where it writes (default: the process's stdout and
 * stderr); resolves with the exit status. `main.ts` is the process around it; tests call this.
 */
export async function runCli(argv: string[], env: NodeJS.ProcessEnv = process.env, streams: CliStreams = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const early: Early = { verbose: debugEnv(env.MEMDIR_DEBUG), command: undefined };
  const stderr = streams.stderr;
  try {
    return await main(argv, env, streams, early);
  } catch (error: unknown) {
    const say = (line: string) => stderr.write(stderr.isTTY ? `memdir: ${visibleControls(line)}\n` : `memdir: ${line}\n`);
    if (error instanceof UsageError) {
      say(error.message);
      const command = error.command !== undefined && Object.hasOwn(COMMANDS, error.command) ? error.command : early.command;
      say(`see memdir ${command ? `${command} ` : ""}--help`);
      return 2;
    } else if (error instanceof CliFailure) {
      say(error.message);
      return error.exitCode;
    } else if (error instanceof Error && error.name === "MemdirError") {
      say(`${(error as Error & { code: string }).code}: ${error.message}`);
      if (early.verbose && error.stack) stderr.write(`${error.stack}\n`);
      return 1;
    } else {
      say(`internal error: ${(error as Error)?.message ?? String(error)} (a bug: please report it)`);
      if (error instanceof Error && error.stack) stderr.write(`${early.verbose ? error.stack : "run with --verbose for the stack trace"}\n`);
      return 1;
    }
  }
}
