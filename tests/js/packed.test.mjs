// The scan's packed crossing (js/packed.ts, src/packed.rs) gives what the unpacked calls give:
// every scan fixture replayed through it, and listings made at random (duplicates, folders,
// problems, odd times, heads beyond the cap, bytes that are not UTF-8).
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultLimits, planScan, scanMemories } from "memdir";
import { packEntries, packEntriesInPieces, scanListing, ScanMemo, scanOrder } from "../../pkg/packed.js";
import { expand, fixtureFiles } from "./fixture-runner.mjs";
import { same } from "../fixtures/check.mjs";

const encoder = new TextEncoder();

/** FileHeads as a host's entries and the heads it read (by position). */
function split(files) {
  const entries = files.map((f) => ({ path: f.path, kind: f.kind ?? "file", mtimeMs: f.mtimeMs, size: 0, ...(f.problem ? { problem: f.problem } : {}) }));
  const heads = new Map();
  files.forEach((f, i) => {
    if (f.head != null) heads.set(i, typeof f.head === "string" ? encoder.encode(f.head) : f.head);
  });
  return { entries, heads };
}

const asBytes = (files) => files.map((f) => (typeof f.head === "string" ? { ...f, head: encoder.encode(f.head) } : f));

test("every scan fixture gives the same plan and scan through the packed crossing", () => {
  const scan = fixtureFiles().find((f) => f.file === "scan.json");
  let checked = 0;
  for (const c of scan.cases) {
    const [files, limits] = expand(c.args);
    if (!Array.isArray(files) || files.some((f) => typeof f.mtimeMs !== "number")) continue;
    const { entries, heads } = split(files);
    const full = { ...defaultLimits(), ...limits };
    let unpacked;
    try {
      unpacked = scanMemories(asBytes(files), full);
    } catch {
      continue; // a listing the core refuses (an unknown kind): a host's entries cannot be one
    }
    // the same listing through the unpacked calls, heads as bytes (as a host reads them)
    assert.deepEqual(scanOrder(entries).map((i) => entries[i].path), planScan(asBytes(files), full).read, c.name);
    assert.ok(same(scanListing(entries, heads, full), unpacked), c.name);
    // through a scan memo (scanPackedMemo), twice: the second turn remembers every head
    const memo = new ScanMemo();
    assert.ok(same(memo.scan(entries, heads, full), unpacked), `${c.name}: through the memo`);
    assert.ok(same(memo.scan(entries, heads, full), unpacked), `${c.name}: through the memo, again`);
    memo.close();
    // planned through the memo, then scanned by the times alone (planScanPackedMemo, pathsSame)
    const planned = new ScanMemo();
    const packed = packEntries(entries);
    assert.deepEqual(planned.plan(entries, packed), scanOrder(entries), `${c.name}: planned through the memo`);
    const timesOnly = planned.crossings.timesOnly;
    assert.ok(same(planned.scan(entries, heads, full, packed), unpacked), `${c.name}: by the times alone`);
    assert.equal(planned.crossings.timesOnly, timesOnly + 1, `${c.name}: the times alone crossed`);
    planned.close();
    checked++;
  }
  assert.ok(checked >= 30, `${checked} cases`);
});

test("random listings give the same plan and scan through the packed crossing", () => {
  let seed = 7;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const names = ["a.md", "b.md", "MEMORY.md", "x.txt", "team/c.md", "team/MEMORY.md", "d.md", "e\u00e9.md", "..md", "bad\uff0fx.md", "<t>.md", "f.md"];
  const heads = ["---\nname: N\ndescription: d\ntype: user\n---\n", "no frontmatter\n", "---\ndescription: [a, b]\n---\n", "---\nunclosed\n", "---\nmetadata:\n  modified: 2026-01-01T00:00:00Z\n  type: project\n---\n"];
  const memo = new ScanMemo(); // one memo across the rounds: each a turn where anything changed
  for (let round = 0; round < 300; round++) {
    const files = Array.from({ length: rand(14) }, () => {
      const f = { path: names[rand(names.length)], mtimeMs: [1e12, 2e12, 1.7e12 + rand(5) * 1000, -5, 9e15][rand(5)] };
      const k = rand(10);
      if (k === 0) f.kind = "directory";
      if (k === 1) f.kind = "other";
      if (k === 2) f.problem = ["EACCES", "ENOENT", "symlink_escape", "not_a_file"][rand(4)];
      if (rand(3) > 0) f.head = rand(8) === 0 ? Uint8Array.of(0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0x0a) : heads[rand(heads.length)];
      return f;
    });
    const limits = { ...defaultLimits(), maxFiles: rand(4) };
    const { entries, heads: read } = split(files);
    assert.deepEqual(scanOrder(entries).map((i) => entries[i].path), planScan(asBytes(files), limits).read, `round ${round}`);
    const expected = scanMemories(asBytes(files), limits);
    assert.ok(same(scanListing(entries, read, limits), expected), `round ${round}: ${JSON.stringify(files)}`);
    assert.ok(same(memo.scan(entries, read, limits), expected), `round ${round}, through the memo`);
    assert.ok(same(memo.scan(entries, read, limits), expected), `round ${round}, through the memo again`);
    // the same paths with other times: the memo holds the listing, the times alone cross
    const moved = files.map((f) => ({ ...f, mtimeMs: [1e12, 2e12, 1.7e12 + rand(5) * 1000, -5, 9e15, Number.NaN][rand(6)] }));
    const again = split(moved);
    const timesOnly = memo.crossings.timesOnly;
    assert.ok(same(memo.scan(again.entries, again.heads, limits, packEntries(again.entries)), scanMemories(asBytes(moved), limits)), `round ${round}, times changed: ${JSON.stringify(moved)}`);
    if (entries.length > 0 && !entries.some((e) => e.path.includes("\0"))) assert.equal(memo.crossings.timesOnly, timesOnly + 1, `round ${round}: the times alone crossed`);
  }
  memo.close();
});

