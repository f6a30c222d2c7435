/**
 * Typed access to the Rust core. Every rule lives in Rust; this file only checks that the
 * module is ready, bounds and copies the arguments (`edge.ts`), forwards the call, and turns
 * thrown values into `MemdirError`s.
 *
 * A trap inside WebAssembly (which the core is written never to cause), or the JavaScript
 * stack running out while the module runs, leaves the instance half-way through a call. The
 * module is then re-instantiated from its compiled code and the call tried once more on the
 * fresh instance; a call that traps a fresh instance too throws `WASM_TRAPPED`. Later calls work
 * either way. The one state the core keeps is an opened memory's scan session (its listing and
 * heads between turns); a restart loses it, and `js/scan-session.ts` makes a new one.
 */
import * as wasm from "./wasm/memdir.js";
import type {
  Cost,
  CostInput,
  DefaultSelector,
  DoctorInput,
  DoctorReport,
  FileHead,
  Effect,
  FixPlan,
  HistoryItem,
  HistoryPolicy,
  HistoryReadPlan,
  HistoryRecordInput,
  HistoryRecordPlan,
  HistoryRecoveryPlan,
  HistoryReverseInput,
  HistoryReversePlan,
  HttpRequest,
  IndexInput,
  IndexPrompt,
  IndexReadPlan,
  IndexView,
  MergedIndex,
  LexicalInput,
  LexicalSelection,
  Limits,
  Memory,
  MemoryDirInput,
  AgentMemoryInput,
  MemoryToolCommand,
  MemoryToolInputSchema,
  MemoryToolSchemaOptions,
  ProviderAnswer,
  ProviderRequestInput,
  ProviderResponseInput,
  ReadPlan,
  RememberInput,
  RenderedMemory,
  RenderInput,
  RetryDecision,
  RetryInput,
  ScanPlan,
  ScanResult,
  SecretFinding,
  Selection,
  SelectionInput,
  SelectionRequest,
  SelectorDefaults,
  SelectorEnv,
  Snapshot,
  SnapshotEntry,
  TempFile,
  ToolPlan,
  ToolResult,
  WritePlan,
  WriteVia,
  ConsolidationDue,
  ConsolidationPlan,
  ConsolidationRequest,
  ConsolidationSchedule,
  ConsolidationState,
  Extraction,
  ExtractionInput,
  KeepMode,
  ExtractionPlan,
  ExtractionRequest,
  Proposal,
} from "./generated/types.js";
import { crossing } from "./edge.js";
import { MemdirError, toMemdirError } from "./errors.js";
import { notReadyMessage } from "./not-ready.js";

// every type that crosses into the core, generated from its Rust type
export type * from "./generated/types.js";

let state: "uninitialized" | "ready" = "uninitialized";
/** Counts restarts of the module (see {@link moduleInstance}). */
let instance = 0;
/** Set when the instance trapped and could not be replaced yet: the next call tries again. */
let broken: unknown = null;

/**
 * The module's bytes: an `ArrayBuffer` or any view of one (`Uint8Array`, Node's `Buffer`).
 * Declared with the ES library's types alone, so no DOM library is needed to use them.
 */
export type WasmBytes = ArrayBuffer | ArrayBufferView;

/**
 * A compiled `WebAssembly.Module`, where the consumer's types know `WebAssembly` (the DOM or
 * web-worker library, newer `@types/node`); `never` (nothing to pass) where they do not.
 */
export type WasmModule = typeof globalThis extends { WebAssembly: { Module: abstract new (...args: never) => infer M } } ? M : never;

/** Where the module is: a `URL` (anything with an `href`), or a URL string, fetched with `fetch`. */
export interface WasmUrl {
  readonly href: string;
}

