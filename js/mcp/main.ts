/**
 * `memdir mcp`: serves a memory folder to MCP clients (Claude Desktop, Claude Code, Cursor,
 * Zed, …) over stdio, until the client disconnects. stdout carries the protocol only; what
 * memdir has to say goes to stderr.
 *
 * Exit status: 0 when the client disconnects (stdin ends) or on SIGTERM/SIGINT, at once: a
 * recall's model call in flight is aborted; 2 bad arguments; 3 the memory directory is a file,
 * or a folder above it is, or it cannot be read; 4 `@modelcontextprotocol/sdk` is missing (or
 * unusable).
 *
 * Its options are the CLI's (`js/cli/args.ts`), read by the CLI's parser and checked by the
 * CLI's own code (`chooseSelector`, `openFromArgs`): one name, one check and one default each.
 */
import { readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { CommandContext } from "../cli/command.js";
import { CliFailure } from "../cli/failure.js";
import { limitsFromArgs, openFromArgs } from "../cli/memory.js";
import { chooseSelector } from "../cli/selector.js";
import { loadSdk, SdkUnavailable, type Importer } from "./sdk.js";
import { createMemdirMcpServer } from "./server.js";

/** The exit status when the SDK cannot be loaded. */
export const EXIT_NO_SDK = 4;

function say(message: string): void {
  process.stderr.write(`memdir mcp: ${message}\n`);
}

/**
 * Why `root` cannot be the memory directory, in the CLI's words, or null: a folder, or a missing
 * one (the first write makes it). A file there, or above it (no write can make it then), or a
 * path that cannot be read is exit 3, as the other commands have it.
 */
async function folderProblem(root: string): Promise<string | null> {
  let code: string;
  try {
    return (await stat(root)).isDirectory() ? null : `${root} is a file, not a memory directory`;
  } catch (error) {
    code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
  if (code === "ENOENT") return null;
  if (code === "ENOTDIR") {
    for (let dir = dirname(root); dir !== dirname(dir); dir = dirname(dir)) {
      const s = await stat(dir).catch(() => null);
      if (s && !s.isDirectory()) return `no memory directory at ${root}: ${dir} is a file, not a folder`;
    }
    return `no memory directory at ${root}: a folder above it is a file`;
  }
  return `the memory directory ${root} is unreadable (${code})`;
}

/** After the server closed, the process ends within this even if something still holds it. */
const EXIT_GRACE_MS = 1_000;

async function version(): Promise<string> {
  try {
    return (JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/** Runs the server until the client disconnects; resolves with the exit status. */
export async function run(ctx: CommandContext, load?: Importer): Promise<number> {
  const o = ctx.values;
  // the checks that can refuse (exit 2) come before the SDK is loaded
  const { config: selector } = chooseSelector(ctx);
  const limits = limitsFromArgs(ctx);
  let sdk;
  try {
    sdk = await loadSdk(load);
  } catch (error) {
    if (!(error instanceof SdkUnavailable)) throw error;
    process.stderr.write(`${error.message}\n`);
    return EXIT_NO_SDK;
  }
  // a server lives long: the cache watches the folder (a command's one turn does not)
  const memory = await openFromArgs(ctx, selector, { watch: true, label: "mcp" });
  const root = memory.dir;
  // a missing folder is fine (the first write makes it); a file in its place, or above it, is not
  const problem = await folderProblem(root);
  if (problem) {
    memory.close();
    throw new CliFailure(3, problem);
  }

  const server = await createMemdirMcpServer(sdk, { memory, selector, limits, readOnly: Boolean(o["read-only"]), indexInInstructions: !o["no-index"], version: await version() });
  const closed = new Promise<void>((done) => {
    server.onclose = done;
  });
  server.onerror = (error) => say(`protocol error: ${error.message}`);
  // closing aborts every call in flight (the SDK aborts each handler's signal): a recall's
  // model call stops at once instead of keeping the process until its deadline
  const stop = () => void server.close().catch(() => {});
  process.stdin.once("end", stop);
  process.stdin.once("close", stop);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  await server.connect(new sdk.StdioServerTransport());
  say(`serving ${root} (recall: ${selector.provider}${selector.fallback ? ", lexical fallback" : ""}${o["read-only"] ? ", read-only" : ""})`);
  await closed;
  memory.close();
  // the client is gone: nothing is left to answer. Whatever still holds the event loop (a
  // write finishing, a socket a fetch left open) gets a moment, then the process ends.
  setTimeout(() => process.exit(process.exitCode ?? 0), EXIT_GRACE_MS).unref();
  return 0;
}
