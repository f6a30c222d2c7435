/**
 * Typed access to the Rust core. Every rule lives in Rust; this file only checks that the
 * module is ready, forwards the call, and turns thrown values into `MemdirError`s.
 *
 * A trap inside WebAssembly (which the core is written never to cause) leaves the instance
 * in an unknown state, so the first `RuntimeError` shuts the module off: later calls throw
 * `WASM_POISONED` instead of returning wrong answers.
 */
import * as wasm from "./wasm/memdir.js";
import type {
  HttpRequest,
  LexicalInput,
  LexicalSelection,
  ProviderAnswer,
  ProviderRequestInput,
  ProviderResponseInput,
  RetryDecision,
  RetryInput,
  Cost,
  CostInput,
  FileHead,
  IndexInput,
  IndexPrompt,
  IndexView,
  Limits,
  Memory,
  MemoryDirInput,
  RenderedMemory,
  RenderInput,
  ScanPlan,
  ScanResult,
  Selection,
  SelectionInput,
  SelectionRequest,
  DoctorInput,
  DoctorReport,
  FixPlan,
  MemoryToolCommand,
  RememberInput,
  SecretFinding,
  Snapshot,
  ToolPlan,
  ToolResult,
  WritePlan,
} from "./wasm/memdir.js";
import { MemdirError, toMemdirError } from "./errors.js";

export type {
  HttpRequest,
  LexicalInput,
  LexicalSelection,
  ProviderAnswer,
  ProviderName,
  ProviderRequestInput,
  ProviderResponseInput,
  RetryDecision,
  RetryInput,
  Cost,
  CostInput,
  Diagnostic,
  FileHead,
  IndexInput,
  IndexPrompt,
  IndexView,
  Limits,
  Memory,
  MemoryDirInput,
  MemoryType,
  Rejected,
  RenderedMemory,
  RenderInput,
  ScanPlan,
  ScanResult,
  Selection,
  SelectionInput,
  SelectionRequest,
  SkipReason,
  Usage,
  DoctorInput,
  DoctorReport,
  Effect,
  Finding,
  FixPlan,
  MemoryToolCommand,
  RememberInput,
  SecretFinding,
  Snapshot,
  SnapshotEntry,
  ToolPlan,
  ToolResult,
  WritePlan,
} from "./wasm/memdir.js";

let state: "uninitialized" | "ready" | "poisoned" = "uninitialized";

/** What `init` accepts: the module's bytes, a compiled module, a URL, or a fetch `Response`. */
export type WasmSource = BufferSource | WebAssembly.Module | URL | string | Response | Promise<Response>;

/**
 * Loads the WebAssembly module. Node loads it synchronously on import, so this resolves at
 * once there; in browsers call `await init()` (optionally with the `.wasm` URL or bytes)
 * before anything else.
 */
export async function init(source?: WasmSource): Promise<void> {
  if (state === "ready") return;
  await wasm.default(source === undefined ? undefined : { module_or_path: source });
  state = "ready";
}

/** Loads the module synchronously from its bytes or a compiled module. */
export function initSync(source: BufferSource | WebAssembly.Module): void {
  if (state === "ready") return;
  wasm.initSync({ module: source });
  state = "ready";
}

/** `true` once the module is loaded and usable. */
export function isReady(): boolean {
  return state === "ready";
}

function guard<T>(run: () => T): T {
  if (state !== "ready") {
    throw state === "poisoned"
      ? new MemdirError("WASM_POISONED", "the memdir WebAssembly module trapped earlier and was shut off; reload it")
      : new MemdirError("NOT_INITIALIZED", "memdir is not initialised: call `await init()` first");
  }
  try {
    return run();
  } catch (error) {
    if (error instanceof WebAssembly.RuntimeError) state = "poisoned";
    throw toMemdirError(error);
  }
}

/** The SPEC's default limits. */
export function defaultLimits(): Limits {
  return guard(() => wasm.defaultLimits());
}

/**
 * Trims `MEMORY.md` and holds it to `maxIndexLines` lines and `maxIndexUtf16` UTF-16 units.
 * When a limit cuts, a warning naming it and the real figures is appended after a blank line.
 */
export function truncateIndex(text: string, limits?: Partial<Limits> | null): IndexView {
  return guard(() => wasm.truncateIndex(text, limits ?? null));
}

/** Bytes of MEMORY.md to read: what the limits could keep, plus a margin. */
export function indexReadBytes(limits?: Partial<Limits> | null): number {
  return guard(() => wasm.indexReadBytes(limits ?? null));
}

/** MEMORY.md as the model sees it: the view and the prompt block, from what the host read. */
export function indexPrompt(input: IndexInput): IndexPrompt {
  return guard(() => wasm.indexPrompt(input));
}

/** Orders a listing (newest first) so a host reads only the heads it needs. */
export function planScan(files: FileHead[], limits?: Partial<Limits> | null): ScanPlan {
  return guard(() => wasm.planScan(files, limits ?? null));
}

/**
 * Scans topic files: frontmatter from the first `maxHeaderLines` lines, newest first, capped
 * at `maxFiles`; older files come back in `dropped`, problems in `diagnostics`.
 */
export function scanMemories(files: FileHead[], limits?: Partial<Limits> | null): ScanResult {
  return guard(() => wasm.scanMemories(files, limits ?? null));
}

