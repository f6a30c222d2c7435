/**
 * The public shapes of an opened memory: the options of `openMemory`, what recall returns,
 * sessions and prefetches, and what a write did.
 */
import type { DoctorReport, FixPlan, IndexPrompt, Limits, Memory, MemoryType, Rejected, RememberInput, ScanResult, SkipReason, Usage, WriteAction, WriteVia } from "./core.js";
import type { DoctorOptions } from "./doctor.js";
import type { HistoryOptions, ReverseOptions, ReverseResult } from "./history.js";
import type { HistoryItem } from "./core.js";
import type { MemoryHost } from "./host.js";
import type { LockOptions } from "./lock.js";
import type { SelectorConfig, SelectorFunction } from "./selectors.js";
import type { ScanCacheOptions } from "./scan-cache.js";
import type { MemoryTool } from "./tool.js";
import type { ConversationMessage, ExtractEvent, ExtractOptions, ExtractResult, ProposedMemory } from "./extract.js";
import type { ConsolidateEvent, ConsolidateOptions, ConsolidateResult, ConsolidationPreview } from "./consolidate.js";
export type { ConsolidateEvent, ConsolidateOptions, ConsolidateOutcome, ConsolidateResult, ConsolidationPreview } from "./consolidate.js";
import type { KeepMode } from "./core.js";
export type { ConversationMessage, ExtractEvent, ExtractOptions, ExtractResult, ExtractOutcome, ProposedMemory } from "./extract.js";

export type { SelectorConfig, SelectorFunction, SelectorRequest } from "./selectors.js";

/** How to open a memory. */
export interface OpenMemoryOptions {
  /** The memory directory (Node). */
  dir?: string;
  /**
   * Where in `dir` the memory lives (Node). `"memdir"` (default): `dir` is the folder, `MEMORY.md`
   * at its top, and the memory tool's `/memories/x.md` is `<dir>/x.md`. `"sdk"`: the layout of the
   * Anthropic SDK's local-filesystem memory tool (`BetaLocalFilesystemMemoryTool.init(dir)`), whose
   * files live in `<dir>/memories/`: memdir then opens `<dir>/memories`, so a folder the SDK's tool
   * wrote is the same folder, and `memory.tool()` writes where the SDK's would.
   */
  layout?: "memdir" | "sdk";
  /** Or the project: memory then lives in `~/.claude/projects/<key>/memory/` as in Claude Code (Node). */
  projectRoot?: string;
  /** Or any storage: in memory, VS Code, your own. */
  host?: MemoryHost;
  /**
   * Default (Node): `{provider: "anthropic"}` when `ANTHROPIC_API_KEY` is set, `{provider: "openai"}`
   * when only `OPENAI_API_KEY` is, else `{provider: "lexical"}` (the core's `defaultSelector`).
   */
  selector?: SelectorConfig | SelectorFunction;
  limits?: Partial<Limits>;
  /** The clock, for ages. Default `Date.now`. */
  now?: () => number;
  /** Called once per recall, and once per extraction, with what happened. */
  onEvent?: (event: RecallEvent | ExtractEvent | ConsolidateEvent) => void;
  /**
   * The memory's automatic writers (rules §4.7). `extract`: what extraction after a turn does
   * — `off`, `suggest` (proposals returned, nothing written; the default), `confirm` (`confirm`
   * approves each), `auto`. Given here, the main model's `instructions()` say so too.
   */
  keep?: KeepOptions;
  /** Files read at once. Default 16. */
  concurrency?: number;
  /** How long a write waits for another writer's lock, and when a lock counts as abandoned. */
  lock?: LockOptions;
  /**
   * The history every change is recorded in (`.memdir/history` in the folder; rules §4.6):
   * `label` names the writer in each record (an agent or session id), `policy` its bounds.
   */
  history?: HistoryOptions;
  /**
   * What the opened memory keeps between turns (default: on, with folder watchers where the
   * host has them): the last listing, the heads read, the last scan, so a turn re-reads only
   * what changed. `false` starts every scan over.
   */
  cache?: boolean | ScanCacheOptions;
  /**
   * Several memory folders recalled as one (rules §1.6), in order of precedence: the first wins
   * when two disagree. Each keeps its own `MEMORY.md`, limits and history; the selector sees
   * every memory as `<scope>:<path>`. With `scopes`, `dir`, `projectRoot` and `host` are not
   * given: each scope has its own. Returns a {@link ScopedMemory}.
   */
  scopes?: ScopeOptions[];
  /** The scope this folder is, when it is one of several: named in its index's prompt block. */
  scope?: string;
}

