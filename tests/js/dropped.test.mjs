// An opened memory dropped without close() is freed (issue 21, defect 4): its watchers' callbacks
// hold the scan cache only weakly, and the cache's watchers, background check and core memo are
// given back when it is collected. Run in a child process with `--expose-gc` (dropped-child.mjs).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const child = fileURLToPath(new URL("./dropped-child.mjs", import.meta.url));

test("memories dropped without close() are collected and their watchers closed; a kept one keeps working", () => {
  const run = spawnSync(process.execPath, ["--expose-gc", child, "40"], { encoding: "utf8", timeout: 120_000 });
  assert.equal(run.status, 0, run.stderr);
  const r = JSON.parse(run.stdout.trim().split("\n").at(-1));
  assert.ok(r.whileOpen.live > 0, "the memories watched their folders while they were in use");
  assert.equal(r.memories.collected, r.memories.registered, "every dropped memory was collected");
  assert.equal(r.hosts.collected, r.hosts.registered, "every dropped memory's host was collected (no watcher callback holds it)");
  assert.equal(r.afterDrop.live, r.afterDrop.keptOpen, "the dropped memories' watchers were closed; only the kept memory's are open");
  assert.ok(r.afterDrop.keptOpen > 0, "collecting the dropped memories left the kept memory's watchers open");
  if (r.baseline.inotify !== null) {
    assert.ok(r.whileOpen.inotify > r.baseline.inotify, "the kernel held watches while the memories were open");
    // the kept memory watches the same folders (the kernel keeps one watch a folder): once it is closed, none is left
    assert.equal(r.afterClose.inotify, r.baseline.inotify, "every kernel watch was removed");
  }
  assert.ok(r.keptSawNewFile, "the kept memory saw a file written after the collection");
  assert.equal(r.afterClose.live, 0, "close() closed the kept memory's watchers at once, and no dropped memory's is left");
  assert.equal(r.afterClose.keptOpen, 0);
});
