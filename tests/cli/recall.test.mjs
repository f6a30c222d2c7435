// `memdir recall` says which selector chose and why, words every outcome, falls back when
// asked, names the URL it could not reach, and with --verbose shows the side query (key
// redacted), the raw answer and the injected blocks. Providers are the repo's mock servers
// on 127.0.0.1 (tests/mock/providers.mjs).
import assert from "node:assert/strict";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { copyExampleMemory } from "../../examples/ages.mjs";
import { startMockProviders } from "../mock/providers.mjs";
import { bin, fm, freePort, memdir, memdirAsync, removeTemps, tempDir, tempMemory } from "./helpers.mjs";

const KEY = "sk-ant-test-3f9c2a7d"; // the mock's key for this file: printed nowhere
const OPENAI_KEY = "sk-openai-test-5e1b";
const QUERY = "can we deploy the new dispatch screen to production on December 18?";
const examples = copyExampleMemory();
let mock;
before(async () => {
  mock = await startMockProviders({ apiKey: KEY, openaiKey: OPENAI_KEY });
});
after(async () => {
  await mock?.close();
  removeTemps();
  rmSync(join(examples, ".."), { recursive: true, force: true });
});

const NO_KEY_REASON = "no ANTHROPIC_API_KEY or OPENAI_API_KEY; set ANTHROPIC_API_KEY for model selection";

test("without a key the lexical selector chooses, and the output says why (human and --json)", () => {
  const human = memdir(["recall", QUERY, "--dir", examples]);
  assert.equal(human.code, 0, human.err);
  assert.match(human.out, new RegExp(`^selector: lexical — ${NO_KEY_REASON}$`, "m"));
  const json = JSON.parse(memdir(["recall", QUERY, "--dir", examples, "--json"]).out);
  assert.equal(json.selector, "lexical");
  assert.equal(json.selectorReason, NO_KEY_REASON);
  assert.equal(json.outcome, "selected");
  assert.equal(json.outcomeReason, `${json.memories.length} memories chosen`);

  const only = JSON.parse(memdir(["recall", QUERY, "--dir", examples, "--json", "--provider", "lexical"]).out);
  assert.equal(only.selectorReason, "--provider lexical");
});

test("--fallback without the provider's key: the lexical selector, with the reason, not an error", () => {
  for (const provider of ["anthropic", "openai"]) {
    const r = memdir(["recall", QUERY, "--dir", examples, "--provider", provider, "--fallback", "--json"]);
    assert.equal(r.code, 0, r.err);
    const json = JSON.parse(r.out);
    assert.equal(json.selector, "lexical");
    assert.match(json.selectorReason, new RegExp(`^--provider ${provider} needs ${provider === "anthropic" ? "ANTHROPIC" : "OPENAI"}_API_KEY.*, which is not set; --fallback chose the lexical selector$`));
    assert.equal(json.outcome, "selected");
  }
  // without --fallback it stays a usage error, which says how to fall back
  const strict = memdir(["recall", QUERY, "--dir", examples, "--provider", "anthropic"]);
  assert.equal(strict.code, 2);
  assert.match(strict.err, /--provider anthropic needs ANTHROPIC_API_KEY; set it, or add --fallback/);
});

test("every outcome in words: never 'skipped — skipped'", () => {
  const empty = tempMemory({ "MEMORY.md": ["- nothing yet\n", 0] });
  const unrelated = tempMemory({ "project_a.md": [fm("the harbor lantern is lit at dusk", "project"), 1] });
  const cases = [
    [["deploy", "--dir", examples], "skipped", "a one-word query is not sent to the selector (as in Claude Code); ask in two or more words", null],
    [[QUERY, "--dir", empty], "no_memories", "there are no memory files to choose from (MEMORY.md alone is not a choice: it is always in the prompt)", null],
    [["quarterly invoice totals", "--dir", unrelated], "none_selected", "the lexical selector found no memory that helps with this query", "lexical"],
    [[QUERY, "--dir", examples], "selected", "2 memories chosen", "lexical"],
  ];
  for (const [args, outcome, reason, selector] of cases) {
    const r = memdir(["recall", ...args]);
    assert.equal(r.code, 0, r.err);
    const line = r.out.split("\n").find((l) => l.startsWith("outcome:"));
    assert.equal(line, `outcome:  ${outcome} — ${reason}`);
    assert.ok(!/^(\w+): +(\S+) — \2$/m.test(r.out), `a reason is more than its code: ${r.out}`);
    const json = JSON.parse(memdir(["recall", ...args, "--json"]).out);
    assert.equal(json.outcome, outcome);
    assert.equal(json.outcomeReason, reason);
    assert.equal(json.selector, selector);
    if (selector === null) assert.equal(json.selectorReason, "the query was not sent to a selector");
  }
});

