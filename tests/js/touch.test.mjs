// `touch` (rules §4.7): a memory confirmed true now. `memdir touch` records metadata.modified,
// every other byte kept; the staleness reminder and doctor's stale_core_memory clear; undo
// takes it back; the MCP tool does the same; what cannot be touched is refused, nothing written.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { defaultLimits, openMemory } from "memdir";
import { memdirIn } from "../cli/helpers.mjs";
import { callTool, mcpTools } from "../../pkg/mcp/tools.js";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-touch-"));
  temps.push(d);
  return d;
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const DAY = 86_400_000;
const old = new Date(Date.now() - 120 * DAY);
const ROLE = `---\r\nname: Role\r\ndescription: The user is a data scientist on the ads team # team of 4\r\nmetadata:\r\n  node_type: memory\r\n  type: user\r\n  modified: ${old.toISOString()}\r\n---\r\n\r\nThe user is a data scientist.\r\n`;

function seeded() {
  const dir = temp();
  writeFileSync(join(dir, "user_role.md"), ROLE);
  writeFileSync(join(dir, "MEMORY.md"), "- [Role](user_role.md) — The user is a data scientist on the ads team\n");
  utimesSync(join(dir, "user_role.md"), old, old);
  return dir;
}
const stale = async (dir) => {
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const report = await memory.doctor();
  const recalled = await memory.recall("what team is the data scientist on?");
  return { doctor: report.findings.filter((f) => f.code === "stale_core_memory").map((f) => f.message), reminder: /This memory is \d+ days old/.test(recalled.reminders.join("")) };
};

test("memdir touch clears the stale warning and the staleness reminder, changes one line, and undo takes it back", async () => {
  const dir = seeded();
  const before = await stale(dir);
  assert.equal(before.doctor.length, 1);
  assert.match(before.doctor[0], /`memdir touch user_role\.md` records that it was checked/);
  assert.equal(before.reminder, true);
  const r = await memdirIn(["touch", "user_role.md", "--dir", dir]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^touched user_role\.md/);
  const text = readFileSync(join(dir, "user_role.md"), "utf8");
  const changed = text.split("\r\n").filter((l, i) => l !== ROLE.split("\r\n")[i]);
  assert.equal(changed.length, 1, "one line changed");
  assert.match(changed[0], /^ {2}modified: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Math.abs(Date.parse(changed[0].split(": ")[1]) - Date.now()) < 60_000);
  assert.deepEqual(await stale(dir), { doctor: [], reminder: false });
  const undone = await memdirIn(["undo", "--last", "--yes", "--dir", dir]);
  assert.equal(undone.code, 0, undone.err);
  assert.equal(readFileSync(join(dir, "user_role.md"), "utf8"), ROLE);
});

test("a memory with no metadata block gets one; the MCP touch tool does the same as the CLI", async () => {
  const dir = temp();
  writeFileSync(join(dir, "feedback_tests.md"), "---\nname: Tests\ndescription: Integration tests hit a real database\ntype: feedback\n---\nReal DB.\n");
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const tool = mcpTools({ memory, selector: { provider: "lexical" }, readOnly: false, limits: defaultLimits() }).find((t) => t.name === "touch");
  const r = await callTool(tool, { file: "feedback_tests.md" });
  assert.equal(r.isError, false, r.text);
  assert.match(readFileSync(join(dir, "feedback_tests.md"), "utf8"), /^---\nname: Tests\ndescription: Integration tests hit a real database\ntype: feedback\nmetadata:\n {2}modified: \S+\n---\nReal DB\.\n$/);
  assert.match((await callTool(tool, { file: "nope.md" })).text, /^NOT_FOUND: /);
});

test("what cannot be touched is refused and nothing is written", async () => {
  const dir = seeded();
  writeFileSync(join(dir, "plain.md"), "Just a note.\n");
  const memory = await openMemory({ dir });
  const before = readFileSync(join(dir, "MEMORY.md"), "utf8");
  await assert.rejects(memory.touch("plain.md"), { code: "INVALID_MEMORY" });
  await assert.rejects(memory.touch("MEMORY.md"), { code: "INVALID_MEMORY" });
  await assert.rejects(memory.touch("../outside.md"), { code: "UNSAFE_PATH" });
  await assert.rejects(memory.touch({ file: "user_role.md", ifMatch: "0".repeat(64) }), { code: "CHANGED" });
  await assert.rejects(memory.touch({}), { code: "INVALID_ARGUMENT" });
  assert.equal(readFileSync(join(dir, "plain.md"), "utf8"), "Just a note.\n");
  assert.equal(readFileSync(join(dir, "user_role.md"), "utf8"), ROLE);
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), before);
  const cli = await memdirIn(["touch", "plain.md", "--dir", dir]);
  assert.equal(cli.code, 1);
  assert.match(cli.err, /touch refused \(INVALID_MEMORY\)/);
});
