/**
 * The Node file-system host. Lists without following symbolic links out of the memory
 * directory, reads only the first lines of a file for its header, and writes atomically
 * (a temporary file in the same folder, then `rename`), so a crash never leaves half a file.
 */
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import * as fsp from "node:fs/promises";
import { hostname } from "node:os";
import { join, relative, sep } from "node:path";
import { hostError, type HostEntry, type LockOwner, type MemoryHost } from "../host.js";

/** The subset of `node:fs/promises` the host uses; injectable to simulate faults in tests. */
export type NodeFs = Pick<typeof fsp, "lstat" | "stat" | "readdir" | "realpath" | "open" | "readFile" | "writeFile" | "rename" | "rm" | "mkdir" | "link" | "unlink">;

const HEAD_CHUNK_BYTES = 4096;
/** Entries of one directory stat'ed at once. */
const STAT_BATCH = 64;
/** A header longer than this is cut: the core reads 30 lines, and a line can be huge. */
const MAX_HEAD_BYTES = 1 << 20;

export class NodeHost implements MemoryHost {
  readonly root: string;
  private readonly fs: NodeFs;

  constructor(root: string, options: { fs?: NodeFs } = {}) {
    this.root = root.replace(/[\\/]+$/, "") || root;
    this.fs = options.fs ?? fsp;
  }

  private abs(path: string): string {
    return join(this.root, ...path.split("/"));
  }

  absolutePath(path: string): string {
    return this.abs(path);
  }

  async resolve(path: string): Promise<string | null> {
    let realRoot: string;
    try {
      realRoot = await this.fs.realpath(this.root);
    } catch (error) {
      if (isCode(error, "ENOENT", "ENOTDIR")) return path; // nothing exists yet: nothing to follow
      throw error;
    }
    const segments = path.split("/").filter(Boolean);
    const tail: string[] = [];
    // the deepest part that exists decides where the rest would be written
    while (segments.length > 0) {
      try {
        const real = await this.fs.realpath(join(this.root, ...segments));
        if (real !== realRoot && !real.startsWith(realRoot + sep)) return null;
        return [...relative(realRoot, real).split(sep).filter(Boolean), ...tail].join("/");
      } catch (error) {
        if (!isCode(error, "ENOENT")) throw error;
        // a dangling link still points somewhere: refuse one that points outside
        const link = await this.fs.lstat(join(this.root, ...segments)).catch(() => null);
        if (link?.isSymbolicLink()) return null;
        tail.unshift(segments.pop()!);
      }
    }
    return tail.join("/");
  }

  async list(): Promise<HostEntry[]> {
    let realRoot: string;
    try {
      realRoot = await this.fs.realpath(this.root);
    } catch (error) {
      if (isCode(error, "ENOENT", "ENOTDIR")) return [];
      throw error;
    }
    const entries: HostEntry[] = [];
    const visited = new Set<string>([realRoot]);
    const walk = async (dir: string): Promise<void> => {
      let names: string[];
      try {
        names = await this.fs.readdir(dir);
      } catch (error) {
        if (isCode(error, "ENOENT")) return; // vanished while listing
        entries.push({ path: this.rel(dir), kind: "directory", mtimeMs: 0, size: 0, problem: "unreadable" });
        return;
      }
      // stat a directory's entries in parallel batches, then descend in name order
      const stats: { full: string; path: string; st: Stats | null }[] = [];
      const sorted = names.sort();
      for (let i = 0; i < sorted.length; i += STAT_BATCH) {
        const batch = sorted.slice(i, i + STAT_BATCH).map(async (name) => {
          const full = join(dir, name);
          return { full, path: this.rel(full), st: await this.fs.lstat(full).catch(() => null) };
        });
        stats.push(...(await Promise.all(batch)));
      }
      for (const { full, path, st } of stats) {
        if (st === null) continue; // vanished between readdir and lstat
        if (st.isSymbolicLink()) {
          const target = await this.fs.realpath(full).catch(() => null);
          const inside = target !== null && (target === realRoot || target.startsWith(realRoot + sep));
          const tst = target === null ? null : await this.fs.stat(full).catch(() => null);
          if (!inside || tst === null || target === null) {
            entries.push({ path, kind: "other", mtimeMs: st.mtimeMs, size: 0, problem: "symlink_escape" });
          } else if (tst.isDirectory()) {
            if (visited.has(target)) continue; // a loop, or a second way to the same folder
            visited.add(target);
            entries.push({ path, kind: "directory", mtimeMs: tst.mtimeMs, size: 0 });
            await walk(full);
          } else {
            entries.push(fileEntry(path, tst));
          }
        } else if (st.isDirectory()) {
          entries.push({ path, kind: "directory", mtimeMs: st.mtimeMs, size: 0 });
          await walk(full);
        } else {
          entries.push(fileEntry(path, st));
        }
      }
    };
    await walk(this.root);
    return entries;
  }

  private rel(full: string): string {
    return relative(this.root, full).split(sep).join("/");
  }

  async stat(path: string): Promise<HostEntry | null> {
    try {
      const st = await this.fs.stat(this.abs(path));
      return st.isDirectory() ? { path, kind: "directory", mtimeMs: st.mtimeMs, size: 0 } : fileEntry(path, st);
    } catch (error) {
      if (isCode(error, "ENOENT", "ENOTDIR")) return null;
      throw error;
    }
  }

