// An opened memory's scan session (js/scan-session.ts over src/scan_session.rs) gives what the
// plain calls give: every scan fixture replayed through it, listings made at random (duplicates,
// folders, problems, odd times, heads beyond the cap, bytes that are not UTF-8), turn after
// turn, and a session lost or refused is given everything again.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultLimits, scanMemories } from "memdir";
import { planScan } from "../../pkg/internal.js";
import { Listing } from "../../pkg/listing.js";
import { ScanSession } from "../../pkg/scan-session.js";
import { expand, fixtureFiles } from "./fixture-runner.mjs";
import { same } from "../fixtures/check.mjs";

const encoder = new TextEncoder();

/** FileHeads as a host's listing and the heads it read (by position). */
function split(files) {
  const entries = files.map((f) => ({ path: f.path, kind: f.kind ?? "file", mtimeMs: f.mtimeMs, size: 0, ...(f.problem ? { problem: f.problem } : {}) }));
  const heads = new Map();
  files.forEach((f, i) => {
    if (f.head != null) heads.set(i, typeof f.head === "string" ? encoder.encode(f.head) : f.head);
  });
  return { entries, listing: Listing.fromEntries(entries), heads };
}

const asBytes = (files) => files.map((f) => (typeof f.head === "string" ? { ...f, head: encoder.encode(f.head) } : f));

/** One turn through `session`: the plan's paths and the scan. */
function turn(session, files) {
  const { listing, heads } = split(files);
  const order = session.plan(listing);
  return { read: Array.from(order, (i) => listing.paths[i]), scan: session.scan(heads) };
}

/** Whether a scan from scratch keeps a file whose head was not read (the JS side never scans so). */
const keptWithoutHead = (scan) => scan.diagnostics.some((d) => d.code === "head_missing");

test("every scan fixture gives the same plan and scan through a session, turn after turn and by the times alone", () => {
  const scan = fixtureFiles().find((f) => f.file === "scan.json");
  let checked = 0;
  for (const c of scan.cases) {
    const [files, limits] = expand(c.args);
    if (!Array.isArray(files) || files.some((f) => typeof f.mtimeMs !== "number")) continue;
    const full = { ...defaultLimits(), ...limits };
    let expected;
    try {
      expected = scanMemories(asBytes(files), full);
    } catch {
      continue; // a listing the core refuses (an unknown kind): a host's entries cannot be one
    }
    if (keptWithoutHead(expected)) continue;
    const session = new ScanSession(full);
    for (const round of ["first", "again", "again"]) {
      const { read, scan: got } = turn(session, files);
      assert.deepEqual(read, planScan(asBytes(files), full).read, `${c.name}: ${round}`);
      assert.ok(same(got, expected), `${c.name}: ${round}`);
    }
    assert.equal(session.crossings.whole, 1, `${c.name}: the listing crossed whole once`);
    assert.equal(session.crossings.timesOnly, 2, `${c.name}: then by its times alone`);
    session.close();
    checked++;
  }
  assert.ok(checked >= 30, `${checked} cases`);
});

test("random listings, turn after turn through one session, give the plan and scan of the plain calls", () => {
  let seed = 7;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  const names = ["a.md", "b.md", "MEMORY.md", "x.txt", "team/c.md", "team/MEMORY.md", "d.md", "e\u00e9.md", "..md", "bad\uff0fx.md", "<t>.md", "f.md"];
  const heads = ["---\nname: N\ndescription: d\ntype: user\n---\n", "no frontmatter\n", "---\ndescription: [a, b]\n---\n", "---\nunclosed\n", "---\nmetadata:\n  modified: 2026-01-01T00:00:00Z\n  type: project\n---\n"];
  const sessions = new Map(); // one session per cap, across the rounds: each a turn where anything changed
  let compared = 0;
  for (let round = 0; round < 300; round++) {
    const files = Array.from({ length: rand(14) }, () => {
      const f = { path: names[rand(names.length)], mtimeMs: [1e12, 2e12, 1.7e12 + rand(5) * 1000, -5, 9e15][rand(5)] };
      const k = rand(10);
      if (k === 0) f.kind = "directory";
      if (k === 1) f.kind = "other";
      if (k === 2) f.problem = ["EACCES", "ENOENT", "symlink_escape", "not_a_file"][rand(4)];
      f.head = rand(8) === 0 ? Uint8Array.of(0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0x0a) : heads[rand(heads.length)];
      return f;
    });
    const limits = { ...defaultLimits(), maxFiles: rand(4) };
    if (!sessions.has(limits.maxFiles)) sessions.set(limits.maxFiles, new ScanSession(limits));
    const session = sessions.get(limits.maxFiles);
    const expected = scanMemories(asBytes(files), limits);
    const { read, scan: got } = turn(session, files);
    assert.deepEqual(read, planScan(asBytes(files), limits).read, `round ${round}`);
    assert.ok(same(got, expected), `round ${round}: ${JSON.stringify(files)}`);
    // the same paths with other times: the session holds the listing, the times alone cross
    const moved = files.map((f) => ({ ...f, mtimeMs: [1e12, 2e12, 1.7e12 + rand(5) * 1000, -5, 9e15, Number.NaN][rand(6)] }));
    const timesOnly = session.crossings.timesOnly;
    assert.ok(same(turn(session, moved).scan, scanMemories(asBytes(moved), limits)), `round ${round}, times changed: ${JSON.stringify(moved)}`);
    if (files.length > 0) assert.equal(session.crossings.timesOnly, timesOnly + 1, `round ${round}: the times alone crossed`);
    compared++;
  }
  for (const s of sessions.values()) s.close();
  assert.equal(compared, 300);
});

