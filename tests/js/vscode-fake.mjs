// An in-memory `vscode.workspace.fs` + `vscode.Uri`, for testing code written against VS Code's
// file-system API without VS Code. Modelled on VS Code's own sources (extHostTypes'
// FileSystemError, extHostFileSystemConsumer, FileService, DiskFileSystemProvider):
//
// - errors are FileSystemError-shaped: `code` is the factory name (`FileNotFound`, `FileExists`,
//   `FileNotADirectory`, `FileIsADirectory`, `NoPermissions`, `Unavailable`, `Unknown`), `name` is
//   `EntryNotFound (FileSystemError)` etc., `message` is the URI or a sentence, so `String(error)`
//   reads `EntryNotFound (FileSystemError): file:///mem/a.md`;
// - `stat` follows links and reports `SymbolicLink | <target type>`; a dangling link is
//   `SymbolicLink` alone (Unknown | SymbolicLink), with the link's own times;
// - `readDirectory` gives `[name, type]` in creation order (VS Code gives readdir order, which
//   is not sorted either), resolving links the same way;
// - `createDirectory` is mkdirp and accepts an existing folder; `writeFile` and `rename` create
//   missing parent folders, as `workspace.fs` does;
// - `delete` defaults to `recursive: false` and refuses a non-empty folder (code `Unknown`, as
//   FileService's plain Error arrives); it removes a link, not its target;
// - `rename` defaults to `overwrite: false` (FileExists); with `overwrite: true` it deletes the
//   target first, then moves (FileService does exactly that); same source and target is a no-op;
//   a folder cannot move into itself.
//
// `createFakeVsCode({ raw: true })` behaves like a bare `vscode.FileSystemProvider` instead: no
// mkdirp anywhere (writeFile / createDirectory / rename fail with FileNotFound when the parent is
// missing) and `createDirectory` on an existing entry fails with FileExists. Hosts tested against
// both must not rely on either.
//
// Only the `file` scheme is served; others fail with Unavailable (VS Code's ENOPRO).

/** `vscode.FileType`. */
export const FileType = Object.freeze({ Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 });

const PROVIDER_CODES = {
  FileExists: "EntryExists",
  FileNotFound: "EntryNotFound",
  FileNotADirectory: "EntryNotADirectory",
  FileIsADirectory: "EntryIsADirectory",
  NoPermissions: "NoPermissions",
  Unavailable: "Unavailable",
  Unknown: "Unknown",
};

/** `vscode.FileSystemError`. */
export class FileSystemError extends Error {
  constructor(messageOrUri, code = "Unknown") {
    super(messageOrUri instanceof Uri ? messageOrUri.toString(true) : (messageOrUri ?? ""));
    /** The factory's name, e.g. `FileNotFound`; `Unknown` when constructed directly. */
    this.code = code;
    this.name = `${PROVIDER_CODES[code] ?? code} (FileSystemError)`;
  }
  static FileNotFound(messageOrUri) {
    return new FileSystemError(messageOrUri, "FileNotFound");
  }
  static FileExists(messageOrUri) {
    return new FileSystemError(messageOrUri, "FileExists");
  }
  static FileNotADirectory(messageOrUri) {
    return new FileSystemError(messageOrUri, "FileNotADirectory");
  }
  static FileIsADirectory(messageOrUri) {
    return new FileSystemError(messageOrUri, "FileIsADirectory");
  }
  static NoPermissions(messageOrUri) {
    return new FileSystemError(messageOrUri, "NoPermissions");
  }
  static Unavailable(messageOrUri) {
    return new FileSystemError(messageOrUri, "Unavailable");
  }
}

