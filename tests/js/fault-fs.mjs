// A `node:fs/promises` for NodeHost's `fs` option that records every call (file-handle methods
// included, as `handle.<name>`) and fails a chosen one with an error shaped like Node's own
// (`code`, `errno`, `syscall`, `path`).
import * as nodeFs from "node:fs";
import * as fsp from "node:fs/promises";

/** The functions of `node:fs/promises` NodeHost calls. */
export const FS_FUNCTIONS = ["lstat", "stat", "readdir", "realpath", "readlink", "open", "readFile", "writeFile", "rename", "rm", "rmdir", "mkdir", "link", "unlink"];
/** The methods of the FileHandle `open` returns. */
export const HANDLE_METHODS = ["read", "write", "writeFile", "sync", "close", "stat"];

/** Negative errno values as Node reports them on Linux. */
const ERRNO = { ENOSPC: -28, EROFS: -30, EACCES: -13, EIO: -5, ENOENT: -2 };
const SYSCALL = { "handle.read": "read", "handle.write": "write", "handle.writeFile": "write", "handle.sync": "fsync", "handle.close": "close", "handle.stat": "fstat", readdir: "scandir", rm: "rm" };

/** An error as Node throws it, naming the absolute path (which must never reach a message). */
export function nodeError(code, fn, path) {
  const syscall = SYSCALL[fn] ?? fn;
  return Object.assign(new Error(`${code}: injected fault, ${syscall} '${path}'`), { code, errno: ERRNO[code] ?? -5, syscall, path: String(path) });
}

/**
 * A call's identity across runs: the function and the path, without descriptor numbers or the
 * random part of temporary names (concurrent reads interleave differently from run to run, so
 * "the k-th lstat" is not always the same lstat; "the n-th lstat of MEMORY.md" is).
 */
export const callKey = (path, base = null) => {
  const p = String(path ?? "")
    .replace(/^\/proc\/self\/fd\/\d+/, "<dir>")
    .replace(/\.tmp-[0-9a-f]+$/, ".tmp-*");
  return base !== null && (p === base || p.startsWith(`${base}/`)) ? `<root>${p.slice(base.length)}` : p;
};

/**
 * `fs` records calls in `calls` (`{fn, k, key, n, path}`: k counted per function from 0, n per
 * `key` = function and path) and, when `fault` is set, fails one call: `{fn, key, n, code}`
 * the n-th call with that key, `{fn, k, code}` the k-th call of `fn`, or `{fn, path: RegExp,
 * code}` the first call of `fn` on a matching path. The failed call does nothing, except:
 * `handle.close` closes the descriptor and then fails (Linux releases the fd even when close
 * reports an error), and `handle.write` / `handle.writeFile` write half the bytes first (a disk
 * that filled up mid-write). `before(fn, path)` runs before every call (tests make files vanish).
 * `base`: the memory directory, shown as `<root>` in keys (so two directories replay alike).
 * `rawFs` is the same for the host's fast paths (`NodeHost`'s `rawFs` option: the synchronous
 * calls of js/hosts/node-fast.ts; once calls turn slow, and for every write, `fs` is called).
 */