  async lstat(path: string): Promise<HostEntry | null> {
    try {
      const st = await this.fs.lstat(this.abs(path));
      if (st.isSymbolicLink()) return { path, kind: "other", mtimeMs: st.mtimeMs, size: 0, problem: "symlink" };
      return st.isDirectory() ? { path, kind: "directory", mtimeMs: st.mtimeMs, size: 0 } : fileEntry(path, st);
    } catch (error) {
      if (isCode(error, "ENOENT")) return null;
      if (isCode(error, "ENOTDIR")) throw hostError("ENOTDIR", `${path}: a folder on the way is a file`);
      throw error;
    }
  }

  /** This process: `os.hostname()`, `process.pid`, and on Linux the boot id and pid namespace. */
  async lockOwner(): Promise<LockOwner> {
    return { host: hostname(), pid: process.pid, ...(await machine()) };
  }

  /**
   * `kill(pid, 0)` on this machine (same host name and pid namespace): `false` when the pid is
   * gone or from an earlier boot; `null` for another machine or namespace, which only time can judge.
   */
  async ownerAlive(owner: LockOwner): Promise<boolean | null> {
    const here = await machine();
    if (owner.host !== hostname()) return null;
    if (here.boot && owner.boot && owner.boot !== here.boot) return false; // the machine rebooted since
    if ((owner.pidns ?? null) !== here.pidns) return null;
    if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0) return null; // 0 and -1 would signal groups
    try {
      process.kill(owner.pid, 0);
      return true;
    } catch (error) {
      if (isCode(error, "ESRCH")) return false;
      return isCode(error, "EPERM") ? true : null; // EPERM: alive, another user's
    }
  }

  async readHead(path: string, maxLines: number): Promise<Uint8Array> {
    const handle = await this.openRegular(path);
    try {
      const chunks: Uint8Array[] = [];
      let total = 0;
      let lines = 0;
      while (total < MAX_HEAD_BYTES) {
        const buffer = new Uint8Array(HEAD_CHUNK_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        chunks.push(chunk);
        total += bytesRead;
        for (const b of chunk) if (b === 10) lines++;
        if (lines >= maxLines) break;
      }
      return concat(chunks, total);
    } finally {
      await handle.close();
    }
  }

  async readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
    const handle = await this.openRegular(path);
    try {
      if (maxBytes === undefined) return new Uint8Array(await handle.readFile());
      const buffer = new Uint8Array(maxBytes);
      let total = 0;
      while (total < maxBytes) {
        const { bytesRead } = await handle.read(buffer, total, maxBytes - total, total);
        if (bytesRead === 0) break;
        total += bytesRead;
      }
      return buffer.subarray(0, total);
    } finally {
      await handle.close();
    }
  }

  /** Opens for reading, refusing anything but a regular file (a FIFO would block forever). */
  private async openRegular(path: string) {
    const st = await this.fs.stat(this.abs(path));
    if (st.isDirectory()) throw hostError("EISDIR", `${path} is a directory`);
    if (!st.isFile()) throw hostError("EINVAL", `${path} is not a regular file`);
    return this.fs.open(this.abs(path), "r");
  }

  async writeFile(path: string, data: Uint8Array, options: { exclusive?: boolean } = {}): Promise<void> {
    const target = this.abs(path);
    const dir = join(target, "..");
    await this.fs.mkdir(dir, { recursive: true });
    const tmp = join(dir, `.${path.split("/").pop()}.tmp-${randomBytes(6).toString("hex")}`);
    try {
      // the bytes reach the disk before the name points at them, so a power cut leaves the old
      // file or the new one, never an empty one
      const handle = await this.fs.open(tmp, "wx");
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (options.exclusive) {
        // link() fails with EEXIST if the target exists: an atomic create-if-absent
        await this.fs.link(tmp, target);
        await this.fs.unlink(tmp);
      } else {
        await this.fs.rename(tmp, target);
      }
    } catch (error) {
      await this.fs.rm(tmp, { force: true });
      throw error;
    }
  }

  async remove(path: string): Promise<void> {
    // without `force`, rm fails with ENOENT for a missing path; it removes a dangling link itself
    await this.fs.rm(this.abs(path), { recursive: true });
  }

  async rename(from: string, to: string): Promise<void> {
    const src = this.abs(from);
    const dst = this.abs(to);
    await this.fs.lstat(src);
    await this.fs.mkdir(join(dst, ".."), { recursive: true });
    // best effort: check, then rename (POSIX rename would replace the destination)
    if ((await this.fs.lstat(dst).catch(() => null)) !== null) throw hostError("EEXIST", `${to} already exists`);
    await this.fs.rename(src, dst);
  }
}

let machineInfo: Promise<{ boot: string | null; pidns: string | null }> | undefined;

/** The boot id and pid namespace where the OS has them (Linux), read once. */
function machine(): Promise<{ boot: string | null; pidns: string | null }> {
  machineInfo ??= Promise.all([
    fsp.readFile("/proc/sys/kernel/random/boot_id", "utf8").then((s) => s.trim() || null, () => null),
    fsp.readlink("/proc/self/ns/pid").then((s) => s || null, () => null),
  ]).then(([boot, pidns]) => ({ boot, pidns }));
  return machineInfo;
}

function fileEntry(path: string, st: { isFile(): boolean; mtimeMs: number; size: number }): HostEntry {
  return st.isFile()
    ? { path, kind: "file", mtimeMs: st.mtimeMs, size: st.size }
    : { path, kind: "other", mtimeMs: st.mtimeMs, size: 0, problem: "not_a_file" };
}

function isCode(error: unknown, ...codes: string[]): boolean {
  return typeof error === "object" && error !== null && codes.includes((error as { code?: string }).code ?? "");
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
