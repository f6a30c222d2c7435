// Offline selection quality: runs a selector (the lexical one unless told otherwise) over the
// hand-judged cases of bench/eval/cases.json and examples/queries.json, each on a temporary copy
// of its memory folder with the folder's ages applied, and scores what it chose.
//
//   node bench/selection-eval.mjs                    table per category, per folder and overall
//   node bench/selection-eval.mjs --json             the same as JSON, with every case's choice
//   node bench/selection-eval.mjs --verbose          also list every case whose choice is not exact
//   node bench/selection-eval.mjs --selector <spec>  lexical | anthropic | openai | ollama (keys from
//                                                    the environment), or a path to a module whose
//                                                    default export is a selector config or function
//   --folder <name>   only that folder's cases;  --no-examples   leave out examples/queries.json
//
// What the figures mean (bench/eval/README.md): recall@5 = relevant files chosen / relevant files,
// precision = relevant files chosen / files chosen, abstention = share of `none` cases where
// nothing was chosen, exact = share of cases whose chosen set is exactly the relevant set.
import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { openMemory } from "memdir";

const DAY_MS = 86_400_000;
/**
 * The clock of the evaluation: the day the cases were judged. Ages (ages.json, days before it)
 * and the `modified:` times in the folders' frontmatter agree on it, so every run sees the
 * same files in the same order, whatever day it is.
 */
export const EVAL_NOW = Date.parse("2026-12-03T08:00:00Z");
const benchDir = fileURLToPath(new URL(".", import.meta.url));
const repoDir = resolve(benchDir, "..");
/** The category order of the tables. */
export const CATEGORIES = ["lexical", "paraphrase", "several", "tool", "superseded", "cjk", "none"];
export const EXAMPLES = "examples";

/** Where a folder's memory and its ages (days before now, per file) live. */
export function folderPaths(folder) {
  if (folder === EXAMPLES) return { memory: join(repoDir, "examples", "memory"), ages: join(repoDir, "examples", "ages.json") };
  if (!/^[a-z0-9][a-z0-9-]*$/.test(folder)) throw new Error(`bad folder name ${JSON.stringify(folder)}`);
  return { memory: join(benchDir, "eval", folder, "memory"), ages: join(benchDir, "eval", folder, "ages.json") };
}

/** The cases: bench/eval/cases.json, then (unless `examples: false`) examples/queries.json as folder `examples`. */
export function loadCases({ casesFile = join(benchDir, "eval", "cases.json"), examples = true } = {}) {
  const cases = JSON.parse(readFileSync(casesFile, "utf8"));
  if (examples) {
    const queries = JSON.parse(readFileSync(join(repoDir, "examples", "queries.json"), "utf8"));
    for (const q of queries) cases.push({ folder: EXAMPLES, ...q, category: q.category ?? (q.relevant.length ? "lexical" : "none") });
  }
  return cases;
}

/** A temporary copy of a folder's memory with each file's mtime set to `now` minus its age (and a minute). */
export function copyFolder(folder, now = EVAL_NOW) {
  const { memory, ages } = folderPaths(folder);
  const dir = join(mkdtempSync(join(tmpdir(), `memdir-eval-${folder}-`)), "memory");
  cpSync(memory, dir, { recursive: true });
  for (const [path, days] of Object.entries(JSON.parse(readFileSync(ages, "utf8")))) {
    const when = new Date(now - days * DAY_MS - 60_000);
    utimesSync(join(dir, path), when, when);
  }
  return dir;
}

const ratio = (num, den) => (den ? num / den : null);

/** Scores scored rows (see `evaluate`): the metrics of one group. */
export function score(rows) {
  let relevant = 0, chosen = 0, hits = 0, exact = 0, nones = 0, abstained = 0, skipped = 0, failed = 0;
  let withOutdated = 0, outdatedChosen = 0, withToolDocs = 0, toolDocsChosen = 0;
  for (const r of rows) {
    relevant += r.relevant.length;
    chosen += r.chosen.length;
    hits += r.hits;
    if (r.exact) exact++;
    if (r.category === "none") {
      nones++;
      if (r.chosen.length === 0) abstained++;
    }
    if (r.outcome === "skipped") skipped++;
    if (r.outcome === "failed") failed++;
    if (r.outdated.length) {
      withOutdated++;
      if (r.chosen.some((p) => r.outdated.includes(p))) outdatedChosen++;
    }
    if (r.toolDocs.length) {
      withToolDocs++;
      if (r.chosen.some((p) => r.toolDocs.includes(p))) toolDocsChosen++;
    }
  }
  return {
    cases: rows.length,
    recallAt5: ratio(hits, relevant),
    precision: ratio(hits, chosen),
    abstention: ratio(abstained, nones),
    exactMatch: ratio(exact, rows.length),
    chosenPerCase: ratio(chosen, rows.length),
    skipped,
    failed,
    outdatedChosen: withOutdated ? { chosen: outdatedChosen, of: withOutdated } : null,
    toolDocsChosen: withToolDocs ? { chosen: toolDocsChosen, of: withToolDocs } : null,
  };
}

function group(rows, key, order = []) {
  const out = {};
  const keys = [...new Set([...order.filter((k) => rows.some((r) => r[key] === k)), ...rows.map((r) => r[key])])];
  for (const k of keys) out[k] = score(rows.filter((r) => r[key] === k));
  return out;
}

/**
 * Runs `selector` (default `{provider: "lexical"}`; any `openMemory` selector: a config or a
 * function) over `cases` and scores it. Each folder is copied once to a temporary directory
 * with its ages applied, and removed afterwards. Returns the metrics overall, per category and
 * per folder, and one row per case (what was chosen, the recall outcome, hits). `now` is
 * `EVAL_NOW` unless given.
 */
