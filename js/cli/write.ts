/** `memdir remember` and `memdir forget`: a memory written or removed, with its MEMORY.md line. */
import { isAbsolute, relative, sep } from "node:path";
import { defaultLimits, MemdirError, type WriteResult } from "../entry/node.js";
import { UsageError } from "./args.js";
import type { CommandContext } from "./command.js";
import { CliFailure, openFromArgs, scopesOf } from "./memory.js";
import type { OpenedMemory } from "../entry/node.js";

/** How long `remember` waits on a silent stdin before saying what it is waiting for. */
const STDIN_HINT_MS = 2000;

/**
 * The body from stdin: refused on a terminal (nobody is typing it), said out loud when stdin
 * stays silent, and held to the largest file memdir writes, so `yes | memdir remember` ends.
 */
async function readBody(ctx: CommandContext): Promise<string> {
  const usage = "remember needs the memory's body: --body <text>, or the body piped on stdin";
  if (process.stdin.isTTY) throw new UsageError(usage, "remember");
  const maxBytes = defaultLimits().maxFileBytes;
  const hint = setTimeout(() => ctx.out.note("waiting for the memory's body on stdin (end it with Ctrl-D, or pass --body)"), STDIN_HINT_MS);
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of process.stdin) {
      chunks.push(chunk as Buffer);
      bytes += (chunk as Buffer).length;
      if (bytes > maxBytes) throw new CliFailure(1, `remember refused: the body on stdin is over ${maxBytes.toLocaleString("en")} bytes, the largest file memdir writes`);
    }
  } catch (error) {
    if (error instanceof CliFailure) throw error;
    throw new UsageError(`${usage} (stdin could not be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, "remember");
  } finally {
    clearTimeout(hint);
    if (bytes > maxBytes) process.stdin.destroy();
  }
  const body = Buffer.concat(chunks).toString("utf8");
  if (body.trim() === "") throw new UsageError(`${usage} (stdin was empty)`, "remember");
  return body;
}

async function write(ctx: CommandContext, action: () => Promise<WriteResult>): Promise<number> {
  const { out } = ctx;
  try {
    const done = await action();
    out.result(done, () =>
      done.action === "forgotten" ? `forgot ${done.file}` : done.action === "touched" ? `touched ${done.file}: confirmed true now (its metadata.modified)` : `${done.action} ${done.absolutePath}${"scope" in done ? ` (scope ${String(done.scope)})` : ""}\nindex: ${done.indexLine}`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof MemdirError)) throw error;
    if (out.json) out.result({ error: { code: error.code, message: error.message } }, () => "");
    if (error.code === "NOT_A_DIRECTORY") throw new CliFailure(3, `no memory directory: ${error.message}`);
    // the library's advice, in the CLI's words: `pass file: "x.md"` is `--file x.md` here
    const message = error.message.replace(/\bpass file: "([^"]+)"/, "memdir remember --file $1 …");
    throw new CliFailure(1, `${ctx.command} refused (${error.code}): ${message}`);
  }
}

export async function remember(ctx: CommandContext): Promise<number> {
  const o = ctx.values;
  for (const k of ["type", "name", "description"] as const) if (!o[k]) throw new UsageError(`remember needs --${k}: memdir remember --type feedback --name "Testing" --description "Integration tests hit a real database"`, "remember");
  const memory = await openFromArgs(ctx);
  // the older memory's file as a shell completes it is taken inside the directory, as forget's
  const supersedes = o.supersedes ? relativeToRoot(rootOf(memory, o.scope), o.supersedes, "remember --supersedes") : undefined;
  const body = o.body ?? (await readBody(ctx));
  // with --scopes, the core chooses the scope (--scope, else by type); the result names it
  return write(ctx, () => memory.remember({ type: o.type!, name: o.name!, description: o.description!, body, ...(o.scope ? { scope: o.scope } : {}), ...(o.file ? { file: o.file } : {}), ...(supersedes ? { supersedes } : {}), ...(o["if-match"] ? { ifMatch: o["if-match"] } : {}) } as Parameters<OpenedMemory["remember"]>[0]));
}

/**
 * The file to forget, relative to the memory directory: a path a shell completed
 * (`~/.claude/projects/…/memory/feedback_x.md`) is taken when it lies inside the directory.
 */
function relativeToRoot(root: string, file: string, command = "forget"): string {
  if (!isAbsolute(file)) return file;
  const inside = relative(root, file);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
    throw new CliFailure(1, `${command} takes a file of the memory directory ${root}, relative to it (e.g. feedback_testing.md); ${file} is ${inside === "" ? "the directory itself" : "outside it"}`);
  }
  return inside.split(sep).join("/");
}

/** The folder a file is relative to: `--scope`'s with several scopes, else the memory's. */
function rootOf(memory: OpenedMemory, scope: string | undefined): string {
  const scopes = scopesOf(memory);
  return (scope !== undefined ? scopes?.find((s) => s.name === scope)?.memory.host.root : undefined) ?? memory.host.root;
}

/** `{ file, scope?, ifMatch? }` for forget and touch. */
function target(ctx: CommandContext, memory: OpenedMemory, command: string): { file: string; scope?: string; ifMatch?: string } {
  const scope = ctx.values.scope;
  const file = relativeToRoot(rootOf(memory, scope), ctx.positionals[0]!, command);
  return { file, ...(scope !== undefined ? { scope } : {}), ...(ctx.values["if-match"] ? { ifMatch: ctx.values["if-match"] } : {}) };
}

export async function forget(ctx: CommandContext): Promise<number> {
  const memory = await openFromArgs(ctx);
  return write(ctx, () => memory.forget(target(ctx, memory, "forget")));
}

/** `memdir touch <file>`: the memory confirmed true now (rules §4.7). */
export async function touch(ctx: CommandContext): Promise<number> {
  const memory = await openFromArgs(ctx);
  return write(ctx, () => memory.touch(target(ctx, memory, "touch")));
}
