#!/usr/bin/env node
// `npm run eval:extract -- [--provider anthropic|openai|ollama] [--model id] [--base-url url] [--json] [--only id]`
//
// Scores extraction after a turn (issue 24, rules §4.7) on tests/eval/extract/conversations.json:
// each conversation's `existing` memories are written to a temporary folder, `memory.extract`
// runs in `suggest` mode (nothing is written), and its proposals are matched against what a
// careful person would save. With --provider a live model answers (its key from
// ANTHROPIC_API_KEY / OPENAI_API_KEY); without, the hand-written answers of recorded.json do.
//
// Figures: recall (expected memories proposed), precision (proposals that are expected ones),
// violations (a `mustNot` phrase in a proposal that passed the core's checks), secrets stopped
// (proposals the core refused as credentials), actions (updates and supersessions of the right
// file, as the core planned them). Exit 1 only when the run itself fails, never for a score.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openMemory } from "../pkg/entry/node.js";

const here = fileURLToPath(new URL("../tests/eval/extract/", import.meta.url));
export const dataset = () => JSON.parse(readFileSync(join(here, "conversations.json"), "utf8")).conversations;
export const recorded = () => JSON.parse(readFileSync(join(here, "recorded.json"), "utf8")).answers;

const lower = (s) => String(s).toLowerCase();
/** The words a proposal says: name, description and body. */
const textOf = (p) => lower(`${p.name}\n${p.description}\n${p.body}`);
/** Every `mustMention` entry (a phrase, or a list of alternatives) in `text`. */
const mentions = (text, must) => must.every((m) => (Array.isArray(m) ? m : [m]).some((alt) => text.includes(lower(alt))));
const asList = (v) => (Array.isArray(v) ? v : [v]);

/**
 * Scores one conversation's extraction result. `result` is what `memory.extract` returned;
 * pure: the test checks it on answers made to score a known way.
 */
export function score(conversation, result) {
  const expected = conversation.expect.save;
  const planned = result.proposals;
  const usedProposals = new Set();
  let matched = 0;
  let actionsRight = 0;
  let actionsAsked = 0;
  for (const want of expected) {
    const i = planned.findIndex((p, n) => !usedProposals.has(n) && asList(want.type).includes(p.proposal.type) && mentions(textOf(p.proposal), want.mustMention));
    const wantsAction = want.action !== "create";
    if (wantsAction) actionsAsked++;
    if (i < 0) continue;
    usedProposals.add(i);
    matched++;
    if (wantsAction) {
      const p = planned[i];
      // as the core planned it: a create it turned into an update of the saved memory counts as one
      const action = p.proposal.action === "supersede" ? "supersede" : p.action === "updated" ? "update" : "create";
      if (asList(want.action).includes(action) && (p.proposal.action === "supersede" ? p.proposal.file : p.file) === want.file) actionsRight++;
    }
  }
  const violations = [];
  for (const p of planned) for (const phrase of conversation.expect.mustNot) if (textOf(p.proposal).includes(lower(phrase))) violations.push(phrase);
  const secretsStopped = result.refused.filter((r) => r.code === "SECRET_DETECTED").length;
  return { id: conversation.id, expected: expected.length, proposed: planned.length, matched, extra: planned.length - usedProposals.size, violations, secretsStopped, actionsAsked, actionsRight, outcome: result.outcome, error: result.error ?? null, usage: result.usage, costUsd: result.costUsd };
}

/** The totals of many scores. */
export function totals(scores) {
  const sum = (k) => scores.reduce((n, s) => n + s[k], 0);
  const expected = sum("expected");
  const proposed = sum("proposed");
  const matched = sum("matched");
  const cost = scores.some((s) => s.costUsd !== null) ? scores.reduce((n, s) => n + (s.costUsd ?? 0), 0) : null;
  return {
    conversations: scores.length,
    expected,
    proposed,
    matched,
    recall: expected ? matched / expected : 1,
    precision: proposed ? (proposed - sum("extra")) / proposed : 1,
    violations: scores.reduce((n, s) => n + s.violations.length, 0),
    secretsStopped: sum("secretsStopped"),
    actions: `${sum("actionsRight")}/${sum("actionsAsked")}`,
    failed: scores.filter((s) => s.outcome === "failed").length,
    inputTokens: scores.reduce((n, s) => n + (s.usage?.inputTokens ?? 0), 0),
    outputTokens: scores.reduce((n, s) => n + (s.usage?.outputTokens ?? 0), 0),
    costUsd: cost,
  };
}

