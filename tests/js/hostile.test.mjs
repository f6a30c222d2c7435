// Hostile input through the built package: nothing may trap the module (a trap poisons it for
// every later call). Each group ends by showing that ordinary calls still give exact results.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as memdir from "memdir";

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

test("100,000 calls that error leave the module healthy", () => {
  let codes = new Set();
  for (let i = 0; i < 100_000; i++) {
    try {
      if (i % 2) memdir.truncateIndex(i);
      else memdir.checkRelativePath("../x");
    } catch (error) {
      codes.add(error.code);
    }
  }
  assert.deepEqual([...codes].sort(), ["INVALID_ARGUMENT", "UNSAFE_PATH"]);
  stillHealthy();
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
