/**
 * The tree view's content from a scan: memories grouped by type (newest first, as the scan
 * orders them), each with its age and a stale marker when the library would send it with a
 * staleness caveat (older than a day), then the files past the cap that recall never sees.
 */
import { memoryAge, memoryAgeDays, memoryFreshnessText, type Diagnostic, type Memory, type ScanResult } from "memdir";

export interface MemoryNode {
  kind: "memory";
  /** Relative path in the memory folder. */
  path: string;
  label: string;
  /** `type · age`, `· stale` when a caveat would go with it, `· replaced by <file>`. */
  description: string;
  tooltip: string;
  type: string | null;
  ageDays: number;
  stale: boolean;
  /** Past the `maxFiles` cap: recall never considers it. */
  dropped: boolean;
  /** The scan's diagnostics for this file (bad frontmatter, …). */
  problems: string[];
}

export interface GroupNode {
  kind: "group";
  label: string;
  description: string;
  children: MemoryNode[];
}

const GROUPS = [
  ["user", "User"],
  ["feedback", "Feedback"],
  ["project", "Project"],
  ["reference", "Reference"],
  [null, "No type"],
] as const;

/** The tree's top level: one group per type that has memories, then `Beyond the cap` if any. */
export function memoryTree(scan: ScanResult, nowMs: number): GroupNode[] {
  const problems = new Map<string, Diagnostic[]>();
  for (const d of scan.diagnostics) problems.set(d.path, [...(problems.get(d.path) ?? []), d]);
  const node = (memory: Memory, dropped: boolean): MemoryNode => {
    const timeMs = memory.timeMs ?? memory.mtimeMs;
    const age = memoryAge(timeMs, nowMs);
    // a memory a newer one replaces (rules §4.7) is not confirmed true: nothing stale to offer
    const replacedBy = memory.supersededBy ?? null;
    const stale = !replacedBy && memoryFreshnessText(timeMs, nowMs) !== "";
    const type = memory.type ?? null;
    const found = (problems.get(memory.path) ?? []).map((d) => (d.line ? `line ${d.line}: ${d.message}` : d.message));
    const description = [type ?? "no type", age, ...(stale ? ["stale"] : []), ...(replacedBy ? [`replaced by ${replacedBy}`] : []), ...(dropped ? ["beyond the cap"] : [])].join(" · ");
    const replaced = replacedBy ? [`replaced by ${replacedBy}: recall chooses that one (unless doctor says the chain is broken)`] : [];
    const tooltip = [memory.path, memory.description ?? "(no description)", `saved ${age}${stale ? " — recall sends it with a staleness caveat" : ""}`, ...replaced, ...found].join("\n");
    return { kind: "memory", path: memory.path, label: memory.name || memory.path, description, tooltip, type, ageDays: memoryAgeDays(timeMs, nowMs), stale, dropped, problems: found };
  };
  const groups: GroupNode[] = [];
  for (const [type, label] of GROUPS) {
    const children = scan.memories.filter((m) => (m.type ?? null) === type).map((m) => node(m, false));
    if (children.length > 0) groups.push({ kind: "group", label, description: count(children), children });
  }
  if (scan.dropped.length > 0) {
    const children = scan.dropped.map((m) => node(m, true));
    groups.push({ kind: "group", label: "Beyond the cap", description: `${count(children)} recall never sees`, children });
  }
  return groups;
}

function count(children: MemoryNode[]): string {
  const stale = children.filter((c) => c.stale).length;
  return `${children.length}${stale ? `, ${stale} stale` : ""}`;
}
