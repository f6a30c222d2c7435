// Hostile input through the built package: nothing may trap the module (a trap poisons it for
// every later call). Each group ends by showing that ordinary calls still give exact results.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import "memdir"; // loads the module
import * as memdir from "../../pkg/internal.js"; // the core's functions beyond the public entry too

const NOW = 1772714096789;
const MB10 = 10 * 1024 * 1024;

function stillHealthy() {
  assert.equal(memdir.isReady(), true);
  const view = memdir.truncateIndex("a\nb\nc", { maxIndexLines: 2 });
  assert.equal(view.content.split("\n\n")[0], "a\nb");
  assert.equal(view.lineCount, 3);
  const scan = memdir.scanMemories([{ path: "x.md", mtimeMs: NOW, head: "---\ndescription: ok\ntype: user\n---\n" }]);
  assert.deepEqual(scan.memories, [{ path: "x.md", mtimeMs: NOW, timeMs: NOW, description: "ok", type: "user" }]);
  assert.deepEqual(memdir.parseSelection('{"selected_memories":["x.md"]}', ["x.md"]).selected, ["x.md"]);
}

const lone = "\ud800a\udfffb\ud83d";
const controls = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("") + "\u007f\u0085\u2028";

test("lone surrogates, NUL and control characters are handled, not trapped", () => {
  for (const s of [lone, controls, `---\ndescription: ${lone}${controls}\n---\n`]) {
    const view = memdir.truncateIndex(s);
    assert.equal(typeof view.content, "string");
    const scan = memdir.scanMemories([{ path: "a.md", mtimeMs: NOW, head: s }]);
    assert.equal(scan.memories.length, 1);
    assert.equal(memdir.parseSelection(s, ["a.md"]).selected.length, 0);
    assert.equal(typeof memdir.renderMemory({ path: "a.md", mtimeMs: NOW, content: s, nowMs: NOW }).text, "string");
    assert.equal(typeof memdir.sanitizePath(s), "string");
    if (s !== lone) assert.throws(() => memdir.checkRelativePath(s), { code: "UNSAFE_PATH" });
  }
  // lone surrogates become U+FFFD, which is an ordinary character in a path
  assert.equal(memdir.checkRelativePath(lone), undefined);
  // a lone surrogate arrives as U+FFFD (wasm-bindgen decodes strings lossily)
  assert.equal(memdir.scanMemories([{ path: "a.md", mtimeMs: NOW, head: `---\ndescription: x${"\ud800"}y\n---\n` }]).memories[0].description, "x\ufffdy");
  // a path with NUL is refused by the scan, with a diagnostic
  const scan = memdir.scanMemories([{ path: "a\u0000.md", mtimeMs: NOW, head: "" }]);
  assert.deepEqual(scan.memories, []);
  assert.equal(scan.diagnostics[0].code, "unsafe_path");
  stillHealthy();
});

test("10 MB strings everywhere", () => {
  const line = "x".repeat(MB10);
  const lines = "- [a](a.md) — hook\n".repeat(MB10 / 19);
  let view = memdir.truncateIndex(line);
  assert.equal(view.wasSizeTruncated, true);
  assert.equal(view.content.length, 25000 + view.content.length - 25000);
  assert.ok(view.content.startsWith("x".repeat(25000) + "\n\n> WARNING"));
  view = memdir.truncateIndex(lines);
  assert.equal(view.wasLineTruncated, true);
  assert.equal(view.content.split("\n").length, 202);
  const scan = memdir.scanMemories([
    { path: "long.md", mtimeMs: NOW, head: `---\ndescription: ${line}\n---\n` },
    { path: "lines.md", mtimeMs: NOW - 1, head: lines },
    { path: "deep.md", mtimeMs: NOW - 2, head: `---\ndescription: ${"- ".repeat(MB10 / 2)}\n---\n` },
  ]);
  assert.equal(scan.memories.length, 3);
  assert.deepEqual(scan.diagnostics.map((d) => [d.path, d.code]), [
    ["long.md", "frontmatter_malformed"],
    ["lines.md", "frontmatter_missing"],
    ["deep.md", "frontmatter_malformed"],
  ]);
  const rendered = memdir.renderMemory({ path: "a.md", mtimeMs: NOW, content: lines, nowMs: NOW });
  assert.equal(rendered.truncated, "bytes");
  assert.ok(Buffer.byteLength(rendered.body.split("\n\n>")[0]) <= 4096);
  const answer = memdir.parseSelection(`${"{".repeat(MB10)}`, ["a.md"]);
  assert.equal(answer.failure.code, "invalid_json");
  const prose = memdir.parseSelection(`${line} {"selected_memories":["a.md"]}`, ["a.md"]);
  assert.deepEqual(prose.selected, ["a.md"]);
  assert.equal(memdir.sanitizePath(line).length, 200 + 1 + memdir.sanitizePath(line).split("-").pop().length);
  stillHealthy();
});

