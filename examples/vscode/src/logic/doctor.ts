/**
 * Doctor in the editor: findings as diagnostics on the memory files (ranges on the finding's
 * line), and "Doctor: fix", which shows the unified diff of the safe fixes first and writes
 * only once the user confirms (`applyFixes` then re-plans under the lock and refuses if
 * anything changed since the diff was shown).
 */
import type { OpenedMemory, Prompts } from "./types.js";

type DoctorReport = Awaited<ReturnType<OpenedMemory["doctor"]>>;
type FixPlan = Awaited<ReturnType<OpenedMemory["planFixes"]>>;
type Finding = DoctorReport["findings"][number];

/** `vscode.DiagnosticSeverity`: Error 0, Warning 1, Information 2. */
export const SEVERITY = { error: 0, warning: 1, info: 2 } as const;

export interface DiagnosticSpec {
  /** 0-based, as `vscode.Range` takes them. */
  range: { startLine: number; startCharacter: number; endLine: number; endCharacter: number };
  severity: number;
  message: string;
  /** The finding's code (`frontmatter_malformed`, `dead_link`, …). */
  code: string;
  source: "memdir";
}

/**
 * Diagnostics by file (relative path) from a report. A finding with a line covers that line's
 * text (from `texts`, the file as the editor has it; past its end, the last line); one without
 * a line sits on the first line. Files doctor names that are not text (`texts` has no entry)
 * still get their diagnostics on line 1.
 */
export function doctorDiagnostics(report: DoctorReport, texts: ReadonlyMap<string, string>): Map<string, DiagnosticSpec[]> {
  const byFile = new Map<string, DiagnosticSpec[]>();
  for (const finding of report.findings) {
    if (!finding.file) continue;
    const lines = (texts.get(finding.file) ?? "").split(/\r?\n/);
    const wanted = finding.line === null || finding.line < 1 ? 0 : finding.line - 1;
    const line = Math.min(wanted, lines.length - 1);
    const text = lines[line] ?? "";
    const spec: DiagnosticSpec = {
      range: { startLine: line, startCharacter: 0, endLine: line, endCharacter: text.length },
      severity: SEVERITY[finding.severity],
      message: message(finding),
      code: finding.code,
      source: "memdir",
    };
    byFile.set(finding.file, [...(byFile.get(finding.file) ?? []), spec]);
  }
  return byFile;
}

function message(finding: Finding): string {
  return finding.fix ? `${finding.message} (fix: ${finding.fix})` : finding.message;
}

export interface FixUi extends Pick<Prompts, "confirm"> {
  /** Shows the diff (a read-only diff document); resolves once it is shown. */
  showDiff(diff: string): Promise<void>;
}

export type FixOutcome = { status: "nothing_to_fix"; report: DoctorReport } | { status: "declined"; plan: FixPlan } | { status: "applied"; plan: FixPlan; after: DoctorReport };

/** Plans the safe fixes, shows their diff, and applies them only when the user confirms. */
export async function doctorFixFlow(memory: OpenedMemory, ui: FixUi, options: { staleCoreDays?: number } = {}): Promise<FixOutcome> {
  const plan = await memory.planFixes(options);
  if (plan.effects.length === 0) return { status: "nothing_to_fix", report: plan.before };
  await ui.showDiff(plan.diff);
  const files = new Set(plan.effects.map((e) => ("to" in e ? e.to : e.path))).size;
  const ok = await ui.confirm(`Apply ${plan.fixed} fix${plan.fixed === 1 ? "" : "es"} to ${files} file${files === 1 ? "" : "s"} in the memory folder? The diff shows every change.`, "Apply");
  if (!ok) return { status: "declined", plan };
  return { status: "applied", plan, after: await memory.applyFixes(plan, options) };
}

/** One line for the status message after doctor ran. */
export function reportSummary(report: DoctorReport): string {
  if (report.findings.length === 0) return "memdir doctor: no problems found";
  return `memdir doctor: ${report.errors} error(s), ${report.warnings} warning(s), ${report.infos} note(s); ${report.fixable} fixable with "memdir: Doctor: fix"`;
}
