// Consolidation (rules §4.7) on the real file system: a folder with two near-duplicate memories
// and a fact a newer memory replaced. The diff comes first (suggest writes nothing); applied, the
// run loses no word (counted here, independently of the core's ledger) and is one change undo
// takes back byte for byte; a hostile answer writes nothing it should not; one run at a time;
// the schedule runs it on its own; the CLI and the MCP tool do the same.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { defaultLimits, openMemory } from "memdir";
import { memdirIn } from "../cli/helpers.mjs";
import { machine } from "./machine.mjs";
import { callTool, mcpTools } from "../../pkg/mcp/tools.js";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-consolidate-"));
  temps.push(d);
  return d;
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const fm = (name, description, type, body) => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;
const FILES = {
  "MEMORY.md": "# Memory\n- [Tests](feedback_tests.md) — Integration tests hit a real database\n- [Testing](feedback_testing.md) — Integration tests hit a real database, never mocks\n- [Deploys](project_deploys.md) — Deploys happen on Tuesdays\n- [Deploy day](project_deploy_day.md) — Deploys moved to Thursdays in March\n",
  "feedback_tests.md": fm("Tests", "Integration tests hit a real database", "feedback", "Use a real Postgres for integration tests."),
  "feedback_testing.md": fm("Testing", "Integration tests hit a real database, never mocks", "feedback", "Never mock the database: mocks hid a broken migration in Q3."),
  "project_deploys.md": fm("Deploys", "Deploys happen on Tuesdays", "project", "We deploy on Tuesdays after the freeze review."),
  "project_deploy_day.md": fm("Deploy day", "Deploys moved to Thursdays in March", "project", "Since 2026-03-01 deploys happen on Thursdays."),
};
function seeded() {
  const dir = temp();
  for (const [p, t] of Object.entries(FILES)) writeFileSync(join(dir, p), t);
  return dir;
}
function tree(dir) {
  return Object.fromEntries(readdirSync(dir).filter((f) => !f.startsWith(".memdir")).sort().map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}
/** Every word (letters and digits, lower-cased) of the folder's memories and index, frontmatter keys and link targets aside. */
function words(files) {
  const out = new Set();
  for (const text of Object.values(files)) {
    const said = text.replace(/^---\n[\s\S]*?\n---\n/, (head) => head.split("\n").filter((l) => /^(name|description):/.test(l)).map((l) => l.replace(/^\w+:/, "")).join("\n")).replace(/\]\([^)]*\)/g, "]");
    for (const w of said.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) out.add(w);
  }
  return out;
}
const GOOD = {
  merges: [{ files: ["feedback_tests.md", "feedback_testing.md"], file: "feedback_testing.md", type: "feedback", name: "Testing", description: "Integration tests hit a real database, never mocks",
    body: "Tests: use a real Postgres for integration tests. Never mock the database: mocks hid a broken migration in Q3." }],
  supersessions: [{ file: "project_deploys.md", by: "project_deploy_day.md" }],
  removals: [],
  index: [],
};
const answering = (answer) => async () => (typeof answer === "string" ? answer : JSON.stringify(answer));

test("the diff first, nothing written; applied, no word is lost and undo takes it all back", async () => {
  const dir = seeded();
  const before = tree(dir);
  const memory = await openMemory({ dir, selector: answering(GOOD) });
  const proposed = await memory.consolidate();
  assert.equal(proposed.outcome, "proposed");
  assert.deepEqual(tree(dir), before, "suggest writes nothing");
  assert.match(proposed.diff, /^--- a\/MEMORY\.md$/m);
  assert.match(proposed.diff, /^--- a\/feedback_tests\.md\n\+\+\+ \/dev\/null$/m);
  assert.match(proposed.diff, /^\+superseded_by: project_deploy_day\.md$/m);
  assert.deepEqual(proposed.changes.map((c) => c.kind), ["merge", "supersede"]);

  const done = await memory.consolidate({ mode: "auto" });
  assert.equal(done.outcome, "consolidated", done.error);
  const after = tree(dir);
  assert.deepEqual(Object.keys(after), ["MEMORY.md", "feedback_testing.md", "project_deploy_day.md", "project_deploys.md"]);
  const lost = [...words(before)].filter((w) => !words(after).has(w));
  assert.deepEqual(lost, [], "no word of the folder is lost");
  assert.doesNotMatch(after["MEMORY.md"], /feedback_tests\.md|\(project_deploys\.md\)/);
  assert.match(after["project_deploys.md"], /^superseded_by: project_deploy_day\.md$/m);
  const [change] = await memory.history();
  assert.equal(change.id, done.historyId);
  assert.equal(change.route, "consolidate");
  await memory.undo(done.historyId);
  assert.deepEqual(tree(dir), before, "undo: every byte back");
});