test("a listing packed and planned in pieces (the event loop let through between them) is packed and planned as the whole one", async () => {
  let seed = 11;
  // 32-bit steps (Math.imul): a product past 2^53 would lose the low bits an LCG lives on
  const rand = (n) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
  const names = ["a.md", "b.md", "MEMORY.md", "x.txt", "team/c.md", "d.md", "e\u00e9.md", "bad\uff0fx.md", "f.md", "g.md"];
  const memo = new ScanMemo();
  let checked = 0;
  for (let round = 0; round < 200; round++) {
    const size = 1 + rand(4);
    const made = () =>
      Array.from({ length: rand(16) }, (_, i) => ({ path: rand(3) ? `${names[rand(names.length)]}` : `m${i}.md`, kind: ["file", "file", "file", "directory", "other"][rand(5)], size: 0, mtimeMs: [1e12, 2e12, 1.7e12 + rand(5) * 1000, -5, 9e15, Number.NaN][rand(6)], ...(rand(6) === 0 ? { problem: ["EACCES", "symlink_escape"][rand(2)] } : {}) }));
    const entries = made();
    let pauses = 0;
    const pause = async () => {
      pauses++;
      await new Promise((r) => setImmediate(r));
    };
    const packed = await packEntriesInPieces(entries, pause, size);
    const whole = packEntries(entries);
    for (const key of ["paths", "problems"]) assert.equal(packed[key], whole[key], `round ${round}: ${key}`);
    for (const key of ["pathBytes", "kinds", "mtimes"]) assert.deepEqual([...packed[key]], [...whole[key]], `round ${round}: ${key}`);
    assert.equal(packed.pieces.length, Math.max(1, Math.ceil(entries.length / size)));
    assert.equal(pauses, packed.pieces.length - 1, "a pause between two pieces");
    assert.equal(packed.pieces.map((p) => p.paths).join(""), whole.paths);
    assert.equal(packed.pieces.map((p) => p.problems).join(""), whole.problems);
    pauses = 0;
    const timesOnly = memo.crossings.timesOnly;
    assert.deepEqual([...(await memo.planInPieces(entries, packed, pause))], scanOrder(entries), `round ${round}: ${JSON.stringify(entries)}`);
    if (packed.pieces.length > 1) assert.equal(pauses, packed.pieces.length - 1, "the core's calls a piece at a time");
    // new times for the same entries: the memo holds the listing, the times alone cross, in pieces too
    const moved = entries.map((e) => ({ ...e, mtimeMs: [1e12, 2e12, Number.NaN][rand(3)] }));
    const movedPacked = await packEntriesInPieces(moved, pause, size);
    assert.deepEqual([...(await memo.planInPieces(moved, movedPacked, pause))], scanOrder(moved), `round ${round}, new times`);
    if (packed.pieces.length > 1) {
      assert.equal(memo.crossings.timesOnly, timesOnly + 1, "the times alone crossed");
      checked++;
    }
    // the scan after it gives the times alone, and is the scan of the whole
    const expected = scanMemories(moved.map((e) => ({ path: e.path, mtimeMs: e.mtimeMs, kind: e.kind, problem: e.problem ?? null })), defaultLimits());
    assert.ok(same(memo.scan(moved, new Map(), defaultLimits(), movedPacked), expected), `round ${round}: the scan`);
  }
  memo.close();
  assert.ok(checked >= 100, `${checked} rounds in several pieces`);
});