test("a model that answers: its name, tokens and cost, and the reason is the key", async () => {
  mock.reset();
  const r = await memdirAsync(["recall", QUERY, "--dir", examples, "--base-url", mock.url], { env: { ANTHROPIC_API_KEY: KEY } });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^selector: anthropic \(claude-sonnet-5-5\) — ANTHROPIC_API_KEY is set$/m);
  assert.match(r.out, /^outcome: +selected — \d memor(y|ies) chosen$/m);
  assert.match(r.out, /^tokens: +\d+ in, \d+ out/m);
  assert.equal(r.err, "", "nothing on stderr without --verbose");
  const openai = await memdirAsync(["recall", QUERY, "--dir", examples, "--base-url", `${mock.url}/v1`, "--json"], { env: { OPENAI_API_KEY: OPENAI_KEY } });
  assert.equal(JSON.parse(openai.out).selectorReason, "OPENAI_API_KEY is set and ANTHROPIC_API_KEY is not");
});

test("a network failure names the URL and the system's reason, never the key", async () => {
  const port = await freePort();
  for (const [provider, base, path, env] of [
    ["anthropic", `http://127.0.0.1:${port}`, "/v1/messages", { ANTHROPIC_API_KEY: KEY }],
    ["openai", `http://127.0.0.1:${port}/v1`, "/v1/chat/completions", { OPENAI_API_KEY: OPENAI_KEY }],
  ]) {
    const r = memdir(["recall", QUERY, "--dir", examples, "--provider", provider, "--base-url", base, "--timeout", "3000", "--json"], { env });
    assert.equal(r.code, 1, r.err);
    const json = JSON.parse(r.out);
    assert.equal(json.error, `network: could not reach http://127.0.0.1:${port}${path}: ECONNREFUSED`);
    assert.equal(json.outcomeReason, json.error);
    assert.equal(r.err, `memdir: recall failed: ${json.error}\n`);
    assert.ok(!(r.out + r.err).includes(KEY) && !(r.out + r.err).includes(OPENAI_KEY));
  }
  // an HTTP error names the URL too
  mock.reset();
  mock.script({ kind: "server_error_no_retry" });
  const http = await memdirAsync(["recall", QUERY, "--dir", examples, "--base-url", mock.url, "--json"], { env: { ANTHROPIC_API_KEY: KEY } });
  assert.equal(http.code, 1);
  assert.match(JSON.parse(http.out).error, new RegExp(`^http_error: HTTP 500 .* \\(from ${mock.url}/v1/messages\\)$`));
});

test("--verbose and MEMDIR_DEBUG=1: the request with the key redacted, the raw answer and the injected blocks, on stderr", async () => {
  for (const [flag, env] of [[["--verbose"], {}], [[], { MEMDIR_DEBUG: "1" }]]) {
    mock.reset();
    mock.script({ kind: "text", selected: ["project_holiday_code_freeze.md"] });
    const r = await memdirAsync(["recall", QUERY, "--dir", examples, "--base-url", mock.url, ...flag], { env: { ANTHROPIC_API_KEY: KEY, ...env } });
    assert.equal(r.code, 0, r.err);
    assert.ok(!r.err.includes(KEY) && !r.out.includes(KEY), "the key is printed nowhere");
    assert.match(r.err, /^memdir: selector: anthropic — ANTHROPIC_API_KEY is set$/m);
    assert.match(r.err, new RegExp(`^memdir: side query request: POST ${mock.url}/v1/messages\\n`, "m"));
    assert.match(r.err, /^ {2}x-api-key: \[redacted\]$/m);
    assert.match(r.err, /^ {2}anthropic-version: 2023-06-01$/m);
    assert.match(r.err, /"content": "Query: can we deploy the new dispatch screen/, "the request body");
    assert.match(r.err, /^memdir: side query answer: HTTP 200 OK in [\d.]+ ms$/m);
    const raw = r.err.split("memdir: side query answer body (raw):\n")[1]?.split("\nmemdir: ")[0];
    assert.ok(raw, r.err);
    const answer = JSON.parse(raw); // the body as the provider sent it
    assert.equal(answer.type, "message");
    assert.match(answer.content.find((b) => b.type === "text").text, /project_holiday_code_freeze\.md/);
    assert.match(r.err, /^memdir: injected blocks: 1\n<system-reminder>\n[^]*project_holiday_code_freeze\.md[^]*<\/system-reminder>\n/m);
  }
  // OpenAI's bearer token is redacted as well
  mock.reset();
  const openai = await memdirAsync(["recall", QUERY, "--dir", examples, "--base-url", `${mock.url}/v1`, "--verbose"], { env: { OPENAI_API_KEY: OPENAI_KEY } });
  assert.match(openai.err, /^ {2}authorization: Bearer \[redacted\]$/m);
  assert.ok(!openai.err.includes(OPENAI_KEY));
  // and the lexical selector says it sends nothing
  const lexical = memdir(["recall", QUERY, "--dir", examples, "--verbose"]);
  assert.match(lexical.err, /^memdir: the lexical selector sends no side query$/m);
  assert.match(lexical.err, /^memdir: injected blocks: 2\n<system-reminder>/m);
});

test("--fallback when the model fails at run time: the lexical selector chose, and why", async () => {
  mock.reset();
  mock.script({ kind: "server_error_no_retry" });
  const r = await memdirAsync(["recall", QUERY, "--dir", examples, "--base-url", mock.url, "--fallback", "--json"], { env: { ANTHROPIC_API_KEY: KEY } });
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out);
  assert.equal(json.selector, "lexical");
  assert.match(json.selectorReason, new RegExp(`^anthropic failed \\(http_error: HTTP 500 .*\\(from ${mock.url}/v1/messages\\)\\); the lexical selector chose \\(--fallback\\)$`));
  assert.equal(json.outcome, "selected");
});

