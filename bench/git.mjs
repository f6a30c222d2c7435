// Ages from git (rules §1.3) on the recall path: a turn of recall (lexical selector) on 200
// memories committed in a real git work tree, with the Node host's git times on and off, in one
// run. The times look at HEAD and the index at most once a second; every turn, they cost +60%.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { median } from "./fixture.mjs";

const FILES = 200;
const WARM = 50;
const TURNS = 400;
const ROUNDS = 5;

export async function benchGit(memdir) {
  const { openMemory, NodeHost } = memdir;
  const repo = mkdtempSync(join(tmpdir(), "memdir-bench-git-"));
  try {
    const dir = join(repo, "memory");
    mkdirSync(dir);
    let index = "";
    for (let i = 0; i < FILES; i++) {
      writeFileSync(join(dir, `project_m${i}.md`), `---\nname: M${i}\ndescription: topic ${i} about deploys and tests, number ${i}\ntype: project\n---\nBody ${i}.\n`);
      index += `- [M${i}](project_m${i}.md) — topic ${i}\n`;
    }
    writeFileSync(join(dir, "MEMORY.md"), index);
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: repo, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
    for (const args of [["init", "-q"], ["add", "."], ["commit", "-qm", "memories"]]) execFileSync("git", args, { cwd: repo, env });
    const turn = async (host) => {
      const memory = await openMemory({ host, selector: { provider: "lexical" }, cache: { watch: false } });
      try {
        for (let i = 0; i < WARM; i++) await memory.recall("how do we deploy the tests");
        const t = performance.now();
        for (let i = 0; i < TURNS; i++) await memory.recall("how do we deploy the tests");
        return (performance.now() - t) / TURNS;
      } finally {
        memory.close();
      }
    };
    const on = [];
    const off = [];
    for (let r = 0; r < ROUNDS; r++) {
      on.push(await turn(new NodeHost(dir)));
      off.push(await turn(new NodeHost(dir, { git: false })));
    }
    const onMs = median(on);
    const offMs = median(off);
    return { files: FILES, gitMs: onMs, mtimesMs: offMs, ratio: onMs / offMs };
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}
