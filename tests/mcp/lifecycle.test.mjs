// `memdir mcp` refuses, as the other commands do, a folder it can never make: below a file, it
// exits 3 (issue 21: it served and exited 0); an empty --dir or --project is a usage error.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { baseEnv, bin, cleanUp, tempDir } from "./connect.mjs";

after(cleanUp);

test("a --dir below a file exits 3 with the CLI's words; an empty --dir or --project exits 2", () => {
  const root = tempDir();
  const file = join(root, "notes.txt");
  writeFileSync(file, "a file\n");
  const run = (args) => {
    const r = spawnSync(process.execPath, [bin, "mcp", ...args], { encoding: "utf8", env: baseEnv(), input: "", timeout: 30_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  for (const [dir, said] of [
    [join(file, "sub"), `no memory directory at ${join(file, "sub")}: ${file} is a file, not a folder`],
    [join(file, "a", "b"), `no memory directory at ${join(file, "a", "b")}: ${file} is a file, not a folder`],
    [file, `${file} is a file, not a memory directory`],
  ]) {
    const r = run(["--dir", dir]);
    assert.equal(r.code, 3, `--dir ${dir}: ${r.err}`);
    assert.equal(r.err, `memdir mcp: ${said}\n`);
    assert.equal(r.out, "", "nothing on stdout, where a client expects the protocol");
  }
  // the CLI's commands say the same of the same folders
  const cli = spawnSync(process.execPath, [bin, "scan", "--dir", file], { encoding: "utf8", env: baseEnv() });
  assert.equal(cli.status, 3);
  assert.equal(cli.stderr, `memdir: ${file} is a file, not a memory directory\n`);
  // an empty path is not the current directory, as the CLI's parser has it
  for (const [args, said] of [
    [["--dir", ""], "--dir needs a path"],
    [["--dir="], "--dir needs a path"],
    [["--project", ""], "--project needs a path"],
  ]) {
    const r = run(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.equal(r.err, `memdir mcp: ${said}\n`);
  }
});
