// Generated from the Rust types by `MEMDIR_UPDATE_TYPES=1 cargo test --lib ts_types`
// (src/ts_types.rs). Do not edit: change the Rust type and regenerate.

export type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]: JsonValue } | null;

/**
 * What went wrong, on a `MemdirError` (`code`). The core raises the first group; the
 * JavaScript layer raises the rest, for what only it can see (locks, the file system, the
 * WebAssembly module).
 */
export type MemdirErrorCode = "INVALID_ARGUMENT" | "UNSAFE_PATH" | "INVALID_MEMORY" | "SECRET_DETECTED" | "LIMIT_EXCEEDED" | "DUPLICATE_MEMORY" | "INDEX_ONLY" | "NOT_FOUND" | "TOO_LARGE" | "INVALID_UTF8" | "CHANGED" | "LOCKED" | "NOT_A_DIRECTORY" | "IO_ERROR" | "NOT_INITIALIZED" | "WASM_TRAPPED" | "INTERNAL";

/**
 * What a scan diagnostic is about (`Diagnostic.code`).
 */
export type DiagnosticCode = "unsafe_path" | "duplicate_path" | "invalid_mtime" | "invalid_utf8" | "not_a_file" | "symlink_escape" | "unreadable" | "vanished" | "head_missing" | "frontmatter_missing" | "frontmatter_unclosed" | "frontmatter_malformed" | "frontmatter_recovered" | "description_missing" | "description_not_text" | "unknown_type";

/**
 * What a doctor finding is about (`Finding.code`).
 */
export type FindingCode = "index_missing" | "index_over_lines" | "index_over_size" | "index_content" | "index_preamble" | "index_foreign_format" | "dead_link" | "duplicate_entry" | "duplicate_link" | "entry_too_long" | "outside_link" | "outside_link_missing" | "link_unverifiable" | "secret" | "not_indexed" | "beyond_cap" | "frontmatter_missing" | "frontmatter_unclosed" | "frontmatter_late" | "frontmatter_malformed" | "frontmatter_recovered" | "description_missing" | "description_not_text" | "description_vague" | "description_multiline" | "unknown_type" | "duplicate_topic" | "stale_core_memory" | "supersession_broken" | "supersession_cycle" | "invalid_utf8" | "symlink_escape" | "not_a_file" | "unreadable" | "unsafe_path" | "too_large" | "temp_file" | "unread_files" | "cline_memory_bank" | "scan";

/**
 * What a listed entry is (`SnapshotEntry.kind`, `FileHead.kind`).
 */
export type EntryKind = "file" | "directory" | "other";

/**
 * All limits in one value. Missing fields take the defaults of rules §2; unknown fields are an
 * error, so a typo such as `maxIndexBytes` is caught instead of silently ignored.
 */
export type Limits = { 
/**
 * Lines of `MEMORY.md` kept (after trimming), default 200.
 */
maxIndexLines: number, 
/**
 * UTF-16 code units of `MEMORY.md` kept, default 25,000 (what Claude Code measures).
 */
maxIndexUtf16: number, 
/**
 * Topic files considered, newest first, default 200.
 */
maxFiles: number, 
/**
 * Lines of a topic file read for its frontmatter, default 30.
 */
maxHeaderLines: number, 
/**
 * Memories selected per turn, default 5.
 */
maxSelected: number, 
/**
 * Lines of one memory injected, default 200.
 */
maxInjectLines: number, 
/**
 * UTF-8 bytes of one memory injected, default 4,096.
 */
maxInjectBytes: number, 
/**
 * UTF-16 code units of memory content surfaced per session, default 61,440.
 */
maxSessionUtf16: number, 
/**
 * `max_tokens` of the side query, default 256.
 */
maxOutputTokens: number, 
/**
 * UTF-8 bytes of a file memdir reads whole to edit it (or to `view` it), default 1 MiB.
 * A larger file is refused (`TOO_LARGE`), never cut: a write never writes back content
 * it did not read whole. New content past it is refused too.
 */
maxFileBytes: number, };

/**
 * A file head: text, or bytes that the core decodes as UTF-8 (reporting invalid bytes).
 */
export type Head = string | Uint8Array;

/**
 * The index as it goes into the prompt, with the figures measured on the original.
 */
export type IndexView = { 
/**
 * The text to inject: the trimmed index, cut if needed, plus the warning when cut.
 */
content: string, 
/**
 * Lines of the original trimmed text (0 when empty).
 */
lineCount: number, 
/**
 * UTF-16 code units of the original trimmed text.
 */
utf16Count: number, 
/**
 * The line limit fired (measured on the original).
 */
wasLineTruncated: boolean, 
/**
 * The size limit fired (measured on the original).
 */
wasSizeTruncated: boolean, };

/**
 * What a host read of `MEMORY.md`, for [`index_prompt`].
 */
export type IndexInput = { 
/**
 * The whole file, or its first [`IndexReadPlan::read_bytes`] bytes.
 */
content: Head, 
/**
 * The file's size in bytes; larger than `content` when only its start was read.
 */
fileBytes?: number | null, 
/**
 * Where the index is, named in the prompt (`Contents of …`).
 */
absolutePath: string, limits?: Partial<Limits> | null, 
/**
 * The scope this index is of, when the memory has several (rules §1.6): named in the prompt.
 */
scope?: string | null, };

