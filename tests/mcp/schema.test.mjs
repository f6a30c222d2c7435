// The memory tool's input JSON Schema (`memoryToolInputSchema()`, `memory.tool().inputSchema`)
// against the core's own decoder: every command of tests/fixtures/tool.json and toolplan.json
// that the core decodes validates, every one it refuses as malformed does not. The verdict is
// the core's, asked live (planToolCommand); the validator is a real one (Ajv, strict, draft-07
// and 2020-12), the same library the MCP SDK validates with.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import Ajv from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import { memoryToolInputSchema, openMemory, InMemoryHost } from "memdir";
import { planToolCommand, runToolCommand } from "../../pkg/internal.js";
import { expand } from "../fixtures/check.mjs";

const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), "utf8")).cases;
const commands = [...fixture("tool.json"), ...fixture("toolplan.json")]
  .filter((c) => c.call === "runToolCommand" || c.call === "planToolCommand")
  .map((c) => ({ name: c.name, command: expand(c.args[0]) }));

/** Whether the core refuses `command` as malformed (its shape), not for what it asks. */
function refusedShape(command) {
  const plan = planToolCommand(command);
  if (plan.result === null) return false;
  assert.equal(plan.result.isError, true);
  return /^(Unknown memory command |Invalid `\w+` command: )/.test(plan.result.text);
}

const validators = [Ajv, Ajv2020].map((A) => {
  const ajv = new A({ strict: true, allowUnionTypes: true, allErrors: true });
  return { exact: ajv.compile(memoryToolInputSchema()), flat: ajv.compile(memoryToolInputSchema({ flat: true })), draft: A === Ajv ? "draft-07" : "2020-12" };
});

test("every fixture command the core decodes validates against the schema; every one it refuses as malformed does not", () => {
  let accepted = 0;
  let refused = 0;
  for (const { name, command } of commands) {
    const malformed = refusedShape(command);
    malformed ? refused++ : accepted++;
    for (const v of validators) {
      assert.equal(v.exact(command), !malformed, `${v.draft}: ${name}: ${JSON.stringify(command).slice(0, 120)} ${JSON.stringify(v.exact.errors)}`);
      // the flat schema (no root oneOf) is looser: it takes all the core takes
      if (!malformed) assert.equal(v.flat(command), true, `${v.draft} flat: ${name}`);
    }
  }
  assert.ok(accepted >= 60, `${accepted} accepted`);
  assert.ok(refused >= 15, `${refused} refused as malformed`);
});

test("generated commands: the schema and the decoder agree field by field (missing, null, wrong type, extra keys)", () => {
  const schema = memoryToolInputSchema();
  const good = { path: "/memories/a.md", old_path: "/memories/a.md", new_path: "/memories/b.md", file_text: "x", old_str: "x", new_str: "y", insert_line: 0, insert_text: "z", view_range: [1, -1] };
  const wrong = [true, 1.5, 7, "x", [1, 2], [1.5, 2], [1, "x"], { a: 1 }, null];
  let checked = 0;
  for (const variant of schema.oneOf) {
    const fields = Object.keys(variant.properties).filter((k) => k !== "command");
    const full = { command: variant.title, ...Object.fromEntries(fields.map((f) => [f, good[f]])) };
    const variants = [full, { ...full, extra_key: { any: "thing" } }];
    for (const f of fields) {
      const { [f]: _, ...without } = full;
      variants.push(without);
      for (const w of wrong) variants.push({ ...full, [f]: w });
    }
    variants.push({ ...full, command: variant.title.toUpperCase() }, { ...full, command: 1 });
    for (const command of variants) {
      const malformed = refusedShape(command);
      for (const v of validators) assert.equal(v.exact(command), !malformed, `${v.draft}: ${JSON.stringify(command)}`);
      checked++;
    }
  }
  assert.ok(checked >= 120, `${checked} commands`);
});

test("what the schema refuses beyond the decoder, the command refuses too: view_range of other lengths, negative lines, numbers past 2^53", () => {
  const snapshot = { entries: [{ path: "a.md", kind: "file", size: 6, mtimeMs: 0 }], contents: { "a.md": "a\nb\nc\n" } };
  const cases = [
    [{ command: "view", path: "/memories/a.md", view_range: [1] }, /It should be a list of two integers/],
    [{ command: "view", path: "/memories/a.md", view_range: [1, 2, 3] }, /It should be a list of two integers/],
    [{ command: "view", path: "/memories/a.md", view_range: [-2, 1] }, /Its first element `-2` should be within the range/],
    [{ command: "insert", path: "/memories/a.md", insert_line: -1, insert_text: "x" }, /Invalid `insert_line` parameter: -1/],
    [{ command: "insert", path: "/memories/a.md", insert_line: 2 ** 53, insert_text: "x" }, /`insert_line` must be a whole number/],
  ];
  for (const [command, refusal] of cases) {
    for (const v of validators) assert.equal(v.exact(command), false, `${v.draft}: ${JSON.stringify(command)}`);
    const result = runToolCommand(command, snapshot);
    assert.equal(result.isError, true);
    assert.match(result.text, refusal);
  }
  // and the extremes it takes, the command takes
  for (const v of validators) assert.equal(v.exact({ command: "insert", path: "/memories/a.md", insert_line: 2 ** 53 - 1, insert_text: "x" }), true);
  assert.equal(refusedShape({ command: "insert", path: "/memories/a.md", insert_line: 2 ** 53 - 1, insert_text: "x" }), false);
});

test("memory.tool().inputSchema is the same schema; its flat form is it without the root oneOf", async () => {
  const memory = await openMemory({ host: new InMemoryHost(), selector: { provider: "lexical" } });
  const tool = memory.tool();
  assert.deepEqual(tool.inputSchema, memoryToolInputSchema());
  assert.notEqual(tool.inputSchema, tool.inputSchema, "a fresh copy each time: a caller may change its own");
  const { oneOf, ...flat } = memoryToolInputSchema();
  assert.equal(oneOf.length, 6);
  assert.deepEqual(memoryToolInputSchema({ flat: true }), flat);
  assert.deepEqual(Object.keys(flat.properties).sort(), ["command", "file_text", "insert_line", "insert_text", "new_path", "new_str", "old_path", "old_str", "path", "view_range"]);
  for (const line of ["- view: path, view_range? — ", "- str_replace: path, old_str, new_str? — ", "- rename: old_path, new_path — "]) assert.ok(flat.description.includes(line), line);
  // a tool loop: the model's input validated by the schema runs as the core decides
  const input = { command: "create", path: "/memories/project_q3.md", file_text: "Q3 plan\n" };
  assert.ok(validators[0].exact(input));
  assert.deepEqual(await tool.execute(input), { content: "File created successfully at: /memories/project_q3.md", isError: false });
});
