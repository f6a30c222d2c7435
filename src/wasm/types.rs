//! The TypeScript surface of the exports. The shapes mirror the serde DTOs of the core
//! (camelCase); `tests/js/types.test.mjs` checks the two agree on real values.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The hard limits (SPEC §2). Every size names its unit. */
export interface Limits {
  /** Lines of MEMORY.md kept. Default 200. */
  maxIndexLines: number;
  /** UTF-16 code units of MEMORY.md kept. Default 25,000. */
  maxIndexUtf16: number;
  /** Topic files considered, newest first. Default 200. */
  maxFiles: number;
  /** Lines read for frontmatter. Default 30. */
  maxHeaderLines: number;
  /** Memories selected per turn. Default 5. */
  maxSelected: number;
  /** Lines of one injected memory. Default 200. */
  maxInjectLines: number;
  /** UTF-8 bytes of one injected memory. Default 4,096. */
  maxInjectBytes: number;
  /** UTF-16 units of memory content surfaced per session. Default 61,440. */
  maxSessionUtf16: number;
  /** `max_tokens` of the side query. Default 256. */
  maxOutputTokens: number;
  /** UTF-8 bytes of a file read whole to edit or view it; larger is refused (`TOO_LARGE`), never cut. Default 1 MiB. */
  maxFileBytes: number;
}

/** MEMORY.md as it goes into the prompt. Counts are of the original trimmed text. */
export interface IndexView {
  content: string;
  lineCount: number;
  utf16Count: number;
  wasLineTruncated: boolean;
  wasSizeTruncated: boolean;
}

/** What a host read of MEMORY.md, for `indexPrompt`. */
export interface IndexInput {
  /** The whole file, or its first `indexReadBytes()` bytes. */
  content: string | Uint8Array;
  /** The file's size in bytes: larger than `content` when only its start was read. */
  fileBytes?: number | null;
  /** Named in the prompt: `Contents of {absolutePath} (…)`. */
  absolutePath: string;
  limits?: Partial<Limits> | null;
}

/** MEMORY.md as the model sees it. */
export interface IndexPrompt extends IndexView {
  /** The block to put in the context; `""` when the index is missing or empty. */
  prompt: string;
  /** Only the start of a huge file was read; counts are of that part. */
  readPartially: boolean;
}

/** One of the four memory types. */
export type MemoryType = "user" | "feedback" | "project" | "reference";

/** A file as the host listed it. `head` holds its first lines (text or raw bytes). */
export interface FileHead {
  /** Relative to the memory directory, `/`-separated. */
  path: string;
  /** Modification time, ms since the Unix epoch. */
  mtimeMs: number;
  /** First lines of the file; omit when not read. */
  head?: string | Uint8Array | null;
  /** `file` (default), `directory` or `other`. */
  kind?: string | null;
  /** A problem the host met: `not_a_file` | `symlink_escape` | `unreadable` | `vanished`. */
  problem?: string | null;
}

/** A topic file that is a memory. */
export interface Memory {
  path: string;
  /** The file's modification time, as listed. */
  mtimeMs: number;
  /** `metadata.modified` from the frontmatter (current Claude Code records it), when valid. */
  modifiedMs?: number;
  /** The memory's time: the older of `mtimeMs` and `modifiedMs`; order, manifest and age use it. Set by the scan; computed when absent. */
  timeMs?: number | null;
  name?: string;
  /** One line: white space folded. */
  description?: string;
  /** `type`, or `metadata.type` when the top level has none. */
  type?: MemoryType;
  /** The frontmatter's `metadata:` block as written. */
  metadata?: Record<string, unknown>;
}

/** Something to know about one file. */
export interface Diagnostic {
  path: string;
  /** `unsafe_path` | `duplicate_path` | `invalid_mtime` | `invalid_utf8` | `head_missing` |
   * `frontmatter_missing` | `frontmatter_unclosed` | `frontmatter_malformed` |
   * `frontmatter_recovered` | `description_missing` | `description_not_text` | `unknown_type` */
  code: string;
  message: string;
  /** 1-based line, where one applies. */
  line?: number;
}

/** The result of `scanMemories`. */
export interface ScanResult {
  /** At most `maxFiles`, newest first, ties by path. */
  memories: Memory[];
  /** Older files past the cap: not in the prompt, but reported. */
  dropped: Memory[];
  diagnostics: Diagnostic[];
}

/** Which heads to read, newest first; the first `maxFiles` are enough. */
export interface ScanPlan {
  read: string[];
  maxFiles: number;
}

/** Input of `buildSelectionRequest`. */
export interface SelectionInput {
  query: string;
  memories: Memory[];
  alreadySurfaced?: string[];
  recentTools?: string[];
  /** UTF-16 units of memory content surfaced so far this session. */
  surfacedUtf16?: number;
  limits?: Partial<Limits> | null;
}