test("deeply nested and self-referencing YAML", () => {
  const heads = [
    `---\ndescription: ${"[".repeat(5000)}\n---\n`,
    `---\ndescription: ${"{a: ".repeat(5000)}\n---\n`,
    `---\na: &a [*a]\ndescription: x\n---\n`,
    `---\na: &a\n  b: *a\ndescription: x\n---\n`,
    `---\n${Array.from({ length: 28 }, (_, i) => `${" ".repeat(i * 2)}k${i}:`).join("\n")}\n---\n`,
    `---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n---\n`,
    `---\n!!binary aGk=: x\n? [a, b]\n: complex key\ndescription: keys\n---\n`,
  ];
  const scan = memdir.scanMemories(heads.map((head, i) => ({ path: `f${i}.md`, mtimeMs: NOW - i, head })));
  assert.equal(scan.memories.length, heads.length);
  for (const code of scan.diagnostics.slice(0, 4).map((d) => d.code)) assert.equal(code, "frontmatter_malformed");
  stillHealthy();
});

test("wrong argument types are typed errors", () => {
  const circular = {};
  circular.self = circular;
  const throwing = { get path() { throw new Error("getter") }, mtimeMs: 1 };
  const bad = [undefined, null, 42, 1n, Symbol("s"), {}, [], [1], "str", circular, () => 1, new Uint8Array(3), NaN, Infinity];
  const calls = {
    truncateIndex: (x) => memdir.truncateIndex(x),
    truncateIndexLimits: (x) => memdir.truncateIndex("a", x === undefined || x === null ? 5 : x),
    scanMemories: (x) => memdir.scanMemories(x),
    scanElement: (x) => memdir.scanMemories([x]),
    formatManifest: (x) => memdir.formatManifest(x),
    buildSelectionRequest: (x) => memdir.buildSelectionRequest(x),
    parseSelection: (x) => memdir.parseSelection(x, []),
    parseCandidates: (x) => memdir.parseSelection("{}", x === undefined || x === null ? 7 : x),
    memoryAgeDays: (x) => memdir.memoryAgeDays(x, NOW),
    renderMemory: (x) => memdir.renderMemory(x),
    sanitizePath: (x) => memdir.sanitizePath(x),
    projectMemoryDir: (x) => memdir.projectMemoryDir(x),
    estimateCost: (x) => memdir.estimateCost(x),
  };
  let typed = 0;
  for (const [name, call] of Object.entries(calls)) {
    for (const value of bad) {
      try {
        call(value);
      } catch (error) {
        assert.ok(error instanceof memdir.MemdirError, `${name}(${String(value)}) threw ${error}`);
        assert.notEqual(error.code, "WASM_POISONED");
        typed++;
      }
    }
  }
  assert.ok(typed > 100, `only ${typed} calls threw`);
  assert.throws(() => memdir.scanMemories([throwing]), memdir.MemdirError);
  assert.throws(() => memdir.scanMemories([{ path: "a.md", mtimeMs: 1, head: circular }]), { code: "INVALID_ARGUMENT" });
  stillHealthy();
});

