/**
 * Wires the logic (`./logic/`) to the `vscode` API: the tree view, the commands, the doctor
 * diagnostics, the history and its undo, the settings and the secret key. Shared by the desktop and web entries, which
 * differ only in how the wasm is loaded and whether there is a home folder.
 */
import * as vscode from "vscode";
import {
  MemoryProvider,
  chooseScope,
  doctorDiagnostics,
  folderText,
  locateMemory,
  memoryPathOf,
  scopeLines,
  scopesSummary,
  doctorFixFlow,
  extractFlow,
  extractSummary,
  consolidateFlow,
  consolidateSummary,
  historyFlow,
  memoryTree,
  recallFlow,
  recallMarkdown,
  rememberFlow,
  reportSummary,
  secretKey,
  undoFlow,
  undoLastFlow,
  undoSummary,
  PROVIDERS,
  type FolderPlatform,
  type GroupNode,
  type HistoryOutcome,
  type HistoryUi,
  type MemoryNode,
  type Opened,
  type Prompts,
  type Settings,
  type ChosenScope,
  type DiagnosticSpec,
  type OpenedMemory,
  type TreeScope,
} from "./logic/index.js";

type Node = GroupNode | MemoryNode;
const SCHEME = "memdir";

function settings(): Settings {
  const c = vscode.workspace.getConfiguration("memdir");
  return {
    folder: c.get<string>("folder", ""),
    provider: c.get<string>("provider", "lexical"),
    model: c.get<string>("model", ""),
    baseUrl: c.get<string>("baseUrl", ""),
    staleDays: c.get<number>("staleDays", 90),
    scopes: c.get<unknown>("scopes", []),
  };
}

const prompts: Prompts = {
  input: async (o) => vscode.window.showInputBox({ title: o.title, prompt: o.prompt, value: o.value, placeHolder: o.placeHolder, ignoreFocusOut: true }),
  pick: async (items, o) => {
    if (!o.details) return vscode.window.showQuickPick(items, { title: o.title, placeHolder: o.placeHolder });
    const chosen = await vscode.window.showQuickPick(
      items.map((label, i) => ({ label, description: o.details?.[i] ?? "" })),
      { title: o.title, placeHolder: o.placeHolder },
    );
    return chosen?.label;
  },
  confirm: async (message, action) => (await vscode.window.showWarningMessage(message, { modal: true }, action)) === action,
};

/** Read-only documents under `memdir:`: the recall results and the fix diffs. */
class Documents implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  set(path: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }
}

class MemoryTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  constructor(private readonly memories: MemoryProvider<vscode.Uri>) {}
  refresh(): void {
    this.changed.fire(undefined);
  }
  async getChildren(node?: Node): Promise<Node[]> {
    if (node) return node.kind === "group" ? node.children : [];
    const opened = await this.memories.get().catch(() => null);
    if (opened === null) return [];
    this.lastOpened = opened;
    const scopes: TreeScope[] = opened.scopes.map((s) => ({ name: s.name, readOnly: s.readOnly, isDefault: s.isDefault, folder: folderText(s.folder.uri) }));
    return memoryTree(await opened.memory.scan(), Date.now(), scopes);
  }
  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === "group") {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      item.description = node.description;
      if (node.tooltip) item.tooltip = node.tooltip;
      item.contextValue = node.scope === undefined ? "memdir.group" : "memdir.scope";
      if (node.scope !== undefined) item.iconPath = new vscode.ThemeIcon(node.readOnly ? "lock" : "folder");
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.tooltip = node.tooltip;
    // a read-only scope's memory is recalled, never written: nothing to confirm or forget
    item.contextValue = node.readOnly ? "memdir.memory.readOnly" : node.stale ? "memdir.memory.stale" : "memdir.memory";
    item.iconPath = new vscode.ThemeIcon(node.problems.length > 0 ? "warning" : node.stale ? "history" : "note");
    const opened = this.lastOpened;
    if (opened) {
      // the file in ITS scope's folder
      const { folder, file } = locateMemory(opened, node.path);
      item.resourceUri = vscode.Uri.joinPath(folder, ...file.split("/"));
      item.command = { command: "vscode.open", title: "Open", arguments: [item.resourceUri] };
    }
    return item;
  }
  lastOpened: Opened<vscode.Uri> | undefined;
}