test("the dropped memories are made when first read (then a plain property), and are the ones the unpacked scan gives", () => {
  // 30 files, a cap of 5: 25 dropped, one of them with a head read (a file past the cap with frontmatter)
  const files = Array.from({ length: 30 }, (_, i) => ({ path: `m${String(i).padStart(2, "0")}.md`, mtimeMs: 1e12 + i * 1000, ...(i === 3 ? { head: "---\nname: Read past the cap\n---\n" } : {}) }));
  files.push({ path: "folder.md", kind: "directory", mtimeMs: 5, problem: undefined });
  const limits = { ...defaultLimits(), maxFiles: 5 };
  const { entries, heads } = split(files);
  const expected = scanMemories(asBytes(files), limits);
  for (const result of [scanListing(entries, heads, limits), new ScanMemo().scan(entries, heads, limits)]) {
    const before = Object.getOwnPropertyDescriptor(result, "dropped");
    assert.equal(typeof before.get, "function", "not made yet");
    assert.ok(before.enumerable);
    assert.deepEqual(Object.keys(result), ["memories", "dropped", "diagnostics"]);
    assert.equal(result.dropped.length, 25);
    assert.ok(same(result, expected), "the paths and times of the listing, the one read whole");
    assert.equal(result.dropped.find((m) => m.path === "m03.md").name, "Read past the cap");
    const after = Object.getOwnPropertyDescriptor(result, "dropped");
    assert.ok(after.get === undefined && Array.isArray(after.value) && after.writable, "kept as a plain property once read");
    assert.equal(result.dropped, result.dropped, "the same array at every read");
    assert.deepEqual(JSON.parse(JSON.stringify(result)).dropped, JSON.parse(JSON.stringify(expected.dropped)));
  }
  const unread = scanListing(entries, heads, limits);
  unread.dropped = [];
  assert.deepEqual(unread.dropped, [], "assignable before it is read");
});

test("the dropped memories of a scan result frozen (or sealed) before they are read are still read, the same array each time", () => {
  const files = Array.from({ length: 8 }, (_, i) => ({ path: `m${i}.md`, mtimeMs: 1e12 + i * 1000 }));
  const limits = { ...defaultLimits(), maxFiles: 3 };
  const { entries, heads } = split(files);
  const expected = scanMemories(asBytes(files), limits);
  for (const seal of [Object.freeze, Object.seal]) {
    for (const result of [scanListing(entries, heads, limits), new ScanMemo().scan(entries, heads, limits)]) {
      seal(result);
      const dropped = result.dropped; // a frozen object cannot take the plain property: the getter stays
      assert.deepEqual(dropped.map((m) => m.path), expected.dropped.map((m) => m.path));
      assert.equal(result.dropped, dropped, "the same array at every read");
      assert.deepEqual(JSON.parse(JSON.stringify(result)).dropped, JSON.parse(JSON.stringify(expected.dropped)));
    }
  }
  // read through an object made from it (its prototype): made once, the same array
  const base = scanListing(entries, heads, limits);
  const derived = Object.create(base);
  assert.equal(derived.dropped, base.dropped);
});

test("a path with NUL in it (only a broken host lists one) takes the unpacked calls", () => {
  const entries = [{ path: "a\0b.md", kind: "file", mtimeMs: 1, size: 0 }, { path: "c.md", kind: "file", mtimeMs: 2, size: 0 }];
  const result = scanListing(entries, new Map([[1, encoder.encode("---\nname: C\n---\n")]]), defaultLimits());
  assert.deepEqual(result.memories.map((m) => m.path), ["c.md"]);
  assert.ok(result.diagnostics.some((d) => d.code === "unsafe_path"));
});

test("a selection request for the memo's last scan (the memories taken from the core's memo) is the one the memories give, and falls back when the memo is gone", async () => {
  const { buildSelectionRequest, scanMemoClose } = await import("../../pkg/core.js");
  const files = [
    { path: "a.md", mtimeMs: 3e12, head: "---\nname: A\ndescription: deploys go through staging\ntype: project\n---\n" },
    { path: "b.md", mtimeMs: 2e12, head: "---\ndescription: tests hit a real database\nmetadata:\n  type: feedback\n---\n" },
    { path: "team/c.md", mtimeMs: 1e12, head: "no frontmatter\n" },
  ];
  const { entries, heads } = split(files);
  const memo = new ScanMemo();
  const scanned = memo.scan(entries, heads, defaultLimits());
  const input = { query: "how do we deploy?", memories: scanned.memories, alreadySurfaced: ["b.md"], recentTools: [], surfacedUtf16: 0 };
  const expected = buildSelectionRequest(input);
  assert.deepEqual(memo.selectionRequest(input), expected);
  assert.deepEqual(memo.selectionRequest({ ...input, memories: [...scanned.memories] }), expected, "other memories cross as before");
  scanMemoClose(memo.handle); // as a restarted module has no memo
  assert.deepEqual(memo.selectionRequest(input), expected, "the memo gone: the memories cross");
  // the same head arrays again, the memo gone: they cross after all, and the scan is the same
  assert.ok(same(memo.scan(entries, heads, defaultLimits()), scanned), "heads the core no longer holds are given again");
  assert.ok(same(memo.scan(entries, heads, { ...defaultLimits(), maxHeaderLines: 2 }), scanMemories(asBytes(files), { ...defaultLimits(), maxHeaderLines: 2 })), "another header limit: read again");
  memo.close();
});

