/**
 * The one error type memdir throws. `code` is stable and meant for branching:
 *
 * - `INVALID_ARGUMENT`: an argument had the wrong type or shape;
 * - `UNSAFE_PATH`: a path that could leave the memory directory;
 * - `NOT_INITIALIZED`: the browser build was used before `await init()`;
 * - `WASM_POISONED`: the WebAssembly module trapped earlier and was shut off;
 * - write refusals (nothing was written): `INVALID_MEMORY`, `SECRET_DETECTED`, `LIMIT_EXCEEDED`,
 *   `DUPLICATE_MEMORY`, `INDEX_ONLY`, `NOT_FOUND`;
 * - `LOCKED`: another writer held the directory's lock past `lock.timeoutMs`;
 * - `NOT_A_DIRECTORY`: a write found a file where the memory directory (or a folder above it)
 *   should be; nothing was written.
 *
 * Model, network and file problems during recall are never thrown: recall returns
 * `outcome: "failed"` with the reason.
 */
export class MemdirError extends Error {
  override name = "MemdirError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Turns whatever a wasm call threw into a `MemdirError`. */
export function toMemdirError(error: unknown): MemdirError {
  if (error instanceof MemdirError) return error;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") return new MemdirError(code, error.message, { cause: error });
    return new MemdirError("INTERNAL", error.message, { cause: error });
  }
  return new MemdirError("INTERNAL", String(error), { cause: error });
}