/** Why no side query is sent this turn. */
export type SkipReason = "no_memories" | "skipped" | "budget_spent";

/** The side query to send, or `skip`. */
export interface SelectionRequest {
  skip: SkipReason | null;
  /** The selector's instructions. */
  system: string;
  /** `Query: …\n\nAvailable memories:\n…` (+ recently used tools). */
  user: string;
  /** The manifest alone (for a cacheable system block). */
  manifest: string;
  /** The query line alone (+ tools), for the cached layout. */
  queryMessage: string;
  /** `{selected_memories: string[]}` JSON schema. */
  schema: Record<string, unknown>;
  maxTokens: number;
  /** Candidate paths, newest first. */
  candidates: string[];
}

/** A value the answer parser refused. */
export interface Rejected {
  value: unknown;
  /** `not_a_string` | `unsafe_path` | `already_surfaced` | `unknown` | `duplicate` | `over_limit` */
  reason: string;
}

/** The parsed answer. */
export interface Selection {
  selected: string[];
  rejected: Rejected[];
  /** Set when no list could be read: `empty_answer` | `invalid_json` | `missing_selected_memories` | `not_an_array`. */
  failure: { code: string; message: string } | null;
}

/** Input of `renderMemory`. */
export interface RenderInput {
  path: string;
  /** Shown in the header and the truncation note when given. */
  absolutePath?: string;
  mtimeMs: number;
  /** The file (at least its first `maxInjectBytes` + a few bytes), as text or bytes. */
  content: string | Uint8Array;
  nowMs: number;
  limits?: Partial<Limits> | null;
}

/** One memory as injected. */
export interface RenderedMemory {
  header: string;
  body: string;
  truncated: "lines" | "bytes" | null;
  /** `<system-reminder>\n{header}\n\n{body}\n</system-reminder>` */
  text: string;
  /** UTF-16 units of `body`, what counts against the session budget. */
  utf16Count: number;
}

/** Input of `projectMemoryDir`. */
export interface MemoryDirInput {
  homeDir: string;
  projectRoot: string;
  /** `CLAUDE_CONFIG_DIR`, replacing `<home>/.claude`. */
  configDir?: string | null;
}

/** Token counts of one call. */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cacheCreationInputTokens?: number;
  cacheReadInputTokens?: number;
  /** Of the cache writes, those with the 1-hour TTL. */
  cacheCreation1hInputTokens?: number;
}

/** Input of `estimateCost`. */
export interface CostInput {
  model: string;
  usage: Usage;
}

/** Cost of one call; `usd` is null for a model not in the price table. */
export interface Cost {
  usd: number | null;
  pricedAs: string | null;
}

/** A provider of the side query. */
export type ProviderName = "anthropic" | "openai" | "ollama";

/** Input of `buildProviderRequest`. */
export interface ProviderRequestInput {
  provider: ProviderName;
  request: SelectionRequest;
  model?: string | null;
  baseUrl?: string | null;
  apiKey?: string | null;
  /** In a browser: Anthropic then needs its direct-browser-access header. */
  browser?: boolean;
  /** Schema-constrained output (default true); false is the prompt-only fallback. */
  structured?: boolean;
  /** Manifest in a cacheable system block (Anthropic; default true). */
  cache?: boolean;
}

/** `POST url` with these headers and body. */
export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  model: string;
}

/** Input of `decodeProviderResponse`. */
export interface ProviderResponseInput {
  provider: ProviderName;
  status: number;
  body: string;
}

/** A provider's answer, decoded; `text` is set exactly when `failure` is null. */
export interface ProviderAnswer {
  text: string | null;
  stopReason: string | null;
  usage: Required<Usage>;
  model: string | null;
  thinkingBlocks: number;
  failure: {
    /** `http_error` | `refusal` | `truncated` | `no_text` | `invalid_body` */
    code: string;
    message: string;
    errorType?: string;
    /** A 400 naming the schema parameter: retry once with prompt-only JSON. */
    schemaRejected: boolean;
  } | null;
}

/** Input of `retryDecision`. */
export interface RetryInput {
  /** 0 for a connection error or timeout. */
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Retries already made. */
  attempt: number;
  maxRetries?: number;
  nowMs: number;
  /** Random in [0, 1). */
  jitter?: number;
}

export interface RetryDecision {
  retry: boolean;
  delayMs: number;
  reason: string;
}

/** Input of `lexicalSelect`. */
export interface LexicalInput {
  query: string;
  memories: Memory[];
  /** Tools used in the previous turn: their usage references are left out, their warnings always come. */
  recentTools?: string[];
  /** The heads the scan read, by path: the body under the frontmatter counts for half. */
  heads?: Record<string, string | Uint8Array>;
  limits?: Partial<Limits> | null;
}

