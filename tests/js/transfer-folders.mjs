// Folders for the copy tests (tests/js/transfer.test.mjs, tests/postgres/transfer.test.mjs): the
// real folder shapes of tests/fixtures/shapes, and one of odd bytes, each file at a time of its
// own in the past; and the whole tree of a folder read back, to compare two byte for byte.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SHAPES = fileURLToPath(new URL("../fixtures/shapes/", import.meta.url));

/** Every shape's `memory/` folder, by shape name. */
export const shapes = () =>
  readdirSync(SHAPES, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

/** A fresh temporary folder, removed with `done()`. */
export function tempDir(prefix = "memdir-transfer-") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A deterministic pseudo-random byte stream (every byte value, NULs included). */
export function noise(length, seed = 7) {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** The files of the odd folder: CRLF, a BOM, bytes that are not UTF-8, empty files, nested folders, a 1 MiB file, a history. */
export function oddFiles() {
  const bom = Uint8Array.from([0xef, 0xbb, 0xbf]);
  const cat = (...parts) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));
  return {
    "MEMORY.md": cat(bom, "# Memory\r\n\r\n- [Crlf note](crlf_note.md) \u2014 lines end in CR LF\r\n- [Latin](latin1.md) \u2014 not UTF-8\r\n"),
    "crlf_note.md": cat("---\r\nname: Crlf note\r\ndescription: lines end in CR LF\r\ntype: project\r\n---\r\n\r\nBody line one.\r\nBody line two.\r\n"),
    "latin1.md": cat("---\nname: Latin\ndescription: not UTF-8\ntype: reference\n---\n\nCaf", [0xe9], " cr", [0xe8], "me ", [0xff, 0xfe, 0x80, 0x00, 0xc3], "\n"),
    "empty.md": new Uint8Array(0),
    "notes/empty too.txt": new Uint8Array(0),
    "notes/deep/deeper/ünïcödé name.md": cat("---\nname: Deep\ndescription: three folders down\ntype: user\n---\n\nno newline at the end"),
    "notes/deep/lone-cr.md": cat("a\rb\rc"),
    "blobs/one-mebibyte.bin": noise(1 << 20),
    ".memdir/history/journal.jsonl": cat('{"id":"0000000000000001-0000","odd":"a journal line as memdir writes it"}\n'),
    ".memdir/consolidate.json": cat('{"memoryWrites":3}\n'),
  };
}

/** A millisecond time in the past with a fraction, different for each `i`. */
export const pastTime = (i) => Date.UTC(2025, 0, 1) + i * 86_400_123 + 456.25;

/** Writes `files` under `dir`, each file at {@link pastTime} of its index. */
export function writeTree(dir, files) {
  Object.entries(files).forEach(([path, data], i) => {
    const file = join(dir, ...path.split("/"));
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, data);
    utimesSync(file, new Date(), pastTime(i) / 1000);
  });
  return dir;
}

/** A copy of a shape's `memory/` folder in `dir`, its files at past times of their own. */
export function copyShape(shape, dir) {
  cpSync(join(SHAPES, shape, "memory"), dir, { recursive: true });
  const files = readTree(dir);
  [...files.keys()].forEach((path, i) => utimesSync(join(dir, ...path.split("/")), new Date(), pastTime(i + 3) / 1000));
  return dir;
}

/** Every file below `dir`: relative path → { bytes, mtimeMs }, sorted by path; `skip(path)` leaves some out. */
export function readTree(dir, skip = () => false) {
  const out = new Map();
  const walk = (rel) => {
    for (const d of readdirSync(join(dir, ...rel), { withFileTypes: true })) {
      const path = [...rel, d.name];
      if (d.isDirectory()) walk(path);
      else if (!skip(path.join("/"))) {
        const file = join(dir, ...path);
        out.set(path.join("/"), { bytes: readFileSync(file), mtimeMs: statSync(file).mtimeMs });
      }
    }
  };
  walk([]);
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Asserts two trees hold the same paths and bytes, and (unless `times: false`) the same mtimes to the millisecond. */
export function assertSameTree(assert, got, want, { times = true } = {}) {
  assert.deepEqual([...got.keys()], [...want.keys()], "the same files");
  for (const [path, w] of want) {
    const g = got.get(path);
    assert.ok(Buffer.compare(g.bytes, w.bytes) === 0, `${path}: the same ${w.bytes.length} bytes`);
    if (times) assert.ok(Math.abs(g.mtimeMs - w.mtimeMs) < 1, `${path}: mtime ${g.mtimeMs} is ${w.mtimeMs} to the millisecond`);
  }
}

/**
 * `host` with `onLockTry()` called each time a writer tries its write lock (the host's own lock,
 * `locks.exclusive`, or the lock file's exclusive create): how a test knows a writer is waiting,
 * without timing it.
 */
export function watchLockTries(host, onLockTry) {
  return new Proxy(host, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === "writeFile") {
        return (path, data, options) => {
          if (path === ".memdir.lock" && options?.exclusive) onLockTry();
          return value.call(target, path, data, options);
        };
      }
      if (key === "locks" && value?.exclusive) {
        return { ...value, exclusive: (fn, timeoutMs) => (onLockTry(), value.exclusive.call(value, fn, timeoutMs)) };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `host` whose `readFile` waits for `gate` (a promise) the first time, after calling `onFirstRead()`. */
export function gatedReads(host, gate, onFirstRead) {
  let first = true;
  return new Proxy(host, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === "readFile") {
        return async (path, maxBytes) => {
          if (first && path !== ".memdir.lock") {
            first = false;
            onFirstRead();
            await gate;
          }
          return value.call(target, path, maxBytes);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
