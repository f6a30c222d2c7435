// `memdir export` and `memdir import` between folders, through the real binary; with
// `--database`, against the real PostgreSQL server in tests/postgres/transfer.test.mjs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { memdir, removeTemps, tempDir } from "./helpers.mjs";
import { assertSameTree, copyShape, oddFiles, readTree, writeTree } from "../js/transfer-folders.mjs";

after(removeTemps);

test("export --dir <memory> <folder>, then import <folder> --dir <new memory>: the same files, bytes and times", () => {
  const t = tempDir();
  const memory = writeTree(join(t, "memory"), oddFiles());
  const r = memdir(["export", "--dir", memory, join(t, "backup")]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`^exported ${Object.keys(oddFiles()).length} files \\([\\d,]+ bytes\\) from ${memory} to ${join(t, "backup")}\\nmodification times kept\\n`));
  assertSameTree(assert, readTree(join(t, "backup")), readTree(memory));
  const back = memdir(["import", join(t, "backup"), "--dir", join(t, "restored"), "--json"]);
  assert.equal(back.code, 0, back.err);
  const result = JSON.parse(back.out);
  assert.equal(result.files, Object.keys(oddFiles()).length);
  assert.equal(result.timesNotKept, 0);
  assertSameTree(assert, readTree(join(t, "restored")), readTree(memory));
});

test("export --project: the project's memory folder, as every command finds it", () => {
  const t = tempDir();
  const config = join(t, "claude");
  const project = join(t, "project");
  mkdirSync(project);
  const where = memdir(["path", "--project", project], { env: { CLAUDE_CONFIG_DIR: config } });
  assert.equal(where.code, 0, where.err);
  copyShape("claude-code-current", where.out.trim());
  const r = memdir(["export", "--project", project, join(t, "backup")], { env: { CLAUDE_CONFIG_DIR: config } });
  assert.equal(r.code, 0, r.err);
  assertSameTree(assert, readTree(join(t, "backup")), readTree(where.out.trim()));
});

test("a target that holds files is refused (exit 1, nothing written) until --replace, which says what it removed", () => {
  const t = tempDir();
  const memory = copyShape("claude-code-classic", join(t, "memory"));
  const target = writeTree(join(t, "target"), { "MEMORY.md": "- [Other](other.md) — other\n", "other.md": "other" });
  const before = readTree(target);
  const r = memdir(["import", memory, "--dir", target]);
  assert.equal(r.code, 1);
  assert.match(r.err, /^memdir: import refused: the target memory .* is not empty \(2 files, e\.g\. MEMORY\.md\); replace it \(--replace\) or choose an empty one; nothing was written\n$/);
  assertSameTree(assert, readTree(target), before);
  const again = memdir(["import", memory, "--dir", target, "--replace"]);
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /removed from the target \(not in the source\): other\.md/);
  assertSameTree(assert, readTree(target), readTree(memory));
});

test("a missing source is exit 3, nothing made; wrong arguments are exit 2 with a sentence", () => {
  const t = tempDir();
  let r = memdir(["import", join(t, "nope"), "--dir", join(t, "m")]);
  assert.equal(r.code, 3);
  assert.match(r.err, /no memory directory at .*nope/);
  assert.ok(!existsSync(join(t, "m")), "nothing made");
  r = memdir(["export", "--dir", join(t, "nope"), join(t, "out")]);
  assert.equal(r.code, 3);
  assert.ok(!existsSync(join(t, "out")) && !existsSync(join(t, "nope")), "nothing made");
  for (const [args, message] of [
    [["export", "--dir", t], /export takes one folder to write/],
    [["import", "a", "b", "--dir", t], /import takes one folder to read/],
    [["export", "--database", "postgres://127.0.0.1/x", join(t, "o")], /--database needs --memory <id>/],
    [["export", "--memory", "alice", join(t, "o")], /--memory names a memory of a database: give --database <url> with it/],
    [["import", t, "--database", "postgres://127.0.0.1/x", "--memory", "a", "--dir", t], /give --database or --dir\/--project, not both/],
    [["scan", "--replace", "--dir", t], /--replace is not an option of scan \(it is one of export, import\)/],
  ]) {
    r = memdir(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, message);
  }
});

test("without pg installed, --database is exit 4 naming npm install pg, and the password is never printed", () => {
  // the package as a user has it without pg: pkg/ and package.json, no node_modules
  const t = tempDir();
  cpSync(new URL("../../pkg", import.meta.url), join(t, "pkg"), { recursive: true });
  cpSync(new URL("../../package.json", import.meta.url), join(t, "package.json"));
  const alone = join(t, "pkg", "cli", "main.js");
  const run = spawnSync(process.execPath, [alone, "export", "--database", "postgres://app:hunter2@127.0.0.1:1/app", "--memory", "alice", join(t, "out")], { encoding: "utf8" });
  const r = { code: run.status, out: run.stdout, err: run.stderr };
  assert.equal(r.code, 4, r.err);
  assert.equal(r.err, "memdir: memdir export --database needs the PostgreSQL client pg, which is not installed: npm install pg\n");
  assert.ok(!r.err.includes("hunter2") && !r.out.includes("hunter2"));
  assert.ok(!existsSync(join(t, "out")));
});
