// `memdir doctor`, `memdir remember`, `memdir forget`, run as a user runs them, on real files.
// The doctor directory is the one of tests/fixtures/doctor.json (the core's own fixture),
// written to disk with its modification times.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { expand } from "../fixtures/check.mjs";
import { bin } from "./helpers.mjs";

const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

function memdir(args, input) {
  const r = spawnSync(bin, args, { encoding: "utf8", input, env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const fixture = JSON.parse(readFileSync(new URL("../fixtures/doctor.json", import.meta.url), "utf8"));
const seeded = fixture.cases.find((c) => c.call === "runDoctor" && c.expectCodes.length > 10);

/** The fixture's directory on disk, with its ages relative to now. */
function seededDir() {
  const dir = mkdtempSync(join(tmpdir(), "memdir-doctor-"));
  temps.push(dir);
  const input = seeded.args[0];
  for (const e of input.entries.filter((e) => e.kind === "file")) {
    mkdirSync(join(dir, e.path, ".."), { recursive: true });
    writeFileSync(join(dir, e.path), expand(input.contents[e.path]));
    const t = new Date(Date.now() - (input.nowMs - e.mtimeMs) - 60_000);
    utimesSync(join(dir, e.path), t, t);
  }
  return dir;
}
const codes = (findings) => findings.map((f) => [f.code, f.file, f.line ?? null]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
const sorted = (list) => [...list].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

test("doctor finds every seeded problem on disk, with code, file, line, severity, message and fix; exit 1", () => {
  const dir = seededDir();
  // the fixture caps the scan one file short, to show a file beyond the cap
  const maxFiles = seeded.args[0].limits.maxFiles;
  const r = memdir(["doctor", "--dir", dir, "--json", "--max-files", String(maxFiles)]);
  assert.equal(r.code, 1, r.err);
  const report = JSON.parse(r.out);
  assert.deepEqual(codes(report.findings), sorted(seeded.expectCodes));
  for (const f of report.findings) {
    assert.ok(["error", "warning", "info"].includes(f.severity));
    assert.ok(f.message.length > 10, f.code);
  }
  // its words are the only copy and the folder is at its cap (no room for a file of its own): kept
  const dead = report.findings.find((f) => f.code === "dead_link");
  assert.equal(dead.fix, null);
  assert.match(dead.message, /its words exist nowhere else in the folder, so doctor keeps the line/);
  const secret = report.findings.find((f) => f.code === "secret");
  assert.match(secret.message, /AWS access key ID/);
  assert.ok(!r.out.includes("AKIAIOSFODNN7EXAMPLE"), "doctor never echoes a secret");

  const human = memdir(["doctor", "--dir", dir, "--max-files", String(maxFiles)]);
  assert.equal(human.code, 1);
  assert.match(human.out, /^MEMORY\.md:3: error dead_link: the entry links to project_gone\.md, which does not exist; its words exist nowhere else in the folder, so doctor keeps the line: restore the file, or move the words yourself$/m);
  assert.match(human.out, /^5 errors, \d+ warnings, \d+ notes; 12 fixable \(memdir doctor --fix\)$/m);
});

test("doctor --fix --yes shows the diff first, applies only the safe fixes, keeps every word, and exits 1 while errors remain", () => {
  const dir = seededDir();
  const before = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
  const r = memdir(["doctor", "--dir", dir, "--fix", "--yes"]);
  assert.equal(r.code, 1, r.err);
  const diffAt = r.out.indexOf("--- a/MEMORY.md\n+++ b/MEMORY.md\n");
  assert.ok(diffAt >= 0, r.out);
  assert.ok(diffAt < r.out.indexOf("fixed "), "the diff comes before the report");
  // the dead entry's words are the only copy: the file it names is written from them (the
  // folder has room for it without the fixture's cap), and the line stays
  assert.match(r.out, /^--- \/dev\/null\n\+\+\+ b\/project_gone\.md$/m);
  assert.match(readFileSync(join(dir, "project_gone.md"), "utf8"), /^description: a file that was deleted$/m);
  assert.match(r.out, /^\+- \[Orphan\]\(project_orphan\.md\) — The Q3 roadmap and who decided what was cut$/m);
  assert.match(r.out, /^--- a\/project_multi\.md$/m);
  const index = readFileSync(join(dir, "MEMORY.md"), "utf8");
  assert.ok(index.includes("- [Gone](project_gone.md) — a file that was deleted"));
  assert.equal(index.match(/\(feedback_testing\.md\)/g).length, 2, "a second entry into one file, with its own words, is kept");
  assert.ok(index.includes("We deploy on Tuesdays"), "content is reported, never moved or deleted by --fix");
  assert.ok(index.split("\n").every((l) => l.length <= 150), "long entries shortened");
  assert.match(readFileSync(join(dir, "project_multi.md"), "utf8"), /^description: Payments retries are idempotent thanks to request keys stored for a day$/m);
  // files doctor cannot fix safely are untouched
  for (const f of ["project_bad.md", "project_late.md", "project_secret.md", "project_nofm.md", "feedback_testing.md"]) assert.equal(readFileSync(join(dir, f), "utf8"), before[f], f);
  assert.ok(!readdirSync(dir).includes(".memdir.lock"));

  // a second --fix has nothing left to do; doctor now lists only what needs a person
  const again = memdir(["doctor", "--dir", dir, "--fix", "--json", "--yes"]);
  assert.equal(again.code, 1);
  const second = JSON.parse(again.out);
  assert.equal(second.diff, "");
  assert.deepEqual(second.after.findings.filter((f) => f.fix !== null), []);
});

test("doctor exits 0 on a healthy directory and after fixing a directory with only safe problems", () => {
  const dir = mkdtempSync(join(tmpdir(), "memdir-doctor-"));
  temps.push(dir);
  writeFileSync(join(dir, "project_a.md"), "---\nname: A\ndescription: The staging cluster is rebuilt every Sunday night\ntype: project\n---\n\nGone is a dead line.\n");
  writeFileSync(join(dir, "MEMORY.md"), "- [Gone](gone.md) — a dead line\n");
  assert.equal(memdir(["doctor", "--dir", dir]).code, 1);
  const fixed = memdir(["doctor", "--dir", dir, "--fix", "--yes"]);
  assert.equal(fixed.code, 0, fixed.out + fixed.err);
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "- [A](project_a.md) — The staging cluster is rebuilt every Sunday night\n");
  assert.equal(memdir(["doctor", "--dir", dir]).code, 0);
});

/** A directory with one fixable problem: a memory missing from the index. */
function oneFixDir() {
  const dir = mkdtempSync(join(tmpdir(), "memdir-doctor-ask-"));
  temps.push(dir);
  writeFileSync(join(dir, "project_a.md"), "---\nname: A\ndescription: The staging cluster is rebuilt every Sunday night\ntype: project\n---\n\nx\n");
  writeFileSync(join(dir, "MEMORY.md"), "# Memory\n");
  return dir;
}

test("doctor --fix with no terminal to ask on and no --yes writes nothing and exits 2; --dry-run only shows", () => {
  const dir = oneFixDir();
  const r = memdir(["doctor", "--dir", dir, "--fix"]);
  assert.equal(r.code, 2, r.out + r.err);
  assert.match(r.out, /^\+- \[A\]\(project_a\.md\)/m, "the diff is shown");
  assert.match(r.err, /nothing written: --fix asks before it changes 1 file, and there is no terminal to ask on; pass --yes/);
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "# Memory\n");
  const dry = memdir(["doctor", "--dir", dir, "--fix", "--dry-run", "--json"]);
  assert.equal(dry.code, 0, dry.err);
  const plan = JSON.parse(dry.out);
  assert.equal(plan.applied, false);
  assert.match(plan.diff, /\+- \[A\]\(project_a\.md\)/);
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "# Memory\n");
  assert.equal(memdir(["doctor", "--dir", dir, "--yes"]).code, 2, "--yes without --fix is a usage error");
  assert.equal(memdir(["doctor", "--dir", dir, "--fix", "--yes", "--dry-run"]).code, 2);
  const yes = memdir(["doctor", "--dir", dir, "--fix", "-y"]);
  assert.equal(yes.code, 0, yes.err);
  assert.match(readFileSync(join(dir, "MEMORY.md"), "utf8"), /^- \[A\]\(project_a\.md\)/m);
});

// a real terminal: util-linux `script` runs memdir under a pseudo-terminal and types the answer
const hasScript = spawnSync("script", ["--version"]).status === 0;
test("doctor --fix on a terminal shows the diff, asks, and applies only after yes", { skip: !hasScript && "no util-linux script(1) here" }, () => {
  const quote = (a) => `'${a.replaceAll("'", "'\\''")}'`;
  const onTerminal = (dir, answer) => spawnSync("script", ["-qec", [process.execPath, bin, "doctor", "--dir", dir, "--fix"].map(quote).join(" "), "/dev/null"], { encoding: "utf8", input: answer, env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } });
  const no = oneFixDir();
  const refused = onTerminal(no, "n\n");
  assert.match(refused.stdout, /Apply these fixes to 1 file\? \[y\/N\]/);
  assert.match(refused.stdout, /nothing written/);
  assert.equal(readFileSync(join(no, "MEMORY.md"), "utf8"), "# Memory\n");
  const ok = oneFixDir();
  const applied = onTerminal(ok, "y\n");
  assert.ok(applied.stdout.indexOf("+- [A](project_a.md)") < applied.stdout.indexOf("Apply these fixes"), "the diff comes before the question");
  assert.match(applied.stdout, /fixed 1; remaining:/);
  assert.match(readFileSync(join(ok, "MEMORY.md"), "utf8"), /^- \[A\]\(project_a\.md\)/m);
});

