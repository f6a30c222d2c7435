// Generated from the Rust types by `MEMDIR_UPDATE_TYPES=1 cargo test --lib ts_types`
// (src/ts_types.rs). Do not edit: change the Rust type and regenerate.
import type { Limits, MemoryType, SelectorDefaults } from "./types.js";

/** The core's default limits (`defaultLimits()` without loading the module). */
export const DEFAULT_LIMITS: Readonly<Limits> = {"maxFileBytes":1048576,"maxFiles":200,"maxHeaderLines":30,"maxIndexLines":200,"maxIndexUtf16":25000,"maxInjectBytes":4096,"maxInjectLines":200,"maxOutputTokens":256,"maxSelected":5,"maxSessionUtf16":61440};

/** The four memory types, as the core reads them (`type:` in a memory's frontmatter). */
export const MEMORY_TYPES: readonly MemoryType[] = ["user","feedback","project","reference"];

/** The side query's defaults (`selectorDefaults()` without loading the module). */
export const SELECTOR_DEFAULTS: Readonly<SelectorDefaults> = {"maxResponseBytes":1048576,"maxRetries":2,"timeoutMs":10000};