test("100,000 core calls mixing errors and successes stay exact", () => {
  const DAY = 86_400_000;
  const kinds = [
    (i) => assert.equal(memdir.memoryAgeDays(NOW - (i % 50) * DAY - 1, NOW), i % 50),
    (i) => assert.throws(() => memdir.truncateIndex(i), { code: "INVALID_ARGUMENT" }),
    (i) => assert.equal(memdir.truncateIndex(`- a${i}\n- b\n- c`, { maxIndexLines: 1 }).content.split("\n")[0], `- a${i}`),
    (i) => assert.throws(() => memdir.checkRelativePath(`../x${i}.md`), { code: "UNSAFE_PATH" }),
    (i) => assert.equal(memdir.sanitizePath(`/p/${i}`), `-p-${i}`),
    (i) => assert.throws(() => memdir.scanMemories([{ path: "a.md", mtimeMs: i, typo: 1 }]), { code: "INVALID_ARGUMENT", message: /unknown field `typo`/ }),
    (i) => assert.deepEqual(memdir.parseSelection(`{"selected_memories":["m${i % 7}.md","x.md"]}`, ["m0.md", "m1.md", "m2.md", "m3.md", "m4.md", "m5.md", "m6.md"]).selected, [`m${i % 7}.md`]),
    (i) => assert.throws(() => memdir.planForget(`gone${i}.md`, { entries: [], contents: {} }), { code: "NOT_FOUND" }),
    (i) => assert.throws(() => memdir.renderMemory({ path: "a.md", mtimeMs: 0, content: "x", nowMs: 0, limits: { maxInjectLines: i } , deep: [[[[]]]] }), { code: "INVALID_ARGUMENT" }),
    (i) => assert.equal(memdir.runToolCommand({ command: "view", path: "/memories/a.md" }, { entries: [{ path: "a.md", kind: "file", size: `v${i}`.length }], contents: { "a.md": `v${i}` } }).text, `Here's the content of /memories/a.md with line numbers:\n     1\tv${i}`),
  ];
  for (let i = 0; i < 100_000; i++) kinds[i % kinds.length](i);
  stillHealthy();
});

/** `levels` arrays (or objects under `a`) nested in one another, the outermost included. */
function nested(levels, kind = "array") {
  let v = kind === "array" ? [] : {};
  for (let i = 1; i < levels; i++) v = kind === "array" ? [v] : { a: v };
  return v;
}

test("deep input is refused before it crosses into the module: INVALID_ARGUMENT, never a trap", () => {
  // 3,000 nested objects overflowed the JS stack, 3,600 objects or 5,500 arrays trapped the module
  for (const [levels, kind] of [[3000, "object"], [3600, "object"], [5500, "array"], [100_000, "array"]]) {
    const deep = nested(levels, kind);
    const calls = [
      () => memdir.planToolCommand({ command: "view", path: "/memories", x: deep }),
      () => memdir.runToolCommand({ command: "create", path: "/memories/a.md", file_text: deep }, { entries: [] }),
      () => memdir.scanMemories([{ path: "a.md", mtimeMs: NOW, head: deep }]),
      () => memdir.formatManifest(deep),
      () => memdir.buildSelectionRequest({ query: "a b", memories: [], limits: deep }),
      () => memdir.runDoctor({ entries: [], contents: { "a.md": deep }, nowMs: NOW }),
      () => memdir.planRemember(deep, {}),
    ];
    for (const call of calls) assert.throws(call, { name: "MemdirError", code: "INVALID_ARGUMENT", message: /nested more than 64 levels deep/ }, `${levels} ${kind}`);
  }
  // the bound is exact: 64 levels cross (and the core answers about their shape), 65 do not
  assert.throws(() => memdir.formatManifest(nested(64)), { code: "INVALID_ARGUMENT", message: /^invalid argument: memories: invalid type/ });
  assert.throws(() => memdir.formatManifest(nested(65)), { code: "INVALID_ARGUMENT", message: /^invalid argument: memories\[0\]\[0\]\[0\]…\[0\]\[0\] is nested more than 64 levels deep/ });
  const command = { command: "view", path: "/memories/a.md", view_range: [1, 1], extra: nested(62, "object") }; // the command object is level 1
  assert.equal(memdir.planToolCommand(command).result, null);
  assert.throws(() => memdir.planToolCommand({ ...command, extra: nested(64, "object") }), { code: "INVALID_ARGUMENT" });
  // a value that refers to itself is the same as an infinitely deep one
  const loop = { command: "view", path: "/memories" };
  loop.self = loop;
  assert.throws(() => memdir.planToolCommand(loop), { code: "INVALID_ARGUMENT", message: /refers to itself/ });
  stillHealthy();
});

