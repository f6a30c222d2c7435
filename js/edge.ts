/**
 * What may cross into WebAssembly. Every argument of a core call is read here first, once,
 * iteratively, into a plain copy, and refused with `INVALID_ARGUMENT` past clear limits — so
 * no value can exhaust the core's stack or memory while it is decoded, and no getter, proxy
 * or value that changes under a second read reaches the core.
 *
 * Values are read as data, the way `JSON.stringify` reads them: an object's own enumerable
 * string keys, arrays element by element; a `Set` becomes an array and a `Map` an object
 * (its keys as strings); strings,
 * numbers, booleans, `null`, `undefined`, bigints and byte arrays (`Uint8Array`,
 * `ArrayBuffer`) are taken as they are; anything else (a function, a symbol) is passed on for
 * the core to refuse by type.
 */
import { MemdirError } from "./errors.js";

/** The limits on one core call's arguments, all together. */
export const INPUT_LIMITS = Object.freeze({
  /** Objects and arrays nested in one another, the argument itself included. */
  maxNestingLevels: 64,
  /** Values of every kind: objects, arrays, strings, numbers, … each counts one. */
  maxValues: 1_000_000,
  /**
   * Bytes: a byte array counts its length, a string 3 bytes a UTF-16 unit (the most its
   * UTF-8 form can take inside the module). 1 GiB.
   */
  maxBytes: 1 << 30,
});

interface Pending {
  value: unknown;
  /** Where the copy goes. */
  into: Record<string | number, unknown>;
  key: unknown;
  level: number;
  parent: Pending | null;
}

function pathOf(item: Pending): string {
  const parts: string[] = [];
  for (let at: Pending | null = item; at; at = at.parent) {
    parts.push(typeof at.key === "number" ? `[${at.key}]` : at.parent ? `.${String(at.key)}` : String(at.key));
  }
  parts.reverse();
  // a path through deep nesting: its start and its end
  return (parts.length > 8 ? [...parts.slice(0, 4), "…", ...parts.slice(-2)] : parts).join("");
}

function tooMany(item: Pending): never {
  return refuse(`the arguments hold more than ${INPUT_LIMITS.maxValues.toLocaleString("en")} values (at ${pathOf(item)})`);
}

function refuse(message: string, cause?: unknown): never {
  throw new MemdirError("INVALID_ARGUMENT", `invalid argument: ${message}`, cause === undefined ? undefined : { cause });
}

/**
 * A plain copy of `args` (an object naming each argument), within {@link INPUT_LIMITS};
 * throws `INVALID_ARGUMENT` naming the argument and the place when a limit is passed or a
 * property cannot be read.
 */
export function crossing<T extends Record<string, unknown>>(args: T): T {
  const out: Record<string | number, unknown> = {};
  let bytes = 0;
  // pushed last to first, so containers are filled in order
  const stack: Pending[] = Object.keys(args)
    .reverse()
    .map((key) => ({ value: args[key], into: out, key, level: 0, parent: null }));
  // values are counted when pushed, so the stack never holds more than the budget
  const budget = { values: stack.length };
  while (stack.length > 0) {
    const item = stack.pop()!;
    const { value } = item;
    let copy: unknown = value;
    if (typeof value === "string") {
      bytes += value.length * 3;
    } else if (typeof value === "object" && value !== null) {
      if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
        bytes += value.byteLength;
      } else {
        if (item.level >= INPUT_LIMITS.maxNestingLevels) {
          refuse(`${pathOf(item)} is nested more than ${INPUT_LIMITS.maxNestingLevels} levels deep (or refers to itself)`);
        }
        copy = open(value, item, stack, budget);
      }
    }
    if (bytes > INPUT_LIMITS.maxBytes) refuse(`the arguments take more than ${INPUT_LIMITS.maxBytes.toLocaleString("en")} bytes (at ${pathOf(item)})`);
    item.into[item.key as string | number] = copy;
  }
  return out as T;
}

/** An empty container for `value` and its children pushed on `stack`. */
function open(value: object, item: Pending, stack: Pending[], budget: { values: number }): unknown {
  const level = item.level + 1;
  const count = (n: number) => {
    budget.values += n;
    if (budget.values > INPUT_LIMITS.maxValues) tooMany(item);
  };
  try {
    if (Array.isArray(value) || value instanceof Set) {
      if (value instanceof Set) count(value.size);
      const source = value instanceof Set ? [...value] : value;
      const length = source.length;
      if (!(value instanceof Set)) count(length);
      const copy: unknown[] = new Array(length);
      for (let i = length - 1; i >= 0; i--) stack.push({ value: source[i], into: copy as unknown as Record<number, unknown>, key: i, level, parent: item });
      return copy;
    }
    if (value instanceof Map) {
      const copy: Record<string, unknown> = {};
      count(value.size);
      const entries = [...value];
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], into: copy, key: String(entries[i]![0]), level, parent: item });
      return copy;
    }
    const copy: Record<string, unknown> = {};
    const keys = Object.keys(value);
    count(keys.length);
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]!], into: copy, key: keys[i], level, parent: item });
    return copy;
  } catch (error) {
    if (error instanceof MemdirError) throw error;
    return refuse(`${pathOf(item)} could not be read: ${(error as Error)?.message ?? String(error)}`, error);
  }
}