/**
 * The index as the model sees it: the view and the block to put in the context.
 */
export type IndexPrompt = { 
/**
 * `Contents of {path} (…):` and the content; `""` when the index is missing or empty.
 */
prompt: string, 
/**
 * Only the start of the file was read (it is larger than [`IndexReadPlan::read_bytes`]); the
 * counts are then of the part read.
 */
readPartially: boolean, 
/**
 * The text to inject: the trimmed index, cut if needed, plus the warning when cut.
 */
content: string, 
/**
 * Lines of the original trimmed text (0 when empty).
 */
lineCount: number, 
/**
 * UTF-16 code units of the original trimmed text.
 */
utf16Count: number, 
/**
 * The line limit fired (measured on the original).
 */
wasLineTruncated: boolean, 
/**
 * The size limit fired (measured on the original).
 */
wasSizeTruncated: boolean, };

/**
 * What a host reads of the index for [`index_prompt`].
 */
export type IndexReadPlan = { 
/**
 * `MEMORY.md`.
 */
path: string, 
/**
 * Every byte the limits could keep (a UTF-16 unit is at most 3 UTF-8 bytes) and a margin
 * for a byte-order mark and trimmed white space: reading a 700 MB index whole to keep
 * 25,000 units of it would cost seconds and gigabytes.
 */
readBytes: number, };

/**
 * The merged index, and what the merge kept twice.
 */
export type MergedIndex = { 
/**
 * The merged `MEMORY.md`.
 */
text: string, 
/**
 * The links (as written) of entries both sides changed differently: each is kept as two
 * adjacent lines, which `memdir doctor` reports (`duplicate_link`) and `--fix` joins.
 */
bothEdited: Array<string>, };

/**
 * The four memory types.
 */
export type MemoryType = "user" | "feedback" | "project" | "reference";

/**
 * One file as the host saw it.
 */
export type FileHead = { 
/**
 * Relative to the memory directory, `/`-separated.
 */
path: string, 
/**
 * Modification time, ms since the Unix epoch.
 */
mtimeMs: number, 
/**
 * The first lines of the file, as text or raw bytes. The core reads only the first
 * `maxHeaderLines`; absent when the host has not read it (see [`plan_scan`]).
 */
head?: Head | null, 
/**
 * `file` (the default), `directory` or `other`, as the host listed it.
 */
kind?: EntryKind | null, 
/**
 * A problem the host met with this entry: `not_a_file`, `symlink_escape`,
 * `unreadable` or `vanished`, or the raw error code of a failed read (`ENOENT`,
 * `EISDIR`, `EACCES`, …). The file is left out, with a diagnostic.
 */
problem?: string | null, };

/**
 * A topic file that is a memory.
 */
export type Memory = { path: string, 
/**
 * The file's modification time, as the host listed it.
 */
mtimeMs: number, 
/**
 * `metadata.modified` from the frontmatter (current Claude Code records it), when valid.
 */
modifiedMs?: number | null, 
/**
 * The memory's time: the older of `mtimeMs` and `modifiedMs`. A checkout, copy or sync
 * resets a file's mtime but not the recorded time, and a recorded time in the future
 * cannot make a memory look fresher than its file. Order, manifest and age use it.
 * Optional on input (computed when absent).
 */
timeMs?: number | null, name?: string | null, 
/**
 * One line: white space folded.
 */
description?: string | null, type?: MemoryType | null, 
/**
 * The frontmatter's `metadata:` block as written, when it has one.
 */
metadata?: { [key in string]: JsonValue } | null, 
/**
 * `superseded_by`: the newer memory that replaces this one (rules §4.7). A memory whose
 * chain ends at a memory that exists is no selection candidate.
 */
supersededBy?: string | null, };

/**
 * Something the caller should know about one file; never an exception.
 */
export type Diagnostic = { path: string, code: DiagnosticCode, message: string, 
/**
 * 1-based line, where one applies.
 */
line?: number | null, };

/**
 * The result of a scan.
 */
export type ScanResult = { 
/**
 * At most `maxFiles`, newest first (ties by path).
 */
memories: Array<Memory>, 
/**
 * The older files past the cap: left out of the prompt, but reported.
 */
dropped: Array<Memory>, diagnostics: Array<Diagnostic>, };

/**
 * Which files the host should read, in order, before calling [`scan_memories`]: the topic
 * files newest first. Reading the first `maxFiles` is enough; if some of those cannot be
 * read, the next ones take their place.
 */
export type ScanPlan = { read: Array<string>, maxFiles: number, };

/**
 * What the caller passes in.
 */
export type SelectionInput = { query: string, 
/**
 * The scan's `memories` (newest first, already capped).
 */
memories: Array<Memory>, 
/**
 * Paths surfaced earlier in the session.
 */
alreadySurfaced?: Array<string>, 
/**
 * Names of tools the agent used successfully in the previous turn.
 */
recentTools?: Array<string>, 
/**
 * UTF-16 units of memory content surfaced so far in the session.
 */
surfacedUtf16?: number, limits?: Partial<Limits> | null, };

/**
 * Why no model call is made.
 */
export type SkipReason = "no_memories" | "already_surfaced" | "one_word" | "budget_spent";

/**
 * The request to send, or `skip` with empty fields.
 */
