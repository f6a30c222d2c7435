/**
 * What the browser hosts share that is not a lock: the name of a memory, `DOMException`s as
 * file-system style codes, random tokens. Nothing here imports from Node.
 */
import { MemdirError } from "../errors.js";
import { hostError, type HostError } from "../host.js";

/** A memory's name is one folder or database name: 1–200 characters, no `/`, `\`, NUL, `.` or `..`. */
export function checkMemoryName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0 || name.length > 200 || /[/\\\0]/.test(name) || name === "." || name === "..") {
    throw new MemdirError("INVALID_ARGUMENT", "invalid argument: a browser memory's name must be 1 to 200 characters, without `/`, `\\` or NUL, and not `.` or `..`");
  }
  return name;
}

/** A browser storage that is missing or refused here: `IO_ERROR` with `errno: "ENOTSUP"`. */
export function unsupported(what: string, why: string, cause?: unknown): MemdirError {
  return new MemdirError("IO_ERROR", `${what} is not available here: ${why}`, { errno: "ENOTSUP", ...(cause === undefined ? {} : { cause }) });
}

/** The `name` of a `DOMException` (or any error), `""` when there is none. */
export function domName(error: unknown): string {
  const name = typeof error === "object" && error !== null ? (error as { name?: unknown }).name : undefined;
  return typeof name === "string" ? name : "";
}

/** `DOMException` names of the File System and IndexedDB APIs → the codes `MemoryHost` callers branch on. */
const CODES: Readonly<Record<string, string>> = {
  NotFoundError: "ENOENT",
  InvalidModificationError: "ENOTEMPTY",
  NoModificationAllowedError: "EBUSY",
  QuotaExceededError: "ENOSPC",
  NotAllowedError: "EACCES",
  SecurityError: "EACCES",
  TypeError: "EINVAL",
  NotReadableError: "EIO",
  AbortError: "EIO",
  InvalidStateError: "EIO",
  UnknownError: "EIO",
  DataError: "EINVAL",
  DataCloneError: "EINVAL",
  ConstraintError: "EEXIST",
  VersionError: "EIO",
  TimeoutError: "ETIMEDOUT",
};

/**
 * A browser failure as a `HostError` naming `path` (the original kept as `cause`); one that
 * already carries a code (a `HostError`) passes through. `TypeMismatchError` has no meaning
 * of its own here: callers that expect one map it first (`EISDIR`, `ENOTDIR`).
 */
export function toHostError(error: unknown, path: string): HostError {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === "string" && /^E[A-Z0-9_]+$/.test(code)) return error as HostError;
  const name = domName(error);
  const message = error instanceof Error && error.message ? error.message : name || String(error);
  const mapped = hostError(CODES[name] ?? "EIO", path ? `${path}: ${message}` : message);
  mapped.cause = error;
  return mapped;
}

/** `bytes` random bytes as hex, from `crypto.getRandomValues` (every browser with OPFS or IndexedDB has it). */
export function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buffer);
  return Array.from(buffer, (b) => b.toString(16).padStart(2, "0")).join("");
}
