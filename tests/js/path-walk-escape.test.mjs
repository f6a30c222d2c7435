// With `descriptorWalk: false` (plain paths: the mode of macOS and Windows), a folder swapped for
// a link out of the memory after a write staged its temporary file, and before it is named,
// takes nothing out (issue 21, defect 5): the memory tool's str_replace and remember's update
// fail with UNSAFE_PATH, and the file outside the memory keeps every byte; nothing outside is
// replaced, nothing outside is removed. The attacker also moves the staged temporary file into
// the folder outside, so that a rename by path there would succeed.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, describe, test } from "node:test";
import { MemdirError, NodeHost, openMemory } from "memdir";
import { faultyFs } from "./fault-fs.mjs";

const temps = [];
function temp(prefix) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const TOPIC = "---\nname: Topic\ndescription: How the deploys of the billing service go out\ntype: project\n---\n\nDeploys go out on Tuesdays.\n";
// what the attacker wants replaced, then lost: not text memdir could have written
const PRECIOUS = Buffer.concat([Buffer.from("outside the memory: keep every byte\n"), Buffer.from([0, 1, 2, 254, 255, 10])]);

/**
 * A memory with `notes/topic.md`, a folder outside it with its own `topic.md`, and a faulty fs
 * whose `before` hook plays the attacker: once the temporary file of `topic.md` is opened, at
 * the next call by path that is not an `open` (the write's bytes are staged), `notes` is moved
 * aside, a link to the outside folder takes its name, and the staged file is moved there.
 * `atRename`: at the rename of the staged file itself instead, the one call plain paths cannot
 * guard (the descriptor walk can).
 */
function setUp(withRawFs, { atRename = false } = {}) {
  const dir = temp("memdir-pathwalk-");
  const outside = temp("memdir-pathwalk-outside-");
  mkdirSync(join(dir, "notes"));
  writeFileSync(join(dir, "notes", "topic.md"), TOPIC);
  writeFileSync(join(dir, "MEMORY.md"), "- [Topic](notes/topic.md) — How the deploys of the billing service go out\n");
  writeFileSync(join(outside, "topic.md"), PRECIOUS);
  let staged = null;
  let swapped = false;
  const before = (fn, path) => {
    const name = basename(String(path ?? ""));
    if (fn === "open" && name.startsWith(".topic.md.tmp-")) staged = name;
    if (staged === null || swapped || fn === "open" || (atRename && !(fn === "rename" && name === staged))) return;
    swapped = true;
    renameSync(join(dir, "notes"), join(dir, "notes.moved"));
    symlinkSync(outside, join(dir, "notes"));
    renameSync(join(dir, "notes.moved", staged), join(outside, staged));
  };
  const { fs, rawFs } = faultyFs({ before });
  const host = new NodeHost(dir, { fs, rawFs: withRawFs ? rawFs : null, descriptorWalk: false });
  return { dir, outside, host, swapped: () => swapped };
}

function outsideIntact(outside) {
  assert.deepEqual(readFileSync(join(outside, "topic.md")), PRECIOUS, "the file outside the memory keeps every byte");
  assert.ok(!readdirSync(outside).some((n) => n !== "topic.md" && !n.startsWith(".topic.md.tmp-")), "nothing else was written outside");
}

for (const withRawFs of [true, false]) {
  const mode = withRawFs ? "fast calls" : "promise calls only";
  describe(`plain paths (descriptorWalk: false, ${mode}): a folder swapped for a link out before the name is given`, () => {
    test("the memory tool's str_replace fails with UNSAFE_PATH and replaces nothing outside", async () => {
      const { dir, outside, host, swapped } = setUp(withRawFs);
      assert.equal(await host.descriptorWalk(), false);
      const memory = await openMemory({ host, selector: { provider: "lexical" } });
      const result = await memory.tool().execute({ command: "str_replace", path: "/memories/notes/topic.md", old_str: "Tuesdays", new_str: "Thursdays" });
      assert.ok(swapped(), "the attacker swapped the folder during the write");
      outsideIntact(outside);
      assert.equal(result.isError, true, result.content);
      assert.match(result.content, /UNSAFE_PATH/, result.content);
      assert.doesNotMatch(result.content, /\(EIO\)/);
      assert.ok(!result.content.includes(dir) && !result.content.includes(outside), `no host path in ${result.content}`);
      memory.close();
    });

    test("remember's update fails with UNSAFE_PATH and replaces nothing outside", async () => {
      const { dir, outside, host, swapped } = setUp(withRawFs);
      const memory = await openMemory({ host, selector: { provider: "lexical" } });
      const error = await memory
        .remember({ file: "notes/topic.md", type: "project", name: "Topic", description: "How the deploys of the billing and the ledger services go out", body: "Deploys go out on Thursdays." })
        .then(() => null, (e) => e);
      assert.ok(swapped(), "the attacker swapped the folder during the write");
      outsideIntact(outside);
      assert.ok(error instanceof MemdirError, `a MemdirError, not ${error?.stack ?? error}`);
      assert.equal(error.code, "UNSAFE_PATH", error.message);
      assert.ok(!error.message.includes(dir) && !error.message.includes(outside), `no host path in ${error.message}`);
      memory.close();
    });

    test("swapped at the rename itself (what plain paths cannot prevent): UNSAFE_PATH, and the undo removes nothing outside", async () => {
      const { outside, host, swapped } = setUp(withRawFs, { atRename: true });
      const memory = await openMemory({ host, selector: { provider: "lexical" } });
      const result = await memory.tool().execute({ command: "str_replace", path: "/memories/notes/topic.md", old_str: "Tuesdays", new_str: "Thursdays" });
      assert.ok(swapped(), "the attacker swapped the folder at the rename");
      assert.equal(result.isError, true, result.content);
      assert.match(result.content, /UNSAFE_PATH/, result.content);
      // the rename replaced the file outside (the window plain paths leave); the undo did not delete it
      assert.equal(readFileSync(join(outside, "topic.md"), "utf8"), TOPIC.replace("Tuesdays", "Thursdays"));
      memory.close();
    });
  });
}