export type SelectionRequest = { skip: SkipReason | null, 
/**
 * The selector's instructions (system prompt).
 */
system: string, 
/**
 * `Query: …\n\nAvailable memories:\n…` plus the recently used tools.
 */
user: string, 
/**
 * The manifest alone, for providers that cache it as its own system block.
 */
manifest: string, 
/**
 * The query alone (trimmed), with the tools line, for the cached layout.
 */
queryMessage: string, 
/**
 * `{selected_memories: string[]}`, `additionalProperties: false`, `required`.
 */
schema: Record<string, unknown>, maxTokens: number, 
/**
 * The candidate paths, newest first.
 */
candidates: Array<string>, };

/**
 * A value the parser refused, and why.
 */
export type Rejected = { 
/**
 * The value as the model gave it (any JSON value).
 */
value: JsonValue, 
/**
 * `not_a_string`, `unsafe_path`, `already_surfaced`, `unknown`, `duplicate` or `over_limit`.
 */
reason: string, };

/**
 * Why the answer as a whole could not be used.
 */
export type SelectionFailure = { 
/**
 * `empty_answer`, `invalid_json`, `missing_selected_memories` or `not_an_array`.
 */
code: string, message: string, };

/**
 * The parsed selection.
 */
export type Selection = { 
/**
 * Candidate paths, in the model's order, no duplicates, at most `maxSelected`.
 */
selected: Array<string>, rejected: Array<Rejected>, 
/**
 * Set when no list could be read at all; `selected` is then empty.
 */
failure: SelectionFailure | null, };

/**
 * What to render.
 */
export type RenderInput = { 
/**
 * Relative path of the memory.
 */
path: string, 
/**
 * Absolute path, used in the header and the truncation note when given.
 */
absolutePath?: string | null, mtimeMs: number, 
/**
 * The whole file, or at least its first `maxInjectBytes` + a few bytes; text or raw bytes.
 */
content: Head, nowMs: number, limits?: Partial<Limits> | null, };

/**
 * Which limit cut the memory.
 */
export type Truncation = "lines" | "bytes";

/**
 * The rendered block.
 */
export type RenderedMemory = { 
/**
 * `Memory (saved today): path:`, or the staleness caveat, a blank line and `Memory: path:`.
 */
header: string, 
/**
 * The content as injected (cut, neutralised), with the truncation note when cut.
 */
body: string, truncated: Truncation | null, 
/**
 * The whole block: `<system-reminder>\n{header}\n\n{body}\n</system-reminder>`.
 */
text: string, 
/**
 * UTF-16 units of `body`: what counts against the session budget.
 */
utf16Count: number, };

/**
 * Where the default memory directory is, given strings the host looked up.
 */
export type MemoryDirInput = { 
/**
 * The user's home directory.
 */
homeDir: string, 
/**
 * The project's root: the main worktree's root inside git, else the project folder.
 */
projectRoot: string, 
/**
 * `CLAUDE_CONFIG_DIR` when set; replaces `<home>/.claude`.
 */
configDir?: string | null, 
/**
 * `autoMemoryDirectory` as each trusted settings file gives it (never the project's own
 * `.claude/settings.json`, so a repository cannot point memory elsewhere).
 */
autoMemoryDirectory?: AutoMemorySettings | null, };

/**
 * `autoMemoryDirectory` from the settings Claude Code trusts, in its order: the first given
 * is used; one that is not a safe absolute path falls back to the default folder.
 */
export type AutoMemorySettings = { 
/**
 * The managed (policy) settings.
 */
policy?: string | null, 
/**
 * `<project>/.claude/settings.local.json`.
 */
local?: string | null, 
/**
 * `<config dir>/settings.json`.
 */
user?: string | null, };

/**
 * Where a subagent's own memory is (Claude Code's agent memory), for one of its scopes.
 */
export type AgentMemoryInput = { 
/**
 * `user`, `project` or `local`.
 */
scope: string, 
/**
 * The agent's type (its name); `:` becomes `-`.
 */
agentType: string, 
/**
 * The user's home directory.
 */
homeDir: string, 
/**
 * The folder the agent works in (Claude Code's cwd) for `project` and `local`.
 */
projectRoot: string, 
/**
 * `CLAUDE_CONFIG_DIR` when set.
 */
configDir?: string | null, };

/**
 * Token counts of one call. Anthropic's fields, in camelCase; other providers map onto them.
 */
export type Usage = { 
/**
 * Uncached input tokens (after the last cache breakpoint).
 */
inputTokens: number, 
/**
 * Output tokens, thinking included.
 */
outputTokens: number, 
/**
 * Tokens written to the cache (all of them, whatever the TTL).
 */
cacheCreationInputTokens: number, 
/**
 * Tokens read from the cache.
 */
cacheReadInputTokens: number, 
/**
 * Of the cache writes, those with the 1-hour TTL (billed at the 1h rate; the rest at 5m).
 */
cacheCreation1hInputTokens: number, };

/**
 * Input to [`estimate_cost`].
 */
export type CostInput = { model: string, usage?: Usage, };

/**
 * The cost, `usd: null` for a model not in the table.
 */
export type Cost = { usd: number | null, 
/**
 * The price-table row used (the model id without a date suffix), when known.
 */
pricedAs: string | null, };

/**
 * The model APIs memdir speaks.
 */
export type ProviderName = "anthropic" | "openai" | "ollama";

