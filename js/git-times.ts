/**
 * Ages from git (rules §1.3), for the Node host. In a git checkout every file's mtime is the
 * time it was checked out, so a memory written a month ago looks new. Where the memory folder is
 * inside a git work tree, a file whose content equals HEAD's is given, as the time the core sees
 * in place of its mtime, the commit time of the last commit that changed it; a file that differs
 * from HEAD (edited, staged, untracked) keeps its mtime. The core's rule is unchanged: a memory's
 * time is the older of that time and `metadata.modified`.
 *
 * Cost: one `git log --name-only` for the whole folder when HEAD moves, one `git status` for the
 * folder when HEAD, the index or a file of the listing changes; otherwise `.git/HEAD` is read and
 * three files stat'ed at most once a second (every turn, that was +60% on a 200-memory recall:
 * `npm run bench`, "recall a turn in a git work tree"). A file's own change is seen at once (the
 * listing); a commit or a checkout of HEAD alone, within a second. Never a spawn a file, never one
 * on a turn when nothing changed. No `.git` above the folder, no git on PATH, or a git that fails: mtimes, as without.
 */
import { execFile } from "node:child_process";
import { readFile, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { HostTimes, TimedListing, TimesOverlay } from "./host.js";

const KIND_FILE = 0;
/** HEAD and the index are looked at again after this long (ages are days; a second is nothing to them). */
const STAMPS_REUSE_MS = 1000;
/** git's output is bounded: a folder's history of names, not file contents. */
const MAX_OUTPUT_BYTES = 64 << 20;

interface Repo {
  top: string;
  gitDir: string;
  commonDir: string;
  /** The memory folder from the top of the work tree, `/`-separated, `""` at the top. */
  folder: string;
}

function run(args: string[], cwd: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile("git", args, { cwd, encoding: "utf8", maxBuffer: MAX_OUTPUT_BYTES, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } }, (error, stdout) => {
      if (error) reject(error);
      else resolvePromise(stdout);
    });
  });
}

/** Whether a `.git` is at or above `dir`: without one, git is never spawned. */
async function insideRepo(dir: string): Promise<boolean> {
  for (let at = dir; ; at = dirname(at)) {
    if (await stat(join(at, ".git")).then(() => true, () => false)) return true;
    if (dirname(at) === at) return false;
  }
}

async function findRepo(root: string): Promise<Repo | null> {
  if (!(await insideRepo(root))) return null;
  const out = await run(["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"], root);
  const [top, gitDir, common] = out.split("\n");
  if (!top || !gitDir || !common) return null;
  const realTop = await realpath(top);
  const folder = relative(realTop, await realpath(root));
  if (folder.startsWith("..") || isAbsolute(folder)) return null;
  return { top: realTop, gitDir, commonDir: resolve(root, common), folder: folder.split(sep).filter(Boolean).join("/") };
}

const statKey = (path: string) =>
  stat(path).then(
    (s) => `${s.size}:${s.mtimeMs}:${s.ino}`,
    () => "-",
  );

/** HEAD's commit as the files say it (what it points to, and that ref's file), and the index's. */
async function stamps(repo: Repo): Promise<{ head: string; index: string }> {
  const head = (await readFile(join(repo.gitDir, "HEAD"), "utf8").catch(() => "")).trim();
  const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
  const [refKey, packed, index] = await Promise.all([
    ref ? statKey(join(repo.commonDir, ...ref.split("/"))) : "",
    statKey(join(repo.commonDir, "packed-refs")),
    statKey(join(repo.gitDir, "index")),
  ]);
  return { head: `${head}|${refKey}|${packed}`, index };
}

/** `git log -z --name-only` with `%x01%ct` commits: each file's newest commit time, folder-relative. */
export function parseLog(out: string, folder: string): Map<string, number> {
  const times = new Map<string, number>();
  const prefix = folder ? `${folder}/` : "";
  for (const commit of out.split("\x01")) {
    const nul = commit.indexOf("\0");
    if (nul < 0) continue;
    const seconds = Number(commit.slice(0, nul));
    if (!Number.isFinite(seconds)) continue;
    for (const name of commit.slice(nul + 1).replace(/^\n/, "").split("\0")) {
      if (!name.startsWith(prefix) || name.length === prefix.length) continue;
      const path = name.slice(prefix.length);
      if (!times.has(path)) times.set(path, seconds * 1000);
    }
  }
  return times;
}