/** A fetch `Response` carrying the module (anything with `arrayBuffer()`); a real one is compiled as it streams. */
export interface WasmResponse {
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** What `init` accepts: the module's bytes, a compiled module, its URL, or a fetch `Response` (or a promise of one). */
export type WasmSource = WasmBytes | WasmModule | WasmUrl | string | WasmResponse | PromiseLike<WasmBytes | WasmModule | WasmResponse>;

type Loadable = { bytes: WasmBytes | object } | { url: string } | { response: WasmResponse };

/** Sorts what `init` was given; anything else is `INVALID_ARGUMENT`. */
function loadable(value: unknown): Loadable {
  const what = "invalid argument: init() takes the module's bytes, a compiled WebAssembly.Module, its URL or a fetch Response";
  if (typeof value === "string") return { url: value };
  if (typeof value !== "object" || value === null) throw new MemdirError("INVALID_ARGUMENT", what);
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return { bytes: value };
  if (typeof WebAssembly === "object" && value instanceof WebAssembly.Module) return { bytes: value };
  if (typeof (value as WasmResponse).arrayBuffer === "function") return { response: value as WasmResponse };
  if (typeof (value as WasmUrl).href === "string") return { url: (value as WasmUrl).href };
  throw new MemdirError("INVALID_ARGUMENT", what);
}

/**
 * Loads the WebAssembly module from `source`. The Node entry loads it on import, so this
 * resolves at once there; the browser entry's `init()` defaults to the module it carries.
 * A source that cannot be loaded (a 404, bytes that are not the module) is an `IO_ERROR`.
 */
export async function init(source?: WasmSource): Promise<void> {
  if (state === "ready") return;
  if (source === undefined) throw new MemdirError("INVALID_ARGUMENT", "invalid argument: init() needs the module: its bytes, URL or a fetch Response");
  const given = loadable(await source);
  let glueSource: unknown;
  let where = "the bytes given";
  try {
    if ("url" in given) {
      where = given.url;
      glueSource = await fetch(given.url);
    } else if ("response" in given) {
      // a real Response is compiled as it streams (with the right content type); anything else is read whole
      glueSource = typeof Response === "function" && given.response instanceof Response ? given.response : await given.response.arrayBuffer();
      where = "the response given";
    } else {
      glueSource = given.bytes;
    }
    if (typeof Response === "function" && glueSource instanceof Response && !glueSource.ok) throw new Error(`HTTP ${glueSource.status}`);
    await wasm.default({ module_or_path: glueSource as wasm.InitInput });
  } catch (error) {
    if (error instanceof MemdirError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new MemdirError("IO_ERROR", `could not load the memdir WebAssembly module from ${where}: ${why}`, { cause: error });
  }
  state = "ready";
}

/**
 * Loads the module synchronously from its bytes or a compiled module: for a host that reads
 * the file itself (a VS Code web extension through `workspace.fs`, a worker given the bytes).
 * Bytes that are not the module are an `IO_ERROR`.
 */
export function initSync(source: WasmBytes | WasmModule): void {
  if (state === "ready") return;
  const given = loadable(source);
  if (!("bytes" in given)) throw new MemdirError("INVALID_ARGUMENT", "invalid argument: initSync() takes the module's bytes or a compiled WebAssembly.Module; use `await init(url)` for a URL or Response");
  try {
    wasm.initSync({ module: given.bytes as wasm.SyncInitInput });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new MemdirError("IO_ERROR", `could not load the memdir WebAssembly module from the bytes given: ${why}`, { cause: error });
  }
  state = "ready";
}

/** `true` once the module is loaded and usable. */
export function isReady(): boolean {
  return state === "ready";
}

/** Whether `error` is the core's own typed error (thrown on purpose, the instance intact). */
function fromCore(error: unknown): boolean {
  return error instanceof Error && error.name === "MemdirError" && typeof (error as { code?: unknown }).code === "string";
}

/** A fresh instance of the compiled module in place of the current one; `false` if that failed. */
function restart(): boolean {
  try {
    wasm.__wbg_reset_state();
    instance++;
    broken = null;
    return true;
  } catch (error) {
    broken = error;
    return false;
  }
}

function trapped(error: unknown): MemdirError {
  const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const after = broken === null ? "it was restarted, later calls work" : "it could not be restarted yet; the next call tries again";
  return new MemdirError("WASM_TRAPPED", `the memdir WebAssembly module trapped on this call (${why}); ${after}`, { cause: error });
}

/**
 * Runs one core call on a bounded plain copy of its arguments (named, so errors can say
 * which). Anything thrown that is not the core's own `MemdirError` came from inside the
 * module: the instance is replaced and the call tried once more.
 */
function guard<A extends Record<string, unknown>, T>(args: A, run: (args: A) => T): T {
  if (state !== "ready") throw new MemdirError("NOT_INITIALIZED", notReadyMessage());
  if (broken !== null && !restart()) throw trapped(broken);
  const copy = crossing(args);
  for (let attempt = 0; ; attempt++) {
    try {
      return run(copy);
    } catch (error) {
      if (fromCore(error)) throw toMemdirError(error);
      if (!restart() || attempt > 0) throw trapped(error);
    }
  }
}

/** {@link guard} without the second try: a trap restarts the module and throws `WASM_TRAPPED`. */
function guardOnce<A extends Record<string, unknown>, T>(args: A, run: (args: A) => T): T {
  if (state !== "ready") throw new MemdirError("NOT_INITIALIZED", notReadyMessage());
  if (broken !== null && !restart()) throw trapped(broken);
  const copy = crossing(args);
  try {
    return run(copy);
  } catch (error) {
    if (fromCore(error)) throw toMemdirError(error);
    restart();
    throw trapped(error);
  }
}

/** The default limits (rules §2). */
export function defaultLimits(): Limits {
  return guard({}, () => wasm.defaultLimits());
}

/**
 * Trims `MEMORY.md` and holds it to `maxIndexLines` lines and `maxIndexUtf16` UTF-16 units.
 * When a limit cuts, a warning naming it and the real figures is appended after a blank line.
 */
export function truncateIndex(text: string, limits?: Partial<Limits> | null): IndexView {
  return guard({ text, limits }, (a) => wasm.truncateIndex(a.text, a.limits ?? null));
}

/** What to read of MEMORY.md: its path, and how far (what the limits could keep, plus a margin). */
export function indexReadPlan(limits?: Partial<Limits> | null): IndexReadPlan {
  return guard({ limits }, (a) => wasm.indexReadPlan(a.limits ?? null));
}

/** MEMORY.md as the model sees it: the view and the prompt block, from what the host read. */
export function indexPrompt(input: IndexInput): IndexPrompt {
  return guard({ input }, (a) => wasm.indexPrompt(a.input));
}

/** What to read before `planRemember`: the index, every topic file's head, where the index and the file really are. */
export function rememberReadPlan(file: string | null, limits?: Partial<Limits> | null, supersedes?: string | null): ReadPlan {
  return guard({ file, limits, supersedes: supersedes ?? null }, (a) => wasm.rememberReadPlan(a.file, a.limits ?? null, a.supersedes));
}

/** What to read before `planForget`. */
export function forgetReadPlan(file: string, limits?: Partial<Limits> | null): ReadPlan {
  return guard({ file, limits }, (a) => wasm.forgetReadPlan(a.file, a.limits ?? null));
}

/** What to read before a doctor run: the index and every topic file, whole. */
export function doctorReadPlan(limits?: Partial<Limits> | null): ReadPlan {
  return guard({ limits }, (a) => wasm.doctorReadPlan(a.limits ?? null));
}

/** Bytes of a file to read whole for a write: one past `maxFileBytes`. */
export function fileReadBytes(limits?: Partial<Limits> | null): number {
  return guard({ limits }, (a) => wasm.fileReadBytes(a.limits ?? null));
}

/** Bytes of a selected memory to read to render it. */
export function injectReadBytes(limits?: Partial<Limits> | null): number {
  return guard({ limits }, (a) => wasm.injectReadBytes(a.limits ?? null));
}

/** The temporary file an atomic write of `name` goes through: `.<name>.tmp-<token>`. */
export function tempFileName(name: string, token: string): string {
  return guard({ name, token }, (a) => wasm.tempFileName(a.name, a.token));
}

/** The file a temporary file was for, or `null` when `path` is not one. */
export function parseTempFile(path: string): TempFile | null {
  return guard({ path }, (a) => wasm.parseTempFile(a.path));
}

/** The side query's defaults: deadline, retries, the largest answer read. */
export function selectorDefaults(): SelectorDefaults {
  return guard({}, () => wasm.selectorDefaults());
}

/** The selector to use when none is configured, from which keys the environment has, and why. */
export function defaultSelector(env: SelectorEnv): DefaultSelector {
  return guard({ env }, (a) => wasm.defaultSelector(a.env));
}

/** Orders a listing (newest first) so a host reads only the heads it needs. */
export function planScan(files: FileHead[], limits?: Partial<Limits> | null): ScanPlan {
  return guard({ files, limits }, (a) => wasm.planScan(a.files, a.limits ?? null));
}

/**
 * Scans topic files: frontmatter from the first `maxHeaderLines` lines, newest first, capped
 * at `maxFiles`; older files come back in `dropped`, problems in `diagnostics`.
 */
export function scanMemories(files: FileHead[], limits?: Partial<Limits> | null): ScanResult {
  return guard({ files, limits }, (a) => wasm.scanMemories(a.files, a.limits ?? null));
}

/** The selector's manifest: `- [type] path (ISO mtime): description`, one line a memory. */
export function formatManifest(memories: Memory[]): string {
  return guard({ memories }, (a) => wasm.formatManifest(a.memories));
}

/** The side query for this turn, or `skip` saying why none is needed. */
export function buildSelectionRequest(input: SelectionInput): SelectionRequest {
  return guard({ input }, (a) => wasm.buildSelectionRequest(a.input));
}

/** Reads the selector's answer against the candidates; a bad answer is data, not an exception. */
export function parseSelection(
  answerText: string,
  candidates: string[],
  alreadySurfaced?: string[] | null,
  limits?: Partial<Limits> | null,
): Selection {
  return guard({ answerText, candidates, alreadySurfaced, limits }, (a) => wasm.parseSelection(a.answerText, a.candidates, a.alreadySurfaced ?? null, a.limits ?? null));
}

/** Whole 24-hour periods since `mtimeMs` (0 for a future time). */
export function memoryAgeDays(mtimeMs: number, nowMs: number): number {
  return guard({ mtimeMs, nowMs }, (a) => wasm.memoryAgeDays(a.mtimeMs, a.nowMs));
}

/** `"today"`, `"yesterday"` or `"N days ago"`. */
export function memoryAge(mtimeMs: number, nowMs: number): string {
  return guard({ mtimeMs, nowMs }, (a) => wasm.memoryAge(a.mtimeMs, a.nowMs));
}

/** The staleness caveat for a memory older than a day, else `""`. */
export function memoryFreshnessText(mtimeMs: number, nowMs: number): string {
  return guard({ mtimeMs, nowMs }, (a) => wasm.memoryFreshnessText(a.mtimeMs, a.nowMs));
}

/** The caveat wrapped in `<system-reminder>` tags with a newline, else `""`. */
export function memoryFreshnessNote(mtimeMs: number, nowMs: number): string {
  return guard({ mtimeMs, nowMs }, (a) => wasm.memoryFreshnessNote(a.mtimeMs, a.nowMs));
}

/** One memory as the `<system-reminder>` block to inject, cut at a complete line. */
export function renderMemory(input: RenderInput): RenderedMemory {
  return guard({ input }, (a) => wasm.renderMemory(a.input));
}

/** Claude Code's `sanitizePath`. */
export function sanitizePath(name: string): string {
  return guard({ name }, (a) => wasm.sanitizePath(a.name));
}

/**
 * A subagent's own memory folder, as Claude Code lays it out: `user` under
 * `~/.claude/agent-memory/<type>/`, `project` under `<project>/.claude/agent-memory/<type>/`,
 * `local` under `<project>/.claude/agent-memory-local/<type>/`.
 */
export function agentMemoryDir(input: AgentMemoryInput): string {
  return guard({ input }, (a) => wasm.agentMemoryDir(a.input));
}

/** The default memory directory: `autoMemoryDirectory` from trusted settings when valid, else `~/.claude/projects/<sanitized root>/memory/`. */
export function projectMemoryDir(input: MemoryDirInput): string {
  return guard({ input }, (a) => wasm.projectMemoryDir(a.input));
}

/** Throws `UNSAFE_PATH` unless `path` is a safe relative path inside the memory directory. */
export function checkRelativePath(path: string): void {
  guard({ path }, (a) => wasm.checkRelativePath(a.path));
}

/** US dollars for one side query; `usd: null` for a model not in the price table. */
export function estimateCost(input: CostInput): Cost {
  return guard({ input }, (a) => wasm.estimateCost(a.input));
}

/** The side query's HTTP request for one provider, shaped for the model. */
export function buildProviderRequest(input: ProviderRequestInput): HttpRequest {
  return guard({ input }, (a) => wasm.buildProviderRequest(a.input));
}

/** Decodes a provider's response into text, stop reason, usage, or a failure. */
export function decodeProviderResponse(input: ProviderResponseInput): ProviderAnswer {
  return guard({ input }, (a) => wasm.decodeProviderResponse(a.input));
}

/** Whether and when to retry a failed attempt, as the official SDKs do. */
export function retryDecision(input: RetryInput): RetryDecision {
  return guard({ input }, (a) => wasm.retryDecision(a.input));
}

/** The offline BM25 selector; can choose nothing. */
export function lexicalSelect(input: LexicalInput): LexicalSelection {
  return guard({ input }, (a) => wasm.lexicalSelect(a.input));
}

/**
 * The system-prompt section that teaches the main model how to keep the memory in `dir`, in
 * the words of the way it writes: `files` (default: it edits the files itself), `memory-tool`
 * (Anthropic's memory tool, whose `/memories` is `dir`) or `remember-tool` (the `remember` and
 * `forget` tools). Every form names `dir`.
 */
export function memoryInstructions(dir: string, via?: WriteVia | null, extract?: KeepMode | null): string {
  return guard({ dir, via: via ?? null, extract: extract ?? null }, (a) => wasm.memoryInstructions(a.dir, a.via, a.extract));
}

/** The journal's segments in a listing, oldest first (the live one last): `js/history.ts`. */
export function historySegments(entries: SnapshotEntry[]): string[] {
  return guard({ entries }, (a) => wasm.historySegments(a.entries));
}

/** What to read before journaling `effects`; `list: true` asks for the listing first. */
export function historyReadPlan(effects: Effect[], entries: SnapshotEntry[] | null, ifMatchPath: string | null, limits?: Partial<Limits> | null): HistoryReadPlan {
  return guard({ effects, entries, ifMatchPath, limits }, (a) => wasm.historyReadPlan(a.effects, a.entries, a.ifMatchPath, a.limits ?? null));
}

/** The record of a change and the writes that journal it (rules §4.6). */
export function planHistoryRecord(input: HistoryRecordInput, limits?: Partial<Limits> | null): HistoryRecordPlan {
  return guard({ input, limits }, (a) => wasm.planHistoryRecord(a.input, a.limits ?? null));
}

/** The history files to remove to keep within its bounds. */
export function planHistoryPrune(entries: SnapshotEntry[], segment: string, nowMs: number, policy?: HistoryPolicy | null): string[] {
  return guard({ entries, segment, nowMs, policy }, (a) => wasm.planHistoryPrune(a.entries, a.segment, a.nowMs, a.policy ?? null));
}

/** What to read before rolling back interrupted writes (none: nothing to roll back). */
export function historyRecoveryReadPlan(segment: string): string[] {
  return guard({ segment }, (a) => wasm.historyRecoveryReadPlan(a.segment));
}

/** The rollback of interrupted writes, and the live segment with each marked `aborted`. */
export function planHistoryRecovery(segment: string, contents: Record<string, string | Uint8Array>): HistoryRecoveryPlan {
  return guard({ segment, contents }, (a) => wasm.planHistoryRecovery(a.segment, a.contents));
}

/** What to read before `undo` of `id` or `restore` to `atMs`. */
export function historyReverseReadPlan(segments: string[], id: string | null, atMs: number | null): string[] {
  return guard({ segments, id, atMs }, (a) => wasm.historyReverseReadPlan(a.segments, a.id, a.atMs));
}

/** `undo` (with `id`) or `restore` (with `atMs`): the effects and their diff. */
export function planHistoryReverse(input: HistoryReverseInput): HistoryReversePlan {
  return guard({ input }, (a) => wasm.planHistoryReverse(a.input));
}

/** The history, newest first: all of it, or one file's, at or after a time. */
export function historyItems(segments: string[], file: string | null, sinceMs: number | null): HistoryItem[] {
  return guard({ segments, file, sinceMs }, (a) => wasm.historyItems(a.segments, a.file, a.sinceMs));
}

/** The SHA-256 of a file's content (text as UTF-8), in hex: the hash `ifMatch` and the history use. */
export function contentHash(content: string | Uint8Array): string {
  return guard({ content }, (a) => wasm.contentHash(a.content));
}

/** Step 1 of a memory-tool command: the paths to resolve and read (or the answer, for a bad command). */
export function planToolCommand(command: MemoryToolCommand): ToolPlan {
  return guard({ command }, (a) => wasm.planToolCommand(a.command));
}

/** Step 2 of a memory-tool command: the result text and the effects to apply. */
export function runToolCommand(command: MemoryToolCommand, snapshot: Snapshot, limits?: Partial<Limits> | null): ToolResult {
  return guard({ command, snapshot, limits }, (a) => wasm.runToolCommand(a.command, a.snapshot, a.limits ?? null));
}

/**
 * The JSON Schema of one memory-tool command, built by the core from the same definition its
 * decoder is held to: for a validator or a tool loop that needs a schema. Its root `oneOf`
 * (one schema per command) makes it exact; Anthropic's and OpenAI's APIs refuse a tool schema
 * with one, so for a model's tool definition pass `{flat: true}`: the same without `oneOf`.
 * (Anthropic's API takes the memory tool as `{type: "memory_20250818", name: "memory"}` and
 * needs no schema at all.)
 *
 * ```ts
 * tools.push({ type: "function", function: { name: "memory", parameters: memoryToolInputSchema({ flat: true }) } });
 * ```
 */
export function memoryToolInputSchema(options?: MemoryToolSchemaOptions | null): MemoryToolInputSchema {
  // JSON text from the core (far smaller in the wasm than building the object there)
  return JSON.parse(guard({ options }, (a) => wasm.memoryToolInputSchema(a.options ?? null))) as MemoryToolInputSchema;
}

/** Plans `remember`, or throws a `MemdirError` saying why it is refused (nothing is written). */
export function planRemember(input: RememberInput, snapshot: Snapshot, limits?: Partial<Limits> | null): WritePlan {
  return guard({ input, snapshot, limits }, (a) => wasm.planRemember(a.input, a.snapshot, a.limits ?? null));
}

/** The extraction's side query over the messages and the saved memories, or why none is sent (rules §4.7). */
export function buildExtractionRequest(input: ExtractionInput): ExtractionRequest {
  return guard({ input }, (a) => wasm.buildExtractionRequest(a.input));
}

/** The extractor's answer checked for shape against the saved memories it was shown; never throws for a bad answer. */
export function parseExtraction(answer: string, files: string[]): Extraction {
  return guard({ answer, files }, (a) => wasm.parseExtraction(a.answer, a.files));
}

/** What to read before `planExtraction`: the index, every head, the files the proposals change. */
export function extractionReadPlan(proposals: Proposal[], limits?: Partial<Limits> | null): ReadPlan {
  return guard({ proposals, limits }, (a) => wasm.extractionReadPlan(a.proposals, a.limits ?? null));
}

/** Each proposal checked as `remember` checks a write; the writes of all that pass, one per file. */
export function planExtraction(proposals: Proposal[], snapshot: Snapshot, limits?: Partial<Limits> | null, nowMs?: number | null, sessionId?: string | null): ExtractionPlan {
  return guard({ proposals, snapshot, limits, nowMs, sessionId }, (a) => wasm.planExtraction(a.proposals, a.snapshot, a.limits ?? null, a.nowMs ?? null, a.sessionId ?? null));
}

/** The consolidation's side query over the folder (read as `doctorReadPlan` says), or `skip` (rules §4.7); `force` sends it even when no memories look alike. */
export function buildConsolidationRequest(snapshot: Snapshot, limits?: Partial<Limits> | null, force?: boolean | null): ConsolidationRequest {
  return guard({ snapshot, limits, force }, (a) => wasm.buildConsolidationRequest(a.snapshot, a.limits ?? null, a.force ?? null));
}

/** The consolidator's answer checked against the folder: the changes that lose no word, their writes and diff; never throws for a bad answer. */
export function planConsolidation(answer: string, snapshot: Snapshot, limits: Partial<Limits> | null | undefined, nowMs: number, maxFilesChanged?: number | null): ConsolidationPlan {
  return guard({ answer, snapshot, limits, nowMs, maxFilesChanged }, (a) => wasm.planConsolidation(a.answer, a.snapshot, a.limits ?? null, a.nowMs, a.maxFilesChanged ?? null));
}

/** Whether consolidation is due on its own: time and sessions since the last run. */
export function consolidationDue(state: ConsolidationState, nowMs: number, schedule?: Partial<ConsolidationSchedule> | null): ConsolidationDue {
  return guard({ state, nowMs, schedule }, (a) => wasm.consolidationDue(a.state, a.nowMs, a.schedule ?? null));
}

/** What to read before `planTouch`: the file whole. */
export function touchReadPlan(file: string, limits?: Partial<Limits> | null): ReadPlan {
  return guard({ file, limits }, (a) => wasm.touchReadPlan(a.file, a.limits ?? null));
}

/** Plans `touch` (rules §4.7): `metadata.modified` set to `nowMs`, every other byte kept. */
export function planTouch(file: string, snapshot: Snapshot, nowMs: number, limits?: Partial<Limits> | null): WritePlan {
  return guard({ file, snapshot, nowMs, limits }, (a) => wasm.planTouch(a.file, a.snapshot, a.nowMs, a.limits ?? null));
}

/** Plans `forget`, or throws `NOT_FOUND`. */
export function planForget(file: string, snapshot: Snapshot, limits?: Partial<Limits> | null): WritePlan {
  return guard({ file, snapshot, limits }, (a) => wasm.planForget(a.file, a.snapshot, a.limits ?? null));
}

/** The links of MEMORY.md that leave the memory folder (decoded, anchors dropped), for a host to look up. */
export function outsideLinks(indexText: string): string[] {
  return guard({ indexText }, (a) => wasm.outsideLinks(a.indexText));
}

/** Every doctor check (rules §5). */
export function runDoctor(input: DoctorInput): DoctorReport {
  return guard({ input }, (a) => wasm.runDoctor(a.input));
}

/** The safe fixes as effects and a diff, with the report before and after. */
export function planDoctorFixes(input: DoctorInput): FixPlan {
  return guard({ input }, (a) => wasm.planDoctorFixes(a.input));
}

/** High-confidence credentials in a text (kind, line, redacted preview). */
export function findSecrets(text: string): SecretFinding[] {
  return guard({ text }, (a) => wasm.findSecrets(a.text));
}

/**
 * A three-way merge of `MEMORY.md` (`base` is empty when both sides added it): every entry either
 * side added or edited is kept, a line goes only when one side removed it and the other left it
 * as it was, and no conflict marker is ever written. `bothEdited` names the links of entries both
 * sides changed differently, kept as two adjacent lines (`memdir doctor --fix` joins them).
 */
export function mergeIndex(base: string, ours: string, theirs: string): MergedIndex {
  return guard({ base, ours, theirs }, (a) => wasm.mergeIndex(a.base, a.ours, a.theirs));
}

/** A unified diff of two texts; empty when equal. */
export function unifiedDiff(path: string, old: string, updated: string): string {
  return guard({ path, old, updated }, (a) => wasm.unifiedDiff(a.path, a.old, a.updated));
}

/** A listing packed for a scan session: every path NUL-ended (as text or its UTF-8 bytes), one time and one kind byte an entry, the problems NUL-ended. */
export interface PackedListing {
  paths: string | Uint8Array;
  mtimes: Float64Array;
  /** 0 file, 1 directory, 2 other; +4 when the entry has a problem (the next in `problems`). */
  kinds: Uint8Array;
  problems: string;
}

/** The heads of one turn, packed for a scan session: one buffer, each head's entry and where it ends; the entries whose read failed, with the host's problem NUL-ended. */
export interface PackedHeads {
  bytes: Uint8Array;
  entries: Uint32Array;
  ends: Uint32Array;
  failedEntries: Uint32Array;
  failedProblems: string;
}

/** A packed scan: the kept memories and diagnostics as JSON (unchanged memories `null`, named by `same`), the dropped ones by entry and time. */
export interface PackedScan {
  json: string;
  droppedEntries: Uint32Array;
  droppedMtimes: Float64Array;
  same: Uint32Array;
  sameEntries: Uint32Array;
}

/**
 * The core's scan session (`src/scan_session.rs`), held in the module's memory. A session made
 * before the module was restarted (after a trap) is gone: {@link moduleInstance} tells, and
 * `js/scan-session.ts` makes a new one.
 */
export interface CoreScanSession {
  plan(listing: PackedListing, timesOnly: boolean): Uint32Array;
  scan(heads: PackedHeads): PackedScan;
  selectionRequest(input: SelectionInput): SelectionRequest;
  lexicalSelect(query: string, candidates: string[], recentTools: string[], limits: Partial<Limits> | null): LexicalSelection;
  free(): void;
}

/** Which instance of the module runs (it changes when a trap restarts it). */
export function moduleInstance(): number {
  return instance;
}

/** A new scan session in the core, scanning with `limits`. */
export function newScanSession(limits: Partial<Limits> | null): CoreScanSession {
  return guardOnce({ limits }, (a) => new wasm.ScanSession(a.limits) as unknown as CoreScanSession);
}

/** One call of a scan session's, its arguments bounded (no second try: after a trap the session is gone). */
export function sessionCall<A extends Record<string, unknown>, T>(args: A, run: (args: A) => T): T {
  return guardOnce(args, run);
}

/** One scope's scan, for {@link mergeScoped}. */
export interface ScopeScan {
  scope: string;
  memories: Memory[];
}

/**
 * The memories of every scope as one list for selection (rules §1.6): each path (and
 * `supersededBy`) as `<scope>:<path>`, newest first, ties in the scopes' order.
 * `INVALID_ARGUMENT` for a bad or repeated scope name.
 */
export function mergeScoped(scans: ScopeScan[]): Memory[] {
  return guard({ scans }, (a) => wasm.mergeScoped(a.scans));
}

/**
 * `<scope>:<path>` as `[scope, path]` when the prefix is one of `scopes`; `null` otherwise (the
 * path as given: a file's own name may hold a colon).
 */
export function splitScoped(path: string, scopes: string[]): [string, string] | null {
  return guard({ path, scopes }, (a) => wasm.splitScoped(a.path, a.scopes));
}

/** How a scope takes writes, for {@link writeScope}. */
export interface ScopeRule {
  name: string;
  /** The memory types a write without a named scope puts here; absent: any. */
  types?: string[] | null;
  /** Recalled, never written. */
  readOnly?: boolean;
}

/**
 * Where a write goes: the scope named, else the first whose `types` holds the memory's type,
 * else the first that takes any; `INVALID_ARGUMENT` when none can.
 */
export function writeScope(scopes: ScopeRule[], requested?: string | null, memoryType?: string | null): string {
  return guard({ scopes, requested, memoryType }, (a) => wasm.writeScope(a.scopes, a.requested ?? undefined, a.memoryType ?? undefined));
}

/** The section the main model reads: the scopes, where each is, and which wins. */
export function scopesPrompt(scopes: { name: string; root: string; readOnly?: boolean }[]): string {
  return guard({ scopes }, (a) => wasm.scopesPrompt(a.scopes));
}