/**
 * What to build a request from.
 */
export type ProviderRequestInput = { provider: ProviderName, 
/**
 * The output of `buildSelectionRequest` (must not be a skip).
 */
request: SelectionRequest, model?: string | null, baseUrl?: string | null, apiKey?: string | null, 
/**
 * Running in a browser: Anthropic then needs its direct-browser-access header.
 */
browser?: boolean, 
/**
 * Ask for schema-constrained output (default). `false` is the prompt-only fallback for
 * a model or server that rejects the schema parameter.
 */
structured?: boolean, 
/**
 * Put the instructions and the manifest in cacheable system blocks ahead of the query
 * (Anthropic; default on).
 */
cache?: boolean, };

/**
 * A request for `fetch`: `POST url` with these headers and this JSON body.
 */
export type HttpRequest = { url: string, headers: { [key in string]: string }, body: string, 
/**
 * The model id sent.
 */
model: string, 
/**
 * The credentials this request carries (its key headers' values, its URL's user, password
 * and query values), in every form an error body may echo them, each once: give them
 * back to `decodeProviderResponse`, and hide them in any other message about the request.
 */
secrets: Array<string>, };

/**
 * What came back.
 */
export type ProviderResponseInput = { provider: ProviderName, 
/**
 * HTTP status.
 */
status: number, 
/**
 * The response body as text.
 */
body: string, 
/**
 * The request's credentials (`HttpRequest.secrets`): hidden in every failure message, so a
 * body that echoes the request never carries a key into an error.
 */
secrets?: Array<string>, };

/**
 * Why the answer cannot be used.
 */
export type ProviderFailure = { 
/**
 * `http_error`, `refusal`, `truncated`, `no_text` or `invalid_body`.
 */
code: string, message: string, 
/**
 * The provider's error type (`rate_limit_error`, `invalid_request_error`, …), when given.
 */
errorType: string | null, 
/**
 * A 400 that names the schema parameter: retry once without it (prompt-only JSON).
 */
schemaRejected: boolean, };

/**
 * The decoded answer. `text` is set exactly when `failure` is not.
 */
export type ProviderAnswer = { text: string | null, stopReason: string | null, usage: Usage, model: string | null, 
/**
 * Thinking blocks skipped before the text.
 */
thinkingBlocks: number, failure: ProviderFailure | null, };

/**
 * The facts of one failed attempt.
 */
export type RetryInput = { 
/**
 * HTTP status; 0 for a connection error or a timeout before any response.
 */
status: number, 
/**
 * Response headers, lower-case names.
 */
headers?: { [key in string]: string }, 
/**
 * The response body, to spot quota errors that must not be retried.
 */
body?: string, 
/**
 * Retries already made (0 on the first failure).
 */
attempt: number, maxRetries?: number, nowMs: number, 
/**
 * A random number in [0, 1) for the jitter.
 */
jitter?: number, };

export type RetryDecision = { retry: boolean, delayMs: number, 
/**
 * Why: `x-should-retry`, `status`, `quota`, `not_retryable` or `max_retries`.
 */
reason: string, };

/**
 * The side query's own defaults, when the caller gives none.
 */
export type SelectorDefaults = { 
/**
 * Deadline of the whole side query, retries included.
 */
timeoutMs: number, 
/**
 * Retries after the first attempt (the SDKs' default).
 */
maxRetries: number, 
/**
 * A provider's answer is read no further than this: a 256-token answer is small, and a
 * server that streams without end must not cost more.
 */
maxResponseBytes: number, };

/**
 * Which keys the environment has, for [`default_selector`].
 */
export type SelectorEnv = { anthropicKey?: boolean, openaiKey?: boolean, };

/**
 * The selector to use when none is configured, and why, in words for people.
 */
export type DefaultSelector = { 
/**
 * `anthropic`, `openai` or `lexical`.
 */
provider: string, reason: string, };

/**
 * Input of [`lexical_select`].
 */
export type LexicalInput = { query: string, 
/**
 * The candidates (the scan's memories minus those already surfaced).
 */
memories: Array<Memory>, 
/**
 * Tools the agent used in the previous turn: their usage references are left out, their
 * warnings count as matching.
 */
recentTools?: Array<string>, 
/**
 * The first lines of each memory, as the scan read them (by path): the body under the
 * frontmatter counts as weaker evidence than the name and description. Optional.
 */
heads?: { [key in string]: Head }, limits?: Partial<Limits> | null, };

/**
 * How a memory matched the query, for inspection (why it was, or was not, chosen).
 */
export type Scored = { path: string, 
/**
 * The summed weight of the query terms it matched (a term found in one memory weighs 1).
 */
evidence: number, 
/**
 * `evidence` as a share of the query's whole weight.
 */
coverage: number, 
/**
 * The query's terms it matched: `term` in the name, file name or description, `term*` in
 * the body, `~` added when through a shared stem.
 */
matched: Array<string>, 
/**
 * It warns about a tool the agent is using.
 */
toolWarning: boolean, };

/**
 * One term of the query, for inspection.
 */
export type QueryTerm = { term: string, weight: number, };

/**
 * The lexical selection: `selected` best first, and how every memory that matched did.
 */
export type LexicalSelection = { selected: Array<string>, scores: Array<Scored>, 
/**
 * The query's terms and their weights in this folder (a term in no memory weighs 1).
 */
queryTerms: Array<QueryTerm>, };