test("remember and forget on the command line, with refusals as exit 1 and a reason", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "memdir-cli-remember-")), "memory");
  temps.push(join(dir, ".."));
  const ok = memdir(["remember", "--dir", dir, "--type", "feedback", "--name", "Testing", "--description", "Integration tests hit a real database, not mocks"], "Use a real DB.\n\n**Why:** mocks hid a migration bug.\n");
  assert.equal(ok.code, 0, ok.err);
  assert.equal(ok.out, `created ${join(dir, "feedback_testing.md")}\nindex: - [Testing](feedback_testing.md) — Integration tests hit a real database, not mocks\n`);
  assert.match(readFileSync(join(dir, "feedback_testing.md"), "utf8"), /\n\nUse a real DB\.\n\n\*\*Why:\*\* mocks hid a migration bug\.\n$/);

  const dup = memdir(["remember", "--dir", dir, "--type", "feedback", "--name", "testing", "--description", "Something else", "--body", "x"]);
  assert.equal(dup.code, 1);
  assert.match(dup.err, /^memdir: remember refused \(DUPLICATE_MEMORY\): a memory named "testing" already exists in feedback_testing\.md/);
  const json = memdir(["remember", "--dir", dir, "--type", "note", "--name", "N", "--description", "d", "--body", "x", "--json"]);
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.out).error.code, "INVALID_MEMORY");
  assert.equal(memdir(["remember", "--dir", dir, "--type", "user"]).code, 2, "missing --name is a usage error");

  const gone = memdir(["forget", "--dir", dir, "feedback_testing.md"]);
  assert.equal(gone.code, 0, gone.err);
  assert.equal(gone.out, "forgot feedback_testing.md\n");
  assert.deepEqual(readdirSync(dir).filter((n) => n !== ".memdir"), ["MEMORY.md"]); // .memdir: the history
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "");
  assert.equal(memdir(["forget", "--dir", dir, "feedback_testing.md"]).code, 1);
});

