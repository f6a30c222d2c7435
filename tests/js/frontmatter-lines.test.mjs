// Frontmatter that is not YAML but that a person (and Claude) reads: a value that starts with a
// quoted phrase and goes on lost every field of the file (issue 21: 3 real files). On a real
// folder: the scan keeps every field, doctor warns without calling it malformed, recall finds it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { openMemory } from "memdir";

const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
function folder(files) {
  const dir = mkdtempSync(join(tmpdir(), "memdir-frontmatter-"));
  temps.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const NAME = '"Unify the rule" directives need a full-surface audit';

test("a name that starts with a quoted phrase and goes on: every field kept, a warning, found by recall", async () => {
  const dir = folder({
    "MEMORY.md": "- [Rule audit](feedback_rule_audit.md) — unify the rule directives\n- [Pool](project_pool.md) — connection pool\n",
    "feedback_rule_audit.md": `---\nname: ${NAME}\ndescription: The lint rule directives are split across three packages; audit them together\nmetadata:\n  node_type: memory\n  type: feedback\n  originSessionId: 5808ba74-0000-4000-8000-00000000cafe\n---\nAudit every package.\n`,
    // CRLF, a BOM, ': ' in a value beside a value YAML cannot read
    "project_pool.md": `\ufeff---\r\nname: "Pool" sizing\r\ndescription: Fix: use the pool, never a connection per request\r\ntype: project\r\n---\r\nbody\r\n`,
  });
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const scan = await memory.scan();
  const byPath = Object.fromEntries(scan.memories.map((m) => [m.path, m]));
  assert.equal(byPath["feedback_rule_audit.md"].name, NAME);
  assert.equal(byPath["feedback_rule_audit.md"].description, "The lint rule directives are split across three packages; audit them together");
  assert.equal(byPath["feedback_rule_audit.md"].type, "feedback");
  assert.equal(byPath["feedback_rule_audit.md"].metadata.originSessionId, "5808ba74-0000-4000-8000-00000000cafe");
  assert.deepEqual([byPath["project_pool.md"].name, byPath["project_pool.md"].description, byPath["project_pool.md"].type], ['"Pool" sizing', "Fix: use the pool, never a connection per request", "project"]);
  // in the scan's order, newest first: the two files' mtimes may differ by a millisecond, so by path here
  assert.deepEqual(scan.diagnostics.map((d) => [d.path, d.code, d.line]).sort((a, b) => a[0].localeCompare(b[0])), [
    ["feedback_rule_audit.md", "frontmatter_recovered", 2],
    ["project_pool.md", "frontmatter_recovered", 2],
  ]);
  const report = await memory.doctor();
  const codes = report.findings.filter((f) => f.file !== "MEMORY.md").map((f) => [f.file, f.code]);
  assert.deepEqual(codes.filter(([, c]) => c.startsWith("frontmatter") || c.startsWith("description")), [
    ["feedback_rule_audit.md", "frontmatter_recovered"],
    ["project_pool.md", "frontmatter_recovered"],
  ]);
  const recalled = await memory.recall("audit the lint rule directives");
  assert.deepEqual(recalled.memories.map((m) => m.path), ["feedback_rule_audit.md"]);
});