export function faultyFs({ fault = null, before = null, base = null } = {}) {
  const calls = [];
  const counts = new Map();
  /** Handles opened and not yet closed: path by handle. */
  const open = new Map();
  const state = {
    calls,
    open,
    fault,
    hit: null,
    /** Starts counting again from 0 with `fault` (or none). */
    arm(next) {
      calls.length = 0;
      counts.clear();
      state.fault = next;
      state.hit = null;
    },
  };
  const step = (fn, path) => {
    const k = counts.get(fn) ?? 0;
    counts.set(fn, k + 1);
    const call = { fn, k, path: String(path ?? ""), key: `${fn} ${callKey(path, base)}` };
    call.n = counts.get(call.key) ?? 0;
    counts.set(call.key, call.n + 1);
    calls.push(call);
    const f = state.fault;
    const chosen = f && f.fn === fn && (f.path ? !state.hit && f.path.test(call.path) : f.key !== undefined ? f.key === call.key && f.n === call.n : f.k === k);
    return chosen ? (state.hit = call) : null;
  };
  const wrapHandle = (handle, path) =>
    new Proxy(handle, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (!HANDLE_METHODS.includes(prop)) return value.bind(target);
        const fn = `handle.${prop}`;
        return async (...args) => {
          if (prop === "close") open.delete(target);
          const hit = step(fn, path);
          if (!hit) return value.apply(target, args);
          const error = nodeError(state.fault.code, fn, path);
          if (prop === "close") {
            await value.apply(target, args);
          } else if (prop === "writeFile") {
            const data = args[0];
            await target.write(typeof data === "string" ? data.slice(0, data.length >> 1) : data.subarray(0, data.length >> 1));
          } else if (prop === "write" && typeof args[0] === "object" && args[0] !== null) {
            await target.write(args[0].subarray(0, args[0].length >> 1));
          }
          throw error;
        };
      },
    });
  // the host's fast reads (`rawFs`): the same calls under the same names, so a fault
  // is injected at every step whichever way the host makes it. A descriptor is named by the path
  // it was opened with; `open` holds it until it is closed.
  const fdPath = new Map();
  const rawKey = { openSync: "open", open: "open", closeSync: "handle.close", close: "handle.close", readSync: "handle.read", read: "handle.read", writeSync: "handle.write", write: "handle.write", fstatSync: "handle.stat", fstat: "handle.stat", fsync: "handle.sync", lstatSync: "lstat", lstat: "lstat", readdirSync: "readdir", readdir: "readdir", linkSync: "link", link: "link", renameSync: "rename", rename: "rename", unlinkSync: "unlink", unlink: "unlink", readlinkSync: "readlink", readlink: "readlink" };
  const rawFs = {};
  for (const [raw, fn] of Object.entries(rawKey)) {
    const isSync = raw.endsWith("Sync");
    const byFd = fn.startsWith("handle.");
    const real = nodeFs[raw];
    const call = (args) => {
      const path = byFd ? fdPath.get(args[0]) : args[0];
      if (!byFd) before?.(fn, path); // synchronous here: a `before` that returns a promise is not awaited
      const hit = step(fn, path);
      if (!hit) return { hit: null, path };
      const error = nodeError(state.fault.code, fn, path);
      if (fn === "handle.close") {
        nodeFs.closeSync(args[0]);
        fdPath.delete(args[0]);
        open.delete(args[0]);
      } else if (fn === "handle.write") {
        const [fd, buffer, offset, length, position] = args;
        nodeFs.writeSync(fd, buffer, offset, Math.max(0, length >> 1), position);
      }
      return { hit: error, path };
    };
    const opened = (fd, path) => {
      fdPath.set(fd, String(path));
      open.set(fd, String(path));
      return fd;
    };
    const closed = (fd) => {
      fdPath.delete(fd);
      open.delete(fd);
    };
    rawFs[raw] = isSync
      ? (...args) => {
          const { hit, path } = call(args);
          if (hit) throw hit;
          if (fn === "handle.close") closed(args[0]);
          const out = real(...args);
          return fn === "open" ? opened(out, path) : out;
        }
      : (...args) => {
          const done = args.pop();
          const { hit, path } = call(args);
          if (hit) return process.nextTick(done, hit);
          if (fn === "handle.close") closed(args[0]);
          real(...args, (error, out) => (error || fn !== "open" ? done(error, out) : done(null, opened(out, path))));
        };
  }

  const fs = {};
  for (const name of FS_FUNCTIONS) {
    fs[name] = async (...args) => {
      await before?.(name, args[0]);
      if (step(name, args[0])) throw nodeError(state.fault.code, name, args[0]);
      const out = await fsp[name](...args);
      if (name !== "open") return out;
      open.set(out, String(args[0]));
      return wrapHandle(out, args[0]);
    };
  }
  return { fs, rawFs, state };
}
