// The history's promise under kill -9 (rules §4.6): a writer killed before any one of its
// mutating calls — the blobs, the segment closed, the intent, each change, the `done` line, the
// bounds kept — leaves a folder that, once memdir next opens it, holds exactly
// the state before the change (the record `aborted`) or after it (the record `done`), with no
// record left `interrupted`, and takes the next write.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openMemory } from "../../pkg/entry/node.js";
import { parseTempFile } from "../../pkg/core.js";

const child = fileURLToPath(new URL("./history-kill-child.mjs", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "memdir-kill-"));
after(() => rmSync(root, { recursive: true, force: true }));

const fm = (name, description, body) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\n${body}`;

/** A folder with memories and a history of one change (a remember), as a user's would be. */
async function base() {
  const dir = join(root, "base");
  mkdirSync(join(dir, "team"), { recursive: true });
  writeFileSync(join(dir, "project_deploys.md"), fm("Deploys", "We deploy on Tuesdays", "Tuesdays.\n"));
  writeFileSync(join(dir, "team", "a.md"), fm("Alpha", "What the alpha team owns", "Payments.\n"));
  writeFileSync(join(dir, "team", "c.md"), fm("Gamma", "What the gamma team owns", "Search.\n"));
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploys](project_deploys.md) — We deploy on Tuesdays\n- [Alpha](team/a.md) — What the alpha team owns\n- [Gamma](team/c.md) — What the gamma team owns\n");
  const m = await openMemory({ dir, cache: false });
  await m.remember({ type: "project", name: "Releases", description: "Releases are cut from main every second Monday", body: "Every second Monday.\n" });
  m.close();
  return dir;
}

/** The folder's files as the user sees them: memdir's own (history, lock, temporary files) left out. */
function state(dir) {
  const out = {};
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const rel = relative(dir, path);
      if (rel === ".memdir" || rel.startsWith(".memdir.lock") || parseTempFile(name) !== null) continue;
      if (statSync(path).isDirectory()) walk(path);
      // the time a write stamps differs from run to run
      else out[rel] = readFileSync(path, "utf8").replace(/^  modified: .*$/m, "  modified: (when)");
    }
  };
  walk(dir);
  return out;
}

function run(dir, scenario, killAt) {
  return spawnSync(process.execPath, [child, dir, scenario, String(killAt)], { encoding: "utf8", timeout: 60_000 });
}

const baseDir = await base();
const baseState = state(baseDir);
let copies = 0;
const copy = () => {
  const dir = join(root, `c${copies++}`);
  cpSync(baseDir, dir, { recursive: true });
  return dir;
};

for (const scenario of ["remember", "update", "forget", "tool-delete-folder", "tool-rename", "undo", "remember+rotate"]) {
  test(`kill -9 before each mutating call of ${scenario}: the folder is as before or as after, and the history says which`, async () => {
    const whole = copy();
    const r = run(whole, scenario, 0);
    assert.equal(r.status, 0, r.stderr);
    const calls = Number(r.stdout);
    const afterState = state(whole);
    assert.notDeepEqual(afterState, baseState, "the change changes something");
    const baseItems = (await (await openMemory({ dir: baseDir, cache: false })).history()).length;
    assert.ok(calls >= 4, `${calls} mutating calls: lock, intent, change, done at least`);
    const seen = new Set();
    for (let killAt = 1; killAt <= calls; killAt++) {
      const dir = copy();
      const k = run(dir, scenario, killAt);
      assert.equal(k.signal, "SIGKILL", `killed at call ${killAt}: ${k.stderr}`);
      // the next open rolls an interrupted change back before anything is read: the folder is
      // whole before history() (or any write) is called
      const m = await openMemory({ dir, cache: false });
      const now = state(dir);
      const items = await m.history();
      assert.ok(!items.some((i) => i.status === "interrupted"), `killed at ${killAt}: nothing left interrupted`);
      const fresh = items.slice(0, items.length - baseItems);
      if (JSON.stringify(now) === JSON.stringify(baseState)) {
        assert.ok(fresh.every((i) => i.status === "aborted"), `killed at ${killAt}: as before, so no change is done (${JSON.stringify(fresh)})`);
        seen.add("before");
      } else {
        assert.deepEqual(now, afterState, `killed at ${killAt}: as before or as after, nothing between`);
        assert.equal(fresh[0]?.status, "done", `killed at ${killAt}: as after, so the change is done`);
        seen.add("after");
      }
      // and the folder takes the next write, journaled
      await m.remember({ type: "user", name: "Role", description: "The user is on the platform team", body: "Platform.\n" });
      assert.equal((await m.history())[0].status, "done");
      m.close();
    }
    assert.deepEqual([...seen].sort(), ["after", "before"], "the drill saw both outcomes");
  });
}