export interface LexicalSelection {
  /** Best first; empty unless a memory clearly matches. */
  selected: string[];
  /** How every memory that matched did, best first. */
  scores: {
    path: string;
    /** The summed weight of the query terms it matched (a term found in one memory weighs 1). */
    evidence: number;
    /** `evidence` as a share of the query's weight. */
    coverage: number;
    /** `term` (name, file name, description), `term*` (body), `~` when through a shared stem. */
    matched: string[];
    /** It warns about a tool in use. */
    toolWarning: boolean;
  }[];
  /** The query's terms and their weights in this folder. */
  queryTerms: { term: string; weight: number }[];
}
/** A command of Anthropic's `memory_20250818` tool, as the model sends it. Paths are under `/memories`. */
export type MemoryToolCommand =
  | { command: "view"; path: string; /** `[start, end]`, 1-based; `end` -1 for the end of the file. */ view_range?: number[] | null }
  | { command: "create"; path: string; file_text: string }
  | { command: "str_replace"; path: string; old_str: string; new_str: string }
  | { command: "insert"; path: string; insert_line: number; insert_text: string }
  | { command: "delete"; path: string }
  | { command: "rename"; old_path: string; new_path: string };

/** One change for the host to make, in order. */
export type Effect =
  | { op: "write"; path: string; text: string; exclusive: boolean }
  | { op: "remove"; path: string }
  | { op: "rename"; from: string; to: string };

/** One entry of a host listing. */
export interface SnapshotEntry {
  path: string;
  kind: "file" | "directory" | "other";
  size?: number;
  mtimeMs?: number;
  problem?: string | null;
}

/** What a host read before a write. */
export interface Snapshot {
  entries?: SnapshotEntry[];
  /** Whole contents of the files a plan asked for, by relative path. */
  contents?: Record<string, string | Uint8Array>;
  /** `MemoryHost.resolve` of each path: the real relative path, or null when it leaves the directory. */
  resolved?: Record<string, string | null>;
}

/** What `planToolCommand` asks the host for. */
export interface ToolPlan {
  resolve: string[];
  read: string[];
  /** How much of the listing the command needs (a host without `resolve` always lists). */
  list: "always" | "ifDirectory" | "never";
  /** Whether the command may write (all but `view`): take the write lock. */
  writes: boolean;
  /** Set when the command is already answered (malformed, or a bad path). */
  result: ToolResult | null;
}

/** The answer to one memory-tool command. */
export interface ToolResult {
  text: string;
  isError: boolean;
  effects: Effect[];
}

/** Input of `remember`. */
export interface RememberInput {
  type: MemoryType | string;
  name: string;
  /** One line: what the selector reads. Also the index entry's hook. */
  description: string;
  body: string;
  /** Default `{type}_{slug of name}.md`; pass an existing file to update it. */
  file?: string | null;
  /** The conversation writing it: recorded as `metadata.originSessionId` (an update keeps the file's own otherwise). */
  sessionId?: string | null;
  /** When it is written (ms since the epoch), recorded as `metadata.modified`; `memory.remember()` fills it from `now()`. */
  nowMs?: number | null;
}

/** What `remember` / `forget` will write. */
export interface WritePlan {
  file: string;
  action: "created" | "updated" | "forgotten";
  indexLine: string | null;
  effects: Effect[];
}

/** A credential found in a text: never the secret itself. */
export interface SecretFinding {
  code: string;
  kind: string;
  line: number;
  /** First 4 characters, `…`, and the length. */
  preview: string;
}

/** Input of `runDoctor` / `planDoctorFixes`. */
export interface DoctorInput {
  entries: SnapshotEntry[];
  contents?: Record<string, string | Uint8Array>;
  nowMs: number;
  limits?: Partial<Limits> | null;
  /** Days after which a user or feedback memory is reported. Default 90. */
  staleCoreDays?: number | null;
  /** For each of `outsideLinks(MEMORY.md)`: whether the host found it (`null`: it could not look). */
  outside?: Record<string, boolean | null>;
}

export interface Finding {
  code: string;
  severity: "error" | "warning" | "info";
  file: string;
  line: number | null;
  message: string;
  /** What `--fix` would do; null when no fix is safe. */
  fix: string | null;
}

export interface DoctorReport {
  findings: Finding[];
  errors: number;
  warnings: number;
  infos: number;
  fixable: number;
}

export interface FixPlan {
  effects: Effect[];
  diff: string;
  fixed: number;
  before: DoctorReport;
  after: DoctorReport;
}
"#;
