#!/usr/bin/env node
/**
 * The `memdir` command: where a project's memory is, its index, its files, and a recall —
 * the exact blocks an agent would inject this turn, with tokens and cost.
 *
 * Exit status: 0 success; 1 a recall or provider failure, a refused write, or doctor errors that
 * remain; 2 bad arguments; 3 no memory directory (missing, or a file where it should be).
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { defaultSelector, MemdirError, memoryAge, openMemory, type DoctorReport, type OpenedMemory, type RecallResult, type SelectorConfig } from "../entry/node.js";

const HELP = `memdir — long-term memory for AI agents, in plain Markdown files

Usage:
  memdir path                 where the memory directory is
  memdir index                MEMORY.md as it goes into the prompt (cut to its limits)
  memdir scan                 the memories: type, path, age, description (dropped files marked)
  memdir recall "<query>"     which memories a side query picks, and the blocks to inject
  memdir remember --type <t> --name <n> --description <d> [--file <f>] [--body <text>]
                              write a memory and its MEMORY.md line (body from stdin if no --body)
  memdir forget <file>        remove a memory and its MEMORY.md line
  memdir doctor [--fix]       check the memory against its rules; --fix shows the diff of the
                              safe fixes, then applies them

Options:
  --dir <path>        the memory directory (default: Claude Code's, for --project)
  --project <path>    the project whose memory to use (default: the current directory)
  --provider <name>   anthropic | openai | ollama | lexical (default: anthropic when
                      ANTHROPIC_API_KEY is set, openai when only OPENAI_API_KEY is, else lexical)
  --model <id>        the side-query model (default: claude-sonnet-5-5, gpt-4o-mini, qwen3:8b)
  --base-url <url>    the provider's base URL (OpenAI-compatible servers, Ollama, a proxy)
  --timeout <ms>      deadline of the side query (default 10000)
  --fallback          when the model call fails, choose with the lexical selector
  --max-files <n>     topic files considered (default 200)
  --stale-days <n>    doctor: user/feedback memories older than this are reported (default 90)
  --json              machine-readable output
  -h, --help          this help

Keys come from ANTHROPIC_API_KEY and OPENAI_API_KEY.`;

class UsageError extends Error {}

function fail(code: number, message: string): never {
  process.stderr.write(`memdir: ${message}\n`);
  process.exit(code);
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "mcp") return (await import("../mcp/main.js")).mcp(argv.slice(1)); // the MCP server: memdir mcp --help
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        dir: { type: "string" },
        project: { type: "string" },
        provider: { type: "string" },
        model: { type: "string" },
        "base-url": { type: "string" },
        timeout: { type: "string" },
        fallback: { type: "boolean" },
        type: { type: "string" },
        name: { type: "string" },
        description: { type: "string" },
        file: { type: "string" },
        body: { type: "string" },
        fix: { type: "boolean" },
        "stale-days": { type: "string" },
        "max-files": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values: o, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (o.help || command === "help") {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (!command) throw new UsageError("a command is required (path, index, scan, recall, remember, forget or doctor); see --help");
  if (!["path", "index", "scan", "recall", "remember", "forget", "doctor"].includes(command)) throw new UsageError(`unknown command "${command}"; see --help`);
  if (command === "recall" && rest.length !== 1) throw new UsageError('recall takes one query in quotes: memdir recall "how do we deploy?"');
  if (command === "forget" && rest.length !== 1) throw new UsageError("forget takes one file: memdir forget feedback_testing.md");
  if (command !== "recall" && command !== "forget" && rest.length > 0) throw new UsageError(`${command} takes no arguments`);
  if (command === "remember") for (const k of ["type", "name", "description"] as const) if (!o[k]) throw new UsageError(`remember needs --${k}`);
  const maxFiles = o["max-files"] === undefined ? undefined : Number(o["max-files"]);
  if (maxFiles !== undefined && !(Number.isInteger(maxFiles) && maxFiles > 0)) throw new UsageError(`--max-files takes a positive whole number, not "${o["max-files"]}"`);
  const staleCoreDays = o["stale-days"] === undefined ? undefined : Number(o["stale-days"]);
  if (staleCoreDays !== undefined && !(Number.isInteger(staleCoreDays) && staleCoreDays >= 0)) throw new UsageError(`--stale-days takes a whole number of days, not "${o["stale-days"]}"`);

  const env = process.env;
  // the same default as openMemory's: the core decides from which keys are set
  const provider = o.provider ?? defaultSelector({ anthropicKey: Boolean(env.ANTHROPIC_API_KEY), openaiKey: Boolean(env.OPENAI_API_KEY) }).provider;
  if (!["anthropic", "openai", "ollama", "lexical"].includes(provider)) throw new UsageError(`unknown provider "${provider}" (anthropic, openai, ollama or lexical)`);
  const timeoutMs = o.timeout === undefined ? undefined : Number(o.timeout);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw new UsageError(`--timeout takes a positive whole number of milliseconds, not "${o.timeout}"`);
  const apiKey = provider === "anthropic" ? env.ANTHROPIC_API_KEY : provider === "openai" ? env.OPENAI_API_KEY : undefined;
  if (command === "recall" && provider === "anthropic" && !apiKey) throw new UsageError("--provider anthropic needs ANTHROPIC_API_KEY");
  if (command === "recall" && provider === "openai" && !apiKey && !o["base-url"]) throw new UsageError("--provider openai needs OPENAI_API_KEY (or --base-url for a local server)");

  const selector: SelectorConfig = { provider: provider as SelectorConfig["provider"] };
  if (apiKey) selector.apiKey = apiKey;
  if (o.model) selector.model = o.model;
  if (o["base-url"]) selector.baseUrl = o["base-url"];
  if (timeoutMs) selector.timeoutMs = timeoutMs;
  if (o.fallback) selector.fallback = true;

  const limits = maxFiles === undefined ? {} : { maxFiles };
  const memory = await openMemory(o.dir ? { dir: resolve(o.dir), selector, limits } : { projectRoot: resolve(o.project ?? "."), selector, limits });
  const root = memory.host.root;
  const out = (value: unknown, text: () => string) => process.stdout.write(o.json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);

  if (command === "path") {
    out({ dir: root }, () => root);
    return 0;
  }
  if (command === "remember" || command === "forget") {
    try {
      const done =
        command === "remember"
          ? await memory.remember({ type: o.type!, name: o.name!, description: o.description!, body: o.body ?? (await readStdin()), ...(o.file ? { file: o.file } : {}) })
          : await memory.forget(rest[0]!);
      out(done, () => (done.action === "forgotten" ? `forgot ${done.file}` : `${done.action} ${done.absolutePath}\nindex: ${done.indexLine}`));
      return 0;
    } catch (error) {
      const e = error as { code?: string; message?: string };
      if (!(error instanceof MemdirError)) throw error;
      if (o.json) process.stdout.write(`${JSON.stringify({ error: { code: e.code, message: e.message } }, null, 2)}\n`);
      if (e.code === "NOT_A_DIRECTORY") {
        process.stderr.write(`memdir: no memory directory: ${e.message}\n`);
        return 3;
      }
      process.stderr.write(`memdir: ${command} refused (${e.code}): ${e.message}\n`);
      return 1;
    }
  }
  const exists = await stat(root).then((s) => s.isDirectory(), () => false);
  if (!exists) fail(3, `no memory directory at ${root}${o.dir ? "" : " (use --dir to point at one)"}`);

  if (command === "index") {
    const view = await memory.index();
    out(view, () => view.content || "(MEMORY.md is missing or empty: nothing is injected)");
    return 0;
  }
  if (command === "scan") {
    const scan = await memory.scan();
    const now = Date.now();
    out(scan, () => {
      const rows = [
        ...scan.memories.map((m) => [m.type ?? "-", m.path, memoryAge(m.timeMs ?? m.mtimeMs, now), m.description ?? ""]),
        ...scan.dropped.map((m) => [m.type ?? "-", `${m.path} [dropped: past the ${scan.memories.length}-file cap]`, memoryAge(m.timeMs ?? m.mtimeMs, now), m.description ?? ""]),
      ];
      const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), ["TYPE", "PATH", "AGE"][i]!.length));
      const line = (r: string[]) => r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join("  ").trimEnd();
      const diagnostics = scan.diagnostics.map((d) => `  ${d.path}${d.line ? `:${d.line}` : ""}: ${d.code}: ${d.message}`);
      return [line(["TYPE", "PATH", "AGE", "DESCRIPTION"]), ...rows.map(line), "", `${scan.memories.length} memories, ${scan.dropped.length} dropped, ${scan.diagnostics.length} diagnostics`, ...diagnostics].join("\n");
    });
    return 0;
  }
  if (command === "doctor") return doctor(memory, { staleCoreDays, fix: Boolean(o.fix), json: Boolean(o.json) });
  const result = await memory.recall(rest[0]!);
  out(result, () => formatRecall(result));
  return result.outcome === "failed" ? 1 : 0;
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError("remember needs --body, or the body on stdin");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function formatFindings(report: DoctorReport): string {
  const lines = report.findings.map((f) => `${f.file}${f.line ? `:${f.line}` : ""}: ${f.severity} ${f.code}: ${f.message}${f.fix ? ` [fix: ${f.fix}]` : ""}`);
  lines.push(`${report.errors} errors, ${report.warnings} warnings, ${report.infos} notes; ${report.fixable} fixable${report.fixable ? " (memdir doctor --fix)" : ""}`);
  return lines.join("\n");
}

async function doctor(memory: OpenedMemory, o: { staleCoreDays: number | undefined; fix: boolean; json: boolean }): Promise<number> {
  const opts = o.staleCoreDays === undefined ? {} : { staleCoreDays: o.staleCoreDays };
  if (!o.fix) {
    const report = await memory.doctor(opts);
    process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatFindings(report)}\n`);
    return report.errors > 0 ? 1 : 0;
  }
  const plan = await memory.planFixes(opts);
  if (!o.json) process.stdout.write(plan.diff ? `${plan.diff}\n` : "nothing to fix\n");
  const after = plan.effects.length > 0 ? await memory.applyFixes(plan, opts) : plan.before;
  if (o.json) process.stdout.write(`${JSON.stringify({ diff: plan.diff, fixed: plan.fixed, before: plan.before, after }, null, 2)}\n`);
  else process.stdout.write(`fixed ${plan.fixed}; remaining:\n${formatFindings(after)}\n`);
  return after.errors > 0 ? 1 : 0;
}

function formatRecall(r: RecallResult): string {
  const lines = [
    `selector: ${r.selector ?? "none"}${r.model && r.selector !== "lexical" ? ` (${r.model})` : ""}`,
    `outcome:  ${r.outcome}${r.error ? ` — ${r.error}` : ""}`,
    `chosen:   ${r.memories.length ? r.memories.map((m) => `${m.path} (${memoryAge(m.timeMs, Date.now())}${m.truncated ? `, cut: ${m.truncated}` : ""})`).join(", ") : "nothing"}`,
  ];
  if (r.rejected.length) lines.push(`rejected: ${r.rejected.map((x) => `${JSON.stringify(x.value)} (${x.reason})`).join(", ")}`);
  const u = r.usage;
  if (r.selector !== "lexical" && r.selector !== null) {
    lines.push(`tokens:   ${u.inputTokens} in, ${u.outputTokens} out, ${u.cacheReadInputTokens} cache read, ${u.cacheCreationInputTokens} cache write`);
    lines.push(`cost:     ${r.costUsd === null ? "unknown (model not in the price table)" : `$${r.costUsd.toFixed(6)}`}`);
  }
  lines.push(`time:     ${r.latencyMs.toFixed(1)} ms (model ${r.modelLatencyMs.toFixed(1)} ms)`);
  if (r.reminders.length) lines.push("", "# Blocks to inject", "", r.reminders.join("\n\n"));
  return lines.join("\n");
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => fail(error instanceof UsageError ? 2 : 1, error instanceof UsageError ? `${error.message}` : `${(error as Error)?.stack ?? error}`),
);