test("a memory kept without a head, then its older head again: the scan through the memo is the one from scratch", () => {
  const head = "---\nname: A\ndescription: deploys go through staging\ntype: project\n---\n";
  const turns = [
    [{ path: "a.md", mtimeMs: 1e12, head }],
    [{ path: "a.md", mtimeMs: 2e12 }], // kept, no head read (the memo has no reading of it)
    [{ path: "a.md", mtimeMs: 1e12, head }], // the first reading: not the last scan's memory
  ];
  const memo = new ScanMemo();
  turns.forEach((files, turn) => {
    const { entries, heads } = split(files);
    assert.ok(same(memo.scan(entries, heads, defaultLimits()), scanMemories(asBytes(files), defaultLimits())), `turn ${turn}`);
  });
  memo.close();
});

test("the offline selector through the memo (terms kept per head in the core) chooses as the memories and heads crossing do, through edits, and falls back when the memo is gone", async () => {
  const { lexicalSelect, scanMemoClose } = await import("../../pkg/core.js");
  const fm = (name, description, body) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\n${body}\n`;
  let files = [
    { path: "billing.md", mtimeMs: 5e12, head: fm("Billing deploys", "how the billing service is deployed", "Blue-green script.") },
    { path: "db.md", mtimeMs: 4e12, head: fm("Database credentials", "rotating the database credentials", "Kubernetes secrets, monthly.") },
    { path: "team/k8s.md", mtimeMs: 3e12, head: fm("Cluster", "the cluster and its rollouts", "A kubernetes canary first.") },
  ];
  const memo = new ScanMemo();
  const queries = ["how do we deploy billing", "monthly kubernetes secrets", "canary rollout"];
  for (let turn = 0; turn < 3; turn++) {
    if (turn === 1) files = files.map((f) => (f.path === "db.md" ? { ...f, mtimeMs: 6e12, head: fm("Database", "credentials", "Vault holds the rotated passwords.") } : f));
    if (turn === 2) files = [...files, { path: "deploy.md", mtimeMs: 7e12, head: fm("Deploys", "how every service deploys", "billing too") }];
    const { entries, heads } = split(files);
    const scanned = memo.scan(entries, heads, defaultLimits());
    const byPath = Object.fromEntries(files.map((f) => [f.path, new TextEncoder().encode(f.head)]));
    for (const query of queries) {
      for (const candidates of [scanned.memories.map((m) => m.path), scanned.memories.slice(1).map((m) => m.path)]) {
        const wanted = new Set(candidates);
        const memories = scanned.memories.filter((m) => wanted.has(m.path));
        const expected = lexicalSelect({ query, memories, recentTools: [], heads: Object.fromEntries(memories.map((m) => [m.path, byPath[m.path]])), limits: defaultLimits() });
        const input = { query, memories: scanned.memories, heads: byPath, candidates, recentTools: [], limits: defaultLimits() };
        assert.deepEqual(memo.lexicalSelect(input), expected, `turn ${turn}: ${query}`);
        assert.deepEqual(memo.lexicalSelect({ ...input, memories: [...scanned.memories] }), expected, "other memories cross as before");
      }
    }
    if (turn === 1) assert.deepEqual(memo.lexicalSelect({ query: "vault rotated passwords", memories: scanned.memories, heads: byPath, candidates: ["db.md"], recentTools: [], limits: defaultLimits() }).selected, ["db.md"], "the edited body's terms, not the kept ones");
  }
  const { entries, heads } = split(files);
  const scanned = memo.scan(entries, heads, defaultLimits());
  const input = { query: "blue green script", memories: scanned.memories, heads: Object.fromEntries(files.map((f) => [f.path, f.head])), candidates: scanned.memories.map((m) => m.path), recentTools: [], limits: defaultLimits() };
  const before = memo.lexicalSelect(input);
  assert.ok(before.selected.length > 0);
  scanMemoClose(memo.handle); // as a restarted module has no memo
  assert.deepEqual(memo.lexicalSelect(input), before, "the memo gone: the memories and heads cross");
  memo.close();
});
