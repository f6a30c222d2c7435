// Seeds the fuzz corpora from the shared fixtures: the `args` of every case of
// tests/fixtures/*.json, expanded, go to fuzz/corpus/<target>/ as a JSON array (the targets'
// "JSON mode"), plus a few hand-written inputs where no fixture calls the function.
// Idempotent: a seed is named by its hash. Run by scripts/fuzz.mjs; prints counts per target.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expand } from "../tests/fixtures/check.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Which fuzz target exercises each fixture function. */
export const TARGET_OF = {
  scanMemories: "scan",
  planScan: "scan",
  truncateIndex: "index",
  parseSelection: "answer",
  checkRelativePath: "paths",
  sanitizePath: "paths",
  runToolCommand: "tool",
  planToolCommand: "tool",
  planRemember: "remember",
  planForget: "forget",
  runDoctor: "doctor",
  planDoctorFixes: "doctor",
  unifiedDiff: "diff",
  renderMemory: "render",
};

const anthropic = (text, stop = "end_turn") =>
  JSON.stringify({
    model: "claude-sonnet-5-5",
    content: [{ type: "thinking", thinking: "hm" }, { type: "text", text }],
    stop_reason: stop,
    usage: { input_tokens: 1600, output_tokens: 30, cache_read_input_tokens: 1200, cache_creation: { ephemeral_1h_input_tokens: 5 } },
  });
const openai = (content, finish = "stop", refusal = null) =>
  JSON.stringify({
    model: "gpt-4o-mini",
    choices: [{ message: { role: "assistant", content, refusal }, finish_reason: finish }],
    usage: { prompt_tokens: 1600, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 1024 } },
  });
const ollama = (content, extra = {}) =>
  JSON.stringify({ model: "qwen3:8b", message: { role: "assistant", content, thinking: "hm" }, done: true, done_reason: "stop", prompt_eval_count: 900, eval_count: 20, ...extra });
const answer = '{"selected_memories": ["feedback_testing.md", "user_role.md"]}';

/** Hand-written seeds: function name → list of args arrays. */
const EXTRA = {
  provider_response: [
    [{ provider: "anthropic", status: 200, body: anthropic(answer) }],
    [{ provider: "anthropic", status: 200, body: anthropic("", "max_tokens") }],
    [{ provider: "anthropic", status: 200, body: JSON.stringify({ content: [], stop_reason: "refusal", stop_details: { category: "cyber" } }) }],
    [{ provider: "anthropic", status: 529, body: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }) }],
    [{ provider: "anthropic", status: 400, body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "output_config: unknown field" } }) }],
    [{ provider: "openai", status: 200, body: openai(answer) }],
    [{ provider: "openai", status: 200, body: openai(null, "stop", "I can't help with that") }],
    [{ provider: "openai", status: 200, body: openai(answer, "length") }],
    [{ provider: "openai", status: 400, body: JSON.stringify({ error: { message: "response_format json_schema is not supported", type: "invalid_request_error" } }) }],
    [{ provider: "openai", status: 500, body: "<html>Internal Server Error</html>" }],
    [{ provider: "ollama", status: 200, body: ollama(answer) }],
    [{ provider: "ollama", status: 200, body: [ollama('{"selected_'), ollama('memories": []}', { done: true })].join("\n") }],
    [{ provider: "ollama", status: 404, body: JSON.stringify({ error: "model 'qwen3:8b' not found" }) }],
  ],
  paths: [
    ["notes/deep/c.md"],
    ["\uFE30/secret.md"],
    ["a/\u2025/b.md"],
    ["\u2100.md"],
    ["..%2f..%2fetc"],
    ["\\\\server\\share\\x.md"],
    ["//server/share/x.md"],
    ["C:\\x.md"],
    ["a/\u0000.md"],
    ["...".repeat(3) + "/x.md"],
  ],
};

/** Writes the seeds; returns {target: count}. */
export function seed() {
  const counts = {};
  const put = (target, args) => {
    const text = JSON.stringify(args, (_, v) => (v instanceof Uint8Array ? Array.from(v) : v));
    const dir = join(root, "fuzz", "corpus", target);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `seed-${createHash("sha1").update(text).digest("hex")}`);
    if (!existsSync(file)) writeFileSync(file, text);
    counts[target] = (counts[target] ?? 0) + 1;
  };
  const fixtures = join(root, "tests", "fixtures");
  for (const name of readdirSync(fixtures).filter((f) => f.endsWith(".json")).sort()) {
    for (const c of JSON.parse(readFileSync(join(fixtures, name), "utf8")).cases) {
      const target = TARGET_OF[c.call];
      if (target) put(target, expand(c.args ?? []));
    }
  }
  for (const [target, list] of Object.entries(EXTRA)) for (const args of list) put(target, args);
  return counts;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(seed());
