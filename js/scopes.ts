/**
 * A memory of several scopes (rules §1.6): each scope a folder opened as its own memory (its own
 * index, limits, cache and history); recall scans every one, the core merges their memories
 * into one manifest as `<scope>:<path>` (`mergeScoped`), and each chosen memory is read from its
 * own folder. Writes go to the scope the core chooses (`writeScope`). This file only wires.
 */
import { MemdirError } from "./errors.js";
import { mergeScoped, scopesPrompt, splitScoped, writeScope, type IndexPrompt, type ScanResult, type ScopeRule } from "./core.js";
import type { OpenedMemory, OpenMemoryOptions, RecallOptions, RecallResult, RememberRequest, ScopedMemory, ScopeOptions, WriteResult } from "./api.js";
import type { OpenedInternals } from "./open.js";
import { recall, scanWithHeads, type RecallContext, type Scanned } from "./recall.js";
import { session } from "./session.js";

type Open = (options: OpenMemoryOptions) => Promise<OpenedMemory>;
type Internals = (memory: OpenedMemory) => OpenedInternals | undefined;

interface Part {
  name: string;
  readOnly: boolean;
  memory: OpenedMemory;
  recall: RecallContext;
}

function invalid(message: string): MemdirError {
  return new MemdirError("INVALID_ARGUMENT", `invalid argument: ${message}`);
}

/** The options every scope shares with `openMemory`'s own (not where a folder is, not `keep`). */
function shared(options: OpenMemoryOptions): OpenMemoryOptions {
  const { scopes: _scopes, dir: _dir, projectRoot: _root, host: _host, scope: _scope, keep: _keep, ...rest } = options;
  return rest;
}

