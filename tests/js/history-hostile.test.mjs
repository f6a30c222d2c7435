// The history as a careless user or a hostile folder leaves it (rules §4.6): a journal that is
// not memdir's (junk, cut lines, records naming paths out of the folder or into .memdir, a
// blob path elsewhere, a huge live segment) is read without a throw, its bad lines skipped, and
// never makes undo write where no writer may.
import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemoryHost, MemdirError, openMemory } from "memdir";

const enc = new TextEncoder();
const sha = "a".repeat(64);
const line = (o) => `${JSON.stringify(o)}\n`;

test("junk, cut lines and records naming unsafe paths are skipped; undo of them is NOT_FOUND; writes go on", async () => {
  const host = new InMemoryHost();
  const evil = [
    "not json at all\n",
    '{"id":"0001764892800000-0000","atMs":1,"route":"tool","changes":[{"path":"a.md","before":null,"after":"' + sha.slice(0, 10) + '"}]}\n',
    line({ id: "0001764892800001-0000", atMs: 1, route: "tool", changes: [{ path: "../outside.md", before: null, after: sha }] }),
    line({ id: "0001764892800002-0000", atMs: 1, route: "tool", changes: [{ path: ".memdir/history/journal.jsonl", before: null, after: sha }] }),
    line({ id: "0001764892800003-0000", atMs: 1, route: "tool", changes: [{ path: "a.md", before: { sha256: sha, bytes: 1, blob: "/etc/passwd" }, after: null }] }),
    line({ done: "0001764892800001-0000" }),
    '{"id":"0001764892800004-0000","atMs":1,"route":"tool","chan', // cut mid-line
  ].join("");
  await host.writeFile(".memdir/history/journal.jsonl", enc.encode(evil));
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  assert.deepEqual(await memory.history(), [], "nothing of it is a record");
  for (const id of ["0001764892800001-0000", "0001764892800002-0000", "0001764892800003-0000"]) {
    await assert.rejects(memory.undo(id), (e) => e instanceof MemdirError && e.code === "NOT_FOUND", id);
  }
  await memory.remember({ type: "user", name: "Role", description: "The user is on the platform team", body: "b" });
  const [record] = await memory.history();
  assert.deepEqual([record.route, record.status], ["remember", "done"]);
  assert.ok(!host.files.has("outside.md") && ![...host.files.keys()].some((p) => p.startsWith("..")));
});

test("a live segment far past any memdir writes is read no further than the bound, and the next write still records", async () => {
  const host = new InMemoryHost();
  // 80 MiB of one line: not memdir's; reading it whole each write would be the folder's own DoS
  const big = new Uint8Array(80 * 1024 * 1024).fill(0x7b);
  await host.writeFile(".memdir/history/journal.jsonl", big);
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  await memory.remember({ type: "user", name: "Role", description: "The user is on the platform team", body: "b" });
  const history = await memory.history();
  assert.deepEqual(history.map((h) => [h.route, h.status]), [["remember", "done"]]);
  assert.ok(host.files.get(".memdir/history/journal.jsonl").data.length <= 64 * 1024 * 1024 + 4096, "the rewritten segment is bounded");
});