/** POSIX-normalises an absolute path: `.` and `..` resolved, no double or trailing slash. */
function normalize(path) {
  const out = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

// VS Code's encoder leaves only a-z A-Z 0-9 - . _ ~ (and `/` in paths) unescaped.
const encodeSegment = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `vscode.Uri`, the parts a host uses. */
export class Uri {
  constructor(scheme, authority, path, query = "", fragment = "") {
    this.scheme = scheme;
    this.authority = authority;
    this.path = path;
    this.query = query;
    this.fragment = fragment;
    Object.freeze(this);
  }
  static file(path) {
    return new Uri("file", "", normalize(path.replace(/\\/g, "/")));
  }
  /** Like VS Code's: POSIX-joins (and normalises) the segments onto the base's path. */
  static joinPath(base, ...pathSegments) {
    if (!base.path) throw new Error("[UriError]: cannot call joinPath on URI without path");
    return base.with({ path: normalize([base.path, ...pathSegments].join("/")) });
  }
  static isUri(thing) {
    return thing instanceof Uri;
  }
  get fsPath() {
    return this.path;
  }
  with(change) {
    return new Uri(change.scheme ?? this.scheme, change.authority ?? this.authority, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
  }
  toString(skipEncoding = false) {
    const path = skipEncoding ? this.path : this.path.split("/").map(encodeSegment).join("/");
    return `${this.scheme}://${this.authority}${path}${this.query ? `?${this.query}` : ""}${this.fragment ? `#${this.fragment}` : ""}`;
  }
  toJSON() {
    return { scheme: this.scheme, authority: this.authority, path: this.path, query: this.query, fragment: this.fragment };
  }
}

const MAX_LINK_HOPS = 40;

/**
 * A fresh file system holding only `/`. Options: `now()` for mtimes/ctimes (default
 * `Date.now`), `raw` for bare-provider strictness (see the top of this file).
 * Returns `{ fs, Uri, FileType, FileSystemError, calls, symlink, special, node }`:
 * `calls` logs every `fs` call as `{ op, uri, target?, options? }` (URIs as strings); `symlink(link,
 * targetPath)` and `special(uri)` (a device / FIFO: FileType.Unknown) create entries
 * `workspace.fs` cannot; `node(path)` peeks at the tree for assertions.
 */
export function createFakeVsCode({ now = Date.now, raw = false } = {}) {
  const newDir = () => ({ kind: "dir", children: new Map(), mtime: now(), ctime: now() });
  const tree = newDir();
  const calls = [];

  function check(uri) {
    if (!(uri instanceof Uri)) throw new TypeError(`expected a Uri, got ${typeof uri}`);
    if (uri.scheme !== "file") throw FileSystemError.Unavailable(`ENOPRO: No file system provider found for resource '${uri.toString()}'`);
    return uri.path.split("/").filter(Boolean);
  }

  /**
   * Walks `parts`, following links in the middle (and at the end when `follow`). Returns
   * `{ node, parent, name, link }`: `node` is null when the last part is missing (then `parent`
   * is the folder it would go in); `link` is the last part's own link node when it was followed.
   */
  function resolve(parts, { follow = true, hops = 0 } = {}) {
    let dir = tree;
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i];
      const last = i === parts.length - 1;
      let node = dir.children.get(name);
      if (node === undefined) {
        if (!last) throw "FileNotFound";
        return { node: null, parent: dir, name, link: null };
      }
      let link = null;
      if (node.kind === "link" && (follow || !last)) {
        if (hops >= MAX_LINK_HOPS) throw "Unknown";
        link = node;
        const target = resolve(node.target.split("/").filter(Boolean), { follow: true, hops: hops + 1 });
        node = target.node;
        if (node === null) {
          if (!last) throw "FileNotFound";
          return { node: null, parent: target.parent, name: target.name, link, dangling: true };
        }
      }
      if (last) return { node, parent: dir, name, link };
      if (node.kind !== "dir") throw "FileNotADirectory";
      dir = node;
    }
    return { node: tree, parent: null, name: "", link: null };
  }

  // Runs `fn`, turning the string codes thrown by `resolve` into FileSystemErrors about `uri`.
  function op(record, uri, fn) {
    calls.push(record);
    try {
      return Promise.resolve(fn(check(uri)));
    } catch (error) {
      if (typeof error === "string") return Promise.reject(new FileSystemError(uri, error));
      return Promise.reject(error);
    }
  }

  const typeOf = (node) => (node.kind === "dir" ? FileType.Directory : node.kind === "file" ? FileType.File : FileType.Unknown);

  function statOf(found) {
    if (found.dangling) return { type: FileType.SymbolicLink, ctime: found.link.ctime, mtime: found.link.mtime, size: found.link.target.length };
    if (found.node === null) throw "FileNotFound";
    const { node, link } = found;
    return {
      type: typeOf(node) | (link ? FileType.SymbolicLink : 0),
      ctime: node.ctime,
      mtime: node.mtime,
      size: node.kind === "file" ? node.data.length : 0,
    };
  }

  function mkdirp(parts) {
    let dir = tree;
    for (const name of parts) {
      let node = dir.children.get(name);
      if (node?.kind === "link") node = resolve(node.target.split("/").filter(Boolean)).node ?? undefined;
      if (node === undefined) {
        node = newDir();
        dir.children.set(name, node);
        dir.mtime = now();
      } else if (node.kind !== "dir") {
        throw "FileExists";
      }
      dir = node;
    }
  }

  function parentFor(parts) {
    if (!raw) mkdirp(parts.slice(0, -1));
    const found = resolve(parts);
    if (found.parent === null) throw "FileIsADirectory"; // `/`
    return found;
  }

  const isInside = (inner, outer) => inner.length > outer.length && outer.every((p, i) => inner[i] === p);

  const fs = {
    stat: (uri) => op({ op: "stat", uri: String(uri) }, uri, (parts) => statOf(resolve(parts))),

    readDirectory: (uri) =>
      op({ op: "readDirectory", uri: String(uri) }, uri, (parts) => {
        const { node } = resolve(parts);
        if (node === null) throw "FileNotFound";
        if (node.kind !== "dir") throw "FileNotADirectory";
        const entries = [];
        for (const name of node.children.keys()) {
          try {
            entries.push([name, statOf(resolve([...parts, name])).type]);
          } catch {
            // DiskFileSystemProvider drops entries it cannot stat (a link loop, say)
          }
        }
        return entries;
      }),

    readFile: (uri) =>
      op({ op: "readFile", uri: String(uri) }, uri, (parts) => {
        const { node } = resolve(parts);
        if (node === null) throw "FileNotFound";
        if (node.kind === "dir") throw "FileIsADirectory";
        if (node.kind !== "file") throw "Unknown";
        return node.data.slice();
      }),

    writeFile: (uri, content) =>
      op({ op: "writeFile", uri: String(uri), size: content.length }, uri, (parts) => {
        if (!(content instanceof Uint8Array)) throw new TypeError("content must be a Uint8Array");
        const found = parentFor(parts);
        if (found.node?.kind === "dir") throw "FileIsADirectory";
        if (found.node?.kind === "special") throw "NoPermissions";
        if (found.node) {
          found.node.data = content.slice();
          found.node.mtime = now();
        } else {
          found.parent.children.set(found.name, { kind: "file", data: content.slice(), mtime: now(), ctime: now() });
          found.parent.mtime = now();
        }
      }),

    delete: (uri, options = {}) =>
      op({ op: "delete", uri: String(uri), options }, uri, (parts) => {
        const { recursive = false } = options;
        const found = resolve(parts, { follow: false });
        if (found.node === null) throw "FileNotFound";
        if (found.parent === null) throw "NoPermissions"; // `/`
        if (found.node.kind === "dir" && found.node.children.size > 0 && !recursive) {
          throw new FileSystemError(`Unable to delete non-empty folder '${uri.path}'.`, "Unknown");
        }
        found.parent.children.delete(found.name);
        found.parent.mtime = now();
      }),

    rename: (source, target, options = {}) =>
      op({ op: "rename", uri: source.toString(), target: String(target), options }, source, (from) => {
        const { overwrite = false } = options;
        const to = check(target);
        if (from.join("/") === to.join("/")) return;
        const src = resolve(from, { follow: false });
        if (src.node === null) throw "FileNotFound";
        if (src.parent === null) throw "NoPermissions";
        if (isInside(to, from)) throw new FileSystemError(`Unable to move '${source.path}' into a subfolder of itself`, "Unknown");
        let dst;
        try {
          dst = resolve(to, { follow: false });
        } catch (code) {
          if (raw || code !== "FileNotFound") throw code;
          dst = { node: null };
        }
        if (dst.node !== null) {
          if (!overwrite) throw new FileSystemError(target, "FileExists");
          dst.parent.children.delete(dst.name); // FileService deletes the target, then moves
        }
        const into = parentFor(to);
        src.parent.children.delete(src.name);
        src.parent.mtime = now();
        into.parent.children.set(into.name, src.node);
        into.parent.mtime = now();
      }),

    createDirectory: (uri) =>
      op({ op: "createDirectory", uri: String(uri) }, uri, (parts) => {
        if (!raw) return mkdirp(parts);
        const found = resolve(parts);
        if (found.node !== null || found.dangling) throw "FileExists";
        found.parent.children.set(found.name, newDir());
        found.parent.mtime = now();
      }),

    isWritableFileSystem: (scheme) => (scheme === "file" ? true : undefined),
  };

  /** Makes `link` a symbolic link to the absolute path `target` (which need not exist). */
  function symlink(link, target) {
    const parts = check(link);
    mkdirp(parts.slice(0, -1));
    const found = resolve(parts, { follow: false });
    if (found.node !== null) throw new FileSystemError(link, "FileExists");
    found.parent.children.set(found.name, { kind: "link", target: normalize(target instanceof Uri ? target.path : target), mtime: now(), ctime: now() });
  }

  /** Makes a device-like entry (FileType.Unknown) at `uri`. */
  function special(uri) {
    const parts = check(uri);
    mkdirp(parts.slice(0, -1));
    resolve(parts, { follow: false }).parent.children.set(parts.at(-1), { kind: "special", mtime: now(), ctime: now() });
  }

  /** The tree node at an absolute path, links not followed; `undefined` when missing. */
  function node(path) {
    try {
      return resolve(path.split("/").filter(Boolean), { follow: false }).node ?? undefined;
    } catch {
      return undefined;
    }
  }

  return { fs, Uri, FileType, FileSystemError, calls, symlink, special, node };
}
