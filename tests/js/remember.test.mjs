// remember / forget on the real file system: the file and its one index line, updates in
// place, every refusal leaving the directory byte for byte as it was, and the limits at
// 199/200/201 files and at the index's line and size limits.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { InMemoryHost, MemdirError, openMemory, scanMemories } from "memdir";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-remember-"));
  temps.push(d);
  return join(d, "memory");
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(dir) {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir, { recursive: true }).sort().filter((p) => !p.endsWith("/") && !p.startsWith(".memdir")).map((p) => [p, readFileSync(join(dir, p), "utf8")]));
}

const open = (dir) => openMemory({ dir, selector: { provider: "lexical" } });
const release = { type: "project", name: "Release freeze", description: "Merges freeze on 2026-03-05 for the mobile release", body: "No merges after Thursday.\n\n**Why:** the mobile cut.\n**How to apply:** flag late PRs." };

test("remember writes a topic file that scans cleanly and its one index line; forget removes both", async () => {
  const dir = temp(); // does not exist yet: remember creates it
  const memory = await open(dir);
  const done = await memory.remember(release);
  assert.deepEqual(done, {
    file: "project_release_freeze.md",
    absolutePath: join(dir, "project_release_freeze.md"),
    action: "created",
    indexLine: "- [Release freeze](project_release_freeze.md) — Merges freeze on 2026-03-05 for the mobile release",
  });
  await memory.remember({ type: "user", name: "Role: data scientist", description: "The user is a data scientist focused on logging", body: "Explain the frontend in backend terms." });
  const files = tree(dir);
  assert.deepEqual(Object.keys(files), ["MEMORY.md", "project_release_freeze.md", "user_role_data_scientist.md"], "no lock or temporary file left");
  assert.equal(files["MEMORY.md"], "- [Release freeze](project_release_freeze.md) — Merges freeze on 2026-03-05 for the mobile release\n- [Role: data scientist](user_role_data_scientist.md) — The user is a data scientist focused on logging\n");
  const scan = scanMemories(Object.entries(files).map(([path, head]) => ({ path, mtimeMs: 1, head })));
  assert.deepEqual(scan.diagnostics, []);
  assert.deepEqual(scan.memories.map((m) => [m.path, m.name, m.type]), [
    ["project_release_freeze.md", "Release freeze", "project"],
    ["user_role_data_scientist.md", "Role: data scientist", "user"],
  ]);

  // an update rewrites the file and its line in place; the other line does not move
  const updated = await memory.remember({ ...release, description: "Merges freeze on 2026-03-12 now, a week later", file: "project_release_freeze.md" });
  assert.equal(updated.action, "updated");
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8").split("\n")[0], "- [Release freeze](project_release_freeze.md) — Merges freeze on 2026-03-12 now, a week later");

  assert.equal((await memory.forget("project_release_freeze.md")).action, "forgotten");
  assert.deepEqual(Object.keys(tree(dir)), ["MEMORY.md", "user_role_data_scientist.md"]);
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "- [Role: data scientist](user_role_data_scientist.md) — The user is a data scientist focused on logging\n");
  await assert.rejects(memory.forget("project_release_freeze.md"), { code: "NOT_FOUND" });
  assert.equal((await memory.doctor()).errors, 0);
});

