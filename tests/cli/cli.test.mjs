// The `memdir` binary, run as a user runs it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { copyExampleMemory } from "../../examples/ages.mjs";

const bin = fileURLToPath(new URL("../../pkg/cli/main.js", import.meta.url));
const examples = copyExampleMemory(); // ages from examples/ages.json, as the demo sees them
const temps = [join(examples, "..")];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

function memdir(args, env = {}) {
  const clean = { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", ...env };
  const r = spawnSync(bin, args, { encoding: "utf8", env: clean });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function tempMemory(files) {
  const dir = mkdtempSync(join(tmpdir(), "memdir-cli-"));
  temps.push(dir);
  for (const [path, [content, daysAgo]] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
    const t = new Date(Date.now() - daysAgo * 86_400_000 - 60_000);
    utimesSync(join(dir, path), t, t);
  }
  return dir;
}
const fm = (d, type) => `---\ndescription: ${d}\ntype: ${type}\n---\nbody\n`;

test("--help and exit codes for bad arguments", () => {
  const help = memdir(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /memdir recall "<query>"/);
  for (const [args, message] of [
    [[], /a command is required/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [["recall"], /recall takes one query/],
    [["scan", "--bogus"], /Unknown option '--bogus'/],
    [["recall", "a b", "--provider", "gemini", "--dir", examples], /unknown provider "gemini"/],
    [["recall", "a b", "--provider", "anthropic", "--dir", examples], /needs ANTHROPIC_API_KEY/],
    [["recall", "a b", "--timeout", "soon", "--dir", examples], /--timeout takes a positive whole number/],
  ]) {
    const r = memdir(args);
    assert.equal(r.code, 2, `${args.join(" ")} → ${r.err}`);
    assert.match(r.err, message);
  }
});

test("path follows Claude Code's layout; a missing directory exits 3", () => {
  const home = mkdtempSync(join(tmpdir(), "memdir-home-"));
  temps.push(home);
  const r = memdir(["path", "--project", "/work/some project"], { HOME: home, CLAUDE_CONFIG_DIR: "" });
  assert.equal(r.code, 0);
  assert.equal(r.out.trim(), join(home, ".claude", "projects", "-work-some-project", "memory"));
  const cfg = memdir(["path", "--project", "/work/app", "--json"], { CLAUDE_CONFIG_DIR: "/etc/cc" });
  assert.deepEqual(JSON.parse(cfg.out), { dir: "/etc/cc/projects/-work-app/memory" });
  const missing = memdir(["scan", "--dir", join(home, "nope")]);
  assert.equal(missing.code, 3);
  assert.match(missing.err, /no memory directory at/);
});

test("index and scan: the cut index, the table, dropped files and diagnostics", () => {
  const files = { "MEMORY.md": [Array.from({ length: 205 }, (_, i) => `- [E${i}](e${i}.md) — hook`).join("\n"), 0] };
  for (let i = 0; i < 4; i++) files[`project_${i}.md`] = [fm(`project number ${i}`, "project"), i * 3];
  files["broken.md"] = ["---\ndescription: [oops\n---\n", 0];
  const dir = tempMemory(files);
  const index = memdir(["index", "--dir", dir]);
  assert.equal(index.code, 0);
  assert.match(index.out, /> WARNING: MEMORY\.md is 205 lines \(limit: 200 lines\)/);
  const scan = memdir(["scan", "--dir", dir]);
  assert.equal(scan.code, 0);
  assert.match(scan.out, /^TYPE +PATH +AGE +DESCRIPTION$/m);
  assert.match(scan.out, /^project +project_3\.md +9 days ago +project number 3$/m);
  assert.match(scan.out, /5 memories, 0 dropped, 1 diagnostics/);
  assert.match(scan.out, /broken\.md:3: frontmatter_malformed/);
  const json = JSON.parse(memdir(["scan", "--dir", dir, "--json"]).out);
  assert.equal(json.memories.length, 5);
});

test("recall on the example memory with the lexical selector: chosen files and the exact blocks", () => {
  const r = memdir(["recall", "can we deploy the new dispatch screen to production on December 18?", "--dir", examples]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^selector: lexical$/m);
  assert.match(r.out, /^outcome: +selected$/m);
  assert.match(r.out, /project_holiday_code_freeze\.md/);
  assert.match(r.out, /# Blocks to inject\n\n<system-reminder>\n/);
  const json = JSON.parse(memdir(["recall", "can we deploy the new dispatch screen to production on December 18?", "--dir", examples, "--json"]).out);
  assert.equal(json.outcome, "selected");
  assert.deepEqual(json.reminders, json.memories.map((m) => m.text));
});

test("a provider that cannot be reached exits 1 with the reason; --fallback chooses lexically", async () => {
  const port = await new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  const args = ["recall", "can we deploy on December 18?", "--dir", examples, "--provider", "anthropic", "--base-url", `http://127.0.0.1:${port}`, "--timeout", "3000"];
  const r = memdir(args, { ANTHROPIC_API_KEY: "sk-ant-test" });
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /outcome: +failed — network: the request failed/);
  const f = memdir([...args, "--fallback"], { ANTHROPIC_API_KEY: "sk-ant-test" });
  assert.equal(f.code, 0, f.out + f.err);
  assert.match(f.out, /^selector: lexical$/m);
  assert.match(f.out, /anthropic failed \(network/);
});
