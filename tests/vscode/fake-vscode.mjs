// The `vscode` module as the extension uses it, for loading the built bundles outside VS Code:
// `workspace.fs` and `Uri` are tests/js/vscode-fake.mjs (FileSystemError codes, Uri objects);
// the rest records what the extension registers and answers its prompts from a script.
import { createFakeVsCode, Uri } from "../js/vscode-fake.mjs";

Uri.from ??= ({ scheme, authority = "", path = "", query = "", fragment = "" }) => new Uri(scheme, authority, path, query, fragment);

class EventEmitter {
  listeners = new Set();
  event = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(value) {
    for (const l of this.listeners) l(value);
  }
  dispose() {
    this.listeners.clear();
  }
}

/** A fake `vscode` module over a fresh in-memory file system; `answers` is the queue of prompt answers (a value, or a function of what was asked). */
export function createVsCodeModule({ workspacePath = "/work/project", settings = {}, now } = {}) {
  const vs = createFakeVsCode(now ? { now } : {});
  const commands = new Map();
  const trees = new Map();
  const contentProviders = new Map();
  const collections = [];
  const codeActions = [];
  const shown = [];
  const messages = [];
  const answers = [];
  const configChanged = new EventEmitter();
  const answer = (kind, detail) => {
    messages.push({ kind, ...detail });
    const next = answers.shift();
    // an answer may be a function of what was asked (a QuickPick's items are objects made on the spot)
    return Promise.resolve(typeof next === "function" ? next(detail) : next);
  };
  const secretsChanged = new EventEmitter();
  const secretStore = new Map();
  const vscode = {
    Uri,
    EventEmitter,
    FileType: vs.FileType,
    FileSystemError: vs.FileSystemError,
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    TreeItem: class {
      constructor(label, collapsibleState) {
        this.label = label;
        this.collapsibleState = collapsibleState;
      }
    },
    ThemeIcon: class {
      constructor(id) {
        this.id = id;
      }
    },
    Range: class {
      constructor(startLine, startCharacter, endLine, endCharacter) {
        Object.assign(this, { start: { line: startLine, character: startCharacter }, end: { line: endLine, character: endCharacter } });
      }
    },
    CodeAction: class {
      constructor(title, kind) {
        Object.assign(this, { title, kind });
      }
    },
    CodeActionKind: { QuickFix: "quickfix" },
    Diagnostic: class {
      constructor(range, message, severity) {
        Object.assign(this, { range, message, severity });
      }
    },
    workspace: {
      fs: vs.fs,
      workspaceFolders: workspacePath ? [{ uri: Uri.file(workspacePath), name: "project", index: 0 }] : undefined,
      isTrusted: true,
      getConfiguration: (section) => ({ get: (key, fallback) => settings[`${section}.${key}`] ?? fallback }),
      onDidChangeConfiguration: configChanged.event,
      onDidChangeWorkspaceFolders: new EventEmitter().event,
      onDidSaveTextDocument: new EventEmitter().event,
      registerTextDocumentContentProvider: (scheme, provider) => {
        contentProviders.set(scheme, provider);
        return { dispose: () => contentProviders.delete(scheme) };
      },
      openTextDocument: async (uri) => {
        const provider = contentProviders.get(uri.scheme);
        const text = provider ? provider.provideTextDocumentContent(uri) : new TextDecoder().decode(await vs.fs.readFile(uri));
        return { uri, languageId: "plaintext", getText: () => text };
      },
    },
    window: {
      activeTextEditor: undefined,
      showInputBox: (options) => answer("input", { options }),
      showQuickPick: (items, options) => answer("pick", { items, options }),
      showWarningMessage: (message, ...rest) => answer("warning", { message, rest }),
      showInformationMessage: (message, ...rest) => (messages.push({ kind: "info", message, rest }), Promise.resolve(undefined)),
      showErrorMessage: (message, ...rest) => (messages.push({ kind: "error", message, rest }), Promise.resolve(undefined)),
      createOutputChannel: (name) => ({ name, lines: [], appendLine(line) { this.lines.push(line); }, dispose() {} }),
      registerTreeDataProvider: (id, provider) => {
        trees.set(id, provider);
        return { dispose: () => trees.delete(id) };
      },
      showTextDocument: async (doc, options) => (shown.push({ doc, options }), { document: doc }),
    },
    languages: {
      createDiagnosticCollection: (name) => {
        const map = new Map();
        // glimpses: the count a view would render right after clear() (a microtask later): a
        // collection cleared and then filled across awaits shows fewer than it ends with
        const glimpses = [];
        const clear = () => {
          map.clear();
          queueMicrotask(() => glimpses.push(map.size));
        };
        const collection = { name, map, glimpses, set: (uri, list) => map.set(uri.toString(), list), clear, get: (uri) => map.get(uri.toString()), dispose: () => map.clear() };
        collections.push(collection);
        return collection;
      },
      setTextDocumentLanguage: async (doc, languageId) => ({ ...doc, languageId }),
      registerCodeActionsProvider: (selector, provider) => {
        codeActions.push({ selector, provider });
        return { dispose: () => codeActions.splice(codeActions.indexOf(codeActions.find((c) => c.provider === provider)), 1) };
      },
    },
    commands: {
      registerCommand: (id, fn) => {
        if (commands.has(id)) throw new Error(`command ${id} already registered`);
        commands.set(id, fn);
        return { dispose: () => commands.delete(id) };
      },
      executeCommand: (id, ...args) => commands.get(id)(...args),
    },
  };
  const context = {
    subscriptions: [],
    extensionUri: Uri.file("/ext"),
    secrets: {
      get: async (key) => secretStore.get(key),
      store: async (key, value) => (secretStore.set(key, value), secretsChanged.fire({ key })),
      delete: async (key) => (secretStore.delete(key), secretsChanged.fire({ key })),
      onDidChange: secretsChanged.event,
    },
  };
  return { vscode, vs, context, commands, trees, collections, codeActions, shown, messages, answers, secretStore, settings, configChanged };
}