export async function evaluate({ cases = loadCases(), selector = { provider: "lexical" }, now = EVAL_NOW, onCase } = {}) {
  const rows = [];
  const folders = [...new Set(cases.map((c) => c.folder))];
  for (const folder of folders) {
    const dir = copyFolder(folder, now);
    try {
      const memory = await openMemory({ dir, selector, now: () => now });
      for (const c of cases.filter((x) => x.folder === folder)) {
        const result = await memory.recall(c.query, { recentTools: c.recentTools ?? [] });
        const chosen = result.memories.map((m) => m.path);
        const want = new Set(c.relevant);
        const hits = chosen.filter((p) => want.has(p)).length;
        const row = {
          folder,
          category: c.category,
          query: c.query,
          recentTools: c.recentTools ?? [],
          relevant: c.relevant,
          chosen,
          hits,
          exact: hits === want.size && chosen.length === want.size,
          outcome: result.outcome,
          selector: result.selector,
          error: result.error ?? null,
          outdated: c.outdated ?? [],
          toolDocs: c.toolDocs ?? [],
        };
        rows.push(row);
        onCase?.(row);
      }
    } finally {
      rmSync(resolve(dir, ".."), { recursive: true, force: true });
    }
  }
  return {
    selector: typeof selector === "function" ? "function" : selector.provider,
    overall: score(rows),
    byCategory: group(rows, "category", CATEGORIES),
    byFolder: group(rows, "folder"),
    rows,
  };
}

const fmt = (x) => (x === null ? "" : x.toFixed(2));

/** The result as a plain-text table (per category, per folder, overall) with a diagnostics footer. */
export function formatTable(result) {
  const head = ["", "cases", "recall@5", "precision", "abstention", "exact", "chosen/case", "skipped"];
  const line = (name, m) => [name, String(m.cases), fmt(m.recallAt5), fmt(m.precision), fmt(m.abstention), fmt(m.exactMatch), fmt(m.chosenPerCase), m.skipped ? String(m.skipped) : ""];
  const body = [
    ...Object.entries(result.byCategory).map(([k, m]) => line(k, m)),
    null,
    ...Object.entries(result.byFolder).map(([k, m]) => line(k, m)),
    null,
    line("overall", result.overall),
  ];
  const table = [head, ...body.filter(Boolean)];
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const render = (r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const out = [`selector: ${result.selector}`, render(head), rule];
  for (const r of body) out.push(r ? render(r) : rule);
  const o = result.overall;
  const notes = [];
  if (o.outdatedChosen) notes.push(`superseded: an outdated memory was chosen in ${o.outdatedChosen.chosen} of ${o.outdatedChosen.of} cases`);
  if (o.toolDocsChosen) notes.push(`tool: the usage doc of a tool in use was chosen in ${o.toolDocsChosen.chosen} of ${o.toolDocsChosen.of} cases`);
  if (o.skipped) notes.push(`skipped: ${o.skipped} queries never reached the selector (recall outcome "skipped")`);
  if (o.failed) notes.push(`failed: ${o.failed} side queries failed`);
  notes.push(`targets: abstention >= 0.80 and recall@5 >= 0.60 overall (today ${fmt(o.abstention)} and ${fmt(o.recallAt5)})`);
  return [...out, "", ...notes].join("\n");
}

/** The misses, one block a case. */
export function formatMisses(result) {
  return result.rows
    .filter((r) => !r.exact)
    .map((r) => `[${r.category}] ${r.folder}: ${r.query}${r.recentTools.length ? `  (tools: ${r.recentTools.join(", ")})` : ""}${r.outcome === "skipped" ? "  (skipped)" : ""}\n  chose: ${r.chosen.join(", ") || "-"}\n  want:  ${r.relevant.join(", ") || "-"}`)
    .join("\n");
}

async function selectorFromSpec(spec) {
  if (!spec || spec === "lexical") return { provider: "lexical" };
  const env = process.env;
  if (spec === "anthropic") return { provider: "anthropic", apiKey: env.ANTHROPIC_API_KEY, model: env.MEMDIR_EVAL_MODEL };
  if (spec === "openai") return { provider: "openai", apiKey: env.OPENAI_API_KEY, model: env.MEMDIR_EVAL_MODEL, baseUrl: env.OPENAI_BASE_URL };
  if (spec === "ollama") return { provider: "ollama", model: env.MEMDIR_EVAL_MODEL, baseUrl: env.OLLAMA_BASE_URL };
  const mod = await import(pathToFileURL(resolve(spec)).href);
  const selector = mod.default ?? mod.selector;
  if (!selector || (typeof selector !== "function" && typeof selector !== "object")) throw new Error(`${spec}: export a selector config or function as default (or as \`selector\`)`);
  return selector;
}

function parseArgs(argv) {
  const o = { json: false, verbose: false, examples: true, selector: null, folder: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") o.json = true;
    else if (a === "--verbose") o.verbose = true;
    else if (a === "--no-examples") o.examples = false;
    else if (a === "--selector") o.selector = argv[++i];
    else if (a === "--folder") o.folder = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const o = parseArgs(process.argv.slice(2));
    let cases = loadCases({ examples: o.examples });
    if (o.folder) cases = cases.filter((c) => c.folder === o.folder);
    if (!cases.length) throw new Error("no cases");
    const result = await evaluate({ cases, selector: await selectorFromSpec(o.selector) });
    if (o.json) console.log(JSON.stringify(result, null, 2));
    else {
      if (o.verbose) console.log(formatMisses(result) + "\n");
      console.log(formatTable(result));
    }
  } catch (error) {
    console.error(`selection-eval: ${error.message}`);
    process.exit(2);
  }
}