/** `git status --porcelain=v1 -z`: the folder-relative paths that differ from HEAD. */
export function parseStatus(out: string, folder: string): Set<string> {
  const differ = new Set<string>();
  const prefix = folder ? `${folder}/` : "";
  const fields = out.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.length < 4) continue;
    const name = field.slice(3);
    if (name.startsWith(prefix)) differ.add(name.slice(prefix.length));
    // a rename or copy names where it came from next
    if (field[0] === "R" || field[0] === "C") i++;
  }
  return differ;
}

function fileKey(listing: TimedListing, i: number): string {
  return `${listing.sizesBytes[i]}|${listing.mtimesMs[i]}|${listing.ctimesMs[i]}|${listing.inos[i]}`;
}

class GitTimes implements HostTimes {
  private repo: Promise<Repo | null> | null = null;
  private head = "";
  private index = "";
  private committed = new Map<string, number>();
  private differ = new Set<string>();
  /** Each file's key when `git status` last looked, and the listing it was of. */
  private keys = new Map<string, string>();
  private keyedListing: TimedListing | null = null;
  private generation = 0;
  private last: { listing: TimedListing; generation: number; overlay: TimesOverlay } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private stamped: { at: number; stamps: { head: string; index: string } } | null = null;

  constructor(private readonly root: string) {}

  of(listing: TimedListing): Promise<TimesOverlay | null> {
    // one at a time: two turns at once share what the first learned
    const next = this.queue.then(() => this.overlay(listing));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async overlay(listing: TimedListing): Promise<TimesOverlay | null> {
    this.repo ??= findRepo(this.root).catch(() => null);
    const repo = await this.repo;
    if (repo === null) {
      // the folder may be made later, and a repository around it: looked for again then
      if (!(await stat(this.root).then(() => true, () => false))) this.repo = null;
      return null;
    }
    try {
      const fresh = this.stamped !== null && Date.now() - this.stamped.at < STAMPS_REUSE_MS;
      const now = fresh ? this.stamped!.stamps : await stamps(repo);
      if (!fresh) this.stamped = { at: Date.now(), stamps: now };
      const pathspec = ["--", repo.folder || "."];
      if (now.head !== this.head) {
        const log = await run(["log", "-z", "--name-only", "--no-renames", "--format=%x01%ct", ...pathspec], repo.top);
        this.committed = parseLog(log, repo.folder);
        this.head = now.head;
        this.index = "";
      }
      const changed = now.index !== this.index || (listing !== this.keyedListing && this.filesChanged(listing));
      if (changed) {
        const status = await run(["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", ...pathspec], repo.top);
        this.differ = parseStatus(status, repo.folder);
        this.index = now.index;
        this.keys = new Map();
        for (let i = 0; i < listing.paths.length; i++) if (listing.kinds[i] === KIND_FILE) this.keys.set(listing.paths[i]!, fileKey(listing, i));
        this.generation++;
      }
      this.keyedListing = listing;
    } catch {
      // git failed (not installed, a broken repository): mtimes, and not asked again
      this.repo = Promise.resolve(null);
      return null;
    }
    if (this.last && this.last.listing === listing && this.last.generation === this.generation) return this.last.overlay;
    const timesMs = new Float64Array(listing.paths.length).fill(Number.NaN);
    for (let i = 0; i < listing.paths.length; i++) {
      const path = listing.paths[i]!;
      if (listing.kinds[i] !== KIND_FILE || this.differ.has(path)) continue;
      const committed = this.committed.get(path);
      if (committed !== undefined) timesMs[i] = committed;
    }
    const overlay: TimesOverlay = { version: `${this.head}#${this.generation}`, timesMs };
    this.last = { listing, generation: this.generation, overlay };
    return overlay;
  }

  /** Whether a file of `listing` is new or changed since `git status` last looked. */
  private filesChanged(listing: TimedListing): boolean {
    let files = 0;
    for (let i = 0; i < listing.paths.length; i++) {
      if (listing.kinds[i] !== KIND_FILE) continue;
      files++;
      if (this.keys.get(listing.paths[i]!) !== fileKey(listing, i)) return true;
    }
    return files !== this.keys.size;
  }
}

/** The Node host's {@link HostTimes} for the folder `root`: git's times where it is in a work tree. */
export function gitTimes(root: string): HostTimes {
  return new GitTimes(root);
}