/** A command's handler that shows a failure (a host error, a locked folder) instead of rejecting into VS Code's generic notice. */
function guarded<A extends unknown[]>(run: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await run(...args);
    } catch (error) {
      void vscode.window.showErrorMessage(`memdir: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
}

/**
 * The memory a "Confirm still true" or "Forget" is for, as the opened memory names it
 * (`<scope>:<path>` with scopes): a tree node's path, a file's URI inside a memory folder, or
 * the open editor's file.
 */
function memoryTarget(target: unknown, opened: Opened<vscode.Uri>): string | undefined {
  if (target && typeof target === "object" && typeof (target as { path?: unknown }).path === "string" && (target as { kind?: unknown }).kind === "memory") return (target as { path: string }).path;
  const given = target as { scheme?: unknown; path?: unknown } | undefined;
  const uri = given && typeof given.scheme === "string" && typeof given.path === "string" ? (given as vscode.Uri) : vscode.window.activeTextEditor?.document.uri;
  return uri ? memoryPathOf(opened, uri) : undefined;
}

export async function activateWith(context: vscode.ExtensionContext, platform: FolderPlatform): Promise<void> {
  // the memory's scan cache hears of edits through one watcher of its folder (a hint: it still
  // lists everything in the background now and then)
  const watchTree = (base: vscode.Uri) => vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(base, "**"));
  const api = { fs: vscode.workspace.fs, joinPath: vscode.Uri.joinPath, file: vscode.Uri.file, watchTree };
  const memories = new MemoryProvider<vscode.Uri>({
    api,
    platform,
    settings,
    secrets: context.secrets,
    workspace: () => vscode.workspace.workspaceFolders?.[0]?.uri,
    trusted: () => vscode.workspace.isTrusted,
  });
  const documents = new Documents();
  const tree = new MemoryTreeProvider(memories);
  const diagnostics = vscode.languages.createDiagnosticCollection("memdir");
  const output = vscode.window.createOutputChannel("memdir");

  let announced: Opened<vscode.Uri> | undefined;
  const need = async (): Promise<Opened<vscode.Uri> | null> => {
    try {
      const opened = await memories.get();
      if (opened === null) void vscode.window.showWarningMessage("memdir: open a folder, or set memdir.folder to an absolute path");
      else {
        // the scopes, once per opening (a changed setting opens the memory anew)
        if (announced !== opened && opened.scopes.length > 0) output.appendLine(scopesSummary(opened.scopes));
        announced = opened;
        tree.lastOpened = opened;
      }
      return opened;
    } catch (error) {
      void vscode.window.showErrorMessage(`memdir: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  };

  /** Every folder doctor checks: the memory's one, or each scope's (read-only ones too: doctor only reads). */
  const doctorFolders = (opened: Opened<vscode.Uri>): { scope: string | null; memory: OpenedMemory; folder: vscode.Uri }[] =>
    opened.scopes.length === 0 ? [{ scope: null, memory: opened.memory, folder: opened.folder.uri }] : opened.scopes.map((s) => ({ scope: s.name, memory: s.memory, folder: s.folder.uri }));

  /** Doctor over every folder: the diagnostics on their files; returns the summary (one line per scope). */
  const runDoctor = async (opened: Opened<vscode.Uri>): Promise<string> => {
    const reports = [];
    for (const where of doctorFolders(opened)) reports.push({ ...where, report: await where.memory.doctor({ staleCoreDays: settings().staleDays }) });
    const lines: string[] = [];
    const found: [vscode.Uri, DiagnosticSpec[]][] = [];
    for (const { scope, memory, folder, report } of reports) {
      const texts = new Map<string, string>();
      const decoder = new TextDecoder();
      for (const file of new Set(report.findings.map((f) => f.file).filter(Boolean))) {
        const data = await memory.host.readFile(file, 1 << 20).catch(() => null);
        if (data !== null) texts.set(file, decoder.decode(data));
      }
      for (const [file, specs] of doctorDiagnostics(report, texts)) found.push([vscode.Uri.joinPath(folder, ...file.split("/")), specs]);
      lines.push(scope === null ? reportSummary(report) : `${scope}: ${reportSummary(report)}`);
    }
    // replaced in one go, with no await between: the Problems panel never shows a cleared or half set
    // (the real VS Code showed "No problems" under a badge of 3 while the files were read)
    diagnostics.clear();
    for (const [uri, specs] of found) setDiagnostics(uri, specs);
    const summary = lines.join("\n");
    output.appendLine(summary);
    return summary;
  };

  const setDiagnostics = (uri: vscode.Uri, specs: DiagnosticSpec[]): void =>
    diagnostics.set(
      uri,
      specs.map((s) => {
        const d = new vscode.Diagnostic(new vscode.Range(s.range.startLine, s.range.startCharacter, s.range.endLine, s.range.endCharacter), s.message, s.severity as vscode.DiagnosticSeverity);
        d.code = s.code;
        d.source = s.source;
        return d;
      }),
    );

  /** With scopes, which one a one-folder command works on (asked when two or more are writable); `undefined`: dismissed, or nowhere to write. */
  const scopeFor = async (opened: Opened<vscode.Uri>, title: string): Promise<ChosenScope | undefined> => {
    const chosen = await chooseScope(opened, prompts, title);
    if (chosen === null) void vscode.window.showWarningMessage("memdir: every scope in memdir.scopes is read-only: there is nothing to write");
    return chosen ?? undefined;
  };
  /** A modal question that names the scope it is about, when scoped. */
  const scopedConfirm = (chosen: ChosenScope) => (message: string, action: string) => prompts.confirm(chosen.scope === undefined ? message : `In the ${chosen.scope} scope: ${message}`, action);

  const refresh = async (): Promise<void> => {
    const opened = await need();
    tree.refresh();
    if (opened) await runDoctor(opened).catch((error: unknown) => output.appendLine(`doctor failed: ${String(error)}`));
  };

  const historyUi: HistoryUi = {
    confirm: prompts.confirm,
    pick: async (items, o) => vscode.window.showQuickPick(items, { title: o.title, placeHolder: o.placeHolder, matchOnDescription: true, matchOnDetail: true }),
    showDiff: async (diff) => {
      const doc = await vscode.workspace.openTextDocument(documents.set("/history.diff", diff));
      await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(doc, "diff"), { preview: true });
    },
  };

  /** The history's prompts, each modal question naming the scope when scoped. */
  const scopedHistoryUi = (chosen: ChosenScope): HistoryUi => ({ ...historyUi, confirm: scopedConfirm(chosen) });
  const scopeOption = (chosen: ChosenScope): { scope?: string } => (chosen.scope === undefined ? {} : { scope: chosen.scope });

  /** Whether `uri` is a memory of a read-only scope. */
  const readOnlyFile = (uri: vscode.Uri): boolean => {
    const opened = tree.lastOpened;
    const path = opened && opened.scopes.length > 0 ? memoryPathOf(opened, uri) : undefined;
    return path !== undefined && opened?.scopes.find((s) => path.startsWith(`${s.name}:`))?.readOnly === true;
  };

  /** Says how an undo ended; refreshes the view and the diagnostics when it wrote. */
  const undone = async (outcome: HistoryOutcome): Promise<void> => {
    const summary = undoSummary(outcome);
    if (summary) void (summary.level === "warning" ? vscode.window.showWarningMessage(summary.message) : vscode.window.showInformationMessage(summary.message));
    if (outcome.status === "applied") await refresh();
  };

  const selection = (): string => {
    const editor = vscode.window.activeTextEditor;
    return editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : "";
  };

  context.subscriptions.push(
    diagnostics,
    output,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, documents),
    vscode.window.registerTreeDataProvider("memdir.memories", tree),
    vscode.commands.registerCommand("memdir.refresh", guarded(refresh)),
    vscode.commands.registerCommand(
      "memdir.recall",
      guarded(async () => {
        const opened = await need();
        if (!opened) return;
        if (opened.selectorWarning) void vscode.window.showWarningMessage(`memdir: ${opened.selectorWarning}`);
        const done = await recallFlow(opened.memory, prompts, selection());
        if (!done) return;
        const uri = documents.set("/Recall.md", recallMarkdown(done.query, done.result, scopeLines(opened.scopes)));
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(doc, "markdown"), { preview: true });
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.remember",
      guarded(async () => {
        const opened = await need();
        if (!opened) return;
        // with scopes: which scope first (asked when two or more can be written)
        const outcome = await rememberFlow(opened.memory, prompts, selection(), opened);
        if (!outcome) return;
        if ("refused" in outcome) {
          void vscode.window.showErrorMessage(`memdir refused (${outcome.refused.code}): ${outcome.refused.message}`);
          return;
        }
        void vscode.window.showInformationMessage(`memdir: ${outcome.written.action} ${outcome.written.file}${outcome.written.scope === undefined ? "" : ` in scope ${outcome.written.scope}`}`);
        await refresh();
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.extract",
      guarded(async () => {
        const opened = await need();
        if (!opened) return;
        const editor = vscode.window.activeTextEditor;
        const text = selection() || editor?.document.getText() || "";
        if (!text.trim()) {
          void vscode.window.showWarningMessage("memdir: select a conversation (JSON messages or text) to extract memories from");
          return;
        }
        const chosen = await scopeFor(opened, "memdir: Extract memories into which scope?");
        if (!chosen) return;
        const result = await extractFlow(chosen.memory, { confirm: scopedConfirm(chosen) }, text);
        if (!result) return;
        const summary = extractSummary(result);
        if (summary.level === "error") void vscode.window.showErrorMessage(summary.message);
        else void vscode.window.showInformationMessage(summary.message);
        if (result.outcome === "saved") await refresh();
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.consolidate",
      guarded(async () => {
        const opened = await need();
        if (!opened) return;
        const showDiff = async (diff: string) => {
          const doc = await vscode.workspace.openTextDocument(documents.set("/consolidate.diff", diff));
          await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(doc, "diff"), { preview: true });
        };
        const chosen = await scopeFor(opened, "memdir: Consolidate which scope?");
        if (!chosen) return;
        const result = await consolidateFlow(chosen.memory, { confirm: scopedConfirm(chosen), showDiff });
        const summary = consolidateSummary(result);
        if (summary.level === "error") void vscode.window.showErrorMessage(summary.message);
        else void vscode.window.showInformationMessage(summary.message);
        if (result.outcome === "consolidated") await refresh();
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.touch",
      // from the tree (a memory node), a quick fix (the file's path), or the palette (the open file)
      guarded(async (target?: unknown) => {
        const opened = await need();
        if (!opened) return;
        const file = memoryTarget(target, opened);
        if (!file) {
          void vscode.window.showWarningMessage("memdir: open a memory file (or pick one in the Memory view) to confirm it");
          return;
        }
        // `<scope>:<path>` with scopes: the file in its own scope's folder
        await opened.memory.touch(file);
        void vscode.window.showInformationMessage(`memdir: ${file} confirmed true now`);
        await refresh();
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.forget",
      // from the tree (a memory node's context menu) or the palette (the open memory file)
      guarded(async (target?: unknown) => {
        const opened = await need();
        if (!opened) return;
        const file = memoryTarget(target, opened);
        if (!file) {
          void vscode.window.showWarningMessage("memdir: open a memory file (or pick one in the Memory view) to forget it");
          return;
        }
        const { scope } = locateMemory(opened, file);
        const where = scope === null ? "" : ` from the ${scope.name} scope (${folderText(scope.folder.uri)})`;
        if (!(await prompts.confirm(`Forget ${file}${where}? The file and its MEMORY.md line are removed; "Undo change…" takes it back.`, "Forget"))) return;
        await opened.memory.forget(file);
        void vscode.window.showInformationMessage(`memdir: forgot ${file}`);
        await refresh();
      }),
    ),
    vscode.languages.registerCodeActionsProvider(
      { language: "markdown" },
      {
        provideCodeActions: (_doc, _range, context) =>
          // nothing to confirm in a read-only scope (recalled, never written)
          (readOnlyFile(_doc.uri) ? [] : context.diagnostics)
            .filter((d) => d.source === "memdir" && d.code === "stale_core_memory")
            .map((d) => {
              const action = new vscode.CodeAction("memdir: Confirm this memory is still true", vscode.CodeActionKind.QuickFix);
              action.diagnostics = [d];
              action.command = { command: "memdir.touch", title: "Confirm still true", arguments: [_doc.uri] };
              return action;
            }),
      },
    ),
    vscode.commands.registerCommand(
      "memdir.doctor",
      guarded(async () => {
        const opened = await need();
        if (!opened) return;
        // every scope's folder (read-only ones too: doctor only reads), one line each
        void vscode.window.showInformationMessage(await runDoctor(opened));
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.doctorFix",
      guarded(async () => {
        const opened = await need();
        if (!opened) return;
        const chosen = await scopeFor(opened, "memdir: Doctor: fix which scope?");
        if (!chosen) return;
        const outcome = await doctorFixFlow(
          chosen.memory,
          {
            confirm: scopedConfirm(chosen),
            showDiff: async (diff) => {
              const doc = await vscode.workspace.openTextDocument(documents.set("/doctor-fixes.diff", diff));
              await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(doc, "diff"), { preview: true });
            },
          },
          { staleCoreDays: settings().staleDays },
        ).catch((error: unknown) => {
          void vscode.window.showErrorMessage(`memdir: ${error instanceof Error ? error.message : String(error)}`);
          return null;
        });
        if (outcome === null) return;
        if (outcome.status === "nothing_to_fix") void vscode.window.showInformationMessage("memdir doctor: nothing it can fix safely");
        else if (outcome.status === "declined") void vscode.window.showInformationMessage("memdir doctor: nothing was changed");
        else {
          void vscode.window.showInformationMessage(`memdir doctor: fixed ${outcome.plan.fixed}; ${reportSummary(outcome.after)}`);
          await refresh();
        }
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.history",
      guarded(async () => {
        const opened = await need();
        const chosen = opened && (await scopeFor(opened, "memdir: History of which scope?"));
        if (chosen) await undone(await historyFlow(chosen.memory, scopedHistoryUi(chosen), { mode: "all", ...scopeOption(chosen) }));
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.undo",
      // with an id (from another command or a keybinding's args): that change; without, a pick
      guarded(async (id?: unknown) => {
        const opened = await need();
        if (!opened) return;
        if (typeof id !== "string") {
          const chosen = await scopeFor(opened, "memdir: Undo a change in which scope?");
          return chosen && undone(await historyFlow(chosen.memory, scopedHistoryUi(chosen), { mode: "undo", ...scopeOption(chosen) }));
        }
        // an id: the scope whose history holds it (each scope keeps its own)
        const writable = opened.scopes.length === 0 ? [{ memory: opened.memory } as ChosenScope] : opened.scopes.filter((s) => !s.readOnly).map((s): ChosenScope => ({ memory: s.memory, scope: s.name }));
        for (const chosen of writable) {
          const entry = (await chosen.memory.history()).find((e) => e.id === id);
          if (entry !== undefined) return undone(await undoFlow(chosen.memory, scopedHistoryUi(chosen), entry));
        }
        void vscode.window.showWarningMessage(`memdir: no change ${id} in the history`);
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.undoLast",
      guarded(async () => {
        const opened = await need();
        const chosen = opened && (await scopeFor(opened, "memdir: Undo the last change in which scope?"));
        if (chosen) await undone(await undoLastFlow(chosen.memory, scopedHistoryUi(chosen)));
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.restore",
      guarded(async () => {
        const opened = await need();
        const chosen = opened && (await scopeFor(opened, "memdir: Restore which scope?"));
        if (chosen) await undone(await historyFlow(chosen.memory, scopedHistoryUi(chosen), { mode: "restore", ...scopeOption(chosen) }));
      }),
    ),
    vscode.commands.registerCommand(
      "memdir.setApiKey",
      guarded(async () => {
        const provider = await vscode.window.showQuickPick(
          PROVIDERS.filter((p) => p !== "lexical"),
          { title: "memdir: Set API key", placeHolder: "For which provider?" },
        );
        if (!provider) return;
        const key = await vscode.window.showInputBox({ title: `memdir: ${provider} API key`, prompt: "Kept in VS Code's secret storage; empty to remove", password: true, ignoreFocusOut: true });
        if (key === undefined) return;
        if (key.trim()) await context.secrets.store(secretKey(provider), key.trim());
        else await context.secrets.delete(secretKey(provider));
        memories.invalidate();
      }),
    ),
    context.secrets.onDidChange(() => memories.invalidate()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration("memdir")) return;
      memories.invalidate();
      void refresh();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      memories.invalidate();
      void refresh();
    }),
    vscode.workspace.onDidSaveTextDocument((doc) => {
      const opened = tree.lastOpened;
      if (opened && memoryPathOf(opened, doc.uri) !== undefined) void refresh();
    }),
    { dispose: () => memories.invalidate() },
  );
  await refresh();
}