test("wide input is held to 1,000,000 values and 1 GiB a call", () => {
  assert.equal(memdir.INPUT_LIMITS.maxNestingLevels, 64);
  assert.equal(memdir.INPUT_LIMITS.maxValues, 1_000_000);
  assert.equal(memdir.INPUT_LIMITS.maxBytes, 2 ** 30);
  const wide = new Array(1_000_001).fill(0);
  assert.throws(() => memdir.parseSelection("{}", wide), { code: "INVALID_ARGUMENT", message: /more than 1,000,000 values/ });
  // a small array shared a million times is a million values, however little memory it takes
  const shared = new Array(1000).fill(new Array(1000).fill("a.md"));
  assert.throws(() => memdir.scanMemories([{ path: "a.md", mtimeMs: NOW, head: "x", kind: shared }]), { code: "INVALID_ARGUMENT", message: /more than 1,000,000 values/ });
  const sparse = [];
  sparse.length = 2 ** 31;
  assert.throws(() => memdir.formatManifest(sparse), { code: "INVALID_ARGUMENT", message: /more than 1,000,000 values/ });
  // a string counts 3 bytes a UTF-16 unit each time it appears: 400 × 1 Mi units is 1.2 GiB
  const mi = "x".repeat(1 << 20);
  assert.throws(() => memdir.scanMemories(Array.from({ length: 400 }, (_, i) => ({ path: `f${i}.md`, mtimeMs: NOW, head: mi }))), { code: "INVALID_ARGUMENT", message: /more than 1,073,741,824 bytes \(at files\[341\]\.head\)/ });
  assert.equal(memdir.scanMemories(Array.from({ length: 300 }, (_, i) => ({ path: `f${i}.md`, mtimeMs: NOW, head: i ? "" : mi }))).memories.length, 200);
  // under the budget, a large directory still crosses
  const files = Array.from({ length: 20_000 }, (_, i) => ({ path: `f${i}.md`, mtimeMs: NOW - i, head: "---\ndescription: d\n---\n" }));
  assert.equal(memdir.scanMemories(files).dropped.length, 19_800);
  stillHealthy();
});

test("arguments are read once, as data: getters, proxies, Maps and Sets", () => {
  let reads = 0;
  const shifty = { command: "view", get path() { return reads++ === 0 ? "/memories/a.md" : "/memories/../../etc/passwd"; } };
  assert.deepEqual(memdir.planToolCommand(shifty).read, ["a.md", "MEMORY.md"]);
  assert.equal(reads, 1);
  const trap = new Proxy({}, { ownKeys() { throw new Error("no keys for you"); } });
  assert.throws(() => memdir.renderMemory(trap), { code: "INVALID_ARGUMENT", message: /input could not be read: no keys for you/ });
  const snapshot = { entries: new Set([{ path: "a.md", kind: "file", size: 1 }]), contents: new Map([["a.md", "hi"]]) };
  assert.equal(memdir.runToolCommand({ command: "view", path: "/memories/a.md" }, snapshot).text, "Here's the content of /memories/a.md with line numbers:\n     1\thi");
  stillHealthy();
});

test("an unknown key is refused at any depth, as the native core refuses it", () => {
  const typo = { maxIndexBytes: 1 };
  const cases = [
    () => memdir.buildSelectionRequest({ query: "how do we deploy", memories: [], limits: typo }),
    () => memdir.renderMemory({ path: "a.md", mtimeMs: NOW, content: "x", nowMs: NOW, limits: typo }),
    () => memdir.lexicalSelect({ query: "deploy", memories: [], limits: typo }),
    () => memdir.runDoctor({ entries: [], contents: {}, nowMs: NOW, limits: typo }),
    () => memdir.planDoctorFixes({ entries: [], contents: {}, nowMs: NOW, limits: typo }),
    () => memdir.truncateIndex("x", typo),
  ];
  for (const call of cases) assert.throws(call, { code: "INVALID_ARGUMENT", message: /unknown field `maxIndexBytes`, expected one of `maxIndexLines`/ });
  assert.throws(() => memdir.scanMemories([{ path: "a.md", mtimeMs: NOW, mtime: NOW }]), { message: /unknown field `mtime`/ });
  assert.throws(() => memdir.buildSelectionRequest({ query: "a b", memories: [], alreadySurfaced: [], recentTools: [], surfacedUtf16: 0, limits: {}, extra: 1 }), { message: /unknown field `extra`/ });
  // what the core reads without deny_unknown_fields (a listing entry may carry more) still passes
  assert.equal(memdir.runToolCommand({ command: "view", path: "/memories/a.md" }, { entries: [{ path: "a.md", kind: "file", size: 1, inode: 7 }], contents: { "a.md": "x" } }).isError, false);
  assert.deepEqual(memdir.buildSelectionRequest({ query: "how do we deploy", memories: [], limits: { maxSelected: 3 } }).skip, "no_memories");
});