test("remember's body on stdin: empty or closed is a usage error naming --body; an endless stdin ends at the size cap", async () => {
  const dir = join(mkdtempSync(join(tmpdir(), "memdir-cli-stdin-")), "memory");
  temps.push(join(dir, ".."));
  const args = ["remember", "--dir", dir, "--type", "user", "--name", "Tea", "--description", "The user drinks green tea"];
  for (const input of ["", "  \n\n"]) {
    const r = memdir(args, input);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /^memdir: remember needs the memory's body: --body <text>, or the body piped on stdin \(stdin was empty\)\n/);
  }
  const closed = spawnSync("sh", ["-c", `"$MEMDIR" "$@" 0<&-`, "sh", ...args], { encoding: "utf8", env: { ...process.env, MEMDIR: bin } });
  assert.equal(closed.status, 2, closed.stderr);
  assert.match(closed.stderr, /remember needs the memory's body/);
  assert.ok(!existsSync(dir), "nothing was written");

  // `yes | memdir remember …`: stops reading past the largest file memdir writes
  const child = spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ANTHROPIC_API_KEY: "" } });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  child.stdin.on("error", () => {}); // EPIPE once memdir stops reading
  const chunk = Buffer.alloc(64 * 1024, "y\n");
  const pump = () => {
    while (child.stdin.writable && child.stdin.write(chunk));
    if (child.stdin.writable) child.stdin.once("drain", pump);
  };
  pump();
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const code = await new Promise((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  assert.equal(code, 1, err);
  assert.match(err, /^memdir: remember refused: the body on stdin is over 1,048,576 bytes, the largest file memdir writes\n$/);
  assert.ok(!existsSync(dir), "nothing was written");
});