/**
 * One change for the host to make. Applied in order; each write is atomic on the host.
 */
export type Effect = { "op": "write", path: string, text: string, exclusive: boolean, } | { "op": "remove", path: string, } | { "op": "rename", from: string, to: string, } | { "op": "copy", from: string, to: string, };

/**
 * One entry of the host's listing (`MemoryHost.list()`).
 */
export type SnapshotEntry = { path: string, kind: EntryKind, size?: number, mtimeMs?: number, problem?: string | null, };

/**
 * The host's view of the memory directory at one moment.
 */
export type Snapshot = { 
/**
 * Every entry below the root, recursively.
 */
entries?: Array<SnapshotEntry>, 
/**
 * Contents of the files the plan asked for (whole files), by relative path.
 */
contents?: { [key in string]: Head }, 
/**
 * Where each path really is, from the host (`MemoryHost.resolve`): the relative path
 * after following symbolic links, or `null` when it leads out of the directory.
 */
resolved?: { [key in string]: string | null }, 
/**
 * The frontmatter an earlier scan of the same bytes already parsed (an opened memory's
 * cache holds it), for topic files whose head is not in `contents`: JSON text of
 * `[path, name, description]` triples, `null` for a field the file does not have. The
 * duplicate checks read these as they would the heads, without the heads crossing again.
 */
scanned?: string | null, };

/**
 * What to read, for `takeSnapshot`.
 */
export type ReadPlan = { 
/**
 * Whole files to read, when they exist.
 */
read: Array<string>, 
/**
 * Paths to resolve through symbolic links (`MemoryHost.resolve`).
 */
resolve: Array<string>, 
/**
 * Also read this many first lines of every topic file (the duplicate checks).
 */
heads: number | null, 
/**
 * Read every topic file whole (doctor).
 */
allTopics: boolean, 
/**
 * Read whole files up to this many bytes: one past `maxFileBytes`, so that a longer file
 * shows as not read whole and is refused rather than cut.
 */
readBytes: number, };

/**
 * The model's command as TypeScript sees it: the same six commands as [`Command`], whose
 * decoder reads them by hand from JSON. Only the type generator uses this.
 */
export type MemoryToolCommand = { "command": "view", path: string, 
/**
 * `[start, end]`, 1-based; `end` -1 for the end of the file.
 */
view_range?: Array<number> | null, } | { "command": "create", path: string, file_text: string, } | { "command": "str_replace", path: string, old_str: string, 
/**
 * Default: the empty string (the match is deleted).
 */
new_str?: string | null, } | { "command": "insert", path: string, insert_line: number, insert_text: string, } | { "command": "delete", path: string, } | { "command": "rename", old_path: string, new_path: string, };

/**
 * The JSON Schema of one memory-tool command, from `memoryToolInputSchema()` and
 * `memory.tool().inputSchema` (the TypeScript type only: the core builds the value).
 */
export type MemoryToolInputSchema = { type: "object", description: string, 
/**
 * Every field of every command, and `command` itself (an `enum` of the six names).
 */
properties: Record<string, Record<string, unknown>>, required: ["command"], 
/**
 * One schema per command, in the SDK's order: `title` is the command's name and
 * `properties.command.const` its value; `required` lists `command` and its required fields.
 * Left out with `{flat: true}`.
 */
oneOf?: Array<{ title: string, description: string, type: "object", properties: Record<string, Record<string, unknown>>, required: string[] }>, };

/**
 * Options of `memoryToolInputSchema` ([`input_schema`]).
 */
export type MemoryToolSchemaOptions = { 
/**
 * Leave out the root `oneOf`, for model APIs that refuse composition keywords at a tool
 * schema's root (Anthropic's, OpenAI's, Gemini's, and MCP clients built on them): every
 * field but `command` is then optional in the schema, the root `description` says which
 * command takes which, and the command itself refuses a missing one.
 */
flat?: boolean | null, };

/**
 * See [`ToolPlan::list`].
 */
export type Listing = "always" | "kinds" | "ifDirectory" | "never";

/**
 * What the host must look up before [`run_tool_command`].
 */
export type ToolPlan = { 
/**
 * Relative paths to resolve through symbolic links (`MemoryHost.resolve`).
 */
resolve: Array<string>, 
/**
 * Relative paths whose whole content is needed, if they are files.
 */
read: Array<string>, 
/**
 * How much of the listing the command needs: `kinds` (`create`, `rename`: every entry's
 * path, kind and problem, its times and sizes not used; the named paths are looked up whole),
 * `always` (all of it), `ifDirectory` (`view`: only a folder's listing, with sizes), or
 * `never` (edits of one file, `delete`). A host that cannot resolve links must list anyway:
 * the listing is how it reports links out.
 */
list: Listing, 
/**
 * Whether the command may write (everything but `view`): the host takes the write lock.
 */
writes: boolean, 
/**
 * Set when the command is already answered (a malformed command or a bad path).
 */
result: ToolResult | null, };

/**
 * The answer to one command.
 */
export type ToolResult = { 
/**
 * The text for the `tool_result` block.
 */
text: string, 
/**
 * `true` for an error result (`is_error` on the wire).
 */
isError: boolean, 
/**
 * What the host must do, in order, before reporting `text`.
 */
effects: Array<Effect>, };

