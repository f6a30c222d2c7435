/** `memdir path`, `memdir index`, `memdir scan`: where the memory is, and what is in it. */
import { memoryAge } from "../core.js";
import type { CommandContext } from "./command.js";
import { openFromArgs, requireFolders, scopesOf } from "./memory.js";

export async function path(ctx: CommandContext): Promise<number> {
  const memory = await openFromArgs(ctx, undefined, { oneFolder: true });
  const root = memory.host.root;
  const scopes = scopesOf(memory);
  if (scopes === null) {
    ctx.out.result({ dir: root }, () => root);
    return 0;
  }
  // every scope, in order of precedence; the default write scope marked
  const rows = scopes.map((s) => ({ scope: s.name, dir: s.memory.host.root, readOnly: s.readOnly }));
  const width = Math.max(...rows.map((r) => r.scope.length));
  ctx.out.result({ dir: root, scopes: rows }, () => rows.map((r) => `${r.scope.padEnd(width)}  ${r.dir}${r.readOnly ? "  (read-only)" : r.dir === root ? "  (writes)" : ""}`).join("\n"));
  return 0;
}

export async function index(ctx: CommandContext): Promise<number> {
  const memory = await openFromArgs(ctx, undefined, { oneFolder: true });
  await requireFolders(ctx, memory);
  const view = await memory.index();
  const scoped = scopesOf(memory) !== null;
  // several scopes: each index as the model sees it, under its scope's line
  ctx.out.result(view, () => (scoped ? view.prompt : view.content) || "(MEMORY.md is missing or empty: nothing is injected)");
  return 0;
}

export async function scan(ctx: CommandContext): Promise<number> {
  const memory = await openFromArgs(ctx, undefined, { oneFolder: true });
  await requireFolders(ctx, memory);
  const hashes = Boolean(ctx.values.hashes);
  const result = await memory.scan({ hashes });
  const now = Date.now();
  ctx.out.result(result, () => {
    const rows = [
      ...result.memories.map((m) => [m.type ?? "-", m.supersededBy ? `${m.path} [replaced by ${m.supersededBy}]` : m.path, memoryAge(m.timeMs ?? m.mtimeMs, now), `${hashes ? `${m.sha256 ?? "-"}  ` : ""}${m.description ?? ""}`]),
      ...result.dropped.map((m) => [m.type ?? "-", `${m.path} [dropped: past the ${result.memories.length}-file cap]`, memoryAge(m.timeMs ?? m.mtimeMs, now), m.description ?? ""]),
    ];
    const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length), ["TYPE", "PATH", "AGE"][i]!.length));
    const line = (r: string[]) => r.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join("  ").trimEnd();
    const diagnostics = result.diagnostics.map((d) => `  ${d.path}${d.line ? `:${d.line}` : ""}: ${d.code}: ${d.message}`);
    const count = `${result.memories.length} memories, ${result.dropped.length} dropped, ${result.diagnostics.length} diagnostics`;
    return [line(["TYPE", "PATH", "AGE", "DESCRIPTION"]), ...rows.map(line), "", count, ...diagnostics].join("\n");
  });
  return 0;
}
