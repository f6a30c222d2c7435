/**
 * A memory directory held in a `Map` — for tests, the browser fallback, and anything that
 * wants memdir without a file system. Modification times come from `now()` (injectable).
 */
import { hostError, type HostEntry, type HostLinks, type MemoryHost } from "../host.js";

export interface InMemoryFile {
  data: Uint8Array;
  mtimeMs: number;
}

export class InMemoryHost implements MemoryHost {
  readonly root: string;
  readonly files = new Map<string, InMemoryFile>();
  private readonly now: () => number;

  constructor(files: Record<string, string | Uint8Array | { content: string | Uint8Array; mtimeMs: number }> = {}, options: { root?: string; now?: () => number } = {}) {
    this.root = options.root ?? "memory:/";
    this.now = options.now ?? Date.now;
    for (const [path, value] of Object.entries(files)) {
      const { content, mtimeMs } = typeof value === "string" || value instanceof Uint8Array ? { content: value, mtimeMs: this.now() } : value;
      this.files.set(path, { data: typeof content === "string" ? new TextEncoder().encode(content) : content, mtimeMs });
    }
  }

  private directories(): Set<string> {
    const dirs = new Set<string>();
    for (const path of this.files.keys()) {
      const parts = path.split("/");
      for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    }
    return dirs;
  }

  async list(): Promise<HostEntry[]> {
    const entries: HostEntry[] = [...this.directories()].map((path) => ({ path, kind: "directory", mtimeMs: 0, size: 0 }));
    for (const [path, file] of this.files) entries.push({ path, kind: "file", mtimeMs: file.mtimeMs, size: file.data.length });
    return entries.sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  async stat(path: string): Promise<HostEntry | null> {
    const file = this.files.get(path);
    if (file) return { path, kind: "file", mtimeMs: file.mtimeMs, size: file.data.length };
    return this.directories().has(path) ? { path, kind: "directory", mtimeMs: 0, size: 0 } : null;
  }

  private get(path: string): InMemoryFile {
    const file = this.files.get(path);
    if (file) return file;
    throw this.directories().has(path) ? hostError("EISDIR", `${path} is a directory`) : hostError("ENOENT", `${path} does not exist`);
  }

  async readFile(path: string, maxBytes?: number): Promise<Uint8Array> {
    const data = this.get(path).data;
    return maxBytes === undefined ? data.slice() : data.slice(0, maxBytes);
  }

  async writeFile(path: string, data: Uint8Array, options: { exclusive?: boolean; mtimeMs?: number } = {}): Promise<void> {
    if (this.directories().has(path)) throw hostError("EISDIR", `${path} is a directory`);
    if (options.exclusive && this.files.has(path)) throw hostError("EEXIST", `${path} already exists`);
    this.files.set(path, { data: data.slice(), mtimeMs: options.mtimeMs ?? this.now() });
  }

  async remove(path: string): Promise<void> {
    if (this.files.delete(path)) return;
    const prefix = `${path}/`;
    const inside = [...this.files.keys()].filter((p) => p.startsWith(prefix));
    if (inside.length === 0) throw hostError("ENOENT", `${path} does not exist`);
    for (const p of inside) this.files.delete(p);
  }

  async rename(from: string, to: string): Promise<void> {
    if ((await this.stat(to)) !== null) throw hostError("EEXIST", `${to} already exists`);
    const file = this.files.get(from);
    if (file) {
      this.files.delete(from);
      this.files.set(to, file);
      return;
    }
    const prefix = `${from}/`;
    const inside = [...this.files.entries()].filter(([p]) => p.startsWith(prefix));
    if (inside.length === 0) throw hostError("ENOENT", `${from} does not exist`);
    for (const [p, f] of inside) {
      this.files.delete(p);
      this.files.set(`${to}/${p.slice(prefix.length)}`, f);
    }
  }

  /** Nothing here is a link: every path is where it says. */
  readonly links: HostLinks = { resolve: async (path) => path };

  absolutePath(path: string): string {
    return this.root.endsWith("/") ? this.root + path : `${this.root}/${path}`;
  }
}