/**
 * What to remember.
 */
export type RememberInput = { 
/**
 * `user`, `feedback`, `project` or `reference`.
 */
type: string, 
/**
 * A short title; also the index entry's link text.
 */
name: string, 
/**
 * One line: what the selector reads to decide. Also the index entry's hook.
 */
description: string, 
/**
 * The memory. For feedback and project: the rule or fact, then `**Why:**` and `**How to apply:**` lines.
 */
body: string, 
/**
 * The topic file to write or update; default `{type}_{slug of name}.md`.
 */
file?: string | null, 
/**
 * The conversation writing it: recorded as `metadata.originSessionId` (an update keeps
 * the file's own when this is absent).
 */
sessionId?: string | null, 
/**
 * When it is written (ms since the epoch): recorded as `metadata.modified`.
 */
nowMs?: number | null, 
/**
 * The memory this one replaces (rules §4.7): that file is kept, marked `superseded_by`
 * this one, and its index lines go (recall then chooses this one, never that one).
 */
supersedes?: string | null, };

/**
 * What a write did to its topic file.
 */
export type WriteAction = "created" | "updated" | "forgotten" | "touched";

/**
 * The plan for one `remember`.
 */
export type WritePlan = { 
/**
 * The topic file written (or removed, for `forget`).
 */
file: string, action: WriteAction, 
/**
 * The index line written, or `null` for `forget`.
 */
indexLine: string | null, 
/**
 * What the host must do, in order.
 */
effects: Array<Effect>, };

/**
 * How an automatic writer may change the memory.
 */
export type KeepMode = "off" | "suggest" | "confirm" | "auto";

/**
 * The consolidation's side query, or why none is sent.
 */
export type ConsolidationRequest = { 
/**
 * `nothing_to_consolidate` when no memories look alike.
 */
skip: string | null, request: SelectionRequest, 
/**
 * The groups sent, by path.
 */
groups: Array<Array<string>>, 
/**
 * Groups left for a later run (past [`MAX_GROUP_UTF16`]).
 */
groupsLeftOut: number, };

/**
 * One change a run makes, as accepted.
 */
export type ConsolidationChange = { 
/**
 * `merge`, `supersede`, `remove` or `regroup`.
 */
kind: string, 
/**
 * The files it touches (the merged ones, the superseded one, the removed one).
 */
files: Array<string>, 
/**
 * The file kept (merge) or the successor (supersede).
 */
into: string | null, };

/**
 * What a run would change: the changes accepted, those refused with a reason, and the writes.
 */
export type ConsolidationPlan = { changes: Array<ConsolidationChange>, 
/**
 * Operations refused: `not_an_object`, `missing_field`, `unknown_file`, `unsafe_path`,
 * `too_few_files`, `unknown_type`, `secret`, `would_lose_text`, `over_limit`,
 * `cycle` (a supersession that would loop), `superseded_target` (a removal of a memory
 * another one's `superseded_by` names), `too_large` (a file past `maxFileBytes`),
 * `index_limit` (an index past a limit it kept), `index_not_plain`, `invalid`.
 */
rejected: Array<Rejected>, 
/**
 * Writes first, then `MEMORY.md`, then removals.
 */
effects: Array<Effect>, 
/**
 * Every file changed, `MEMORY.md` included.
 */
filesChanged: Array<string>, 
/**
 * The unified diff of the whole run.
 */
diff: string, 
/**
 * Set when no operations could be read at all.
 */
failure: SelectionFailure | null, };

/**
 * What the folder remembers of consolidation.
 */
export type ConsolidationState = { 
/**
 * When the last run finished (ms since the epoch); none yet when absent.
 */
lastRunMs?: number | null, 
/**
 * Sessions opened since.
 */
sessionsSince: number, };

/**
 * How often: at least `minHours` since the last run and `minSessions` sessions since.
 */
export type ConsolidationSchedule = { minHours?: number, minSessions?: number, };

/**
 * Whether a run is due, and why (or why not).
 */
export type ConsolidationDue = { due: boolean, reason: string, };

/**
 * One message of the conversation, as text (the JavaScript layer flattens a message's parts).
 */
export type TurnMessage = { 
/**
 * `user`, `assistant`, `tool` or `system` (system messages are not sent: they are the
 * agent's instructions, not what was said).
 */
role: string, text: string, };

/**
 * What an extraction is built from.
 */
export type ExtractionInput = { 
/**
 * The messages since the last extraction, oldest first.
 */
messages: Array<TurnMessage>, 
/**
 * The scan's memories (newest first): the manifest the model updates rather than duplicates.
 */
memories: Array<Memory>, 
/**
 * The turn already wrote memory through a tool: extraction is skipped (the main model
 * and the extractor never both write for the same messages).
 */
wroteMemory?: boolean, 
/**
 * Today, for absolute dates (ms since the epoch).
 */
nowMs?: number | null, limits?: Partial<Limits> | null, };

/**
 * Why no extraction is sent.
 */
export type ExtractSkip = "no_messages" | "memory_written";

/**
 * The request to send (the side query's shape, as recall's), or why none is sent.
 */
export type ExtractionRequest = { skip: ExtractSkip | null, request: SelectionRequest, 
/**
 * Messages left out because the conversation ran past its budget (the oldest first).
 */
messagesLeftOut: number, };

