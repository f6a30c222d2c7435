/**
 * `memdir doctor [--fix [--yes | --dry-run]]`: the memory checked against its rules; `--fix`
 * shows the diff of the safe fixes, then asks on a terminal before applying them (`--yes`
 * applies without asking, `--dry-run` only shows; with no terminal and no `--yes`, nothing is
 * written and the exit is 2).
 */
import { ask } from "./ask.js";
import type { DoctorReport } from "../core.js";
import { UsageError, wholeNumber } from "./args.js";
import type { CommandContext } from "./command.js";
import { openFromArgs, requireDirectory } from "./memory.js";

function formatFindings(report: DoctorReport): string {
  const lines = report.findings.map((f) => `${f.file}${f.line ? `:${f.line}` : ""}: ${f.severity} ${f.code}: ${f.message}${f.fix ? ` [fix: ${f.fix}]` : ""}`);
  lines.push(`${report.errors} errors, ${report.warnings} warnings, ${report.infos} notes; ${report.fixable} fixable${report.fixable ? " (memdir doctor --fix)" : ""}`);
  return lines.join("\n");
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values: o, out } = ctx;
  const staleCoreDays = wholeNumber("stale-core-days", o["stale-core-days"], "a whole number of days", 0, 1_000_000);
  const memory = await openFromArgs(ctx, undefined, { oneFolder: true });
  await requireDirectory(ctx, memory.host.root);
  const opts = staleCoreDays === undefined ? {} : { staleCoreDays };
  if (!o.fix && (o.yes || o["dry-run"])) throw new UsageError(`--${o.yes ? "yes" : "dry-run"} goes with --fix: memdir doctor --fix ${o.yes ? "--yes" : "--dry-run"}`, "doctor");
  if (o.yes && o["dry-run"]) throw new UsageError("--yes and --dry-run say opposite things: choose one", "doctor");
  if (!o.fix) {
    const report = await memory.doctor(opts);
    out.result(report, () => formatFindings(report));
    return report.errors > 0 ? 1 : 0;
  }
  const plan = await memory.planFixes(opts);
  if (!out.json) out.write(plan.diff ? `${plan.diff}\n` : "nothing to fix\n");
  const files = new Set(plan.effects.map((e) => ("path" in e ? e.path : e.from))).size;
  let apply = plan.effects.length > 0 && !o["dry-run"];
  if (apply && !o.yes) {
    if (!process.stdin.isTTY) {
      out.err(`memdir: nothing written: --fix asks before it changes ${files} file${files === 1 ? "" : "s"}, and there is no terminal to ask on; pass --yes to apply, or --dry-run to only look\n`);
      if (out.json) out.result({ diff: plan.diff, fixed: 0, applied: false, before: plan.before, after: plan.before }, () => "");
      return 2;
    }
    apply = await ask(`Apply these fixes to ${files} file${files === 1 ? "" : "s"}? [y/N] `);
    if (!apply) out.err("memdir: nothing written\n");
  }
  const after = apply ? await memory.applyFixes(plan, opts) : plan.before;
  const fixed = apply ? plan.fixed : 0;
  out.result({ diff: plan.diff, fixed, applied: apply, before: plan.before, after }, () => (apply ? `fixed ${fixed}; remaining:\n${formatFindings(after)}` : formatFindings(after)));
  return after.errors > 0 ? 1 : 0;
}