/** A folder holding `existing`, each memory with its index line. */
function folderWith(existing = []) {
  const dir = mkdtempSync(join(tmpdir(), "memdir-eval-extract-"));
  const index = [];
  for (const m of existing) {
    writeFileSync(join(dir, m.file), `---\nname: ${m.name}\ndescription: ${m.description}\ntype: ${m.type}\n---\n\n${m.body}\n`);
    index.push(`- [${m.name}](${m.file}) — ${m.description}`);
  }
  writeFileSync(join(dir, "MEMORY.md"), index.length ? `${index.join("\n")}\n` : "");
  return dir;
}

/** The folder's files, for the check that suggest wrote nothing. */
export function filesOf(dir) {
  return Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f), "utf8")]));
}

/** Runs one conversation: `selector` is a provider config or a function. */
export async function runOne(conversation, selector) {
  const dir = folderWith(conversation.existing);
  try {
    const before = filesOf(dir);
    const memory = await openMemory({ dir, selector, cache: false });
    const result = await memory.extract({ messages: conversation.messages, mode: "suggest" });
    const s = score(conversation, result);
    s.wroteNothing = JSON.stringify(filesOf(dir)) === JSON.stringify(before);
    s.refused = result.refused.map((r) => r.code);
    return s;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every conversation, on the recorded answers or a live selector. */
export async function runAll({ selectorFor, only } = {}) {
  const answers = recorded();
  const scores = [];
  for (const c of dataset().filter((c) => !only || c.id === only)) {
    const selector = selectorFor ? selectorFor(c) : async () => answers[c.id] ?? '{"operations": []}';
    scores.push(await runOne(c, selector));
  }
  return { scores, totals: totals(scores) };
}

function parseArgs(argv) {
  const o = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") o.json = true;
    else if (["--provider", "--model", "--base-url", "--only", "--timeout"].includes(a)) o[a.slice(2)] = argv[++i];
    else throw new Error(`unknown argument ${a} (--provider, --model, --base-url, --only, --timeout, --json)`);
  }
  return o;
}

function table({ scores, totals: t }, live) {
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  const rows = scores.map((s) => `${s.id.padEnd(26)} ${String(s.matched).padStart(2)}/${String(s.expected).padEnd(2)} proposed ${String(s.proposed).padStart(2)}  extra ${s.extra}  ${s.violations.length ? `VIOLATION ${s.violations.join(", ")}` : ""}${s.secretsStopped ? ` secrets stopped ${s.secretsStopped}` : ""}${s.outcome === "failed" ? ` FAILED ${s.error}` : ""}`);
  return [
    `extraction on ${t.conversations} conversations (${live ? `live: ${live}` : "recorded answers, hand-written"})`,
    ...rows,
    "",
    `recall ${pct(t.recall)} (${t.matched}/${t.expected})  precision ${pct(t.precision)}  violations ${t.violations}  secrets stopped by the core ${t.secretsStopped}  update/supersede right ${t.actions}  failed ${t.failed}`,
    live ? `tokens ${t.inputTokens} in, ${t.outputTokens} out; cost ${t.costUsd === null ? "unknown" : `$${t.costUsd.toFixed(4)}`}` : "",
  ].join("\n");
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let selectorFor;
  if (o.provider) {
    const key = o.provider === "anthropic" ? process.env.ANTHROPIC_API_KEY : o.provider === "openai" ? process.env.OPENAI_API_KEY : undefined;
    if ((o.provider === "anthropic" || o.provider === "openai") && !key && !o["base-url"]) throw new Error(`--provider ${o.provider} needs ${o.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"}`);
    const config = { provider: o.provider, ...(key ? { apiKey: key } : {}), ...(o.model ? { model: o.model } : {}), ...(o["base-url"] ? { baseUrl: o["base-url"] } : {}), ...(o.timeout ? { timeoutMs: Number(o.timeout) } : {}) };
    selectorFor = () => config;
  }
  const run = await runAll({ selectorFor, only: o.only });
  process.stdout.write(`${o.json ? JSON.stringify(run, null, 1) : table(run, o.provider ? `${o.provider}${o.model ? ` ${o.model}` : ""}` : null)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    process.stderr.write(`eval:extract: ${error?.message ?? error}\n`);
    process.exitCode = 1;
  });
}