test("a trap is recovered: the module is re-instantiated and the next call is exact", async () => {
  // The facade bounds its input, so it cannot trap the module; the raw wasm-bindgen glue (not
  // exported by the package; the same instance the facade uses) can, with input the facade
  // refuses. 20,000 nested arrays run a stack out: the module's own (a trap, RuntimeError),
  // or first the JS engine's (a RangeError, which leaves the module's stack pointer where it
  // was, so the next such call traps).
  const raw = await import(new URL("../../pkg/wasm/memdir.js", import.meta.url));
  const deep = { command: "view", path: "/memories", x: nested(20_000) };
  const trap = () => {
    for (let i = 0; i < 100; i++) {
      try {
        raw.planToolCommand(deep);
      } catch (error) {
        if (error instanceof WebAssembly.RuntimeError) return;
        assert.ok(error instanceof RangeError, String(error));
      }
    }
    assert.fail("no trap in 100 tries");
  };
  for (let round = 0; round < 20; round++) {
    trap();
    // the broken instance traps again at once, even on two numbers…
    assert.throws(() => raw.memoryAgeDays(0, 0), WebAssembly.RuntimeError);
    // …but the facade replaces it and answers this very call
    assert.equal(memdir.memoryAgeDays(NOW - 3 * 86_400_000, NOW), 3);
    stillHealthy();
    assert.equal(raw.memoryAgeDays(0, 86_400_000), 1, "the glue's instance is the fresh one");
  }
  // the memory tool and recall, straight after a trap
  trap();
  const selector = async () => '{"selected_memories":["user_role.md"]}';
  const memory = await memdir.openMemory({ host: new memdir.InMemoryHost({ "user_role.md": "---\ndescription: the user is a Go engineer\ntype: user\n---\nGo.\n" }), selector });
  assert.deepEqual(await memory.tool().execute({ command: "view", path: "/memories/user_role.md" }), { content: "Here's the content of /memories/user_role.md with line numbers:\n     1\t---\n     2\tdescription: the user is a Go engineer\n     3\ttype: user\n     4\t---\n     5\tGo.\n     6\t", isError: false });
  trap();
  const recalled = await memory.recall("what does the Go engineer know");
  assert.deepEqual([recalled.outcome, recalled.memories.map((m) => m.path)], ["selected", ["user_role.md"]]);
});

test("two opened memories across a restart of the module never share the core's scan memo", async () => {
  // A restarted module forgets every scan memo; a handle from before must never name another
  // memory's (the review found one memory's selection request listing another's files).
  const raw = await import(new URL("../../pkg/wasm/memdir.js", import.meta.url));
  const trapOnce = () => {
    for (let i = 0; i < 100; i++) {
      try {
        raw.planToolCommand({ command: "view", path: "/memories", x: nested(20_000) });
      } catch (error) {
        if (error instanceof WebAssembly.RuntimeError) return memdir.memoryAgeDays(0, 0); // the facade restarts it
      }
    }
    assert.fail("no trap in 100 tries");
  };
  const seen = [];
  const selector = async (req) => {
    seen.push(req.user);
    return '{"selected_memories":[]}';
  };
  const fm = (d) => `---\ndescription: ${d}\ntype: project\n---\nbody\n`;
  const a = await memdir.openMemory({ host: new memdir.InMemoryHost({ "secret_project_a.md": fm("project A's deploy password rotation") }), selector });
  await a.recall("how do we rotate the deploy password today?");
  trapOnce();
  const c = await memdir.openMemory({ host: new memdir.InMemoryHost({ "c_deploy.md": fm("project C deploys on Fridays") }), selector });
  await c.recall("how do we deploy project C on Fridays?");
  seen.length = 0;
  await a.recall("how do we rotate the deploy password today?");
  await c.recall("how do we deploy project C on Fridays?");
  assert.match(seen[0], /secret_project_a\.md/);
  assert.doesNotMatch(seen[0], /c_deploy\.md/, "A's request lists A's files only");
  assert.match(seen[1], /c_deploy\.md/);
  assert.doesNotMatch(seen[1], /secret_project_a\.md/, "C's request lists C's files only");
  a.close();
  c.close();
});

