// One name per setting, carried mechanically: the API's camelCase name (which serde gives the
// Rust field), its kebab-case CLI option and its snake_case MCP argument. And one default:
// fallback off in the API, the CLI and the MCP server alike.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { mcpTools } from "../../pkg/mcp/tools.js";
import { init } from "../../pkg/entry/node.js";

await init();
import { DEFAULT_LIMITS } from "../../pkg/generated/defaults.js";
import { memdirIn } from "./helpers.mjs";

const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const generated = readFileSync(new URL("../../js/generated/types.ts", import.meta.url), "utf8");

// [API name, the generated (Rust) type that holds it (null: a JS-only setting), the command that
// takes it, the MCP tool that takes it]
const SETTINGS = [
  ["staleCoreDays", "DoctorInput", "doctor", "doctor"],
  ["maxFiles", "Limits", "scan", null],
  ["fallback", null, "recall", null],
  ["provider", null, "recall", null],
  ["model", null, "recall", null],
  ["baseUrl", null, "recall", null],
  ["messages", "ExtractionInput", "extract", "extract"],
  ["mode", null, "extract", "extract"],
  ["supersedes", "RememberInput", "remember", "remember"],
  ["maxFilesChanged", null, "consolidate", "consolidate"],
  ["replace", null, "import", null],
];
/** The option lines of `memdir <command> --help`, by name: `--name` → its line(s). */
async function optionsOf(command) {
  const r = await memdirIn([command, "--help"]);
  assert.equal(r.code, 0, r.err);
  const text = r.out.split("\nOptions:\n")[1].split("\n\n")[0];
  const options = new Map();
  let current;
  for (const line of text.split("\n")) {
    const m = /^ {2}(?:-\w, )?--([a-z-]+)/.exec(line);
    if (m) options.set((current = m[1]), line);
    else options.set(current, `${options.get(current)}\n${line}`);
  }
  return options;
}

test("each setting has one name: camelCase in the API and Rust, kebab-case in the CLI (and MCP's command line), snake_case as an MCP argument", async () => {
  const tools = mcpTools({ memory: { tool: () => ({}) }, selector: { provider: "lexical" }, readOnly: false, limits: DEFAULT_LIMITS });
  for (const [api, rustType, command, tool] of SETTINGS) {
    assert.ok((await optionsOf(command)).has(kebab(api)), `memdir ${command} has --${kebab(api)} for ${api}`);
    if (rustType) {
      const body = generated.split(`export type ${rustType} = {`)[1]?.split("export type")[0] ?? "";
      assert.match(body, new RegExp(`\\b${api}\\??:`), `${rustType} has ${api}`);
    }
    if (tool) {
      const schema = tools.find((t) => t.name === tool).inputSchema;
      assert.ok(Object.hasOwn(schema.properties, snake(api)), `MCP ${tool} takes ${snake(api)}`);
    }
  }
  // every MCP argument is snake_case, every CLI option kebab-case
  for (const t of tools) for (const name of Object.keys(t.inputSchema.properties)) assert.match(name, /^[a-z]+(_[a-z]+)*$/, `${t.name}.${name}`);
  for (const command of ["scan", "recall", "doctor", "remember", "mcp"]) for (const name of (await optionsOf(command)).keys()) assert.match(name, /^[a-z]+(-[a-z]+)*$/, name);
});

test("memdir mcp reads the CLI's option table: recall's selector options, word for word, and the CLI's checks", async () => {
  const mcp = await optionsOf("mcp");
  const recall = await optionsOf("recall");
  for (const name of ["provider", "model", "base-url", "timeout", "fallback", "max-files", "dir", "project"]) assert.equal(mcp.get(name), recall.get(name), `--${name}`);
  assert.ok(mcp.has("read-only") && mcp.has("no-index"));
  // the same refusal, the same words, from the same code
  for (const args of [["--max-files", "0"], ["--timeout", "-1"], ["--provider", "gemini"], ["--base-url", "localhost:11434"]]) {
    const a = await memdirIn(["mcp", ...args]);
    const b = await memdirIn(["recall", "two words", ...args]);
    assert.equal(a.code, 2, a.err);
    assert.equal(a.err.split("\n")[0], b.err.split("\n")[0], args.join(" "));
  }
});

test("fallback is off by default in the CLI as in the API: a provider that cannot be used is an error, not a quiet lexical choice", async () => {
  const r = await memdirIn(["recall", "two words", "--provider", "anthropic"], { env: { ANTHROPIC_API_KEY: "" } });
  assert.equal(r.code, 2);
  assert.match(r.err, /--provider anthropic needs ANTHROPIC_API_KEY; set it, or add --fallback/);
  const m = await memdirIn(["mcp", "--provider", "anthropic"], { env: { ANTHROPIC_API_KEY: "" } });
  assert.equal(m.code, 2);
  assert.equal(m.err.split("\n")[0], r.err.split("\n")[0]);
});
