/**
 * The command table: one entry per command. Adding a command is one entry here; its code is
 * imported when it runs, through `run.ts` (so `--help` and `--version` stay instant). A
 * command's `run` gets the parsed options and an `Output`; `openFromArgs` (memory.ts) opens
 * `--dir`/`--project`, and `chooseSelector` (selector.ts) turns `--provider`, `--fallback` and
 * the keys into a selector.
 */
import { UsageError } from "./args.js";
import type { Command } from "./command.js";

const none = (command: string) => (args: string[]) => {
  if (args.length > 0) throw new UsageError(`${command} takes no arguments (got ${args.map((a) => JSON.stringify(a)).join(" ")})`, command);
};

export const COMMANDS: Record<string, Command> = {
  path: {
    summary: "where the memory directory is",
    usage: "memdir path [--project <path> | --dir <path>]",
    details: "Prints the directory memdir uses: --dir as given, else Claude Code's folder for the project\n(~/.claude/projects/<key>/memory, or under CLAUDE_CONFIG_DIR). It need not exist yet.",
    options: [],
    positionals: none("path"),
    run: (ctx) => import("./run.js").then((m) => m.read.path(ctx)),
  },
  index: {
    summary: "MEMORY.md as it goes into the prompt (cut to its limits)",
    usage: "memdir index [options]",
    options: [],
    positionals: none("index"),
    run: (ctx) => import("./run.js").then((m) => m.read.index(ctx)),
  },
  scan: {
    summary: "the memories: type, path, age, description (dropped files marked)",
    usage: "memdir scan [--max-files <n>] [--hashes] [options]",
    options: ["max-files", "hashes"],
    positionals: none("scan"),
    run: (ctx) => import("./run.js").then((m) => m.read.scan(ctx)),
  },
  recall: {
    args: '"<query>"',
    summary: "which memories a side query picks, and the blocks to inject",
    usage: 'memdir recall "<query>" [--provider <name>] [--model <id>] [--base-url <url>] [--timeout <ms>] [--fallback] [options]',
    details:
      "Says which selector chose and why. Without ANTHROPIC_API_KEY or OPENAI_API_KEY the offline lexical\nselector chooses; --fallback lets it choose when the model fails or its key is not set.\nA one-word query is skipped, as in Claude Code. Exit 1 when the recall failed.",
    options: ["provider", "model", "base-url", "timeout", "fallback", "max-files"],
    positionals: (args) => {
      if (args.length === 0) throw new UsageError('recall takes one query in quotes: memdir recall "how do we deploy?"', "recall");
      if (args.length > 1) throw new UsageError(`recall takes one query in quotes: memdir recall ${JSON.stringify(args.join(" "))}`, "recall");
      if (args[0]!.trim() === "") throw new UsageError('the query is empty: memdir recall "how do we deploy?"', "recall");
    },
    run: (ctx) => import("./run.js").then((m) => m.recall.run(ctx)),
  },
  remember: {
    args: "--type <t> --name <n> --description <d> [--file <f>] [--body <text>]",
    summary: "write a memory and its MEMORY.md line (body from stdin if no --body)",
    usage: "memdir remember --type <t> --name <n> --description <d> [--file <f>] [--body <text>] [options]",
    details: 'Example: echo "Use a real DB." | memdir remember --type feedback --name Testing --description "Integration tests hit a real database"\nExit 1 when a rule refuses the memory (nothing is written), 3 when --dir is a file.',
    options: ["type", "name", "description", "file", "body", "supersedes", "if-match"],
    positionals: none("remember"),
    run: (ctx) => import("./run.js").then((m) => m.write.remember(ctx)),
  },
  forget: {
    args: "<file>",
    summary: "remove a memory and its MEMORY.md line",
    usage: "memdir forget <file> [--if-match <sha256>] [options]",
    options: ["if-match"],
    positionals: (args) => {
      if (args.length !== 1) throw new UsageError("forget takes one file: memdir forget feedback_testing.md", "forget");
    },
    run: (ctx) => import("./run.js").then((m) => m.write.forget(ctx)),
  },
  touch: {
    args: "<file>",
    summary: "confirm a memory is still true: its metadata.modified is now (clears the staleness warnings)",
    usage: "memdir touch <file> [--if-match <sha256>] [options]",
    details: "Records the time in the file's frontmatter as Claude Code records a memory's time, nothing else\nchanged; the staleness reminder and doctor's stale_core_memory clear. memdir undo takes it back.",
    options: ["if-match"],
    positionals: (args) => {
      if (args.length !== 1) throw new UsageError("touch takes one file: memdir touch user_role.md", "touch");
    },
    run: (ctx) => import("./run.js").then((m) => m.write.touch(ctx)),
  },
  doctor: {
    args: "[--fix [--yes | --dry-run]]",
    summary: "check the memory against its rules; --fix shows the diff of the safe fixes, asks, then applies them",
    usage: "memdir doctor [--fix [--yes | --dry-run]] [--stale-core-days <n>] [--max-files <n>] [options]",
    details:
      "A fix never removes a word that exists nowhere else in the folder; an index over its limits is\ncompacted (notes into topic files, the tail of a long section into a sub-index), every word kept.\n--fix asks on a terminal after the diff; --yes applies without asking, --dry-run only shows.\nExit 1 while errors remain, 2 when --fix had no terminal to ask on and no --yes (nothing written).",
    options: ["fix", "yes", "dry-run", "stale-core-days", "max-files"],
    positionals: none("doctor"),
    run: (ctx) => import("./run.js").then((m) => m.doctor.run(ctx)),
  },
  extract: {
    args: "--messages <file> [--mode <mode>]",
    summary: "what a conversation holds worth remembering: proposals, or (--mode confirm|auto) saved memories",
    usage: "memdir extract --messages <file|-> [--mode suggest|confirm|auto] [--yes] [--provider <name>] [--model <id>] [--base-url <url>] [--timeout <ms>] [options]",
    details:
      "A side query reads the conversation and the saved memories and proposes memories to create, update or\nreplace; each is checked as remember checks a write (credentials, caps, near-duplicates become updates).\n--mode suggest (default) only shows them; confirm asks for each on a terminal (--yes saves them all);\nauto saves what passes. What is saved is one change: memdir undo <id> takes it back. Needs a model\n(ANTHROPIC_API_KEY, OPENAI_API_KEY, or --provider ollama). Exit 1 when the extraction failed.",
    options: ["messages", "mode", "yes", "provider", "model", "base-url", "timeout"],
    positionals: none("extract"),
    run: (ctx) => import("./run.js").then((m) => m.extract.run(ctx)),
  },
  consolidate: {
    args: "[--yes | --dry-run]",
    summary: "tidy the memory: merge near-duplicates, retire replaced facts, regroup the index — shows the diff, asks",
    usage: "memdir consolidate [--yes | --dry-run] [--force] [--max-files-changed <n>] [--provider <name>] [--model <id>] [--base-url <url>] [--timeout <ms>] [options]",
    details:
      "A side query over the memories that look alike proposes merges, supersessions, removals of what another\nmemory already says and a regrouped index; memdir keeps only what loses no word (a removal of a memory\nwhose words exist nowhere else is refused), at most --max-files-changed files (10). The diff first, then a\nquestion on a terminal; --yes applies, --dry-run only shows. One change: memdir undo <id> takes it back.\n--force asks the model even when no memories look alike (it may still regroup the index). Needs a model. Exit 1 when it failed, 2 when there was no terminal to ask on and no --yes.",
    options: ["yes", "dry-run", "force", "max-files-changed", "provider", "model", "base-url", "timeout"],
    positionals: none("consolidate"),
    run: (ctx) => import("./run.js").then((m) => m.consolidate.run(ctx)),
  },
  log: {
    args: "[<file>]",
    summary: "the history: every change memdir made to the folder, newest first",
    usage: "memdir log [<file>] [--since <time>] [options]",
    details: "Each change: its id (for undo), when, which route (remember, forget, tool, doctor, undo, restore) and\nwriter (cli, mcp, vscode, an agent's label), and each file created, changed or removed.",
    options: ["since"],
    positionals: (args) => {
      if (args.length > 1) throw new UsageError("log takes at most one file: memdir log feedback_testing.md", "log");
    },
    run: (ctx) => import("./run.js").then((m) => m.history.log(ctx)),
  },
  undo: {
    args: "<id> | --last",
    summary: "take one change back: shows the diff, asks, then restores each file (a deleted memory with its index line)",
    usage: "memdir undo <id> | --last [--yes | --dry-run] [--force] [options]",
    details:
      "Refused with CHANGED, nothing written, when a file changed since that change (a later edit is never\noverwritten) unless --force. Exit 1 when refused, 2 when there was no terminal to ask on and no --yes.",
    options: ["last", "yes", "dry-run", "force"],
    positionals: (args) => {
      if (args.length > 1) throw new UsageError("undo takes one change's id (memdir log lists them)", "undo");
    },
    run: (ctx) => import("./run.js").then((m) => m.history.undo(ctx)),
  },
  restore: {
    args: "--at <time>",
    summary: "bring every file memdir changed since a time back to how it was then: shows the diff, asks",
    usage: "memdir restore --at <time> [--yes | --dry-run] [--force] [options]",
    details: "As far back as the history reaches. Refused with CHANGED for a file changed outside memdir since,\nunless --force. Exit 1 when refused, 2 when there was no terminal to ask on and no --yes.",
    options: ["at", "yes", "dry-run", "force"],
    positionals: none("restore"),
    run: (ctx) => import("./run.js").then((m) => m.history.restore(ctx)),
  },
  export: {
    args: "<folder>",
    summary: "copy a memory into a plain folder, byte for byte: from a PostgreSQL store, or another folder",
    usage: "memdir export (--database <url> --memory <id> | --dir <path> | --project <path>) <folder> [--replace] [options]",
    details:
      "Every file of the memory — MEMORY.md, the topic files, the history in .memdir/ — with its modification\ntime, under the folder's write lock (and the memory's); the write lock itself never. A folder that holds\nfiles is refused unless --replace (then its files not in the memory are removed). A backup a person can\nread, and memdir import puts it back. --database needs pg: npm install pg.\nExit 1 when refused (nothing written), 3 when the memory does not exist, 4 when pg is missing.",
    options: ["database", "memory", "replace"],
    positionals: (args) => {
      if (args.length !== 1) throw new UsageError("export takes one folder to write: memdir export --database postgres://localhost/app --memory alice ./alice", "export");
    },
    run: (ctx) => import("./run.js").then((m) => m.transfer.exportMemory(ctx)),
  },
  import: {
    args: "<folder>",
    summary: "copy a plain folder into a memory, byte for byte: into a PostgreSQL store, or another folder",
    usage: "memdir import <folder> (--database <url> --memory <id> | --dir <path> | --project <path>) [--replace] [options]",
    details:
      "Every file of the folder — MEMORY.md, the topic files, the history in .memdir/ — with its modification\ntime, under the memory's write lock, so a writer of that memory waits for it; the write lock itself never.\nA memory that holds files is refused unless --replace (then its files not in the folder are removed).\n--database needs pg: npm install pg.\nExit 1 when refused (nothing written), 3 when the folder does not exist, 4 when pg is missing.",
    options: ["database", "memory", "replace"],
    positionals: (args) => {
      if (args.length !== 1) throw new UsageError("import takes one folder to read: memdir import ./alice --database postgres://localhost/app --memory alice", "import");
    },
    run: (ctx) => import("./run.js").then((m) => m.transfer.importMemory(ctx)),
  },
  "merge-index": {
    args: "<base> <ours> <theirs> [<path>]",
    summary: "git's merge driver for MEMORY.md: keeps every entry of both sides (memdir git-setup registers it)",
    usage: "memdir merge-index <base> <ours> <theirs> [<path>]",
    details:
      "Git runs it as `merge-index %O %A %B %P`: the merge is written over <ours>, exit 0. Every entry either side\nadded or edited is kept; a line goes only when one side removed it and the other left it as it was; no\nconflict markers. An entry both sides edited is kept twice, one line under the other: memdir doctor --fix\njoins them, keeping every word. Exit 1 when a file cannot be read or is not UTF-8 (git then marks a conflict).",
    options: [],
    positionals: (args) => {
      if (args.length < 3 || args.length > 4) throw new UsageError("merge-index takes the base, ours and theirs (git: %O %A %B %P): memdir merge-index base.md ours.md theirs.md", "merge-index");
    },
    run: (ctx) => import("./run.js").then((m) => m.git.mergeIndex(ctx)),
  },
  "git-setup": {
    summary: "register the MEMORY.md merge driver in the git repository holding the memory folder",
    usage: "memdir git-setup [--dir <memory folder>] [options]",
    details:
      "Adds `<folder>/MEMORY.md merge=memdir-index` to the repository's .gitattributes (once; its other lines kept;\ncommit it) and sets merge.memdir-index.driver in the repository's config to this node and this memdir by\nabsolute path. Git does not copy config: run it in each clone (again after moving node or memdir).\nExit 1 when the folder is not in a git work tree or git is missing.",
    options: [],
    positionals: none("git-setup"),
    run: (ctx) => import("./run.js").then((m) => m.git.gitSetup(ctx)),
  },
  mcp: {
    args: "[--read-only] [--no-index]",
    summary: "serve the memory to MCP clients over stdio (needs @modelcontextprotocol/sdk)",
    usage: "memdir mcp [--dir <path> | --project <path>] [--provider <name>] [--fallback] [--read-only] [--no-index] [options]",
    details:
      "Tools: recall, remember, forget, touch, extract, consolidate, doctor, history, undo, restore, and\nmemory_view, memory_create, memory_str_replace, memory_insert, memory_delete, memory_rename\n(Anthropic's memory tool, one tool a command).\nResources: memdir://index (MEMORY.md as the model sees it) and memdir://memory/<file>.\nNeeds @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk\nA missing memory folder is served empty; the first write makes it.",
    options: ["provider", "model", "base-url", "timeout", "fallback", "max-files", "read-only", "no-index"],
    globalsLeftOut: ["json"],
    exitStatus: "0 when the client disconnects (stdin ends) or on SIGTERM/SIGINT; 2 bad arguments;\n3 the memory directory is a file (or a folder above it is); 4 @modelcontextprotocol/sdk is missing.",
    positionals: none("mcp"),
    longRunning: true,
    run: (ctx) => import("../mcp/main.js").then((m) => m.run(ctx)),
  },
};