test("a hostile or careless answer writes nothing it should not", async () => {
  const dir = seeded();
  const before = tree(dir);
  const cases = [
    "x".repeat(1 << 20),
    "nothing to do!",
    { merges: [{ files: ["feedback_tests.md", "../../etc/passwd"], file: "feedback_tests.md", type: "feedback", name: "x", description: "x", body: "x" }], supersessions: [], removals: [], index: [] },
    { merges: [], supersessions: [{ file: "made_up.md", by: "feedback_tests.md" }, { file: "MEMORY.md", by: "feedback_tests.md" }], removals: [{ file: "project_deploys.md", reason: "old" }], index: [] },
    { merges: [{ files: ["feedback_tests.md", "feedback_testing.md"], file: "feedback_testing.md", type: "feedback", name: "Testing", description: "Tests", body: "Use mocks." }], supersessions: [], removals: [], index: [] },
    { merges: [{ ...GOOD.merges[0], body: `${GOOD.merges[0].body} The CI token is ghp_${"a1B2".repeat(9)}.` }], supersessions: [], removals: [], index: [] },
    { merges: [], supersessions: [], removals: [], index: [{ heading: "Rules ](../x.md)", files: ["feedback_tests.md"] }, 7] },
  ];
  const reasons = [];
  for (const answer of cases) {
    const memory = await openMemory({ dir, selector: answering(answer) });
    const r = await memory.consolidate({ mode: "auto" });
    assert.ok(["failed", "nothing"].includes(r.outcome), `${r.outcome}: ${JSON.stringify(answer).slice(0, 80)}`);
    reasons.push(...r.rejected.map((x) => x.reason));
    assert.deepEqual(tree(dir), before);
  }
  assert.deepEqual(reasons, ["unsafe_path", "unknown_file", "unknown_file", "would_lose_text", "would_lose_text", "secret", "not_an_object"]);
  // a bad cap fails before the model is asked
  let asked = 0;
  const counting = await openMemory({ dir, selector: async () => (asked++, JSON.stringify(GOOD)) });
  for (const maxFilesChanged of [0, -1, 1.5, Number.NaN]) {
    const r = await counting.consolidate({ mode: "auto", maxFilesChanged });
    assert.equal(r.outcome, "failed");
    assert.match(r.error, /^invalid argument: maxFilesChanged/);
  }
  assert.equal(asked, 0);
  assert.deepEqual(tree(dir), before);
  // the cap: a run changes at most maxFilesChanged files
  const capped = await openMemory({ dir, selector: answering(GOOD) });
  const r = await capped.consolidate({ mode: "auto", maxFilesChanged: 2 });
  assert.deepEqual(r.changes.map((c) => c.kind), ["merge"]);
  assert.deepEqual(r.rejected.map((x) => x.reason), ["over_limit"]);
});

test("one run at a time; the schedule runs it on its own after enough sessions and hours", async () => {
  const dir = seeded();
  let release;
  const slow = () => new Promise((resolve) => (release = () => resolve(JSON.stringify(GOOD))));
  const memory = await openMemory({ dir, selector: slow });
  const first = memory.consolidate({ mode: "auto" });
  await new Promise((r) => setTimeout(r, 50));
  const second = await memory.consolidate({ mode: "auto" });
  assert.equal(second.outcome, "busy");
  release();
  assert.equal((await first).outcome, "consolidated");
  assert.ok(!existsSync(join(dir, ".memdir", "consolidate.lock")), "the lock is gone");
  assert.equal(JSON.parse(readFileSync(join(dir, ".memdir", "consolidate.json"), "utf8")).sessionsSince, 0);

  const dir2 = seeded();
  const events = [];
  let clock = Date.UTC(2026, 11, 5);
  const auto = await openMemory({ dir: dir2, selector: answering(GOOD), now: () => clock, onEvent: (e) => e.type === "consolidate" && events.push(e), keep: { consolidate: { mode: "auto", minSessions: 2, minHours: 24 } } });
  const settle = () => new Promise((r) => setTimeout(r, 150));
  auto.session();
  await settle();
  assert.deepEqual(events.map((e) => e.outcome), ["not_due"], "one session of two");
  auto.session();
  await settle();
  assert.deepEqual(events.map((e) => e.outcome), ["not_due", "consolidated"]);
  clock += 3_600_000;
  auto.session();
  auto.session();
  await settle();
  assert.deepEqual(events.slice(2).map((e) => e.outcome), ["not_due", "not_due"], "an hour later: not yet");
});