test("every refusal is a typed MemdirError and writes nothing", async () => {
  const dir = temp();
  const memory = await open(dir);
  await memory.remember(release);
  const before = tree(dir);
  const refusals = [
    [{ ...release, type: "todo" }, "INVALID_MEMORY", /unknown type "todo"/],
    [{ ...release, name: "Other", description: "" }, "INVALID_MEMORY", /description is empty/],
    [{ ...release, name: "Other", description: "one\ntwo" }, "INVALID_MEMORY", /one line/],
    [{ ...release, name: "Other", file: "MEMORY.md" }, "INDEX_ONLY", /index/],
    [{ ...release, name: "release FREEZE", description: "Something else entirely about trains" }, "DUPLICATE_MEMORY", /named "release FREEZE" already exists in project_release_freeze\.md/],
    [{ ...release, name: "Freeze", description: "merges freeze on 2026-03-05 for the mobile release!" }, "DUPLICATE_MEMORY", /project_release_freeze\.md already has almost the same description/],
    [{ ...release, name: "Keys", description: "Where the staging keys live", body: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----" }, "SECRET_DETECTED", /private key on line 1/],
    [{ ...release, name: "Token", description: "The deploy bot's token for the CI", body: "xoxb-1234567890-abcdefghij" }, "SECRET_DETECTED", /Slack/],
    [{ ...release, name: "Up", description: "A file above the memory directory", file: "../up.md" }, "UNSAFE_PATH", /'\.\.'/],
  ];
  for (const [input, code, message] of refusals) {
    await assert.rejects(memory.remember(input), (e) => e instanceof MemdirError && e.code === code && message.test(e.message), `${code}: ${JSON.stringify(input).slice(0, 80)}`);
    assert.deepEqual(tree(dir), before, `${code} wrote nothing`);
  }
  // the secret is named by kind, never echoed
  const error = await memory.remember({ ...release, name: "Key", description: "The API key of the staging proxy", body: `key sk-ant-api03-${"Q".repeat(40)}` }).catch((e) => e);
  assert.equal(error.code, "SECRET_DETECTED");
  assert.ok(!error.message.includes("Q".repeat(10)), error.message);
});

function filled(dir, count) {
  mkdirSync(dir, { recursive: true });
  const lines = [];
  for (let i = 0; i < count; i++) {
    writeFileSync(join(dir, `project_f${i}.md`), `---\nname: F${i}\ndescription: fact number ${i} about subsystem ${i * 7919}\ntype: project\n---\n\nf\n`);
    lines.push(`- [F${i}](project_f${i}.md) — fact ${i}`);
  }
  writeFileSync(join(dir, "MEMORY.md"), `${lines.join("\n")}\n`);
}

test("the file cap: the 200th file is accepted, the 201st refused, and 201 existing still refuses", async () => {
  for (const [count, ok] of [[199, true], [200, false], [201, false]]) {
    const dir = temp();
    filled(dir, count);
    const memory = await open(dir);
    const before = tree(dir);
    if (ok) {
      await memory.remember(release);
      assert.equal(Object.keys(tree(dir)).filter((p) => p !== "MEMORY.md").length, 200);
    } else {
      await assert.rejects(memory.remember(release), (e) => e.code === "LIMIT_EXCEEDED" && new RegExp(`holds ${count} topic files`).test(e.message));
      assert.deepEqual(tree(dir), before);
      // updating an existing memory is still fine
      assert.equal((await memory.remember({ ...release, file: "project_f3.md" })).action, "updated");
    }
  }
});

test("the index limits: a new line past 200 lines or 25,000 UTF-16 units is refused", async () => {
  const lines = temp();
  mkdirSync(lines, { recursive: true });
  writeFileSync(join(lines, "MEMORY.md"), `${Array.from({ length: 200 }, (_, i) => `## section ${i}`).join("\n")}\n`);
  await assert.rejects((await open(lines)).remember(release), (e) => e.code === "LIMIT_EXCEEDED" && /201 lines, over its limit of 200/.test(e.message));
  assert.deepEqual(Object.keys(tree(lines)), ["MEMORY.md"]);

  const size = temp();
  mkdirSync(size, { recursive: true });
  writeFileSync(join(size, "MEMORY.md"), `# Index\n${"é".repeat(24_950)}\n`.replace("é", "## é")); // a heading of 2-byte chars
  await assert.rejects((await open(size)).remember(release), (e) => e.code === "LIMIT_EXCEEDED" && /UTF-16 units, over its limit of 25000/.test(e.message));

  const room = temp();
  mkdirSync(room, { recursive: true });
  writeFileSync(join(room, "MEMORY.md"), `${Array.from({ length: 199 }, (_, i) => `## section ${i}`).join("\n")}\n`);
  await (await open(room)).remember(release);
  assert.equal(readFileSync(join(room, "MEMORY.md"), "utf8").trim().split("\n").length, 200);
});

test("remember over any host: in memory", async () => {
  const host = new InMemoryHost();
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  await memory.remember(release);
  assert.deepEqual([...host.files.keys()].sort(), [".memdir/history/journal.jsonl", "MEMORY.md", "project_release_freeze.md"]);
  assert.deepEqual((await memory.history()).map((h) => [h.route, h.status, h.changes.map((c) => c.path)]), [["remember", "done", ["MEMORY.md", "project_release_freeze.md"]]]);
  const index = await memory.index();
  assert.match(index.prompt, /\n- \[Release freeze\]\(project_release_freeze\.md\) — Merges freeze on 2026-03-05 for the mobile release$/);
  assert.deepEqual((await memory.scan()).memories.map((m) => [m.path, m.description]), [["project_release_freeze.md", release.description]]);
});
