// The part of node:assert/strict that the shared host cases use (tests/js/host-conformance.mjs),
// for a browser page, where node:assert does not exist: equal, deepEqual, ok, match, rejects, fail.
// Strict as Node's: `Object.is` for values, the same own keys (an `undefined` one included), the
// same prototype, arrays and typed arrays element by element. No Node APIs here.

export class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = "AssertionError";
  }
}

const show = (v) => {
  try {
    const s = JSON.stringify(v, (_, x) => (x instanceof Uint8Array ? `Uint8Array[${Array.from(x)}]` : x === undefined ? "<undefined>" : x));
    return s === undefined ? String(v) : s.length > 400 ? `${s.slice(0, 400)}…` : s;
  } catch {
    return String(v);
  }
};

const fail = (message, fallback) => {
  throw new AssertionError(message === undefined ? fallback : message instanceof Error ? message.message : String(message));
};

function same(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (ArrayBuffer.isView(a)) return a.length === b.length && Array.prototype.every.call(a, (x, i) => Object.is(x, b[i]));
  if (Array.isArray(a) && a.length !== b.length) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

/** Whether `error` matches `expected` as `assert.rejects` reads it: an object of properties, a function, a RegExp, a class. */
function matches(error, expected) {
  if (expected === undefined) return true;
  if (expected instanceof RegExp) return expected.test(String(error?.message ?? error));
  if (typeof expected === "function") return expected === Error || expected.prototype instanceof Error ? error instanceof expected : expected(error) === true;
  return Object.keys(expected).every((k) => (expected[k] instanceof RegExp ? expected[k].test(error?.[k]) : same(error?.[k], expected[k])));
}

export const assert = {
  equal(actual, expected, message) {
    if (!Object.is(actual, expected)) fail(message, `expected ${show(expected)}, got ${show(actual)}`);
  },
  notEqual(actual, expected, message) {
    if (Object.is(actual, expected)) fail(message, `expected anything but ${show(expected)}`);
  },
  deepEqual(actual, expected, message) {
    if (!same(actual, expected)) fail(message, `expected ${show(expected)}, got ${show(actual)}`);
  },
  ok(value, message) {
    if (!value) fail(message, `expected a truthy value, got ${show(value)}`);
  },
  match(string, regexp, message) {
    if (typeof string !== "string" || !regexp.test(string)) fail(message, `expected ${show(string)} to match ${regexp}`);
  },
  async rejects(promise, expected, message) {
    let error;
    try {
      await (typeof promise === "function" ? promise() : promise);
    } catch (e) {
      error = e;
    }
    if (error === undefined) fail(message, `expected a rejection${expected ? ` matching ${show(expected)}` : ""}, but it resolved`);
    if (!matches(error, expected)) fail(message, `the rejection ${show({ name: error?.name, code: error?.code, message: error?.message })} does not match ${show(expected)}`);
  },
  fail(message) {
    fail(message, "failed");
  },
};

export default assert;