test("the lexical selector ignores --model and says so", () => {
  const r = memdir(["recall", QUERY, "--dir", examples, "--model", "claude-opus-5-5"]);
  assert.equal(r.code, 0);
  assert.equal(r.err, `memdir: --model ignored: the lexical selector calls no model (${NO_KEY_REASON})\n`);
});

test("a command stays on V8's baseline WebAssembly code: no function is compiled again with TurboFan (Node would wait at exit for those jobs)", () => {
  // 200 memories: with a tiering budget of 100,000,000 V8 recompiled 7 functions here (memcmp, the hash, …)
  const files = {};
  for (let i = 0; i < 200; i++) files[`project_${i}.md`] = [`${fm(`memory ${i} about deploys, tests and on-call`, "project")}${"Body line with **Why:** and **How to apply:**.\n".repeat(20)}`, i % 30];
  const dir = tempMemory(files);
  const r = spawnSync(process.execPath, ["--trace-wasm-compilation-times", bin, "recall", "what should I know about deploys and tests", "--dir", dir], {
    encoding: "utf8",
    env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Compiled /m, "V8 traces its WebAssembly compilations (the check sees them)");
  assert.deepEqual(r.stdout.split("\n").filter((line) => /using TurboFan/.test(line)), []);
});

test("a recall loads no node:crypto (the first write does): an ESM import of it cost the command ~6 ms at start", () => {
  const probe = join(tempDir(), "probe.cjs");
  writeFileSync(probe, `process.on("exit", () => process.stderr.write("[loaded] " + process.moduleLoadList.filter((m) => /^NativeModule (crypto|internal\\/crypto\\/)/.test(m)).join(",") + "\\n"));\n`);
  const dir = tempMemory({ "project_deploys.md": [fm("production deploys freeze on Fridays", "project"), 1] });
  const run = (args) => spawnSync(process.execPath, ["--require", probe, bin, ...args], { encoding: "utf8", env: { ...process.env, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" } });
  const recall = run(["recall", "can we deploy on friday", "--dir", dir]);
  assert.equal(recall.status, 0, recall.stderr);
  assert.match(recall.stderr, /^\[loaded\] $/m);
  // the probe sees it when it is loaded: a write's temporary file name is random
  const remember = run(["remember", "--dir", dir, "--type", "project", "--name", "Tea", "--description", "the team drinks green tea", "--body", "Green."]);
  assert.equal(remember.status, 0, remember.stderr);
  assert.match(remember.stderr, /^\[loaded\] .*NativeModule crypto/m);
});

test("library: a timeoutMs past what a timer holds is a long deadline, not one of 1 ms", async () => {
  const { openMemory } = await import("../../pkg/entry/node.js");
  mock.reset();
  mock.script({ kind: "text", selected: ["project_holiday_code_freeze.md"], delayMs: 200 });
  const memory = await openMemory({ dir: examples, selector: { provider: "anthropic", apiKey: KEY, baseUrl: mock.url, timeoutMs: 99_999_999_999 } });
  const result = await memory.recall(QUERY);
  assert.equal(result.error, undefined);
  assert.equal(result.outcome, "selected");
});

test("--layout sdk: --dir is the base of the Anthropic SDK's local memory tool, the memory in <dir>/memories (issue 26)", () => {
  const base = tempDir();
  const inside = tempMemory({ "project_a.md": [fm("the harbor lantern is lit at dusk", "project"), 1] });
  cpSync(inside, base, { recursive: true }); // the same memory at the base too: --layout sdk must not take it
  cpSync(inside, join(base, "memories"), { recursive: true });
  const r = memdir(["recall", "when is the harbor lantern lit?", "--dir", base, "--layout", "sdk", "--json"]);
  assert.equal(r.code, 0, r.err);
  const json = JSON.parse(r.out);
  assert.deepEqual(json.memories.map((m) => m.absolutePath), [join(base, "memories", "project_a.md")]);
  const bad = memdir(["recall", "when is the lantern lit?", "--dir", base, "--layout", "claude"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--layout is memdir or sdk, not claude/);
  const alone = memdir(["recall", "when is the lantern lit?", "--layout", "sdk"]);
  assert.equal(alone.code, 2);
  assert.match(alone.err, /--layout goes with --dir/);
});