test("confirm: what was approved is what is written; a file changed meanwhile writes nothing", async () => {
  const dir = seeded();
  const memory = await openMemory({ dir, selector: answering(GOOD) });
  const edited = `${FILES["project_deploys.md"]}Edited while the diff was shown.\n`;
  const r = await memory.consolidate({
    mode: "confirm",
    confirm: async () => {
      writeFileSync(join(dir, "project_deploys.md"), edited);
      return true;
    },
  });
  assert.equal(r.outcome, "failed");
  assert.match(r.error, /^CHANGED: /);
  assert.deepEqual(tree(dir), { ...FILES, "project_deploys.md": edited }, "nothing written; the edit kept");
  const approved = await memory.consolidate({ mode: "confirm", confirm: async () => true });
  assert.equal(approved.outcome, "consolidated", approved.error);
  assert.match(readFileSync(join(dir, "project_deploys.md"), "utf8"), /^superseded_by: project_deploy_day\.md\n[\s\S]*Edited while the diff was shown\.\n$/m, "the edit kept");
});

test("an automatic run that only proposes is not asked for again at the next session", async () => {
  const dir = seeded();
  let asked = 0;
  const events = [];
  let shown = "";
  const memory = await openMemory({ dir, selector: async () => (asked++, JSON.stringify(GOOD)), onEvent: (e) => e.type === "consolidate" && (events.push(e.outcome), (shown += e.diff ?? "")), keep: { consolidate: { mode: "suggest", minSessions: 1 } } });
  const settle = () => new Promise((r) => setTimeout(r, 150));
  memory.session();
  await settle();
  memory.session();
  await settle();
  assert.deepEqual(events, ["proposed", "not_due"]);
  assert.equal(asked, 1);
  assert.match(shown, /^\+superseded_by: project_deploy_day\.md$/m, "the proposal's diff reaches onEvent");
  assert.deepEqual(tree(dir), FILES, "suggest writes nothing");
});

test("force asks the model even when nothing looks alike: the index regrouped, each line kept", async () => {
  const dir = temp();
  const files = {
    "MEMORY.md": "# Memory\n- [Deploys](project_deploys.md) — Deploys happen on Tuesdays\n- [Tests](feedback_tests.md) — Integration tests hit a real database\n",
    "feedback_tests.md": FILES["feedback_tests.md"],
    "project_deploys.md": FILES["project_deploys.md"],
  };
  for (const [p, t] of Object.entries(files)) writeFileSync(join(dir, p), t);
  let asked = 0;
  const regroup = { merges: [], supersessions: [], removals: [], index: [{ heading: "How we work", files: ["feedback_tests.md"] }, { heading: "Releases", files: ["project_deploys.md"] }] };
  const memory = await openMemory({ dir, selector: async () => (asked++, JSON.stringify(regroup)) });
  assert.equal((await memory.consolidate()).outcome, "nothing");
  assert.equal(asked, 0, "nothing alike: the model is not asked");
  const forced = await memory.consolidate({ force: true, mode: "auto" });
  assert.equal(forced.outcome, "consolidated", forced.error);
  assert.equal(asked, 1);
  const lines = files["MEMORY.md"].split("\n").filter((l) => l.startsWith("- "));
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), `# Memory\n\n## How we work\n${lines[1]}\n\n## Releases\n${lines[0]}\n`);
});

test("a run's lock left by a dead process is taken over at once; a live one's is respected", async () => {
  const dir = seeded();
  mkdirSync(join(dir, ".memdir"), { recursive: true });
  const lock = join(dir, ".memdir", "consolidate.lock");
  const body = (pid) => JSON.stringify({ pid, ...machine, at: Date.now(), token: "held-by-test" });
  const live = body(process.pid); // this very process: alive
  writeFileSync(lock, live);
  const memory = await openMemory({ dir, selector: answering(GOOD) });
  const held = await memory.consolidate();
  assert.equal(held.outcome, "busy");
  assert.equal(readFileSync(lock, "utf8"), live, "a live run's lock is left alone");
  writeFileSync(lock, body(spawnSync(process.execPath, ["-e", "0"]).pid)); // a process that has exited
  const taken = await memory.consolidate();
  assert.equal(taken.outcome, "proposed", taken.error);
  assert.ok(!existsSync(lock), "the lock taken over is released");
});

