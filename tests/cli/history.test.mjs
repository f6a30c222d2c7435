// memdir log, undo and restore (rules §4.6): the history from the command line; undo and restore
// show the diff, ask on a terminal, and write nothing without --yes where there is none to ask on.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { memdirIn, removeTemps, tempDir } from "./helpers.mjs";

after(removeTemps);

async function remembered() {
  const dir = tempDir();
  const r = await memdirIn(["remember", "--dir", dir, "--type", "project", "--name", "Deploys", "--description", "We deploy on Tuesdays after the freeze review", "--body", "Tuesdays."]);
  assert.equal(r.code, 0, r.err);
  const f = await memdirIn(["forget", "--dir", dir, "project_deploys.md"]);
  assert.equal(f.code, 0, f.err);
  return dir;
}

test("log: every change newest first, with its id, time, route, the writer (cli) and each file", async () => {
  const dir = await remembered();
  const r = await memdirIn(["log", "--dir", dir]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trim().split("\n");
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^\d{16}-\d{4} {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}forget \(cli\): MEMORY\.md changed, project_deploys\.md removed$/);
  assert.match(lines[1], /remember \(cli\): MEMORY\.md created, project_deploys\.md created$/);
  const json = JSON.parse((await memdirIn(["log", "--dir", dir, "--json"])).out);
  assert.deepEqual(json.map((h) => [h.route, h.label, h.status]), [["forget", "cli", "done"], ["remember", "cli", "done"]]);
  assert.equal((await memdirIn(["log", "--dir", dir, "MEMORY.md"])).out.trim().split("\n").length, 2);
  assert.match((await memdirIn(["log", "--dir", dir, "other.md"])).out, /^no change recorded for other\.md/);
  assert.equal((await memdirIn(["log", "--dir", dir, "--since", "2099-01-01"])).out, "no change recorded\n");
  assert.equal((await memdirIn(["log", "--dir", join(dir, "missing")])).code, 3);
});

test("undo --last: the diff first; no terminal and no --yes writes nothing (exit 2); --dry-run only shows; --yes brings the file and its index line back", async () => {
  const dir = await remembered();
  const noTerminal = await memdirIn(["undo", "--dir", dir, "--last"]);
  assert.equal(noTerminal.code, 2);
  assert.match(noTerminal.out, /\+\+\+ b\/project_deploys\.md/);
  assert.match(noTerminal.err, /nothing written: undo asks before it changes files, and there is no terminal to ask on; pass --yes/);
  assert.equal(existsSync(join(dir, "project_deploys.md")), false);
  const dry = await memdirIn(["undo", "--dir", dir, "--last", "--dry-run"]);
  assert.equal(dry.code, 0, dry.err);
  assert.equal(existsSync(join(dir, "project_deploys.md")), false);
  const done = await memdirIn(["undo", "--dir", dir, "--last", "--yes"]);
  assert.equal(done.code, 0, done.err);
  assert.match(done.out, /done: recorded as \d{16}-\d{4}\n$/);
  assert.match(readFileSync(join(dir, "project_deploys.md"), "utf8"), /Tuesdays\./);
  assert.match(readFileSync(join(dir, "MEMORY.md"), "utf8"), /^- \[Deploys\]\(project_deploys\.md\) — We deploy on Tuesdays after the freeze review$/m);
  assert.match((await memdirIn(["log", "--dir", dir])).out.split("\n")[0], /undo \(cli\) undoes \d{16}-\d{4}: /);
  // --last again goes further back (the remember), not round to the undo
  const again = JSON.parse((await memdirIn(["undo", "--dir", dir, "--last", "--yes", "--json"])).out);
  assert.equal(again.applied, true);
  assert.equal(existsSync(join(dir, "project_deploys.md")), false);
});

