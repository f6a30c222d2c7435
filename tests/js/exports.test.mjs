// The public entry is deliberate (issue 22): at most 66 names (60, issue 24's four for the
// automatic writers: KeepOptions, KeepMode, ExtractResult, ConsolidateResult, and issue 25's two
// for scopes: ScopeOptions, ScopedMemory; the Node entry's claudeCodeScopes takes the place of the
// browser entry's hosts), each on the list below. A name
// that is not here is internal (pkg/internal.js, not in package.json "exports"); adding one to
// the entry means adding it here, on purpose.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";

const MAX_NAMES = 66;

// Values and types of every entry.
const COMMON = [
  // opening a memory, the hosts, the tool, the errors, locking, loading the module
  "openMemory", "InMemoryHost", "VsCodeHost", "memoryTool", "runMemoryCommand", "MemoryToolError",
  "MemdirError", "withLock", "LOCK_FILE", "init", "initSync", "isReady",
  // the core functions the README documents for direct use
  "truncateIndex", "scanMemories", "buildSelectionRequest", "parseSelection", "renderMemory",
  "memoryToolInputSchema", "memoryInstructions", "sanitizePath", "projectMemoryDir", "memoryAge", "memoryAgeDays", "memoryFreshnessText", "defaultLimits", "INPUT_LIMITS", "MEMORY_TYPES",
  // types
  "OpenMemoryOptions", "OpenedMemory", "MemorySession", "RecallResult", "RecallOptions", 
  "RecalledMemory", "SelectorConfig", "SelectorFunction",
  "WriteResult", "MemoryHost", "HostEntry", "HostError", "HostFastPaths", "HostLinks",
  "HostLocks", "HostWatcher", "LockOwner", "Limits", "ScanResult", "Memory",
  "Diagnostic", "MemoryTool", "MemoryToolHandlers", "VsCodeApi", "DiagnosticCode", "FindingCode", "MemdirErrorCode", "WasmSource", "FetchFunction",
  // the automatic writers (issue 24)
  "KeepOptions", "KeepMode", "ExtractResult", "ConsolidateResult",
  // scopes (issue 25)
  "ScopeOptions", "ScopedMemory",
];
const NODE = [...COMMON, "NodeHost", "NodeHostOptions", "claudeCodeScopes"];
const BROWSER = [...COMMON, "browserHost", "IndexedDbHost", "OpfsHost", "IndexedDbHostOptions"];

// The names a declaration file exports, following `export * from` into the files it names
// (the compiled .d.ts files hold nothing else that exports).
function declaredNames(relative) {
  const names = new Set();
  const seen = new Set();
  const visit = (url) => {
    const file = fileURLToPath(url);
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    for (const m of text.matchAll(/export\s+(?:type\s+)?\*\s+from\s+"([^"]+)"/g)) {
      visit(new URL(m[1].replace(/\.js$/, ".d.ts"), url));
    }
    for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
      for (const part of m[1].split(",")) {
        const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()?.trim();
        if (name) names.add(name);
      }
    }
    for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:abstract\s+)?(?:function|const|let|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/g)) {
      names.add(m[1]);
    }
  };
  visit(new URL(`../../pkg/entry/${relative}`, import.meta.url));
  return [...names];
}

function check(names, documented, what) {
  assert.ok(names.length <= MAX_NAMES, `${what} exports ${names.length} names (at most ${MAX_NAMES})`);
  const extra = names.filter((n) => !documented.includes(n)).sort();
  assert.deepEqual(extra, [], `${what} exports names that are not on the documented list`);
}

test("the Node entry exports at most 64 names, each documented", async () => {
  const entry = await import("memdir");
  check(Object.keys(entry), NODE, "the Node entry");
  check(declaredNames("node.d.ts"), NODE, "the Node entry's declarations");
});

test("the bundled Node entry exports the same names as the Node entry", async () => {
  const bundled = await import("../../pkg/entry/node-bundled.js");
  const node = await import("memdir");
  check(Object.keys(bundled), NODE, "the bundled Node entry");
  assert.deepEqual(Object.keys(bundled).sort(), Object.keys(node).sort());
});

test("the browser entry's declarations export at most 64 names, each documented", () => {
  check(declaredNames("browser.d.ts"), BROWSER, "the browser entry's declarations");
});