test("memdir consolidate (--dry-run, --yes) and the MCP consolidate tool", async () => {
  const dir = seeded();
  const before = tree(dir);
  const { startMockProviders } = await import("../mock/providers.mjs");
  const mock = await startMockProviders();
  try {
    const provider = ["--provider", "anthropic", "--base-url", mock.url];
    const env = { ANTHROPIC_API_KEY: "sk-ant-test" };
    mock.script({ kind: "text", text: JSON.stringify(GOOD) });
    const dry = await memdirIn(["consolidate", "--dir", dir, "--dry-run", ...provider], { env });
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /proposed: 4 files would change \(nothing written\)/);
    assert.deepEqual(tree(dir), before);
    mock.script({ kind: "text", text: JSON.stringify(GOOD) });
    const noTerminal = await memdirIn(["consolidate", "--dir", dir, ...provider], { env });
    assert.equal(noTerminal.code, 2);
    assert.deepEqual(tree(dir), before);
    mock.script({ kind: "text", text: JSON.stringify(GOOD) });
    const yes = await memdirIn(["consolidate", "--dir", dir, "--yes", ...provider], { env });
    assert.equal(yes.code, 0, yes.err);
    assert.match(yes.out, /consolidated: 4 files changed \(recorded as /);
    assert.ok(!existsSync(join(dir, "feedback_tests.md")));
    assert.equal((await memdirIn(["undo", "--last", "--yes", "--dir", dir])).code, 0);
    assert.deepEqual(tree(dir), before);
    // --force: asked though nothing looks alike (two memories of other subjects)
    const apart = temp();
    writeFileSync(join(apart, "MEMORY.md"), "# Memory\n- [Deploys](project_deploys.md) — Deploys happen on Tuesdays\n- [Tests](feedback_tests.md) — Integration tests hit a real database\n");
    for (const f of ["project_deploys.md", "feedback_tests.md"]) writeFileSync(join(apart, f), FILES[f]);
    const regroup = { merges: [], supersessions: [], removals: [], index: [{ heading: "Releases", files: ["project_deploys.md"] }] };
    assert.match((await memdirIn(["consolidate", "--dir", apart, "--dry-run", ...provider], { env })).out, /^nothing to consolidate$/m);
    mock.script({ kind: "text", text: JSON.stringify(regroup) });
    const forced = await memdirIn(["consolidate", "--dir", apart, "--dry-run", "--force", ...provider], { env });
    assert.equal(forced.code, 0, forced.err);
    assert.match(forced.out, /^\+## Releases$/m);
    assert.match(forced.out, /proposed: 1 file would change/);

    const memory = await openMemory({ dir, selector: answering(GOOD) });
    const tool = mcpTools({ memory, selector: { provider: "lexical" }, readOnly: false, limits: defaultLimits() }).find((t) => t.name === "consolidate");
    const shown = await callTool(tool, {});
    assert.match(shown.text, /^Would change \(nothing written/);
    assert.deepEqual(tree(dir), before);
    const applied = await callTool(tool, { dry_run: false });
    assert.match(applied.text, /^Consolidated \(recorded as /);
    assert.equal(applied.changed, true);
  } finally {
    await mock.close();
  }
});

test("sessions opened at once each count toward the schedule", async () => {
  const dir = seeded();
  const memory = await openMemory({ dir, selector: answering(GOOD), keep: { consolidate: { mode: "suggest", minSessions: 100 } } });
  for (let i = 0; i < 12; i++) memory.session();
  const state = () => JSON.parse(readFileSync(join(dir, ".memdir", "consolidate.json"), "utf8"));
  for (let waited = 0; waited < 5000; waited += 50) {
    await new Promise((r) => setTimeout(r, 50));
    if (existsSync(join(dir, ".memdir", "consolidate.json")) && state().sessionsSince >= 12) break;
  }
  assert.equal(state().sessionsSince, 12);
});
