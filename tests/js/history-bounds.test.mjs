// The history keeps to its bounds (rules §4.6) under 10,000 writes: segments closed at
// segmentBytes, the oldest dropped with their blobs past maxBytes or maxAgeDays, the newest
// records always kept and undoable, no blob left without its record.
import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemoryHost, openMemory } from "memdir";

const HOUR = 3_600_000;

test("10,000 writes through the memory tool, an hour apart: the history stays within maxBytes (plus one segment) and maxAgeDays", async () => {
  const policy = { inlineBytes: 64, segmentBytes: 16 * 1024, maxBytes: 256 * 1024, maxAgeDays: 30 };
  const host = new InMemoryHost();
  let now = Date.UTC(2026, 0, 1);
  const memory = await openMemory({ host, cache: false, now: () => now, history: { label: "bounds", policy } });
  const tool = memory.tool();
  let worst = 0;
  let blobsSeen = 0;
  for (let i = 0; i < 10_000; i++) {
    now += HOUR;
    // a small note rewritten, and every tenth write a file past inlineBytes (its earlier content goes to a blob)
    const text = i % 10 === 0 ? `${"x".repeat(200)} ${i}\n` : `note ${i}\n`;
    const path = `/memories/notes/n${i % 7}.md`;
    const r = await tool.execute(i < 7 ? { command: "create", path, file_text: text } : { command: "str_replace", path, old_str: (await host.readFile(path.slice(10))).toString().length ? new TextDecoder().decode(await host.readFile(path.slice(10))) : "", new_str: text });
    assert.equal(r.isError, false, `${i}: ${r.content}`);
    const files = [...host.files.entries()].filter(([p]) => p.startsWith(".memdir/history/"));
    const bytes = files.reduce((n, [, f]) => n + f.data.length, 0);
    worst = Math.max(worst, bytes);
    blobsSeen = Math.max(blobsSeen, files.filter(([p]) => p.includes("/blobs/")).length);
  }
  assert.ok(worst <= policy.maxBytes + policy.segmentBytes, `at most ${worst} bytes of history, within ${policy.maxBytes} + one segment`);
  assert.ok(blobsSeen > 0, "blobs were written");
  const history = await memory.history();
  assert.ok(history.every((h) => h.status === "done"));
  assert.equal(history[0].changes[0].path, `notes/n${9999 % 7}.md`, "the newest change is kept");
  const oldest = history.at(-1).atMs;
  assert.ok(now - oldest <= (policy.maxAgeDays + 7) * 24 * HOUR, `the oldest record is ${(now - oldest) / 24 / HOUR} days old: within maxAgeDays and a segment`);
  assert.ok(now - oldest >= 7 * 24 * HOUR, "and the history does reach back days: it was not emptied");
  // every blob belongs to a kept record
  const kept = new Set(history.flatMap((h) => h.changes).map((c) => c.beforeSha256));
  const segments = [...host.files.keys()].filter((p) => p.includes("/journal"));
  const text = segments.map((p) => new TextDecoder().decode(host.files.get(p).data)).join("");
  for (const p of [...host.files.keys()].filter((p) => p.includes("/blobs/"))) assert.ok(text.includes(`"blob":"${p}"`), `${p} is named by a kept record`);
  assert.ok(kept.size > 0);
  // and the newest change is undoable
  assert.equal((await memory.undo(history[0].id)).applied, true);
});
