/**
 * The arguments of an MCP tool call, checked against the tool's own declared schema before
 * anything runs: the schemas here are flat (strings, whole numbers, booleans, lists of
 * strings), so this small checker reads them exactly as a client's validator would. A bad
 * argument is an error result the model can correct, never an exception in the server.
 */

/** A flat JSON Schema object, as the tools declare it. */
export interface ObjectSchema {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  // a whole number past 2^53 is not one a count can be: named by its value
  if (typeof value === "number") return Number.isSafeInteger(value) ? "a whole number" : Number.isInteger(value) ? String(value) : "a number";
  return `a ${typeof value}`;
}

/** Why `value` does not fit `schema` (one property's schema), or `null` when it does. */
function fieldProblem(name: string, schema: Record<string, unknown>, value: unknown): string | null {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (value === null && types.includes("null")) return null;
  const expected = types.filter((t) => t !== "null")[0];
  const ok =
    expected === "string" ? typeof value === "string" :
    expected === "boolean" ? typeof value === "boolean" :
    expected === "integer" ? Number.isSafeInteger(value) :
    expected === "array" ? Array.isArray(value) :
    true;
  if (!ok) return `\`${name}\` must be ${expected === "integer" ? "a whole number" : expected === "array" ? "a list" : `a ${String(expected)}`}, not ${typeOf(value)}`;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return `\`${name}\` must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}, not ${JSON.stringify(value)}`;
  if (typeof schema.minimum === "number" && (value as number) < schema.minimum) return `\`${name}\` must be at least ${schema.minimum}, not ${String(value)}`;
  if (typeof schema.minLength === "number" && (value as string).length < schema.minLength) return `\`${name}\` must not be empty`;
  if (expected === "array") {
    const items = (schema.items ?? {}) as Record<string, unknown>;
    for (const [i, item] of (value as unknown[]).entries()) {
      const problem = fieldProblem(`${name}[${i}]`, items, item);
      if (problem) return problem;
    }
  }
  return null;
}

/** Why `args` do not fit `schema`, or `null` when they do. */
export function argsProblem(schema: ObjectSchema, args: unknown): string | null {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return `the arguments must be an object, not ${typeOf(args)}`;
  const given = args as Record<string, unknown>;
  // own properties only: `constructor`, `__proto__`, `toString` are every object's by its prototype
  const own = (o: object, name: string) => Object.prototype.hasOwnProperty.call(o, name);
  for (const name of schema.required ?? []) if (!own(given, name) || given[name] === undefined || given[name] === null) return `missing field \`${name}\``;
  for (const [name, value] of Object.entries(given)) {
    const field = own(schema.properties, name) ? schema.properties[name] : undefined;
    if (!field) {
      if (schema.additionalProperties === false) return `unknown field \`${name}\` (expected ${Object.keys(schema.properties).map((k) => `\`${k}\``).join(", ")})`;
      continue;
    }
    if (value === undefined || value === null) continue; // an optional field left empty: a model's habit
    const problem = fieldProblem(name, field, value);
    if (problem) return problem;
  }
  return null;
}
