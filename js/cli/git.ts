/**
 * Project memory in git (docs/git.md): `memdir merge-index`, the merge driver git runs for
 * `MEMORY.md` (the merge itself is the core's `mergeIndex`), and `memdir git-setup`, which
 * registers it in the repository holding the memory folder.
 */
import { execFile } from "node:child_process";
import { realpathSync } from "node:fs";
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import "../entry/node.js";
import { mergeIndex as mergeIndexText } from "../core.js";
import type { CommandContext } from "./command.js";
import { CliFailure } from "./failure.js";
import { openFromArgs } from "./memory.js";

/** The merge driver's name in `.gitattributes` and `git config`. */
export const DRIVER = "memdir-index";

const utf8 = new TextDecoder("utf-8", { fatal: true });

async function readText(path: string, what: string): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new CliFailure(1, `memdir merge-index: cannot read ${what} (${path}): ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return utf8.decode(bytes);
  } catch {
    // not UTF-8: git's own merge is left to mark the conflict
    throw new CliFailure(1, `memdir merge-index: ${what} (${path}) is not UTF-8; leaving the merge to git`);
  }
}

/** Writes `text` to `path` through a temporary file in its folder and a rename: whole or not at all. */
async function replaceFile(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.memdir-${process.pid}-${Date.now().toString(36)}`);
  try {
    await writeFile(temp, text, { flag: "wx" });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * `memdir merge-index <base> <ours> <theirs> [<path>]` (git: `%O %A %B %P`): the three-way merge
 * of MEMORY.md written over `ours`, exit 0. Both sides' edits of one entry are both kept, on
 * adjacent lines, and said on stderr (`memdir doctor --fix` joins them).
 */
export async function mergeIndex(ctx: CommandContext): Promise<number> {
  const [basePath, oursPath, theirsPath, shown] = ctx.positionals as [string, string, string, string?];
  const [base, ours, theirs] = await Promise.all([readText(basePath, "the base"), readText(oursPath, "ours"), readText(theirsPath, "theirs")]);
  const merged = mergeIndexText(base, ours, theirs);
  await replaceFile(oursPath, merged.text);
  const name = shown ?? "MEMORY.md";
  for (const link of merged.bothEdited) {
    ctx.out.note(`${name}: both sides edited the entry for ${link}; both lines are kept, one under the other (memdir doctor --fix joins them, keeping every word)`);
  }
  if (ctx.out.json) ctx.out.result({ path: name, bothEdited: merged.bothEdited }, () => "");
  return 0;
}

function git(args: string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile("git", args, { cwd, encoding: "utf8", maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr }));
      else resolvePromise(stdout);
    });
  });
}

/** Appends each of `lines` that `file` does not have yet (its other lines, and its newline, kept); returns those added. */
async function addLines(file: string, lines: string[]): Promise<string[]> {
  const before = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  const have = new Set(before.split(/\r?\n/).map((l) => l.trim()));
  const added = lines.filter((l) => !have.has(l));
  if (added.length === 0) return [];
  const newline = before.includes("\r\n") ? "\r\n" : "\n";
  const joined = before === "" || before.endsWith("\n") ? before : `${before}${newline}`;
  await replaceFile(file, `${joined}${added.map((l) => `${l}${newline}`).join("")}`);
  return added;
}

/** The nearest folder at or above `dir` that exists (the memory folder may not yet). */
async function existingFolder(dir: string): Promise<string> {
  for (let at = dir; ; at = dirname(at)) {
    if (await stat(at).then((s) => s.isDirectory(), () => false)) return at;
    if (dirname(at) === at) return at;
  }
}

/** A path for a shell command line (git runs the driver through `sh`): single-quoted. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A `.gitattributes` pattern for `path` (relative to the repository's top, `/`-separated). */
function attributePattern(path: string): string {
  const anchored = path.includes("/") ? path : `/${path}`;
  // a pattern with white space, quotes or backslashes is written C-quoted, as git reads it
  return /[\s"\\]/.test(anchored) ? `"${anchored.replace(/["\\]/g, (c) => `\\${c}`)}"` : anchored;
}

/** This CLI's own script: `pkg/cli/main.js`, the bin of an installed memdir. */
function cliScript(): string {
  const argv1 = process.argv[1];
  if (argv1) {
    try {
      const real = realpathSync(argv1);
      if (basename(real) === "main.js") return real;
    } catch {
      // not a file: the script next to this chunk below
    }
  }
  return fileURLToPath(new URL("./main.js", import.meta.url));
}

/**
 * `memdir git-setup [--dir <memory folder>]`: in the repository holding the memory folder, a
 * `.gitattributes` line `<folder>/MEMORY.md merge=memdir-index` (once; every other line kept) and
 * the driver in the repository's config: the absolute paths of this node and this CLI, so a merge
 * never depends on PATH (an editor's git has another) nor on the network (`npx` may fetch).
 */
export async function gitSetup(ctx: CommandContext): Promise<number> {
  const memory = await openFromArgs(ctx, undefined, { oneFolder: true });
  const folder = resolve(memory.host.root);
  const from = await existingFolder(folder);
  let top: string;
  try {
    top = (await git(["rev-parse", "--show-toplevel"], from)).trim();
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "git is not installed (or not on PATH)" : `${folder} is not inside a git work tree`;
    throw new CliFailure(1, `memdir git-setup: ${why}; give --dir the memory folder inside your repository`);
  }
  const realTop = realpathSync(top);
  const realFolder = join(realpathSync(from), relative(from, folder));
  const rel = relative(realTop, realFolder);
  if (rel.startsWith("..") || resolve(realTop, rel) !== realFolder) throw new CliFailure(1, `memdir git-setup: ${folder} is not inside ${top}`);
  const indexPath = [...rel.split(sep).filter(Boolean), "MEMORY.md"].join("/");
  const line = `${attributePattern(indexPath)} merge=${DRIVER}`;

  const present = !(await addLines(join(realTop, ".gitattributes"), [line])).length;
  // the history, the write lock and consolidation's state are this machine's: another clone's
  // mean nothing here, and a journal both sides appended to would conflict at every merge
  const folderPattern = `/${[...rel.split(sep).filter(Boolean)].map((p) => `${p}/`).join("")}`;
  const ignored = await addLines(join(realTop, ".gitignore"), [`${folderPattern}.memdir/`, `${folderPattern}.memdir.lock*`]);
  const command = `${shellQuote(process.execPath)} ${shellQuote(cliScript())} merge-index %O %A %B %P`;
  await git(["config", `merge.${DRIVER}.name`, "memdir: MEMORY.md keeps every entry of both sides"], realTop);
  await git(["config", `merge.${DRIVER}.driver`, command], realTop);
  const summary = { repository: realTop, attributes: line, added: !present, ignored, driver: command };
  ctx.out.result(summary, () =>
    [
      present ? `.gitattributes already has: ${line}` : `.gitattributes: added ${line} (commit it: every clone then merges MEMORY.md this way)`,
      ...(ignored.length ? [`.gitignore: added ${ignored.join(" ")} (memdir's history and lock are this machine's)`] : []),
      `git config merge.${DRIVER}.driver ${command}`,
      "Run memdir git-setup in each clone: git does not copy a repository's config.",
    ].join("\n"),
  );
  return 0;
}
