// Project memory in git, with real git: a bare repository and two clones that both add, edit and
// remove memories, then merge through memdir's merge driver for MEMORY.md (memdir merge-index,
// registered by memdir git-setup); and ages from git history rather than checkout mtimes.
// git reads no configuration of the machine or the user (GIT_CONFIG_NOSYSTEM, HOME in a temp).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { memdir, removeTemps, tempDir } from "./helpers.mjs";

after(removeTemps);

const hasGit = spawnSync("git", ["--version"]).status === 0;
const home = tempDir("memdir-git-home-");
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: home, XDG_CONFIG_HOME: join(home, ".config"), GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
const env = { GIT_CONFIG_NOSYSTEM: "1", HOME: home, XDG_CONFIG_HOME: join(home, ".config") };

function git(cwd, args, extraEnv = {}) {
  const r = spawnSync("git", args, { cwd, env: { ...gitEnv, ...extraEnv }, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}

function clone(bare, dir, who) {
  git(join(dir, ".."), ["clone", "-q", bare, dir]);
  git(dir, ["config", "user.name", who]);
  git(dir, ["config", "user.email", `${who.toLowerCase()}@example.invalid`]);
  git(dir, ["config", "pull.rebase", "false"]);
}

const fm = (name, description, type, body = "Body.") => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;
const run = (args) => {
  const r = memdir(args, { env });
  assert.equal(r.code, 0, `memdir ${args.join(" ")}:\n${r.out}\n${r.err}`);
  return r;
};
const remember = (dir, type, name, description) => run(["remember", "--dir", dir, "--type", type, "--name", name, "--description", description, "--body", `What ${name} is about, in a sentence.`]);
const edit = (file, from, to) => {
  const text = readFileSync(file, "utf8");
  assert.ok(text.includes(from), `${file} holds ${from}`);
  writeFileSync(file, text.replace(from, to));
};

test("two clones add, edit and remove memories, then merge: the driver keeps every entry, nothing is lost", { skip: !hasGit && "git is not installed" }, () => {
  const root = tempDir("memdir-git-");
  const bare = join(root, "origin.git");
  git(root, ["init", "-q", "--bare", "-b", "main", bare]);
  const a = join(root, "a");
  clone(bare, a, "Ada");
  const memA = join(a, "memory");
  mkdirSync(memA);
  writeFileSync(join(memA, "user_role.md"), fm("Role", "The user is a data scientist working on observability", "user"));
  writeFileSync(join(memA, "project_deploy.md"), fm("Deploy", "How the service is deployed to staging every week", "project"));
  writeFileSync(join(memA, "reference_dash.md"), fm("Dashboard", "Where the latency dashboard for the service lives", "reference"));
  writeFileSync(
    join(memA, "MEMORY.md"),
    "- [Role](user_role.md) — data scientist, observability\n- [Deploy](project_deploy.md) — weekly staging deploys\n- [Dashboard](reference_dash.md) — the latency dashboard\n",
  );
  const setupA = run(["git-setup", "--dir", memA]);
  assert.match(setupA.out, /added memory\/MEMORY\.md merge=memdir-index/);
  assert.equal(readFileSync(join(a, ".gitattributes"), "utf8"), "memory/MEMORY.md merge=memdir-index\n");
  assert.match(readFileSync(join(a, ".gitignore"), "utf8"), /^\/memory\/\.memdir\/$/m);
  assert.match(git(a, ["config", "merge.memdir-index.driver"]), /merge-index %O %A %B %P/);
  git(a, ["add", "-A"]);
  git(a, ["commit", "-q", "-m", "memory"]);
  git(a, ["push", "-q", "origin", "main"]);

  const b = join(root, "b");
  clone(bare, b, "Bea");
  const memB = join(b, "memory");
  const setupB = run(["git-setup", "--dir", memB]);
  assert.match(setupB.out, /already has/);
  run(["git-setup", "--dir", memB]); // again: nothing more
  assert.equal(readFileSync(join(b, ".gitattributes"), "utf8"), "memory/MEMORY.md merge=memdir-index\n", "the line is added once");
  assert.equal(git(b, ["status", "--porcelain"]), "", "setup in a clone of a set-up repository changes no file");

  // A: two new memories, one shared memory's description edited, one removed
  remember(memA, "project", "Alpha release", "The alpha release ships to internal users first");
  remember(memA, "feedback", "Review style", "Reviews comment on behaviour before naming");
  edit(join(memA, "user_role.md"), "working on observability", "working on observability and tracing");
  edit(join(memA, "MEMORY.md"), "data scientist, observability", "data scientist, observability and tracing");
  run(["forget", "--dir", memA, "reference_dash.md"]);
  git(a, ["add", "-A"]);
  git(a, ["commit", "-q", "-m", "A's memories"]);
  git(a, ["push", "-q", "origin", "main"]);

  // B: three others, and another line edited
  remember(memB, "project", "Billing cutover", "The billing cutover moves invoices to the new ledger");
  remember(memB, "user", "Time zone", "The user works from Lisbon in the morning hours");
  remember(memB, "reference", "Runbook", "The on-call runbook is the wiki page named pager");
  edit(join(memB, "MEMORY.md"), "weekly staging deploys", "weekly staging deploys, Tuesdays");
  git(b, ["add", "-A"]);
  git(b, ["commit", "-q", "-m", "B's memories"]);
  const pulled = spawnSync("git", ["pull", "--no-rebase", "--no-edit", "origin", "main"], { cwd: b, env: gitEnv, encoding: "utf8" });
  assert.equal(pulled.status, 0, `the merge succeeds:\n${pulled.stdout}\n${pulled.stderr}`);
  assert.equal(git(b, ["diff", "--name-only", "--diff-filter=U"]), "", "nothing left unmerged");
  assert.equal(git(b, ["log", "-1", "--format=%P"]).trim().split(" ").length, 2, "a merge commit");

  const merged = readFileSync(join(memB, "MEMORY.md"), "utf8");
  assert.doesNotMatch(merged, /^(<{7}|={7}|>{7})/m, "no conflict markers: the driver merged it (git's own merge conflicts: both appended at the end)");
  for (const file of ["project_alpha_release.md", "feedback_review_style.md", "project_billing_cutover.md", "user_time_zone.md", "reference_runbook.md"]) {
    assert.match(merged, new RegExp(`\\]\\(${file.replace(".", "\\.")}\\)`), `${file}'s entry is kept`);
  }
  assert.match(merged, /data scientist, observability and tracing/, "A's edit is kept");
  assert.match(merged, /weekly staging deploys, Tuesdays/, "B's edit is kept");
  assert.doesNotMatch(merged, /reference_dash\.md/, "the memory A removed stays removed");
  assert.equal(merged.split("\n").filter((l) => l.includes("(user_role.md)")).length, 1);

  const doctor = memdir(["doctor", "--dir", memB, "--json"], { env });
  const report = JSON.parse(doctor.out);
  assert.deepEqual(
    report.findings.filter((f) => ["not_indexed", "dead_link", "duplicate_entry", "duplicate_link", "index_content"].includes(f.code)),
    [],
    "doctor: every memory indexed, no dead or doubled entry",
  );
  assert.equal(report.errors, 0);

  // both edit the same entry: both lines kept, adjacent; doctor reports it and --fix joins them
  git(b, ["push", "-q", "origin", "main"]);
  git(a, ["pull", "-q", "--no-rebase", "origin", "main"]);
  edit(join(memA, "MEMORY.md"), "data scientist, observability and tracing", "data scientist, observability and tracing, Grafana dashboards");
  git(a, ["commit", "-q", "-am", "A edits the role entry"]);
  git(a, ["push", "-q", "origin", "main"]);
  edit(join(memB, "MEMORY.md"), "data scientist, observability and tracing", "data scientist, observability and tracing, prefers Python notebooks");
  git(b, ["commit", "-q", "-am", "B edits the role entry"]);
  const both = spawnSync("git", ["pull", "--no-rebase", "--no-edit", "origin", "main"], { cwd: b, env: gitEnv, encoding: "utf8" });
  assert.equal(both.status, 0, `the merge succeeds:\n${both.stdout}\n${both.stderr}`);
  assert.match(both.stdout + both.stderr, /both sides edited the entry for user_role\.md/, "the driver ran and said so");
  const twice = readFileSync(join(memB, "MEMORY.md"), "utf8").split("\n");
  const at = twice.findIndex((l) => l.includes("(user_role.md)"));
  assert.match(twice[at], /prefers Python notebooks/, "ours first");
  assert.match(twice[at + 1], /Grafana dashboards/, "theirs right under it");
  const reported = JSON.parse(memdir(["doctor", "--dir", memB, "--json"], { env }).out);
  assert.deepEqual(
    reported.findings.filter((f) => f.code === "duplicate_link").map((f) => [f.file, f.line]),
    [["MEMORY.md", at + 2]],
  );
  run(["doctor", "--dir", memB, "--fix", "--yes"]);
  const fixed = readFileSync(join(memB, "MEMORY.md"), "utf8");
  const role = fixed.split("\n").filter((l) => l.includes("(user_role.md)"));
  assert.equal(role.length, 1, "one entry");
  for (const word of ["observability", "tracing", "Grafana", "dashboards", "prefers", "Python", "notebooks"]) assert.ok(role[0].includes(word), `${word} kept`);
  const after = JSON.parse(memdir(["doctor", "--dir", memB, "--json"], { env }).out);
  assert.deepEqual(after.findings.filter((f) => f.code === "duplicate_link"), []);
});

test("ages from git: a memory committed 30 days ago is 30 days old in a fresh clone, and fresh once edited", { skip: !hasGit && "git is not installed" }, () => {
  const root = tempDir("memdir-git-age-");
  const origin = join(root, "origin");
  mkdirSync(join(origin, "memory"), { recursive: true });
  git(origin, ["init", "-q", "-b", "main"]);
  git(origin, ["config", "user.name", "Ada"]);
  git(origin, ["config", "user.email", "ada@example.invalid"]);
  const mem = join(origin, "memory");
  writeFileSync(join(mem, "user_editor.md"), fm("Editor", "The user edits code in Helix with a custom keymap", "user", "Helix, with the keymap in the dotfiles repository."));
  writeFileSync(join(mem, "MEMORY.md"), "- [Editor](user_editor.md) — Helix with a custom keymap\n");
  const when = `@${Math.floor((Date.now() - 30 * 86_400_000 - 3_600_000) / 1000)} +0000`;
  git(origin, ["add", "-A"]);
  git(origin, ["commit", "-q", "-m", "memory"], { GIT_COMMITTER_DATE: when, GIT_AUTHOR_DATE: when });

  const copy = join(root, "copy");
  git(root, ["clone", "-q", origin, copy]);
  const dir = join(copy, "memory");
  const recall = () => {
    const r = memdir(["recall", "which editor does the user use with what keymap", "--dir", dir, "--json"], { env });
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out);
  };
  const old = recall();
  const memory = old.memories.find((m) => m.path === "user_editor.md");
  assert.ok(memory, `recalled: ${JSON.stringify(old)}`);
  assert.equal(memory.ageDays, 30, "its age is its commit's, though the checkout made its mtime now");
  assert.match(memory.text, /30 days old/, "with the staleness reminder");
  const scan = JSON.parse(memdir(["scan", "--dir", dir, "--json"], { env }).out);
  assert.ok(scan.memories.some((m) => m.path === "user_editor.md" && Date.now() - m.mtimeMs > 29 * 86_400_000), "scan shows its time from git too");

  const stale = (d) => JSON.parse(memdir(["doctor", "--dir", d, "--json", "--stale-core-days", "20"], { env }).out).findings.filter((f) => f.code === "stale_core_memory").map((f) => f.file);
  assert.deepEqual(stale(dir), ["user_editor.md"], "doctor sees its age from git too");

  // edited, not committed: it differs from HEAD, so its mtime counts
  writeFileSync(join(dir, "user_editor.md"), fm("Editor", "The user edits code in Helix with a custom keymap", "user", "Helix, with the keymap in the dotfiles repository. Checked today."));
  const fresh = recall().memories.find((m) => m.path === "user_editor.md");
  assert.equal(fresh.ageDays, 0, "fresh once edited");
  assert.doesNotMatch(fresh.text, /days old/);
  assert.deepEqual(stale(dir), []);

  // outside git (GIT_CEILING… not needed: a plain copy of the folder has no .git above it) mtimes are used as before
  const plain = tempDir("memdir-plain-");
  writeFileSync(join(plain, "user_editor.md"), readFileSync(join(origin, "memory", "user_editor.md")));
  writeFileSync(join(plain, "MEMORY.md"), "- [Editor](user_editor.md) — Helix with a custom keymap\n");
  const r = memdir(["recall", "which editor does the user use with what keymap", "--dir", plain, "--json"], { env });
  assert.equal(JSON.parse(r.out).memories.find((m) => m.path === "user_editor.md").ageDays, 0);
});
