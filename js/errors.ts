/**
 * The one error type memdir throws, everywhere. `code` is stable and meant for branching:
 *
 * - `INVALID_ARGUMENT`: an argument had the wrong type or shape, an unknown key (at any
 *   depth), or passed the limits on what crosses into the core (`INPUT_LIMITS`: 64 levels of
 *   nesting, 1,000,000 values, 1 GiB);
 * - `UNSAFE_PATH`: a path that could leave the memory directory (checked before any I/O);
 * - write refusals (nothing was written): `INVALID_MEMORY`, `SECRET_DETECTED`, `LIMIT_EXCEEDED`,
 *   `DUPLICATE_MEMORY`, `INDEX_ONLY`, `NOT_FOUND`, `TOO_LARGE` (a file it must rewrite is over
 *   `maxFileBytes`: refused, never cut), `INVALID_UTF8` (a file it must rewrite is not UTF-8);
 * - `LOCKED`: another writer held the directory's lock past `lock.timeoutMs`;
 * - `NOT_A_DIRECTORY`: a write found a file where the memory directory (or a folder above it)
 *   should be; nothing was written.
 * - `CHANGED`: the directory changed between `planFixes` and `applyFixes`, or a file changed
 *   while a write read it (nothing was written);
 * - `IO_ERROR`: the host (file system, VS Code, …) failed. `errno` holds the host's own code
 *   (`ENOENT`, `EACCES`, `ENAMETOOLONG`, …) and `path` the path relative to the memory
 *   directory; the message names that relative path, never the absolute host path (the
 *   host's raw error is the `cause`, for logs);
 * - `NOT_INITIALIZED`: the browser build was used before `await init()`, or Node's entry, bundled
 *   without the `module` condition, found no `memdir.wasm` beside it (until `initSync(bytes)`);
 * - `WASM_TRAPPED`: the WebAssembly module trapped on this call (a bug: please report it);
 *   it was re-instantiated, and later calls work;
 * - `INTERNAL`: anything else unexpected.
 *
 * Model, network and file problems during recall are never thrown: recall returns
 * `outcome: "failed"` with the reason. The memory tool never throws either: a problem is an
 * error result, whose text shows `/memories/…` paths only.
 */
import type { MemdirErrorCode } from "./generated/types.js";

export type { MemdirErrorCode };

export class MemdirError extends Error {
  override name = "MemdirError";
  /** Stable: branch on it (`error.code === "LOCKED"`). */
  readonly code: MemdirErrorCode;
  /** For `IO_ERROR`: the host's error code (`ENOENT`, `EACCES`, `ENAMETOOLONG`, …). */
  readonly errno?: string;
  /** For `IO_ERROR`: the path the host failed on, relative to the memory directory. */
  readonly path?: string;
  constructor(code: MemdirErrorCode, message: string, options?: { cause?: unknown; errno?: string; path?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options?.errno !== undefined) this.errno = options.errno;
    if (options?.path !== undefined) this.path = options.path;
  }
}

/** Turns whatever a wasm call threw into a `MemdirError`. */
export function toMemdirError(error: unknown): MemdirError {
  if (error instanceof MemdirError) return error;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") return new MemdirError(code as MemdirErrorCode, error.message, { cause: error }); // the core's codes are MemdirErrorCodes
    return new MemdirError("INTERNAL", error.message, { cause: error });
  }
  return new MemdirError("INTERNAL", String(error), { cause: error });
}