/** The selector's manifest: `- [type] path (ISO mtime): description`, one line a memory. */
export function formatManifest(memories: Memory[]): string {
  return guard(() => wasm.formatManifest(memories));
}

/** The side query for this turn, or `skip` saying why none is needed. */
export function buildSelectionRequest(input: SelectionInput): SelectionRequest {
  return guard(() => wasm.buildSelectionRequest(input));
}

/** Reads the selector's answer against the candidates; a bad answer is data, not an exception. */
export function parseSelection(
  answerText: string,
  candidates: string[],
  alreadySurfaced?: string[] | null,
  limits?: Partial<Limits> | null,
): Selection {
  return guard(() => wasm.parseSelection(answerText, candidates, alreadySurfaced ?? null, limits ?? null));
}

/** Whole 24-hour periods since `mtimeMs` (0 for a future time). */
export function memoryAgeDays(mtimeMs: number, nowMs: number): number {
  return guard(() => wasm.memoryAgeDays(mtimeMs, nowMs));
}

/** `"today"`, `"yesterday"` or `"N days ago"`. */
export function memoryAge(mtimeMs: number, nowMs: number): string {
  return guard(() => wasm.memoryAge(mtimeMs, nowMs));
}

/** The staleness caveat for a memory older than a day, else `""`. */
export function memoryFreshnessText(mtimeMs: number, nowMs: number): string {
  return guard(() => wasm.memoryFreshnessText(mtimeMs, nowMs));
}

/** The caveat wrapped in `<system-reminder>` tags with a newline, else `""`. */
export function memoryFreshnessNote(mtimeMs: number, nowMs: number): string {
  return guard(() => wasm.memoryFreshnessNote(mtimeMs, nowMs));
}

/** One memory as the `<system-reminder>` block to inject, cut at a complete line. */
export function renderMemory(input: RenderInput): RenderedMemory {
  return guard(() => wasm.renderMemory(input));
}

/** Claude Code's `sanitizePath`. */
export function sanitizePath(name: string): string {
  return guard(() => wasm.sanitizePath(name));
}

/** The default memory directory: `<home>/.claude/projects/<sanitized root>/memory/`. */
export function projectMemoryDir(input: MemoryDirInput): string {
  return guard(() => wasm.projectMemoryDir(input));
}

/** Throws `UNSAFE_PATH` unless `path` is a safe relative path inside the memory directory. */
export function checkRelativePath(path: string): void {
  guard(() => wasm.checkRelativePath(path));
}

/** US dollars for one side query; `usd: null` for a model not in the price table. */
export function estimateCost(input: CostInput): Cost {
  return guard(() => wasm.estimateCost(input));
}

/** The side query's HTTP request for one provider, shaped for the model. */
export function buildProviderRequest(input: ProviderRequestInput): HttpRequest {
  return guard(() => wasm.buildProviderRequest(input));
}

/** Decodes a provider's response into text, stop reason, usage, or a failure. */
export function decodeProviderResponse(input: ProviderResponseInput): ProviderAnswer {
  return guard(() => wasm.decodeProviderResponse(input));
}

/** Whether and when to retry a failed attempt, as the official SDKs do. */
export function retryDecision(input: RetryInput): RetryDecision {
  return guard(() => wasm.retryDecision(input));
}

/** The offline BM25 selector; can choose nothing. */
export function lexicalSelect(input: LexicalInput): LexicalSelection {
  return guard(() => wasm.lexicalSelect(input));
}

/** The system-prompt section that teaches the main model how to keep the memory in `dir`. */
export function memoryInstructions(dir: string): string {
  return guard(() => wasm.memoryInstructions(dir));
}

/** Step 1 of a memory-tool command: the paths to resolve and read (or the answer, for a bad command). */
export function planToolCommand(command: MemoryToolCommand): ToolPlan {
  return guard(() => wasm.planToolCommand(command));
}

/** Step 2 of a memory-tool command: the result text and the effects to apply. */
export function runToolCommand(command: MemoryToolCommand, snapshot: Snapshot, limits?: Partial<Limits> | null): ToolResult {
  return guard(() => wasm.runToolCommand(command, snapshot, limits ?? null));
}

/** Plans `remember`, or throws a `MemdirError` saying why it is refused (nothing is written). */
export function planRemember(input: RememberInput, snapshot: Snapshot, limits?: Partial<Limits> | null): WritePlan {
  return guard(() => wasm.planRemember(input, snapshot, limits ?? null));
}

/** Plans `forget`, or throws `NOT_FOUND`. */
export function planForget(file: string, snapshot: Snapshot, limits?: Partial<Limits> | null): WritePlan {
  return guard(() => wasm.planForget(file, snapshot, limits ?? null));
}

/** Every doctor check (SPEC §5). */
export function runDoctor(input: DoctorInput): DoctorReport {
  return guard(() => wasm.runDoctor(input));
}

/** The safe fixes as effects and a diff, with the report before and after. */
export function planDoctorFixes(input: DoctorInput): FixPlan {
  return guard(() => wasm.planDoctorFixes(input));
}

/** High-confidence credentials in a text (kind, line, redacted preview). */
export function findSecrets(text: string): SecretFinding[] {
  return guard(() => wasm.findSecrets(text));
}

/** A unified diff of two texts; empty when equal. */
export function unifiedDiff(path: string, old: string, updated: string): string {
  return guard(() => wasm.unifiedDiff(path, old, updated));
}
