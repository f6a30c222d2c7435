/**
 * `memdir mcp`: serves a memory folder to MCP clients (Claude Desktop, Claude Code, Cursor,
 * Zed, …) over stdio, until the client disconnects. stdout carries the protocol only; what
 * memdir has to say goes to stderr.
 *
 * Exit status: 0 when the client disconnects (stdin ends) or on SIGTERM/SIGINT, at once: a
 * recall's model call in flight is aborted; 2 bad arguments; 3 the memory directory is a file,
 * or a folder above it is, or it cannot be read; 4 `@modelcontextprotocol/sdk` is missing (or
 * unusable).
 */
import { readFile, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { openMemory, type SelectorConfig } from "../entry/node.js";
import { defaultSelector } from "../core.js";
import { loadSdk, SDK_INSTALL, SDK_PACKAGE, SdkUnavailable, type Importer } from "./sdk.js";
import { createMemdirMcpServer } from "./server.js";
import { DEFAULT_LIMITS, SELECTOR_DEFAULTS } from "../generated/defaults.js";

/** The exit status when the SDK cannot be loaded. */
export const EXIT_NO_SDK = 4;

const HELP = `memdir mcp — serve a memory folder to MCP clients (Claude Desktop, Claude Code, Cursor, Zed, …) over stdio

Usage:
  memdir mcp [--dir <path> | --project <path>] [options]

Tools: recall, remember, forget, doctor, and memory_view, memory_create, memory_str_replace,
memory_insert, memory_delete, memory_rename (Anthropic's memory tool, one tool a command).
Resources: memdir://index (MEMORY.md as the model sees it) and memdir://memory/<file>.

Options:
  --dir <path>        the memory directory
  --project <path>    the project whose memory to serve, in Claude Code's folder for it
                      (default: the current directory)
  --provider <name>   how recall chooses: anthropic | openai | ollama | lexical (default:
                      anthropic when ANTHROPIC_API_KEY is set, openai when only OPENAI_API_KEY
                      is, else lexical: no model call)
  --model <id>        the side-query model
  --base-url <url>    the provider's base URL (OpenAI-compatible servers, Ollama, a proxy)
  --timeout <ms>      deadline of the side query (default ${SELECTOR_DEFAULTS.timeoutMs})
  --no-fallback       when the model call fails, choose nothing (default: the lexical
                      selector chooses instead)
  --max-files <n>     topic files considered (default ${DEFAULT_LIMITS.maxFiles})
  --read-only         serve only recall, memory_view and doctor (without fixes)
  --no-index          leave MEMORY.md out of the server's instructions (for a client that
                      loads it already, as Claude Code's auto memory does)
  -h, --help          this help

Needs ${SDK_PACKAGE}: ${SDK_INSTALL}
Exit status: 0 when the client disconnects; 2 bad arguments; 3 the memory directory is a
file (or a folder above it is); ${EXIT_NO_SDK} ${SDK_PACKAGE} is missing.`;

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
export async function mcp(argv: string[], load?: Importer): Promise<number> {
  let o;
  let given: string[];
  try {
    const parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      tokens: true,
      options: {
        dir: { type: "string" },
        project: { type: "string" },
        provider: { type: "string" },
        model: { type: "string" },
        "base-url": { type: "string" },
        timeout: { type: "string" },
        "no-fallback": { type: "boolean" },
        "max-files": { type: "string" },
        "read-only": { type: "boolean" },
        "no-index": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
    o = parsed.values;
    given = parsed.tokens.flatMap((t) => (t.kind === "option" ? [t.name] : []));
  } catch (error) {
    say(`${(error as Error).message}; see memdir mcp --help`);
    return 2;
  }
  if (o.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const usage = (message: string) => (say(message), 2);
  // as the CLI's parser has it: the last of two --dir is not silently the one served
  const twice = given.find((name, i) => given.indexOf(name) !== i);
  if (twice !== undefined) return usage(`--${twice} is given twice`);
  if (o.dir !== undefined && o.project !== undefined) return usage("give --dir or --project, not both");
  // as the CLI's parser has it: an empty path is not the current directory
  if (o.dir === "") return usage("--dir needs a path");
  if (o.project === "") return usage("--project needs a path");
  const env = process.env;
  const provider = o.provider ?? defaultSelector({ anthropicKey: Boolean(env.ANTHROPIC_API_KEY), openaiKey: Boolean(env.OPENAI_API_KEY) }).provider;
  if (!["anthropic", "openai", "ollama", "lexical"].includes(provider)) return usage(`unknown provider "${provider}" (anthropic, openai, ollama or lexical)`);
  const apiKey = provider === "anthropic" ? env.ANTHROPIC_API_KEY : provider === "openai" ? env.OPENAI_API_KEY : undefined;
  if (provider === "anthropic" && !apiKey) return usage("--provider anthropic needs ANTHROPIC_API_KEY");
  if (provider === "openai" && !apiKey && !o["base-url"]) return usage("--provider openai needs OPENAI_API_KEY (or --base-url for a local server)");
  const timeoutMs = o.timeout === undefined ? undefined : Number(o.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) return usage(`--timeout takes a positive whole number of milliseconds, not "${o.timeout}"`);
  const maxFiles = o["max-files"] === undefined ? undefined : Number(o["max-files"]);
  if (maxFiles !== undefined && !(Number.isInteger(maxFiles) && maxFiles > 0)) return usage(`--max-files takes a positive whole number, not "${o["max-files"]}"`);

  let sdk;
  try {
    sdk = await loadSdk(load);
  } catch (error) {
    if (!(error instanceof SdkUnavailable)) throw error;
    process.stderr.write(`${error.message}\n`);
    return EXIT_NO_SDK;
  }

  const selector: SelectorConfig = { provider: provider as SelectorConfig["provider"] };
  if (apiKey) selector.apiKey = apiKey;
  if (o.model) selector.model = o.model;
  if (o["base-url"]) selector.baseUrl = o["base-url"];
  if (timeoutMs) selector.timeoutMs = timeoutMs;
  if (provider !== "lexical" && !o["no-fallback"]) selector.fallback = true;
  const limits = maxFiles === undefined ? {} : { maxFiles };
  const memory = await openMemory(o.dir !== undefined ? { dir: resolve(o.dir), selector, limits } : { projectRoot: resolve(o.project ?? "."), selector, limits });
  const root = memory.host.root;
  // a missing folder is fine (the first write makes it); a file in its place, or above it, is not
  const problem = await folderProblem(root);
  if (problem) {
    memory.close();
    say(problem);
    return 3;
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
  say(`serving ${root} (recall: ${provider}${o["read-only"] ? ", read-only" : ""})`);
  await closed;
  memory.close();
  // the client is gone: nothing is left to answer. Whatever still holds the event loop (a
  // write finishing, a socket a fetch left open) gets a moment, then the process ends.
  setTimeout(() => process.exit(process.exitCode ?? 0), EXIT_GRACE_MS).unref();
  return 0;
}