test("a read that failed leaves its file out, with the diagnostic a listed problem gives, and the next file takes its place", () => {
  const files = [
    { path: "a.md", mtimeMs: 3e12, head: "---\nname: A\ndescription: a\n---\n" },
    { path: "b.md", mtimeMs: 2e12, head: "---\nname: B\ndescription: b\n---\n" },
    { path: "c.md", mtimeMs: 1e12, head: "---\nname: C\ndescription: c\n---\n" },
  ];
  const limits = { ...defaultLimits(), maxFiles: 2 };
  const { listing, heads } = split(files);
  const session = new ScanSession(limits);
  session.plan(listing);
  heads.delete(0);
  const got = session.scan(heads, new Map([[0, "EACCES"]]));
  const expected = scanMemories(asBytes([{ ...files[0], head: undefined, problem: "EACCES" }, files[1], files[2]]), limits);
  assert.ok(same(got, expected));
  assert.deepEqual(got.memories.map((m) => m.path), ["b.md", "c.md"]);
  assert.ok(got.diagnostics.some((d) => d.path === "a.md" && d.code === "unreadable"));
  session.close();
});

test("a session whose core lost what it held (closed, or its module restarted) is given the listing and every head again, whole, and scans the same", () => {
  const files = [
    { path: "a.md", mtimeMs: 3e12, head: "---\nname: A\ndescription: deploys go through staging\ntype: project\n---\n" },
    { path: "b.md", mtimeMs: 2e12, head: "no frontmatter\n" },
  ];
  const { listing, heads } = split(files);
  const session = new ScanSession(defaultLimits());
  session.plan(listing);
  const first = session.scan(heads);
  const whole = session.crossings.whole;
  session.close(); // the core's session is gone; the listing and the head arrays are the same
  const again = session.scan(heads);
  assert.ok(same(again, first));
  assert.equal(session.crossings.whole, whole + 1, "given again whole");
  // and a head the core does not hold is never taken for the one it did
  const edited = new Map(heads);
  edited.set(0, encoder.encode("---\nname: A2\ndescription: edited\n---\n"));
  assert.equal(session.scan(edited).memories.find((m) => m.path === "a.md").name, "A2");
  session.close();
});

