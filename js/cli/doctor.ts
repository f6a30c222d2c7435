/** `memdir doctor [--fix]`: the memory checked against its rules; `--fix` shows the diff of the safe fixes, then applies them. */
import type { DoctorReport } from "../entry/node.js";
import { wholeNumber } from "./args.js";
import type { CommandContext } from "./command.js";
import { openFromArgs, requireDirectory } from "./memory.js";

function formatFindings(report: DoctorReport): string {
  const lines = report.findings.map((f) => `${f.file}${f.line ? `:${f.line}` : ""}: ${f.severity} ${f.code}: ${f.message}${f.fix ? ` [fix: ${f.fix}]` : ""}`);
  lines.push(`${report.errors} errors, ${report.warnings} warnings, ${report.infos} notes; ${report.fixable} fixable${report.fixable ? " (memdir doctor --fix)" : ""}`);
  return lines.join("\n");
}

export async function run(ctx: CommandContext): Promise<number> {
  const { values: o, out } = ctx;
  const staleCoreDays = wholeNumber("stale-days", o["stale-days"], "a whole number of days", 0, 1_000_000);
  const memory = await openFromArgs(ctx);
  await requireDirectory(ctx, memory.host.root);
  const opts = staleCoreDays === undefined ? {} : { staleCoreDays };
  if (!o.fix) {
    const report = await memory.doctor(opts);
    out.result(report, () => formatFindings(report));
    return report.errors > 0 ? 1 : 0;
  }
  const plan = await memory.planFixes(opts);
  if (!out.json) out.write(plan.diff ? `${plan.diff}\n` : "nothing to fix\n");
  const after = plan.effects.length > 0 ? await memory.applyFixes(plan, opts) : plan.before;
  out.result({ diff: plan.diff, fixed: plan.fixed, before: plan.before, after }, () => `fixed ${plan.fixed}; remaining:\n${formatFindings(after)}`);
  return after.errors > 0 ? 1 : 0;
}