test("calls from deep in the JS stack: the stack's RangeError or WASM_TRAPPED, then exact answers", () => {
  // An agent deep in recursion: at some depths the JS stack runs out inside the module, which
  // leaves it half-way through a call (its stack pointer moved); memdir restarts it.
  const run = spawnSync(process.execPath, [fileURLToPath(new URL("deep-stack.mjs", import.meta.url))], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  const { seen, exact } = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(seen).filter((k) => k !== "RangeError" && k !== "WASM_TRAPPED"), [], JSON.stringify(seen));
  assert.ok(seen.WASM_TRAPPED > 0, `the stack ran out inside the module at least once: ${JSON.stringify(seen)}`);
  assert.equal(exact, 1000);
});

test("the write rules under random commands, snapshots and directories: results or typed errors, never a trap", () => {
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const pieces = ["/memories", "/", "..", ".", "a.md", "MEMORY.md", "%2e", "\u2215", "\\", "C:", "\u0000", lone, "---\n", "- [x](a.md) — h\n", "\n", "é", "😀", "AKIA", "IOSFODNN7EXAMPLE", "description: ", "type: user\n", "]("];
  const text = () => Array.from({ length: Math.floor(rand() * 12) }, () => pick(pieces)).join("");
  const value = () => pick([text(), 0, -1, 1e308, null, undefined, true, [], {}, [1, 2], [2, 1], [1, -1], text()]);
  const commands = ["view", "create", "str_replace", "insert", "delete", "rename", "nope", null];
  for (let i = 0; i < 3000; i++) {
    const files = {};
    for (let j = 0; j < 4; j++) files[pick(["MEMORY.md", "a.md", "d/b.md", text() || "x.md"])] = text();
    const entries = Object.keys(files).map((path) => ({ path, kind: pick(["file", "file", "directory", "other"]), size: Math.floor(rand() * 5000), mtimeMs: NOW - rand() * 1e10, problem: pick([null, null, "symlink_escape", "unreadable"]) }));
    const snapshot = { entries, contents: files, resolved: rand() < 0.2 ? { [text()]: pick([null, text()]) } : {} };
    const command = { command: pick(commands), path: pick(["/memories/" + text(), text(), "/memories"]), old_path: value(), new_path: value(), file_text: value(), old_str: value(), new_str: value(), insert_line: value(), insert_text: value(), view_range: value() };
    for (const k of Object.keys(command)) if (rand() < 0.3) delete command[k];
    const calls = [
      () => memdir.planToolCommand(command),
      () => memdir.runToolCommand(command, snapshot),
      () => memdir.planRemember({ type: pick(["user", "note", text()]), name: text(), description: text(), body: text(), file: pick([undefined, text()]) }, snapshot),
      () => memdir.planForget(text(), snapshot),
      () => memdir.runDoctor({ entries, contents: files, nowMs: NOW }),
      () => memdir.planDoctorFixes({ entries, contents: files, nowMs: NOW, limits: { maxFiles: 1 + Math.floor(rand() * 3), maxIndexLines: 1 + Math.floor(rand() * 3) } }),
      () => memdir.findSecrets(text()),
      () => memdir.unifiedDiff(text(), text(), text()),
    ];
    for (const call of calls) {
      try {
        call();
      } catch (error) {
        assert.ok(error instanceof memdir.MemdirError, `${error?.name}: ${error?.message}`);
      }
    }
  }
  const tool = memdir.runToolCommand({ command: "view", path: "/memories/a.md" }, { entries: [{ path: "a.md", kind: "file", size: 1 }], contents: { "a.md": "x" } });
  assert.deepEqual(tool, { text: "Here's the content of /memories/a.md with line numbers:\n     1\tx", isError: false, effects: [] });
  stillHealthy();
});