test("the dropped memories are made when first read (then a plain property), and are the ones the unpacked scan gives", () => {
  // 30 files, a cap of 5: 25 dropped, one of them with a head read (a file past the cap with frontmatter)
  const files = Array.from({ length: 30 }, (_, i) => ({ path: `m${String(i).padStart(2, "0")}.md`, mtimeMs: 1e12 + i * 1000, ...(i === 3 ? { head: "---\nname: Read past the cap\n---\n" } : i >= 25 ? { head: "kept\n" } : {}) }));
  files.push({ path: "folder.md", kind: "directory", mtimeMs: 5, problem: undefined });
  const limits = { ...defaultLimits(), maxFiles: 5 };
  const { entries, heads } = split(files);
  const expected = scanMemories(asBytes(files), limits);
  {
    const session = new ScanSession(limits);
    session.plan(Listing.fromEntries(entries));
    const result = session.scan(heads);
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
  const session = new ScanSession(limits);
  session.plan(Listing.fromEntries(entries));
  const unread = session.scan(heads);
  unread.dropped = [];
  assert.deepEqual(unread.dropped, [], "assignable before it is read");
});

test("the dropped memories of a scan result frozen (or sealed) before they are read are still read, the same array each time", () => {
  const files = Array.from({ length: 8 }, (_, i) => ({ path: `m${i}.md`, mtimeMs: 1e12 + i * 1000, ...(i >= 5 ? { head: "kept\n" } : {}) }));
  const limits = { ...defaultLimits(), maxFiles: 3 };
  const { entries, heads } = split(files);
  const expected = scanMemories(asBytes(files), limits);
  for (const seal of [Object.freeze, Object.seal]) {
    {
      const session = new ScanSession(limits);
      session.plan(Listing.fromEntries(entries));
      const result = session.scan(heads);
      seal(result);
      const dropped = result.dropped; // a frozen object cannot take the plain property: the getter stays
      assert.deepEqual(dropped.map((m) => m.path), expected.dropped.map((m) => m.path));
      assert.equal(result.dropped, dropped, "the same array at every read");
      assert.deepEqual(JSON.parse(JSON.stringify(result)).dropped, JSON.parse(JSON.stringify(expected.dropped)));
    }
  }
  // read through an object made from it (its prototype): made once, the same array
  const session = new ScanSession(limits);
  session.plan(Listing.fromEntries(entries));
  const base = session.scan(heads);
  const derived = Object.create(base);
  assert.equal(derived.dropped, base.dropped);
});

test("a path with NUL in it (only a broken host lists one) takes the plain calls", () => {
  const entries = [{ path: "a\0b.md", kind: "file", mtimeMs: 1, size: 0 }, { path: "c.md", kind: "file", mtimeMs: 2, size: 0 }];
  const session = new ScanSession(defaultLimits());
  assert.deepEqual(Array.from(session.plan(Listing.fromEntries(entries))), [1]);
  const result = session.scan(new Map([[1, encoder.encode("---\nname: C\n---\n")]]));
  assert.deepEqual(result.memories.map((m) => m.path), ["c.md"]);
  assert.ok(result.diagnostics.some((d) => d.code === "unsafe_path"));
});

test("a selection request for the session's last scan (the memories taken from the core's session) is the one the memories give, and falls back when the session is gone", async () => {
  const { buildSelectionRequest } = await import("../../pkg/core.js");
  const files = [
    { path: "a.md", mtimeMs: 3e12, head: "---\nname: A\ndescription: deploys go through staging\ntype: project\n---\n" },
    { path: "b.md", mtimeMs: 2e12, head: "---\ndescription: tests hit a real database\nmetadata:\n  type: feedback\n---\n" },
    { path: "team/c.md", mtimeMs: 1e12, head: "no frontmatter\n" },
  ];
  const { listing, heads } = split(files);
  const memo = new ScanSession(defaultLimits());
  memo.plan(listing);
  const scanned = memo.scan(heads);
  const input = { query: "how do we deploy?", memories: scanned.memories, alreadySurfaced: ["b.md"], recentTools: [], surfacedUtf16: 0 };
  const expected = buildSelectionRequest(input);
  assert.deepEqual(memo.selectionRequest(input), expected);
  assert.deepEqual(memo.selectionRequest({ ...input, memories: [...scanned.memories] }), expected, "other memories cross as before");
  memo.close(); // as a restarted module has no session
  assert.deepEqual(memo.selectionRequest(input), expected, "the session gone: the memories cross");
  // the same head arrays again, the session gone: they cross after all, and the scan is the same
  assert.ok(same(memo.scan(heads), scanned), "heads the core no longer holds are given again");
  memo.close();
});

test("the offline selector through the session (terms kept per head in the core) chooses as the memories and heads crossing do, through edits, and falls back when the session is gone", async () => {
  const { lexicalSelect } = await import("../../pkg/core.js");
  const fm = (name, description, body) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\n${body}\n`;
  let files = [
    { path: "billing.md", mtimeMs: 5e12, head: fm("Billing deploys", "how the billing service is deployed", "Blue-green script.") },
    { path: "db.md", mtimeMs: 4e12, head: fm("Database credentials", "rotating the database credentials", "Kubernetes secrets, monthly.") },
    { path: "team/k8s.md", mtimeMs: 3e12, head: fm("Cluster", "the cluster and its rollouts", "A kubernetes canary first.") },
  ];
  const memo = new ScanSession(defaultLimits());
  const queries = ["how do we deploy billing", "monthly kubernetes secrets", "canary rollout"];
  for (let turn = 0; turn < 3; turn++) {
    if (turn === 1) files = files.map((f) => (f.path === "db.md" ? { ...f, mtimeMs: 6e12, head: fm("Database", "credentials", "Vault holds the rotated passwords.") } : f));
    if (turn === 2) files = [...files, { path: "deploy.md", mtimeMs: 7e12, head: fm("Deploys", "how every service deploys", "billing too") }];
    const { listing, heads } = split(files);
    memo.plan(listing);
    const scanned = memo.scan(heads);
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
  const { listing, heads } = split(files);
  memo.plan(listing);
  const scanned = memo.scan(heads);
  const input = { query: "blue green script", memories: scanned.memories, heads: Object.fromEntries(files.map((f) => [f.path, f.head])), candidates: scanned.memories.map((m) => m.path), recentTools: [], limits: defaultLimits() };
  const before = memo.lexicalSelect(input);
  assert.ok(before.selected.length > 0);
  memo.close(); // as a restarted module has no session
  assert.deepEqual(memo.lexicalSelect(input), before, "the session gone: the memories and heads cross");
  memo.close();
});