/** One scope of `openMemory({ scopes })`. */
export interface ScopeOptions {
  /** `user`, `project`, `local`, `team`, `agent-reviewer`…: 1–32 of a-z, 0-9, `-`, `_`, starting with a letter. */
  name: string;
  /** Its folder (Node). */
  dir?: string;
  /** Or Claude Code's folder for a project (Node). */
  projectRoot?: string;
  /** Or any storage (a `PostgresStore`'s host for a shared team memory, say). */
  host?: MemoryHost;
  /** The memory types a write that names no scope puts here (`["user", "feedback"]`). Absent: any type. */
  types?: MemoryType[];
  /** Recalled, never written (a team memory this agent only reads). */
  readOnly?: boolean;
  /** Its own limits, over `openMemory`'s. */
  limits?: Partial<Limits>;
}

/**
 * A memory of several scopes. Recall, sessions and `index()` span every scope; a write goes
 * to the scope named (`remember({ scope })`, `forget("project:x.md")`), else by the memory's
 * type, else the first scope that takes any. Everything that works on one folder — the
 * memory tool, doctor, history, undo, consolidation, extraction — works on the default write
 * scope here, and on any scope through `scope(name)`.
 */
export interface ScopedMemory extends OpenedMemory {
  /** The scopes, in order of precedence. */
  readonly scopes: readonly { name: string; readOnly: boolean; memory: OpenedMemory }[];
  /** One scope's own memory; `INVALID_ARGUMENT` for a name that is not one. */
  scope(name: string): OpenedMemory;
  /** The scope a write goes to when it names none (and its type picks none): `null` when every scope is read-only or typed. */
  readonly writeScope: string | null;
  index(): Promise<IndexPrompt & { scopes: { scope: string; index: IndexPrompt }[] }>;
  remember(input: RememberRequest & { scope?: string }): Promise<WriteResult & { scope: string }>;
}

/** The automatic writers' settings (`openMemory({ keep })`). */
export interface KeepOptions {
  /** Extraction after a turn. Default `suggest`. */
  extract?: KeepMode;
  /** `confirm` mode: approves each proposal (a VS Code prompt, a terminal question); a throw is a no. */
  confirm?: (proposal: ProposedMemory) => boolean | Promise<boolean>;
  /**
   * Consolidation on its own, as Claude Code's auto-dream: each `session()` counts, and once
   * `minSessions` (5) sessions and `minHours` (24) have passed since the last run, a run starts
   * in the background in `mode` (default `suggest`: the diff to `onEvent`, nothing written).
   * Absent: consolidation runs only when called.
   */
  consolidate?: { mode?: KeepMode; minHours?: number; minSessions?: number; confirm?: (preview: ConsolidationPreview) => boolean | Promise<boolean> };
}

/** What `forget` removes: the topic file, relative to the memory directory. */
export interface ForgetInput {
  file: string;
  /**
   * Forget only if the file is still as it was read: the SHA-256 (hex) of its content
   * (`contentHash`, `scan({ hashes: true })`). `CHANGED` otherwise, and nothing is written.
   */
  ifMatch?: string;
  /** In a memory of several scopes: the scope the file is in (or write the file as `<scope>:<path>`). */
  scope?: string;
}

/** What `remember` takes: the memory, and optionally `ifMatch`. */
export type RememberRequest = RememberInput & {
  /**
   * Write only if the topic file is still as it was read: the SHA-256 (hex) of its content.
   * `CHANGED` otherwise (also when it no longer exists), and nothing is written.
   */
  ifMatch?: string;
};

/** What `remember` / `forget` did. */
export interface WriteResult {
  /** The topic file, relative. */
  file: string;
  absolutePath: string;
  action: WriteAction;
  /** The index line written (`null` for forget). */
  indexLine: string | null;
}

/** One recalled memory. */
export interface RecalledMemory {
  /** Relative path: what `alreadySurfaced` takes (`<scope>:<path>` in a memory of several scopes). */
  path: string;
  /** The scope it comes from, in a memory of several scopes (rules §1.6). */
  scope?: string;
  absolutePath: string;
  /** The file's modification time. */
  mtimeMs: number;
  /** The memory's time (the older of the mtime and a recorded `metadata.modified`): its age is from this. */
  timeMs: number;
  ageDays: number;
  /** Fixed when surfaced; keep it, so a cached prompt stays byte-identical. */
  header: string;
  /** The content as injected (cut to the limits, with a note when cut). */
  content: string;
  /** UTF-16 units of `content`: what counts against the session budget. */
  utf16Count: number;
  truncated: "lines" | "bytes" | null;
  /** The `<system-reminder>` block. */
  text: string;
}

/**
 * `selected`; `none_selected` (the selector ran and chose nothing); `no_memories` (no topic file to
 * choose from); `skipped` (no selector ran, for the reason in `skip`); `failed` (the reason in `error`).
 */
export type RecallOutcome = "selected" | "none_selected" | "no_memories" | "skipped" | "failed";