/**
 * What a proposal does.
 */
export type ProposalAction = "create" | "update" | "supersede";

/**
 * One memory the model proposes to keep. Its fields are `remember`'s.
 */
export type Proposal = { action: ProposalAction, 
/**
 * The saved memory updated or superseded; `null` for `create`.
 */
file?: string | null, type: MemoryType, name: string, description: string, body: string, };

/**
 * The model's answer, checked for shape against the memories it was shown.
 */
export type Extraction = { proposals: Array<Proposal>, 
/**
 * Operations refused: `not_an_object`, `unknown_action`, `missing_field`, `unknown_type`,
 * `unsafe_path`, `unknown_file`, `duplicate` or `over_limit`.
 */
rejected: Array<Rejected>, 
/**
 * Set when no list of operations could be read at all.
 */
failure: SelectionFailure | null, };

/**
 * A proposal that passed every check, as it would be written.
 */
export type PlannedProposal = { proposal: Proposal, 
/**
 * The topic file written.
 */
file: string, action: WriteAction, 
/**
 * The index line written.
 */
indexLine: string | null, 
/**
 * Set when a `create` was turned into an update of a saved memory it nearly duplicates.
 */
mergedInto: string | null, };

/**
 * A proposal a write rule refused: the same code and message `remember` would throw.
 */
export type RefusedProposal = { proposal: Proposal, 
/**
 * The stable code: `SECRET_DETECTED`, `LIMIT_EXCEEDED`, `INVALID_MEMORY`, …
 */
code: string, message: string, };

/**
 * The writes of one extraction: every accepted proposal, planned in order over the folder as
 * each earlier one leaves it, and the effects of all of them (one change in the history).
 */
export type ExtractionPlan = { planned: Array<PlannedProposal>, refused: Array<RefusedProposal>, 
/**
 * One write per file (its last content), in the order the files were first written.
 */
effects: Array<Effect>, };

/**
 * One credential found in a text. The secret itself is never carried in full.
 */
export type SecretFinding = { 
/**
 * Stable code, e.g. `aws_access_key_id`.
 */
code: string, 
/**
 * For people, e.g. `AWS access key ID`.
 */
kind: string, 
/**
 * 1-based line of the match.
 */
line: number, 
/**
 * A redacted preview: the first 4 characters, `…`, and the length. A labelled value's
 * match starts at its label, so the preview shows the label, never the value.
 */
preview: string, };

/**
 * What doctor looks at: the listing and the whole text of `MEMORY.md` and every topic file.
 */
export type DoctorInput = { entries: Array<SnapshotEntry>, 
/**
 * `MEMORY.md` and the topic files, by relative path (a file that could not be read is absent).
 */
contents?: { [key in string]: Head }, nowMs: number, limits?: Partial<Limits> | null, 
/**
 * Default 90.
 */
staleCoreDays?: number | null, 
/**
 * Links of `MEMORY.md` that leave the folder (from `outsideLinks`), with whether the host
 * found them (`null`: it could not look). Such a link is never called dead otherwise.
 */
outside?: { [key in string]: boolean | null }, };

export type Severity = "error" | "warning" | "info";

/**
 * One problem found.
 */
export type Finding = { code: FindingCode, severity: Severity, 
/**
 * Relative path of the file the finding is about.
 */
file: string, 
/**
 * 1-based, where it applies.
 */
line: number | null, message: string, 
/**
 * What `--fix` would do; `null` when there is no safe fix.
 */
fix: string | null, };

/**
 * Everything doctor found, with counts by severity.
 */
export type DoctorReport = { findings: Array<Finding>, errors: number, warnings: number, infos: number, 
/**
 * Findings `--fix` can repair.
 */
fixable: number, };

/**
 * What `--fix` will do.
 */
export type FixPlan = { 
/**
 * The writes, index last.
 */
effects: Array<Effect>, 
/**
 * A unified diff of every change, to show before applying.
 */
diff: string, 
/**
 * Findings these writes repair.
 */
fixed: number, before: DoctorReport, 
/**
 * Doctor's report once the effects are applied.
 */
after: DoctorReport, };

/**
 * What a temporary file's name says: the file it was for.
 */
export type TempFile = { 
/**
 * The name of the file the write was for.
 */
target: string, };

/**
 * How the main model writes its memories: `files` (it edits the files itself),
 * `memory-tool` (Anthropic's memory tool) or `remember-tool` (memdir's `remember` and
 * `forget` tools).
 */
export type WriteVia = "files" | "memory-tool" | "remember-tool";

/**
 * The history's bounds. The newest segment is never dropped, so the history may exceed
 * `maxBytes` by at most one segment.
 */
export type HistoryPolicy = { 
/**
 * Earlier contents up to this many bytes are kept inside the record; larger ones (and
 * bytes that are not UTF-8) go to a blob file.
 */
inlineBytes: number, 
/**
 * A segment is closed when the next record would take it past this many bytes (a change
 * rewrites the live segment twice, so this also bounds what a write costs).
 */
segmentBytes: number, 
/**
 * Segments and blobs together are kept under this many bytes: the oldest segments (and the
 * blobs of their records) are dropped first.
 */
maxBytes: number, 
/**
 * Records older than this many days are dropped (a segment at a time, once its newest
 * record is that old).
 */
maxAgeDays: number, };

