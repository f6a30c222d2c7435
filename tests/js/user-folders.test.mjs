// Memory folders shaped like the ones people have (Claude Code's, edited by hand on several
// systems): what the scan reads from each file, and what doctor says about it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemoryHost, openMemory } from "memdir";

const open = (files) => openMemory({ host: new InMemoryHost(files), selector: { provider: "lexical" } });
const utf16le = (text) => new Uint8Array([0xff, 0xfe, ...new Uint8Array(Buffer.from(text, "utf16le"))]);

test("a tab after a key's colon is YAML whitespace: the fields are read, not refused as malformed", async () => {
  const memory = await open({
    "MEMORY.md": "- [Tabbed](project_tab.md) — tabs\n",
    "project_tab.md": "---\nname:\tTabbed name\ndescription:\tTab separated description of the deploy\ntype:\tproject\nmetadata:\n  node_type:\tmemory\n---\nbody\n",
  });
  const scan = await memory.scan();
  assert.deepEqual(scan.diagnostics, []);
  const [m] = scan.memories;
  assert.equal(m.name, "Tabbed name");
  assert.equal(m.description, "Tab separated description of the deploy");
  assert.equal(m.type, "project");
});

test("a MEMORY.md saved as UTF-16 (Windows PowerShell's `>`) is reported as such, and doctor offers no index fix it cannot make", async () => {
  const memory = await open({
    "MEMORY.md": utf16le("- [Alpha](user_alpha.md) \u2014 alpha\r\n"),
    "user_alpha.md": "---\nname: Alpha\ndescription: The user deploys the alpha service from a laptop\ntype: user\n---\nbody\n",
  });
  const report = await memory.doctor();
  const index = report.findings.filter((f) => f.file === "MEMORY.md");
  assert.deepEqual(index.map((f) => f.code), ["invalid_utf8"]);
  assert.equal(index[0].severity, "error");
  assert.match(index[0].message, /UTF-16/);
  assert.equal(report.fixable, 0, JSON.stringify(report.findings.filter((f) => f.fix)));
  const plan = await memory.planFixes();
  assert.equal(plan.effects.length, 0);
});

test("once --fix has filled the index to its 200 lines, the files left out are no longer offered as fixable", async () => {
  const files = {};
  const lines = [];
  for (let i = 0; i < 205; i++) {
    const p = `project_t${String(i).padStart(3, "0")}.md`;
    files[p] = `---\nname: T${i}\ndescription: Topic ${i} covers the billing subsystem variant ${i}\ntype: project\n---\nb\n`;
    if (i < 198) lines.push(`- [T${i}](${p}) — topic ${i}`);
  }
  files["MEMORY.md"] = lines.join("\n") + "\n";
  const memory = await open(files);
  const plan = await memory.planFixes();
  assert.equal(plan.fixed, 2);
  await memory.applyFixes(plan);
  const report = await memory.doctor();
  assert.equal(report.findings.filter((f) => f.code === "not_indexed").length, 5);
  assert.equal(report.fixable, 0, "doctor would say `5 fixable`, and --fix would say `nothing to fix`");
  assert.equal((await memory.planFixes()).effects.length, 0);
});

test("remember with a long name writes an index line doctor takes as it is: one short line, the title shortened, the file keeping the whole name", async () => {
  const memory = await open({ "MEMORY.md": "" });
  const name = "Deploy checklist for the staging cluster [eu-west] with the on-call rotation and the database migration order";
  const written = await memory.remember({ type: "project", name, description: "what to run, in which order, and who to call when a step fails", body: "Steps." });
  const text = new TextDecoder().decode(await memory.host.readFile("MEMORY.md", 1 << 20));
  const entry = text.split("\n").find((l) => l.includes(written.file));
  assert.ok(entry.length <= 150, `${entry.length}: ${entry}`);
  assert.match(entry, /…\]\(/, "the title is shortened");
  const report = await memory.doctor();
  assert.deepEqual(report.findings.filter((f) => f.code === "entry_too_long"), []);
  const [m] = (await memory.scan()).memories;
  assert.equal(m.name, name, "the topic file keeps the whole name");
});
