//! The section of the main model's system prompt that teaches it how to keep this memory, in
//! the words of the way it writes: files in the folder, Anthropic's memory tool (whose paths
//! are `/memories/...`), or memdir's `remember` / `forget` tools. Every form names the real
//! folder, so the model can tell the user where a memory lives.

use crate::error::Error;
use crate::keep::KeepMode;

/// How the main model writes its memories: `files` (it edits the files itself),
/// `memory-tool` (Anthropic's memory tool) or `remember-tool` (memdir's `remember` and
/// `forget` tools).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    test,
    derive(serde::Serialize, ts_rs::TS),
    serde(rename_all = "kebab-case")
)]
pub enum WriteVia {
    /// It writes the Markdown files in the folder itself (a file-editing tool, a shell).
    Files,
    /// Through Anthropic's `memory` tool: `/memories` is the folder, and memdir adds a new
    /// memory's index line.
    MemoryTool,
    /// Through the `remember` and `forget` tools, which write the file and its index line.
    RememberTool,
}

impl WriteVia {
    /// `files`, `memory-tool` or `remember-tool`.
    pub fn parse(s: &str) -> Result<Self, Error> {
        match s {
            "files" => Ok(Self::Files),
            "memory-tool" => Ok(Self::MemoryTool),
            "remember-tool" => Ok(Self::RememberTool),
            other => Err(Error::invalid(format!(
                "via must be \"files\", \"memory-tool\" or \"remember-tool\", got {other:?}"
            ))),
        }
    }
}

const KINDS: &str = "## Kinds of memory
- `user`: the user's role, goals, expertise and preferences, so you can tailor your help. Nothing judgemental, nothing unrelated to the work.
- `feedback`: guidance on how to work — what to avoid and what to keep doing. Save corrections and also quiet confirmations of non-obvious choices.
- `project`: decisions, goals, incidents and deadlines that cannot be derived from the code or git. Write dates as absolute dates (2026-03-05, not \"Thursday\").
- `reference`: where things live outside the code — dashboards, channels, runbooks, ticket projects.";

const FRONTMATTER: &str = "   ```
   ---
   name: a short name
   description: one specific line saying what this memory is about — it decides when the memory is recalled
   type: user | feedback | project | reference
   ---
   ```
   For `feedback` and `project`, state the rule or fact, then a `**Why:**` line and a `**How to apply:**` line.";

const INDEX_RULE: &str = "The index holds pointers only, never content; it is always loaded, and only its first 200 lines are read.";

const NOT_TO_SAVE: &str = "## What not to save
Code patterns, architecture, file paths and conventions (read the code instead); git history; \
debugging recipes; anything already in project instruction files; the state of the current task. \
This holds even when asked: for a summary of recent work, keep only what was surprising or non-obvious.";

const CHECK_BEFORE_USE: &str = "Read memories that seem relevant, and always when the user asks you to check or recall. \
A memory is a claim about the moment it was written: before you rely on a file, function or flag it names, check that it still exists, \
and if what you see now contradicts a memory, trust what you see and fix the memory. \
If the user asks you to ignore memory, act as if it were empty.";

/// What the main model is told of extraction after a turn, by its mode (rules §4.7): nothing
/// when it is off or not said.
fn extraction_note(extract: Option<KeepMode>) -> &'static str {
    match extract {
        None | Some(KeepMode::Off) => "",
        Some(KeepMode::Auto) => "\n\nAfter each turn, a separate pass reads the conversation and saves what is worth keeping. \
Save a memory yourself only when the user asks you to remember something; do not save again what that pass will keep.",
        Some(KeepMode::Suggest | KeepMode::Confirm) => "\n\nAfter each turn, a separate pass reads the conversation and proposes memories, and the user decides which are kept. \
Save a memory yourself only when the user asks you to remember something.",
    }
}

/// How to save, update and use memories kept in `dir`, written the way the model writes;
/// `extract` is the mode of extraction after a turn, when the application runs it.
pub fn memory_instructions(dir: &str, via: WriteVia, extract: Option<KeepMode>) -> String {
    let (reach, save, forget) = match via {
        WriteVia::Files => (
            "The folder exists; write files in it directly.".to_owned(),
            format!(
                "## How to save
1. Write one topic per file, named by its kind: `user_role.md`, `feedback_testing.md`, `project_release_freeze.md`, `reference_dashboards.md`. Start it with:
{FRONTMATTER}
2. Add one line for it to `MEMORY.md`, the index: `- [Title](file.md) — a short hook`, under about 150 characters. {INDEX_RULE}

Before saving, check for an existing memory on the topic and update it instead of adding a duplicate. \
Remove or correct memories that turn out to be wrong. Organise by topic, not by date."
            ),
            "remove the file and its index line",
        ),
        WriteVia::MemoryTool => (
            "You read and write it with the `memory` tool, whose `/memories` directory is this folder: \
`/memories/MEMORY.md` is the `MEMORY.md` in it. Give the tool `/memories/...` paths; \
when you tell the user where a memory is kept, name the folder above."
                .to_owned(),
            format!(
                "## How to save
1. `create` one topic per file, named by its kind: `/memories/user_role.md`, `/memories/feedback_testing.md`, `/memories/project_release_freeze.md`, `/memories/reference_dashboards.md`. Start it with:
{FRONTMATTER}
2. `/memories/MEMORY.md` is the index: one line per memory, `- [Title](file.md) — a short hook`, under about 150 characters. \
When a new file's frontmatter has a `description`, its line is added for you from its `name` and `description`, and the result of `create` says so: do not add a second one. \
`delete` and `rename` keep the index's lines in step. {INDEX_RULE}

Before saving, `view` `/memories` and the file closest to the topic, and update an existing memory (`str_replace`) instead of adding a duplicate. \
Remove or correct memories that turn out to be wrong. Organise by topic, not by date."
            ),
            "`delete` its file (its index line goes with it)",
        ),
        WriteVia::RememberTool => (
            "You save memories with the `remember` tool and remove them with the `forget` tool; \
they write the files in this folder, and you do not edit them yourself."
                .to_owned(),
            format!(
                "## How to save
Call `remember` with one topic per memory:
- `type`: user | feedback | project | reference;
- `name`: a short name, also the memory's title in the index;
- `description`: one specific line saying what this memory is about — it decides when the memory is recalled;
- `body`: the memory itself. For `feedback` and `project`, state the rule or fact, then a `**Why:**` line and a `**How to apply:**` line.

It writes a topic file named by its kind (`user_role.md`, `feedback_testing.md`, …) with that frontmatter, \
and its one line in `MEMORY.md`, the index. {INDEX_RULE} \
If it refuses (a credential, a near-duplicate, a full index), the error says why and nothing was written.

Before saving, check for an existing memory on the topic: to update one, call `remember` with its `file` instead of adding a duplicate. \
Correct memories that turn out to be wrong, and `forget` those that no longer hold. Organise by topic, not by date."
            ),
            "call `forget` with its file",
        ),
    };
    format!(
        "# Memory

You have a persistent memory made of Markdown files in `{dir}`. It carries what you learn \
across conversations: who the user is, how they want you to work, and context about the \
project that the code and its history do not show. {reach}

{KINDS}

{save}

{NOT_TO_SAVE}

## Using memories
When the user asks you to remember something, save it now; when asked to forget, {forget}. \
{CHECK_BEFORE_USE}{}",
        extraction_note(extract)
    )
}