/**
 * A file's content before a change, as the record keeps it.
 */
export type Before = { 
/**
 * SHA-256 of the bytes, in hex.
 */
sha256: string, 
/**
 * Their size in bytes.
 */
bytes: number, 
/**
 * The content, when it is UTF-8 and small enough to keep inside the record.
 */
text?: string | null, 
/**
 * Where the content is kept otherwise (a path in the history folder).
 */
blob?: string | null, 
/**
 * Why the content is not kept at all: `credential` (it held what the write guard refuses,
 * which the history never stores) or `too_large` (past `maxFileBytes`).
 */
withheld?: string | null, };

/**
 * One file a change touched.
 */
export type HistoryChange = { path: string, 
/**
 * Its content before; `null` when it did not exist.
 */
before?: Before | null, 
/**
 * SHA-256 of its content after; `null` when the change removed it.
 */
after?: string | null, };

/**
 * One change of the folder, by one route.
 */
export type HistoryRecord = { 
/**
 * Sortable: the time in ms (13 digits), then a counter within the same ms.
 */
id: string, atMs: number, 
/**
 * Which writer: `remember`, `forget`, `tool`, `doctor`, `undo`, `restore`, `recovery`, …
 */
route: string, 
/**
 * The caller's label (an agent or session id), when one was given.
 */
label?: string | null, 
/**
 * The record this change undid, for `undo`.
 */
undoes?: string | null, changes: Array<HistoryChange>, };

/**
 * What became of a record.
 */
export type HistoryStatus = "done" | "aborted" | "interrupted";

/**
 * What to read before journaling a change.
 */
export type HistoryReadPlan = { 
/**
 * List the folder first and ask again with its entries (a remove or rename may name a
 * folder); `read` is empty then.
 */
list: boolean, 
/**
 * Files to read whole (up to `readBytes`); a missing one is left out of `contents`.
 */
read: Array<string>, 
/**
 * Read this many bytes of each at most: one past `maxFileBytes`.
 */
readBytes: number, };

/**
 * A change to journal, with what was read before it.
 */
export type HistoryRecordInput = { effects: Array<Effect>, 
/**
 * The folder's listing, when a remove or rename may name a folder (else empty).
 */
entries?: Array<SnapshotEntry>, 
/**
 * What the read plan named, by path, as read.
 */
contents?: { [key in string]: Head }, 
/**
 * The live segment as read (`""` when there is none).
 */
segment?: string, route: string, label?: string | null, undoes?: string | null, nowMs: number, policy?: HistoryPolicy | null, 
/**
 * The change goes ahead only if this file's content has this hash now (`ifMatch`):
 * `CHANGED` otherwise, and nothing is written.
 */
ifMatch?: IfMatch | null, };

/**
 * A copy of a file's bytes, as read, into the history folder.
 */
export type HistoryBlob = { 
/**
 * The file whose content (as read for the record) is kept.
 */
from: string, to: string, };

/**
 * A write's condition: `path`'s content hashes to `sha256` (from `contentHash`, `scan` or a view).
 */
export type IfMatch = { path: string, sha256: string, };

/**
 * The writes that journal a change, in order: the blobs; the live segment renamed to
 * `rotateTo` when it is full; the live segment as `intentText`; the change; the live segment
 * as `doneText`.
 */
export type HistoryRecordPlan = { record: HistoryRecord, blobs: Array<HistoryBlob>, rotateTo?: string | null, intentText: string, doneText: string, };

/**
 * What the history and the folder hold now, for a plan that takes changes back.
 */
export type HistoryReverseInput = { 
/**
 * The journal's segments as read, oldest first (the live one last).
 */
segments: Array<string>, 
/**
 * The files and blobs the read plan named, as read; a missing file is left out.
 */
contents?: { [key in string]: Head }, 
/**
 * `undo`: the record to take back.
 */
id?: string | null, 
/**
 * `restore`: the time (ms) the folder is brought back to.
 */
atMs?: number | null, 
/**
 * Overwrite files changed since.
 */
force: boolean, };

/**
 * The effects that take changes back, and their diff.
 */
export type HistoryReversePlan = { effects: Array<Effect>, 
/**
 * Unified diff of every file, from now to after the plan.
 */
diff: string, 
/**
 * Files left as they are: changed since, and not forced (rollback only) or already as wanted.
 */
kept: Array<string>, 
/**
 * How far back the history reaches (ms): `restore` cannot go before it.
 */
reachesMs: number | null, };

/**
 * The rollback of interrupted writes (newest first), and the live segment with each marked
 * `aborted`. A file neither as the write left it nor as it was (someone changed it since) is
 * kept; so is one whose earlier content was not kept.
 */
export type HistoryRecoveryPlan = { effects: Array<Effect>, segmentText: string, aborted: Array<string>, kept: Array<string>, };

/**
 * One file of a record: what happened to it and its hashes.
 */
export type ChangeSummary = { path: string, 
/**
 * `created`, `changed` or `removed`.
 */
action: string, beforeSha256?: string | null, afterSha256?: string | null, 
/**
 * Why the content before is not kept, when it is not.
 */
withheld?: string | null, };

/**
 * One record as the history shows it.
 */
export type HistoryItem = { id: string, atMs: number, route: string, label?: string | null, undoes?: string | null, status: HistoryStatus, changes: Array<ChangeSummary>, };
