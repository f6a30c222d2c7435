/** The extension's logic, free of the `vscode` module (tested in tests/vscode/ with fakes). */
export { memoryFolder, findProjectRoot, type FolderPlatform, type MemoryFolder } from "./folder.js";
export { workspaceFsHost } from "./host.js";
export { chooseScope, folderText, locateMemory, memoryFolders, memoryPathOf, scopedTitle, scopeLines, scopeSettings, scopesSummary, writableScopes, type ChosenScope, type OpenedScope, type ScopeSetting, type ScopedOpened } from "./scopes.js";
export { MemoryProvider, type MemoryDeps, type Opened } from "./memory.js";
export { resolveSelector, secretKey, PROVIDERS, type ResolvedSelector } from "./selector.js";
export { memoryTree, type GroupNode, type MemoryNode, type TreeScope } from "./tree.js";
export { recallFlow, recallMarkdown } from "./recall.js";
export { rememberFlow, TYPES, type RememberOutcome } from "./remember.js";
export { conversationOf, extractFlow, extractSummary, proposalQuestion } from "./extract.js";
export { consolidateFlow, consolidateSummary, type ConsolidateUi } from "./consolidate.js";
export { doctorDiagnostics, doctorFixFlow, reportSummary, SEVERITY, type DiagnosticSpec, type FixOutcome, type FixUi } from "./doctor.js";
export { historyFlow, historyPicks, restoreFlow, restoreQuestion, historyTime, undoFlow, undoLastFlow, undoSummary, undoable, undoQuestion, overwriteQuestion, changesText, HISTORY_LABEL, type HistoryEntry, type HistoryOutcome, type HistoryPick, type HistoryUi, type ReverseKind, type UndoOutcome } from "./history.js";
export type { FsApi, OpenedMemory, Prompts, SecretsLike, Settings, ThenableLike, UriLike, WorkspaceFs } from "./types.js";