/** Opens every scope of `options.scopes` through `open` and joins them (see {@link ScopedMemory}). */
export async function openScoped(options: OpenMemoryOptions, open: Open, internalsOf: Internals): Promise<ScopedMemory> {
  const given = options.scopes;
  if (!Array.isArray(given)) throw invalid("`scopes` is a list of { name, dir | projectRoot | host }");
  if (options.dir !== undefined || options.projectRoot !== undefined || options.host !== undefined) {
    throw invalid("with `scopes`, each scope names its own folder: `dir`, `projectRoot` and `host` go inside them");
  }
  const specs: ScopeOptions[] = given.map((s, i) => {
    if (s === null || typeof s !== "object" || typeof s.name !== "string") throw invalid(`scopes[${i}] needs a name`);
    return s;
  });
  // the core checks the names (well formed, none twice, 1 to 8) and each scope's types
  scopesPrompt(specs.map((s) => ({ name: s.name, root: "" })));
  const rules: ScopeRule[] = specs.map((s) => ({ name: s.name, types: s.types ?? null, readOnly: s.readOnly === true }));
  let defaultScope: string | null = null;
  try {
    defaultScope = writeScope(rules, null, null);
  } catch (error) {
    if ((error as MemdirError).code !== "INVALID_ARGUMENT" || /unknown memory type/.test((error as Error).message)) throw error;
  }
  // the folder the one-folder tools work on: the default write scope, else the first that takes writes
  const homeName = defaultScope ?? specs.find((s) => s.readOnly !== true)?.name ?? specs[0]!.name;
  const base = shared(options);
  const parts: Part[] = [];
  try {
    for (const spec of specs) {
      const limits = spec.limits ? { ...options.limits, ...spec.limits } : options.limits;
      const where = spec.host ? { host: spec.host } : spec.dir !== undefined ? { dir: spec.dir } : spec.projectRoot !== undefined ? { projectRoot: spec.projectRoot } : null;
      if (where === null) throw invalid(`scope ${JSON.stringify(spec.name)} needs \`dir\`, \`projectRoot\` or \`host\``);
      // the automatic writers run in the default write scope only
      const keep = spec.name === homeName && options.keep ? { keep: options.keep } : {};
      const memory = await open({ ...base, ...where, ...keep, ...(limits ? { limits } : {}), scope: spec.name });
      const inner = internalsOf(memory);
      if (!inner) throw invalid(`scope ${JSON.stringify(spec.name)} did not open as a memory`);
      parts.push({ name: spec.name, readOnly: spec.readOnly === true, memory, recall: inner.recall });
    }
  } catch (error) {
    for (const p of parts) p.memory.close();
    throw error;
  }
  const roots = parts.map((p) => ({ name: p.name, root: p.memory.host.root, readOnly: p.readOnly }));
  try {
    scopesPrompt(roots); // the core refuses one folder under two names
  } catch (error) {
    for (const p of parts) p.memory.close();
    throw error;
  }
  const byName = new Map(parts.map((p) => [p.name, p]));
  const names = parts.map((p) => p.name);
  const part = (name: string): Part => {
    const found = byName.get(name);
    if (!found) throw invalid(`no scope ${JSON.stringify(name)} (scopes: ${names.join(", ")})`);
    return found;
  };
  const home = part(homeName);
  /** `home` for a writer: refused when every scope is read-only. */
  const homeWrites = (): OpenedMemory => {
    if (home.readOnly) throw invalid("every scope is read-only: nothing here can be written");
    return home.memory;
  };
  const writable = (name: string): Part => {
    const p = part(name);
    if (p.readOnly) throw invalid(`scope ${JSON.stringify(name)} is read-only: it is recalled, never written`);
    return p;
  };
  /** A file as `<scope>:<path>`, `{ file, scope }`, or a path of the default write scope. */
  const located = (input: unknown, what: string): { part: Part; file: string; ifMatch?: unknown } => {
    const file = typeof input === "string" ? input : (input as { file?: unknown } | null)?.file;
    if (typeof file !== "string") throw invalid(`${what} takes { file } (or the file as a string)`);
    const named = typeof input === "object" && input !== null ? (input as { scope?: unknown }).scope : undefined;
    if (named !== undefined && typeof named !== "string") throw invalid(`${what}'s scope is a scope's name`);
    const split = named === undefined ? splitScoped(file, names) : null;
    const scope = named ?? split?.[0] ?? defaultScope;
    if (scope === null) throw invalid(`${what}: name the scope (every scope is read-only or typed)`);
    const ifMatch = typeof input === "object" && input !== null ? (input as { ifMatch?: unknown }).ifMatch : undefined;
    return { part: writable(scope), file: split?.[1] ?? file, ...(ifMatch !== undefined ? { ifMatch } : {}) };
  };

  const scanAll = async (): Promise<{ scanned: Scanned; each: { part: Part; scanned: Scanned }[] }> => {
    const each = await Promise.all(parts.map(async (p) => ({ part: p, scanned: await scanWithHeads(p.recall) })));
    const memories = mergeScoped(each.map(({ part: p, scanned }) => ({ scope: p.name, memories: scanned.result.memories })));
    const heads: Scanned["heads"] = {};
    const diagnostics: ScanResult["diagnostics"] = [];
    // the memories past each scope's own cap, named as the kept ones are
    const dropped = mergeScoped(each.map(({ part: p, scanned }) => ({ scope: p.name, memories: scanned.result.dropped })));
    for (const { part: p, scanned } of each) {
      for (const [path, head] of Object.entries(scanned.heads)) heads[`${p.name}:${path}`] = head;
      for (const d of scanned.result.diagnostics) diagnostics.push({ ...d, path: `${p.name}:${d.path}` });
    }
    return { scanned: { result: { memories, diagnostics, dropped }, heads }, each };
  };
  const recallCtx: RecallContext = {
    ...home.recall,
    cache: undefined,
    scoped: {
      scan: async () => (await scanAll()).scanned,
      locate: (path) => {
        const split = splitScoped(path, names);
        if (!split) throw invalid(`${path} names no scope`);
        return { host: part(split[0]).memory.host, path: split[1], scope: split[0] };
      },
    },
  };
  const recallOnce = (query: string, turn: RecallOptions = {}): Promise<RecallResult> => recall(recallCtx, query, turn);
  const homeKeeper = internalsOf(home.memory)!.keeper;

  const scoped: ScopedMemory = {
    host: home.memory.host,
    dir: home.memory.dir,
    scopes: parts.map((p) => ({ name: p.name, readOnly: p.readOnly, memory: p.memory })),
    writeScope: defaultScope,
    scope: (name) => part(name).memory,
    async index() {
      const each = await Promise.all(parts.map(async (p) => ({ scope: p.name, index: await p.memory.index() })));
      const prompt = each
        .map((e) => e.index.prompt)
        .filter((p) => p !== "")
        .join("\n\n");
      const own = each.find((e) => e.scope === home.name)!.index;
      return { ...own, prompt, scopes: each } as IndexPrompt & { scopes: { scope: string; index: IndexPrompt }[] };
    },
    instructions: (opts) => `${home.memory.instructions(opts)}\n\n${scopesPrompt(roots)}`,
    async scan(opts = {}) {
      if (opts?.hashes) {
        const each = await Promise.all(parts.map(async (p) => ({ scope: p.name, scan: await p.memory.scan(opts) })));
        const memories = mergeScoped(each.map((e) => ({ scope: e.scope, memories: e.scan.memories })));
        const hashes = new Map<string, string | undefined>(each.flatMap((e) => e.scan.memories.map((m) => [`${e.scope}:${m.path}`, m.sha256] as const)));
        return {
          memories: memories.map((m) => (hashes.get(m.path) ? { ...m, sha256: hashes.get(m.path)! } : m)),
          diagnostics: each.flatMap((e) => e.scan.diagnostics.map((d) => ({ ...d, path: `${e.scope}:${d.path}` }))),
          dropped: mergeScoped(each.map((e) => ({ scope: e.scope, memories: e.scan.dropped }))),
        };
      }
      const { scanned } = await scanAll();
      return { memories: [...scanned.result.memories], diagnostics: [...scanned.result.diagnostics], dropped: [...scanned.result.dropped] };
    },
    recall: recallOnce,
    session: () => session(recallOnce, homeKeeper),
    async remember(input: RememberRequest & { scope?: string }) {
      if (input === null || typeof input !== "object") throw invalid("remember takes a memory");
      const { scope: named, ...rest } = input;
      if (named !== undefined && typeof named !== "string") throw invalid("remember's scope is a scope's name");
      const scope = writeScope(rules, named ?? null, typeof rest.type === "string" ? rest.type : null);
      const result: WriteResult = await part(scope).memory.remember(rest as RememberRequest);
      return { ...result, scope };
    },
    forget: async (input) => {
      const at = located(input, "forget");
      return at.part.memory.forget(at.ifMatch === undefined ? at.file : ({ file: at.file, ifMatch: at.ifMatch } as never));
    },
    touch: async (input) => {
      const at = located(input, "touch");
      return at.part.memory.touch(at.ifMatch === undefined ? at.file : ({ file: at.file, ifMatch: at.ifMatch } as never));
    },
    tool: () => homeWrites().tool(),
    doctor: (opts) => home.memory.doctor(opts),
    planFixes: (opts) => home.memory.planFixes(opts),
    applyFixes: async (plan, opts) => homeWrites().applyFixes(plan, opts),
    history: (opts) => home.memory.history(opts),
    undo: async (id, opts) => homeWrites().undo(id, opts),
    restore: async (opts) => homeWrites().restore(opts),
    extract: async (opts) => homeWrites().extract(opts),
    consolidate: async (opts) => homeWrites().consolidate(opts),
    close: () => {
      for (const p of parts) p.memory.close();
    },
  };
  return scoped;
}