/** What `recall` returns. */
export interface RecallResult {
  outcome: RecallOutcome;
  /** Which selector chose: `anthropic`, `openai`, `ollama`, `lexical`, `function`; `null` when none ran. */
  selector: string | null;
  /** The model whose answer was used, when a model was called. */
  model: string | null;
  memories: RecalledMemory[];
  /** The blocks to inject, in order. */
  reminders: string[];
  /** Names the model returned that were refused, with reasons. */
  rejected: Rejected[];
  usage: Required<Usage>;
  /** US dollars of the side query; null when the model is not in the price table. */
  costUsd: number | null;
  /** Wall time of the whole recall, model call included. */
  latencyMs: number;
  /** Wall time of the selection alone: the model call, or the offline selector's work when `selector` is `"lexical"`. */
  modelLatencyMs: number;
  /**
   * Why no selector ran (outcomes `skipped` and `no_memories`): `one_word`, `budget_spent`,
   * `already_surfaced` (every memory that could be chosen was surfaced earlier this session), or
   * `no_memories`. A reason, not an error.
   */
  skip?: SkipReason;
  /** What went wrong: the model failure (also when the lexical fallback chose), or unreadable files. */
  error?: string;
}

/** Sent to `onEvent` after every recall. */
export interface RecallEvent {
  type: "recall";
  outcome: RecallOutcome;
  selector: string | null;
  candidates: number;
  selected: number;
  /** Ages in days of the selected memories. */
  ages: number[];
  latencyMs: number;
  usage: Required<Usage>;
  costUsd: number | null;
  skip?: SkipReason;
  error?: string;
}

export interface RecallOptions {
  /** Relative paths surfaced earlier (from `RecalledMemory.path`). */
  alreadySurfaced?: string[];
  /** Tools the agent used successfully in the previous turn. */
  recentTools?: string[];
  signal?: AbortSignal;
  timeoutMs?: number;
  /** UTF-16 units surfaced so far this session (sessions track this for you). */
  surfacedUtf16?: number;
}

/** What `scan` gives beyond the scan itself. */
export interface ScanOptions {
  /**
   * Each memory with `sha256`, the SHA-256 (hex) of its whole file: what `remember`, `forget`
   * and the memory tool take back as `ifMatch` to change it only if it is still as read. Reads
   * every kept file whole (the scan alone reads their first lines).
   */
  hashes?: boolean;
}

