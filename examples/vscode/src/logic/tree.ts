/**
 * The tree view's content from a scan: memories grouped by type (newest first, as the scan
 * orders them), each with its age and a stale marker when the library would send it with a
 * staleness caveat (older than a day), then the files past the cap that recall never sees.
 * With several scopes, grouped by scope first (in order of precedence), each scope's group
 * saying its folder and whether it is read-only, then by type within it.
 */
import { memoryAge, memoryAgeDays, memoryFreshnessText, type Diagnostic, type Memory, type ScanResult } from "memdir";

export interface MemoryNode {
  kind: "memory";
  /** The memory as the opened memory names it: its relative path, or `<scope>:<path>` with scopes (what `forget` and `touch` take). */
  path: string;
  /** Its scope, with scopes; else `null`. */
  scope: string | null;
  /** Its path in its own folder (its scope's). */
  file: string;
  /** In a read-only scope: recalled, never written (nothing to confirm or forget). */
  readOnly: boolean;
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
  /** A scope's group holds its type groups; a type group holds memories. */
  children: (GroupNode | MemoryNode)[];
  /** The scope, on a scope's group, and whether it is read-only. */
  scope?: string;
  readOnly?: boolean;
  tooltip?: string;
}

/** A scope as the tree shows it. */
export interface TreeScope {
  name: string;
  readOnly: boolean;
  /** Where writes go when they name no scope. */
  isDefault: boolean;
  /** Its folder, as shown (a local path, or a URI). */
  folder: string;
}

const GROUPS = [
  ["user", "User"],
  ["feedback", "Feedback"],
  ["project", "Project"],
  ["reference", "Reference"],
  [null, "No type"],
] as const;

/**
 * The tree's top level: one group per type that has memories, then `Beyond the cap` if any.
 * With `scopes` (two or more), one group per scope first, each holding its own type groups.
 */
export function memoryTree(scan: ScanResult, nowMs: number, scopes: readonly TreeScope[] = []): GroupNode[] {
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
    const where = split(memory.path, scopes);
    const readOnly = scopes.find((s) => s.name === where.scope)?.readOnly === true;
    const label = memory.name || where.file;
    return { kind: "memory", path: memory.path, ...where, readOnly, label, description, tooltip, type, ageDays: memoryAgeDays(timeMs, nowMs), stale, dropped, problems: found };
  };
  const byType = (memories: readonly Memory[], dropped: readonly Memory[]): GroupNode[] => {
    const groups: GroupNode[] = [];
    for (const [type, label] of GROUPS) {
      const children = memories.filter((m) => (m.type ?? null) === type).map((m) => node(m, false));
      if (children.length > 0) groups.push({ kind: "group", label, description: count(children), children });
    }
    if (dropped.length > 0) {
      const children = dropped.map((m) => node(m, true));
      groups.push({ kind: "group", label: "Beyond the cap", description: `${count(children)} recall never sees`, children });
    }
    return groups;
  };
  if (scopes.length < 2) return byType(scan.memories, scan.dropped);
  return scopes.map((s) => {
    const mine = (m: Memory) => m.path.startsWith(`${s.name}:`);
    const memories = scan.memories.filter(mine);
    const dropped = scan.dropped.filter(mine);
    const role = s.readOnly ? "read-only" : s.isDefault ? "default for writes" : null;
    const n = memories.length + dropped.length;
    return {
      kind: "group",
      label: s.name,
      description: [s.folder, ...(role ? [role] : []), `${n} ${n === 1 ? "memory" : "memories"}`].join(" · "),
      tooltip: `The ${s.name} scope: ${s.folder}${s.readOnly ? "\nread-only: recalled, never written" : ""}${s.isDefault ? "\nwrites that name no scope go here" : ""}`,
      scope: s.name,
      readOnly: s.readOnly,
      children: byType(memories, dropped),
    };
  });
}

/** A memory's scope and path in its folder (`<scope>:<path>` with scopes). */
function split(path: string, scopes: readonly TreeScope[]): { scope: string | null; file: string } {
  const colon = path.indexOf(":");
  if (scopes.length === 0 || colon < 0) return { scope: null, file: path };
  return { scope: path.slice(0, colon), file: path.slice(colon + 1) };
}

function count(children: (GroupNode | MemoryNode)[]): string {
  const stale = children.filter((c) => c.kind === "memory" && c.stale).length;
  return `${children.length}${stale ? `, ${stale} stale` : ""}`;
}