test("undo of a file a person changed since: CHANGED (exit 1), nothing written; --force overwrites", async () => {
  const dir = tempDir();
  await memdirIn(["remember", "--dir", dir, "--type", "project", "--name", "Deploys", "--description", "We deploy on Tuesdays after the freeze review", "--body", "Tuesdays."]);
  writeFileSync(join(dir, "project_deploys.md"), `${readFileSync(join(dir, "project_deploys.md"), "utf8")}A person's line.\n`);
  const r = await memdirIn(["undo", "--dir", dir, "--last", "--yes"]);
  assert.equal(r.code, 1);
  assert.match(r.err, /^memdir: CHANGED: project_deploys\.md changed since change \d{16}-\d{4}/);
  assert.match(readFileSync(join(dir, "project_deploys.md"), "utf8"), /A person's line\./);
  const forced = await memdirIn(["undo", "--dir", dir, "--last", "--yes", "--force"]);
  assert.equal(forced.code, 0, forced.err);
  assert.equal(existsSync(join(dir, "project_deploys.md")), false);
});

test("restore --at: every file memdir changed since then, as it was; bad times are usage errors", async () => {
  const dir = await remembered();
  const r = await memdirIn(["restore", "--dir", dir, "--at", "2001-01-01", "--yes"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /the history reaches back to /);
  assert.equal(existsSync(join(dir, "MEMORY.md")), false, "MEMORY.md did not exist before the first change");
  for (const [args, message] of [
    [["restore", "--dir", dir], /restore needs --at <time>/],
    [["restore", "--dir", dir, "--at", "yesterday"], /--at takes a time/],
    [["undo", "--dir", dir], /undo takes a change's id \(memdir log lists them\) or --last/],
    [["undo", "--dir", dir, "x", "--last"], /give a change's id or --last, not both/],
    [["undo", "--dir", dir, "--last", "--yes", "--dry-run"], /--yes and --dry-run say opposite things/],
    [["log", "--dir", dir, "--force"], /--force is not an option of log/],
  ]) {
    const bad = await memdirIn(args);
    assert.equal(bad.code, 2, `${args.join(" ")}: ${bad.err}`);
    assert.match(bad.err, message);
  }
  const unknown = await memdirIn(["undo", "--dir", dir, "0000000000000001-0000", "--yes"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /NOT_FOUND: no change 0000000000000001-0000 in the history/);
});

test("--if-match: scan --hashes gives each memory's SHA-256; remember and forget with a stale one are CHANGED (exit 1) and write nothing", async () => {
  const dir = tempDir();
  await memdirIn(["remember", "--dir", dir, "--type", "project", "--name", "Deploys", "--description", "We deploy on Tuesdays after the freeze review", "--body", "Tuesdays."]);
  const scanned = JSON.parse((await memdirIn(["scan", "--dir", dir, "--hashes", "--json"])).out).memories[0];
  assert.match(scanned.sha256, /^[0-9a-f]{64}$/);
  assert.match((await memdirIn(["scan", "--dir", dir, "--hashes"])).out, new RegExp(`project_deploys\\.md .*${scanned.sha256}  We deploy`));
  writeFileSync(join(dir, "project_deploys.md"), `${readFileSync(join(dir, "project_deploys.md"), "utf8")}A person's line.\n`);
  const stale = await memdirIn(["forget", "--dir", dir, "project_deploys.md", "--if-match", scanned.sha256]);
  assert.equal(stale.code, 1);
  assert.match(stale.err, /^memdir: forget refused \(CHANGED\): project_deploys\.md changed since it was read/);
  const update = await memdirIn(["remember", "--dir", dir, "--type", "project", "--name", "Deploys", "--description", "We deploy on Wednesdays now", "--body", "W.", "--file", "project_deploys.md", "--if-match", scanned.sha256]);
  assert.equal(update.code, 1);
  assert.match(readFileSync(join(dir, "project_deploys.md"), "utf8"), /A person's line\./);
  const fresh = JSON.parse((await memdirIn(["scan", "--dir", dir, "--hashes", "--json"])).out).memories[0].sha256;
  assert.equal((await memdirIn(["forget", "--dir", dir, "project_deploys.md", "--if-match", fresh])).code, 0);
  assert.equal(existsSync(join(dir, "project_deploys.md")), false);
});