/** A memory directory opened with `openMemory` (a scanned memory file is a `Memory`). */
export interface OpenedMemory {
  readonly host: MemoryHost;
  /**
   * Which folder this memory is (`host.root`): for a `NodeHost`, its absolute path, the one
   * `openMemory({ projectRoot })` chose.
   */
  readonly dir: string;
  /** MEMORY.md, truncated, and `prompt`: the ready-to-inject block ("" when the index is missing or empty). */
  index(): Promise<IndexPrompt>;
  /**
   * The system-prompt section that teaches the main model to keep this memory, in the words of
   * the way it writes (`via`): `files` (default) when it edits the files itself, `memory-tool`
   * when it writes through `tool()` (its `/memories` paths), `remember-tool` when it has the
   * `remember` and `forget` tools (`memdir/ai-sdk`). The text always names the real folder.
   */
  instructions(options?: { via?: WriteVia; extract?: KeepMode }): string;
  /**
   * The memories, newest first, the files past the cap and what is wrong with them. The arrays
   * are the caller's own; the memory objects are shared with the opened memory's cache (an
   * unchanged file's memory is the same object turn after turn): read them, do not change them.
   */
  scan(options?: ScanOptions): Promise<Omit<ScanResult, "memories"> & { memories: (Memory & { sha256?: string })[] }>;
  recall(query: string, options?: RecallOptions): Promise<RecallResult>;
  /** Stops the folder watchers (they never keep a process alive); the memory still works, checking every turn. */
  close(): void;
  session(): MemorySession;
  /**
   * Reads the messages and keeps what is worth remembering (rules §4.7): the side query
   * proposes, the core checks each proposal as `remember` checks a write, and the mode
   * (`keep.extract`, default `suggest`) says whether they are returned, confirmed or written —
   * as one change `undo` takes back. Never throws for a model, network or file problem.
   */
  extract(options: ExtractOptions): Promise<ExtractResult>;
  /**
   * Tidies the memory (rules §4.7): a side query over the memories that look alike proposes
   * merges, supersessions, removals of what another memory already says, and a regrouped index;
   * the core keeps only what loses no word (and at most `maxFilesChanged` files, 10). `mode`
   * `suggest` (default) returns the diff; `confirm` asks `confirm`; `auto` applies it as one
   * change `undo` takes back. One run at a time per folder.
   */
  consolidate(options?: ConsolidateOptions): Promise<ConsolidateResult>;
  /**
   * Writes a topic file with valid frontmatter and its one line in MEMORY.md (added, or
   * updated in place). Throws a `MemdirError` — `INVALID_ARGUMENT`, `INVALID_MEMORY`,
   * `SECRET_DETECTED`, `LIMIT_EXCEEDED`, `DUPLICATE_MEMORY`, `INDEX_ONLY`, `UNSAFE_PATH`,
   * `TOO_LARGE`, `INVALID_UTF8` — and writes nothing when a rule refuses it; `LOCKED` or
   * `IO_ERROR` when the directory could not be written, `NOT_A_DIRECTORY` when it is a file.
   */
  remember(input: RememberRequest): Promise<WriteResult>;
  /**
   * Removes a topic file and every index line linking to it; `NOT_FOUND` when neither exists,
   * and the same errors as `remember` otherwise. Takes an object, as `remember` does
   * (`forget({ file: "project_x.md" })`); `forget("project_x.md")` is its short form.
   */
  forget(input: ForgetInput | string): Promise<WriteResult>;
  /**
   * Confirms a memory is still true now (rules §4.7): records `metadata.modified`, as Claude
   * Code records a memory's time, and changes nothing else; the staleness reminder and doctor's
   * `stale_core_memory` clear. `NOT_FOUND`, `INVALID_MEMORY` (no frontmatter), `CHANGED` with a
   * stale `ifMatch`; `touch("user_role.md")` is its short form.
   */
  touch(input: ForgetInput | string): Promise<WriteResult>;
  /** Handlers for Anthropic's `memory_20250818` memory tool, over this directory. */
  tool(): MemoryTool;
  /** Every doctor check (rules §5). */
  doctor(options?: DoctorOptions): Promise<DoctorReport>;
  /** The safe fixes doctor can make: effects, a unified diff, and the report before and after. */
  planFixes(options?: DoctorOptions): Promise<FixPlan>;
  /** Applies a plan from `planFixes` if nothing changed since; returns the report after. */
  applyFixes(plan: FixPlan, options?: DoctorOptions): Promise<DoctorReport>;
  /**
   * Every change memdir made to the folder, newest first, from every route (remember, forget,
   * the memory tool, doctor, undo, restore): when, which route and label, each file's hashes.
   * `file` keeps the changes of one file; `since` those at or after a time.
   */
  history(options?: { file?: string; since?: number | Date }): Promise<HistoryItem[]>;
  /**
   * Takes one change back (`id` from `history()`): each file as it was before it; a deleted
   * memory comes back with its index line. `CHANGED` when a file changed since (a later edit is
   * never overwritten) unless `force`; `dryRun` only gives the diff. The undo is recorded too.
   */
  undo(id: string, options?: ReverseOptions): Promise<ReverseResult>;
  /**
   * Brings every file memdir changed since `at` back to how it was then, as far back as the
   * history reaches (`reachesMs`); `CHANGED` for a file changed outside memdir since, unless `force`.
   */
  restore(options: { at: number | Date } & ReverseOptions): Promise<ReverseResult>;
}

/** A prefetched recall: started at the start of a turn, taken later without waiting. */
export interface Prefetch {
  /** `true` once the result is ready. */
  readonly settled: boolean;
  /** The result if settled (and marks its memories surfaced), else `undefined`. Never waits. */
  take(): RecallResult | undefined;
  /** Resolves with the result (not marked surfaced until `take`). */
  readonly promise: Promise<RecallResult>;
  /** Ends the turn: aborts the side query if it is still running. */
  end(): void;
}

/** A stateful recall across the turns of one conversation. */
export interface MemorySession {
  recall(query: string, options?: Omit<RecallOptions, "alreadySurfaced" | "surfacedUtf16">): Promise<RecallResult>;
  prefetch(query: string, options?: Omit<RecallOptions, "alreadySurfaced" | "surfacedUtf16">): Prefetch;
  /** Paths surfaced so far. */
  readonly surfaced: readonly string[];
  /** UTF-16 units surfaced so far; recall stops at `maxSessionUtf16`. */
  readonly surfacedUtf16: number;
  /**
   * Extracts from the messages since this session's last extraction (pass the whole
   * conversation each time). Skipped when the turn wrote memory through this memory already.
   */
  extract(messages: readonly ConversationMessage[], options?: Omit<ExtractOptions, "messages" | "wroteMemory">): Promise<ExtractResult>;
  /**
   * `extract` in the background, after a turn: one at a time per memory, overlapping calls
   * coalesced into one run over the newest messages; the promise never rejects (a failure is
   * `outcome: "failed"`), so the turn never waits for it or fails with it.
   */
  afterTurn(messages: readonly ConversationMessage[], options?: Omit<ExtractOptions, "messages" | "wroteMemory">): Promise<ExtractResult>;
  /** After compaction: memories may surface again, the budget starts over, extraction reads the messages anew. */
  reset(): void;
}
