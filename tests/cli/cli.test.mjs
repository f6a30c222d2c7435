// The `memdir` binary, run as a user runs it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { copyExampleMemory } from "../../examples/ages.mjs";
import { fm, freePort, memdir, removeTemps, tempMemory } from "./helpers.mjs";

const examples = copyExampleMemory(); // ages from examples/ages.json, as the demo sees them
after(() => {
  removeTemps();
  rmSync(join(examples, ".."), { recursive: true, force: true });
});
const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("--help and exit codes for bad arguments", () => {
  const help = memdir(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /memdir recall "<query>"/);
  for (const [args, message] of [
    [[], /a command is required/],
    [["frobnicate"], /unknown command "frobnicate"/],
    [["recall"], /recall takes one query/],
    [["scan", "--bogus"], /^memdir: unknown option --bogus\n/],
    [["recall", "a b", "--provider", "gemini", "--dir", examples], /unknown provider "gemini"/],
    [["recall", "a b", "--provider", "anthropic", "--dir", examples], /needs ANTHROPIC_API_KEY/],
    [["recall", "a b", "--timeout", "soon", "--dir", examples], /--timeout takes a whole number of milliseconds from 1 to 2,147,483,647, not "soon"/],
  ]) {
    const r = memdir(args);
    assert.equal(r.code, 2, `${args.join(" ")} → ${r.err}`);
    assert.match(r.err, message);
  }
});

test("path follows Claude Code's layout; a missing directory exits 3", () => {
  const home = mkdtempSync(join(tmpdir(), "memdir-home-"));
  temps.push(home);
  const r = memdir(["path", "--project", "/work/some project"], { env: { HOME: home, CLAUDE_CONFIG_DIR: "" } });
  assert.equal(r.code, 0);
  assert.equal(r.out.trim(), join(home, ".claude", "projects", "-work-some-project", "memory"));
  const cfg = memdir(["path", "--project", "/work/app", "--json"], { env: { CLAUDE_CONFIG_DIR: "/etc/cc" } });
  assert.deepEqual(JSON.parse(cfg.out), { dir: "/etc/cc/projects/-work-app/memory" });
  const missing = memdir(["scan", "--dir", join(home, "nope")]);
  assert.equal(missing.code, 3);
  assert.match(missing.err, /no memory directory at/);
});

test("index and scan: the cut index, the table, dropped files and diagnostics", () => {
  const files = { "MEMORY.md": [Array.from({ length: 205 }, (_, i) => `- [E${i}](e${i}.md) — hook`).join("\n"), 0] };
  for (let i = 0; i < 4; i++) files[`project_${i}.md`] = [fm(`project number ${i}`, "project"), i * 3];
  files["broken.md"] = ["---\nname: &o oops\ndescription: *o\n---\n", 0];
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
  assert.match(r.out, /^selector: lexical — no ANTHROPIC_API_KEY or OPENAI_API_KEY; set ANTHROPIC_API_KEY for model selection$/m);
  assert.match(r.out, /^outcome: +selected — 2 memories chosen$/m);
  assert.match(r.out, /project_holiday_code_freeze\.md/);
  assert.match(r.out, /# Blocks to inject\n\n<system-reminder>\n/);
  const json = JSON.parse(memdir(["recall", "can we deploy the new dispatch screen to production on December 18?", "--dir", examples, "--json"]).out);
  assert.equal(json.outcome, "selected");
  assert.deepEqual(json.reminders, json.memories.map((m) => m.text));
});

test("a provider that cannot be reached exits 1 naming the URL; --fallback chooses lexically", async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/v1/messages`;
  const args = ["recall", "can we deploy on December 18?", "--dir", examples, "--provider", "anthropic", "--base-url", `http://127.0.0.1:${port}`, "--timeout", "3000"];
  const r = memdir(args, { env: { ANTHROPIC_API_KEY: "sk-ant-test-cli-key" } });
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, new RegExp(`^outcome: +failed — network: could not reach ${url}: ECONNREFUSED$`, "m"));
  assert.match(r.err, new RegExp(`^memdir: recall failed: network: could not reach ${url}: ECONNREFUSED$`, "m"));
  const f = memdir([...args, "--fallback"], { env: { ANTHROPIC_API_KEY: "sk-ant-test-cli-key" } });
  assert.equal(f.code, 0, f.out + f.err);
  assert.match(f.out, new RegExp(`^selector: lexical — anthropic failed \\(network: could not reach ${url}: ECONNREFUSED\\); the lexical selector chose \\(--fallback\\)$`, "m"));
  for (const x of [r, f]) assert.ok(!(x.out + x.err).includes("sk-ant-test-cli-key"), "the key is never printed");
});