test("remember waits for a slow stdin, saying so on stderr, then writes", async () => {
  const dir = join(mkdtempSync(join(tmpdir(), "memdir-cli-stdin-")), "memory");
  temps.push(join(dir, ".."));
  const child = spawn(bin, ["remember", "--dir", dir, "--type", "user", "--name", "Tea", "--description", "The user drinks green tea"], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ANTHROPIC_API_KEY: "" } });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  setTimeout(() => child.stdin.end("Green, no sugar.\n"), 3000);
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(code, 0, err);
  assert.equal(err, "memdir: waiting for the memory's body on stdin (end it with Ctrl-D, or pass --body)\n");
  assert.match(out, /^created /);
  assert.match(readFileSync(join(dir, "user_tea.md"), "utf8"), /Green, no sugar\.\n$/);
});

test("forget takes the absolute path a shell completes, inside the memory directory; refusals speak CLI", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "memdir-cli-forget-")), "memory");
  temps.push(join(dir, ".."));
  const args = ["remember", "--dir", dir, "--type", "feedback", "--name", "Testing", "--description", "Integration tests hit a real database", "--body", "x"];
  assert.equal(memdir(args).code, 0);
  const dup = memdir(args);
  assert.equal(dup.code, 1);
  assert.match(dup.err, /update it \(memdir remember --file feedback_testing\.md …\) instead of adding a second/);
  const outside = memdir(["forget", "--dir", dir, join(dir, "..", "feedback_testing.md")]);
  assert.equal(outside.code, 1);
  assert.match(outside.err, /^memdir: forget takes a file of the memory directory .*, relative to it \(e\.g\. feedback_testing\.md\); .* is outside it\n$/);
  const gone = memdir(["forget", "--dir", dir, join(dir, "feedback_testing.md")]);
  assert.equal(gone.code, 0, gone.err);
  assert.equal(gone.out, "forgot feedback_testing.md\n");
  assert.deepEqual(readdirSync(dir).filter((n) => n !== ".memdir"), ["MEMORY.md"]); // .memdir: the history
});
