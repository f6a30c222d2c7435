// The Node host's fast paths (js/hosts/node-fast.ts): synchronous calls within the process's one
// budget a turn (js/slice.ts), through the promises once calls turn slow; the same answers either way.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { NodeHost } from "../../pkg/hosts/node.js";

const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
function folder(files) {
  const dir = mkdtempSync(join(tmpdir(), "memdir-fast-"));
  temps.push(dir);
  mkdirSync(join(dir, "sub"));
  for (let i = 0; i < files; i++) writeFileSync(join(dir, `m${i}.md`), `---\ndescription: memory ${i}\n---\nbody\n`);
  writeFileSync(join(dir, "sub", "x.md"), "x\n");
  symlinkSync("m0.md", join(dir, "link.md"));
  return dir;
}
const spin = (ms) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

test("the listing, heads and stats by synchronous calls are the host's own answers through the promises", async () => {
  const dir = folder(40);
  const fast = new NodeHost(dir, { io: "sync" });
  const promised = new NodeHost(dir, { io: "async" });
  const plain = new NodeHost(dir, { rawFs: null });
  const entries = (await fast.fast.listing()).toEntries();
  assert.deepEqual(entries, (await promised.fast.listing()).toEntries());
  assert.deepEqual(entries, await plain.list());
  const paths = ["m3.md", "sub/x.md", "link.md", "nope.md", "sub"];
  const heads = await fast.fast.readHeads(paths, 2);
  assert.deepEqual(heads.map((h) => (h instanceof Error ? h.code : new TextDecoder().decode(h.bytes))), ["---\ndescription: memory 3\n---\nbody\n", "x\n", "---\ndescription: memory 0\n---\nbody\n", "ENOENT", "EISDIR"]);
  assert.deepEqual(heads, await promised.fast.readHeads(paths, 2));
  const stats = await fast.fast.statMany(paths);
  assert.deepEqual(stats, await promised.fast.statMany(paths));
  assert.deepEqual(
    stats.map((s) => s && [s.kind, s.problem ?? null]),
    [["file", null], ["file", null], ["other", "symlink"], null, ["directory", null]],
  );
});

test("calls that turn slow send the rest through the promises: the same listing, the event loop not held by them", async () => {
  const dir = folder(300);
  const counts = { sync: 0, promised: 0 };
  const raw = Object.create(fs);
  raw.lstatSync = (...a) => {
    counts.sync++;
    spin(3); // past SLOW_CALL_MS: a network file system
    return fs.lstatSync(...a);
  };
  const promisedFs = { ...fsp, lstat: (...a) => (counts.promised++, fsp.lstat(...a)) };
  const host = new NodeHost(dir, { rawFs: raw, fs: promisedFs });
  const listing = await host.fast.listing();
  assert.deepEqual(listing.toEntries(), await new NodeHost(dir).list());
  assert.ok(counts.sync >= 3 && counts.sync < 20, `a few slow synchronous calls (${counts.sync}), then none`);
  assert.ok(counts.promised >= 280, `the rest through the promises (${counts.promised})`);
  // for a while after, every read goes through the promises at once
  counts.sync = 0;
  await host.fast.statMany(["m1.md", "m2.md"]);
  assert.equal(counts.sync, 0);
});

test("readers in flight share one budget a turn: a long listing lets the event loop through, and so do several at once", async () => {
  const dir = folder(3000);
  let ticks = 0;
  let on = true;
  const tick = () => {
    ticks++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  const hosts = [0, 1, 2].map(() => new NodeHost(dir, { io: "sync" }));
  const listings = await Promise.all(hosts.map((h) => h.fast.listing()));
  on = false;
  for (const l of listings) assert.equal(l.length, 3000 + 3);
  assert.ok(hosts.some((h) => h.yields > 0), "the listings let the loop through");
  assert.ok(ticks > 1, "other work ran between the slices");
});
