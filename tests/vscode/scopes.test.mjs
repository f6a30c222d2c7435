// `memdir.scopes` in the extension: the desktop bundle (dist/desktop.js) activated with the fake
// `vscode` module (fake-vscode.mjs) and three scopes — `team` (read-only), `user` (takes user
// memories), `project` (takes any: the default write scope) — then what a user does: the tree
// groups by scope, Recall names the scopes, Remember picks a scope and the file lands in its
// folder, Forget and Confirm from the tree act on the node's own scope's folder, the history is a
// scope's; a read-only scope is never offered. And the logic alone: the setting checked, the tree,
// the pick's order. A bad setting shows memdir's INVALID_ARGUMENT.
import assert from "node:assert/strict";
import Module, { createRequire } from "node:module";
import { join } from "node:path";
import { describe, test } from "node:test";
import { openMemory } from "memdir";
import { createFakeVsCode, Uri } from "../js/vscode-fake.mjs";
import { createVsCodeModule } from "./fake-vscode.mjs";
import { extensionDir, logic } from "./setup.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const WORKSPACE = "/work/project";
const memoryFile = (type, name, description, body = "Body.") => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;

// in order of precedence: team first (read-only), then user (user memories), then project (any type)
const SCOPES = [
  { name: "team", folder: "team-memory", readOnly: true },
  { name: "user", folder: "user-memory", types: ["user"] },
  { name: "project", folder: "memory" },
];
const FILES = {
  "team-memory/MEMORY.md": "- [Deploy rota](reference_rota.md) — who deploys the payments service\n",
  "team-memory/reference_rota.md": memoryFile("reference", "Deploy rota", "Who deploys the payments service each week", "#pay-deploys"),
  "user-memory/MEMORY.md": "- [Tests](feedback_tests.md) — postgres tests\n",
  "user-memory/feedback_tests.md": memoryFile("feedback", "Tests", "Integration tests hit a real postgres database", "The user's rule."),
  "memory/MEMORY.md": "- [Tests](feedback_tests.md) — postgres tests\n",
  "memory/feedback_tests.md": memoryFile("feedback", "Tests", "Integration tests hit a real postgres database, never mocks", "The project's rule."),
};

/** Activates dist/desktop.js with the fake `vscode` module, `settings` and FILES under the workspace. */
async function activated(settings, files = FILES) {
  const fake = createVsCodeModule({ settings });
  const { vscode, vs, context } = fake;
  for (const [path, content] of Object.entries(files)) await vs.fs.writeFile(vscode.Uri.file(`${WORKSPACE}/${path}`), encoder.encode(content));
  const bundle = join(extensionDir, "dist", "desktop.js");
  const realLoad = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === "vscode") return vscode;
    return realLoad.call(this, request, parent, isMain);
  };
  try {
    const require = createRequire(import.meta.url);
    delete require.cache[bundle];
    await require(bundle).activate(context);
  } finally {
    Module._load = realLoad;
  }
  const read = (path) => vs.fs.readFile(vscode.Uri.file(`${WORKSPACE}/${path}`)).then((b) => decoder.decode(b), (e) => `missing: ${e.code}`);
  const tree = fake.trees.get("memdir.memories");
  const errors = () => fake.messages.filter((m) => m.kind === "error").map((m) => m.message);
  return { ...fake, read, tree, errors, dispose: () => context.subscriptions.forEach((d) => d.dispose()) };
}

/** Every memory node under a group, depth first. */
const leaves = (nodes) => nodes.flatMap((n) => (n.kind === "group" ? leaves(n.children) : [n]));

describe("the desktop bundle with memdir.scopes", () => {
  test("the tree groups by scope (its folder, read-only, the default for writes), then by type; a node opens its own scope's file", async () => {
    const ext = await activated({ "memdir.scopes": SCOPES });
    const groups = await ext.tree.getChildren();
    assert.deepEqual(
      groups.map((g) => [g.label, g.description, g.children.map((t) => [t.label, t.children.map((c) => c.path)])]),
      [
        ["team", `${WORKSPACE}/team-memory · read-only · 1 memory`, [["Reference", ["team:reference_rota.md"]]]],
        ["user", `${WORKSPACE}/user-memory · 1 memory`, [["Feedback", ["user:feedback_tests.md"]]]],
        ["project", `${WORKSPACE}/memory · default for writes · 1 memory`, [["Feedback", ["project:feedback_tests.md"]]]],
      ],
    );
    const items = leaves(groups).map((n) => ext.tree.getTreeItem(n));
    assert.deepEqual(
      items.map((i) => [i.resourceUri.toString(), i.command.arguments[0].toString(), i.contextValue]),
      [
        [`file://${WORKSPACE}/team-memory/reference_rota.md`, `file://${WORKSPACE}/team-memory/reference_rota.md`, "memdir.memory.readOnly"],
        [`file://${WORKSPACE}/user-memory/feedback_tests.md`, `file://${WORKSPACE}/user-memory/feedback_tests.md`, "memdir.memory"],
        [`file://${WORKSPACE}/memory/feedback_tests.md`, `file://${WORKSPACE}/memory/feedback_tests.md`, "memdir.memory"],
      ],
    );
    const scopeItem = ext.tree.getTreeItem(groups[0]);
    assert.match(scopeItem.tooltip, /^The team scope: \/work\/project\/team-memory\nread-only: recalled, never written$/);
    assert.equal(scopeItem.contextValue, "memdir.scope");
    // the output channel says the scopes, in order of precedence
    assert.deepEqual(ext.errors(), []);
    ext.dispose();
  });

  test("Recall spans every scope and its document names each memory's scope and the scopes in order", async () => {
    const ext = await activated({ "memdir.scopes": SCOPES });
    ext.answers.push("who deploys the payments service, and do integration tests hit postgres?");
    await ext.vscode.commands.executeCommand("memdir.recall");
    const text = ext.shown.at(-1).doc.getText();
    assert.match(text, /^Scopes, the first wins when two disagree: team \(read-only\): \/work\/project\/team-memory; user \(writable\): \/work\/project\/user-memory; project \(default for writes\): \/work\/project\/memory$/m);
    assert.match(text, /^- `team:reference_rota\.md` from the \*\*team\*\* scope — today$/m);
    assert.match(text, /^- `(user|project):feedback_tests\.md` from the \*\*(user|project)\*\* scope — today$/m);
    for (const [, path, scope] of text.matchAll(/^- `(([a-z]+):[^`]+)` from the \*\*([a-z]+)\*\* scope/gm)) assert.equal(path.split(":")[0], scope);
    assert.deepEqual(ext.errors(), []);
    ext.dispose();
  });

  test("Remember asks the scope first — the writable ones, the default first, never the read-only — and the file lands in that scope's folder", async () => {
    const ext = await activated({ "memdir.scopes": SCOPES });
    let offered;
    ext.answers.push((asked) => ((offered = asked), asked.items.find((i) => i.label === "user")), "feedback", "Editor", "The user edits with vim keys", "Prefers vim keybindings.");
    await ext.vscode.commands.executeCommand("memdir.remember");
    assert.deepEqual(offered.items.map((i) => [i.label, i.description]), [
      ["project", `${WORKSPACE}/memory · default for writes`],
      ["user", `${WORKSPACE}/user-memory`],
    ]);
    assert.equal(offered.options.title, "memdir: Remember (1/5)");
    const titles = ext.messages.filter((m) => m.kind === "pick" || m.kind === "input").map((m) => m.options.title);
    assert.deepEqual(titles.slice(1), ["memdir: Remember (2/5) in scope user", "memdir: Remember (3/5) in scope user", "memdir: Remember (4/5) in scope user", "memdir: Remember (5/5) in scope user"]);
    // a feedback memory in the user scope, though user takes only user memories by type: the scope named wins
    assert.match(await ext.read("user-memory/feedback_editor.md"), /^---\nname: Editor\n[\s\S]*Prefers vim keybindings\.\n$/);
    assert.match(await ext.read("user-memory/MEMORY.md"), /\(feedback_editor\.md\)/);
    assert.equal(await ext.read("memory/feedback_editor.md"), "missing: FileNotFound");
    assert.doesNotMatch(await ext.read("memory/MEMORY.md"), /feedback_editor/);
    assert.equal(ext.messages.filter((m) => m.kind === "info").at(-1).message, "memdir: created feedback_editor.md in scope user");
    assert.deepEqual(ext.errors(), []);
    ext.dispose();
  });

  test("Forget from the tree removes the file from its own scope's folder and not the other's; a read-only scope's memory is refused", async () => {
    const ext = await activated({ "memdir.scopes": SCOPES });
    const nodes = leaves(await ext.tree.getChildren());
    const userTests = nodes.find((n) => n.path === "user:feedback_tests.md");
    ext.answers.push("Forget");
    await ext.vscode.commands.executeCommand("memdir.forget", userTests);
    const question = ext.messages.filter((m) => m.kind === "warning").at(-1);
    assert.equal(question.message, `Forget user:feedback_tests.md from the user scope (${WORKSPACE}/user-memory)? The file and its MEMORY.md line are removed; "Undo change…" takes it back.`);
    assert.deepEqual(question.rest, [{ modal: true }, "Forget"]);
    assert.equal(await ext.read("user-memory/feedback_tests.md"), "missing: FileNotFound");
    assert.equal(await ext.read("user-memory/MEMORY.md"), "");
    assert.equal(await ext.read("memory/feedback_tests.md"), FILES["memory/feedback_tests.md"], "the project scope's file of the same name stays");
    assert.equal(await ext.read("memory/MEMORY.md"), FILES["memory/MEMORY.md"]);
    assert.deepEqual(leaves(await ext.tree.getChildren()).map((n) => n.path), ["team:reference_rota.md", "project:feedback_tests.md"]);

    // the read-only scope: its node offers no Forget (contextValue) and the command is refused, nothing written
    const team = nodes.find((n) => n.scope === "team");
    ext.answers.push("Forget");
    await ext.vscode.commands.executeCommand("memdir.forget", team);
    assert.match(ext.errors().at(-1), /^memdir: invalid argument: scope "team" is read-only/);
    assert.equal(await ext.read("team-memory/reference_rota.md"), FILES["team-memory/reference_rota.md"]);

    // the history (and its undo) is a scope's own: the pick offers the writable scopes, the forget is in user's
    ext.answers.push((asked) => ((ext.offered = asked.items.map((i) => i.label)), asked.items.find((i) => i.label === "user")), (asked) => ((ext.history = asked), asked.items[0]), "Undo");
    await ext.vscode.commands.executeCommand("memdir.history");
    assert.deepEqual(ext.offered, ["project", "user"]);
    assert.equal(ext.history.options.title, "memdir: History (scope user)");
    assert.match(ext.history.items[0].detail, /removed feedback_tests\.md/);
    assert.match(ext.messages.filter((m) => m.kind === "warning").at(-1).message, /^In the user scope: Undo the forget of /);
    assert.equal(await ext.read("user-memory/feedback_tests.md"), FILES["user-memory/feedback_tests.md"], "undone: back in the user scope's folder");
    assert.equal(ext.errors().length, 1);
    ext.dispose();
  });

  test("Confirm still true on a node touches the file in its scope's folder; doctor's diagnostics land on each scope's files", async () => {
    const files = { ...FILES, "user-memory/MEMORY.md": "- [Tests](feedback_tests.md) — postgres tests\n- [Gone](gone.md) — gone\n" };
    const ext = await activated({ "memdir.scopes": SCOPES }, files);
    const [collection] = ext.collections;
    assert.deepEqual([...collection.map.keys()].filter((uri) => uri.endsWith("MEMORY.md")), [`file://${WORKSPACE}/user-memory/MEMORY.md`]);
    assert.deepEqual(collection.map.get(`file://${WORKSPACE}/user-memory/MEMORY.md`).map((d) => [d.code, d.range.start.line]), [["dead_link", 1]]);
    const node = leaves(await ext.tree.getChildren()).find((n) => n.path === "project:feedback_tests.md");
    await ext.vscode.commands.executeCommand("memdir.touch", node);
    assert.match(await ext.read("memory/feedback_tests.md"), /\nmetadata:\n {2}modified: \d{4}-/);
    assert.equal(await ext.read("user-memory/feedback_tests.md"), FILES["user-memory/feedback_tests.md"]);
    // from the palette with the file open: the path inside a scope's folder is that scope's memory
    ext.vscode.window.activeTextEditor = { document: { uri: ext.vscode.Uri.file(`${WORKSPACE}/user-memory/feedback_tests.md`) }, selection: { isEmpty: true } };
    await ext.vscode.commands.executeCommand("memdir.touch");
    assert.match(await ext.read("user-memory/feedback_tests.md"), /\nmetadata:\n {2}modified: \d{4}-/);
    // the quick fix "Confirm still true" is not offered on a read-only scope's file
    const [{ provider }] = ext.codeActions;
    const stale = { diagnostics: [{ source: "memdir", code: "stale_core_memory" }] };
    assert.equal(provider.provideCodeActions({ uri: ext.vscode.Uri.file(`${WORKSPACE}/team-memory/reference_rota.md`) }, null, stale).length, 0);
    assert.equal(provider.provideCodeActions({ uri: ext.vscode.Uri.file(`${WORKSPACE}/user-memory/feedback_tests.md`) }, null, stale).length, 1);
    const groups = await ext.tree.getChildren();
    assert.deepEqual(groups.map((g) => ext.tree.getTreeItem(g).iconPath.id), ["lock", "folder", "folder"]);
    await ext.vscode.commands.executeCommand("memdir.doctor");
    assert.match(ext.messages.filter((m) => m.kind === "info").at(-1).message, /^team: memdir doctor: [^\n]*\nuser: memdir doctor: 1 error[^\n]*\nproject: memdir doctor: /);
    assert.deepEqual(ext.errors(), []);
    ext.dispose();
  });

  test("a bad memdir.scopes shows memdir's INVALID_ARGUMENT message, as a bad memdir.folder does", async () => {
    const cases = [
      [[{ name: "Team", folder: "t" }], /^memdir: invalid argument: scope name "Team": use 1-32 of a-z/],
      [[{ name: "a", folder: "x" }, { name: "a", folder: "y" }], /^memdir: invalid argument: scope "a" is given twice/],
      [[{ name: "a" }], /^memdir: invalid argument: memdir\.scopes: scope "a" needs a folder$/],
      [[{ name: "a", folder: "same" }, { name: "b", folder: "same/" }], /^memdir: invalid argument: scopes "a" and "b" are the same folder/],
      ["team=t", /^memdir: invalid argument: memdir\.scopes: a list of/],
    ];
    for (const [scopes, expected] of cases) {
      const ext = await activated({ "memdir.scopes": scopes });
      assert.equal(ext.errors().length, 1, JSON.stringify(scopes));
      assert.match(ext.errors()[0], expected);
      assert.match(ext.errors()[0], /^memdir: invalid argument: /);
      assert.deepEqual(await ext.tree.getChildren(), []);
      ext.dispose();
    }
  });

  test("no memdir.scopes: one folder, as before (no scope asked, paths unscoped)", async () => {
    const ext = await activated({ "memdir.folder": "memory" });
    assert.deepEqual(leaves(await ext.tree.getChildren()).map((n) => [n.path, n.scope]), [["feedback_tests.md", null]]);
    ext.answers.push("user", "Editor", "The user edits with vim keys", "Prefers vim keybindings.");
    await ext.vscode.commands.executeCommand("memdir.remember");
    assert.match(await ext.read("memory/user_editor.md"), /Prefers vim keybindings/);
    assert.deepEqual(ext.errors(), []);
    ext.dispose();
  });
});

describe("the logic", () => {
  const ROOT = "/work/project";
  async function opened(scopes, files = FILES) {
    const vs = createFakeVsCode({ now: () => Date.UTC(2026, 11, 3, 12) });
    for (const [path, content] of Object.entries(files)) {
      const parts = `${ROOT}/${path}`.split("/");
      for (let i = 2; i < parts.length; i++) await vs.fs.createDirectory(Uri.file(parts.slice(0, i).join("/"))).catch(() => {});
      await vs.fs.writeFile(Uri.file(`${ROOT}/${path}`), encoder.encode(content));
    }
    const api = { fs: vs.fs, joinPath: Uri.joinPath, file: Uri.file };
    const provider = new logic.MemoryProvider({
      api,
      platform: { homeDir: null, configDir: null },
      settings: () => ({ folder: "", provider: "lexical", model: "", baseUrl: "", staleDays: 90, scopes }),
      secrets: { get: async () => undefined, store: async () => {}, delete: async () => {} },
      workspace: () => Uri.file(ROOT),
      trusted: () => true,
    });
    return { vs, api, opened: await provider.get(), provider };
  }

  test("scopeSettings checks the shape; memdir checks the names", async () => {
    assert.deepEqual(logic.scopeSettings(undefined), []);
    assert.deepEqual(logic.scopeSettings([{ name: "a", folder: " x ", readOnly: true, types: ["user"] }]), [{ name: "a", folder: "x", readOnly: true, types: ["user"] }]);
    for (const bad of [{}, [null], [{ folder: "x" }], [{ name: "a", folder: "" }], [{ name: "a", folder: "x", readOnly: "yes" }], [{ name: "a", folder: "x", types: "user" }]]) {
      assert.throws(() => logic.scopeSettings(bad), (e) => e.code === "INVALID_ARGUMENT", JSON.stringify(bad));
    }
    await assert.rejects(opened([{ name: "a", folder: "x", types: ["bogus"] }]).then((o) => o.opened), (e) => e.code === "INVALID_ARGUMENT");
    await assert.rejects(opened([{ name: "9a", folder: "x" }]).then((o) => o.opened), (e) => e.code === "INVALID_ARGUMENT");
  });

  test("the opened memory: each scope's folder and memory, the default write scope; the pick puts the default first and leaves read-only out", async () => {
    const { opened: o } = await opened(SCOPES);
    assert.deepEqual(o.scopes.map((s) => [s.name, s.readOnly, s.isDefault, s.folder.uri.path, s.memory.dir]), [
      ["team", true, false, `${ROOT}/team-memory`, `file://${ROOT}/team-memory`],
      ["user", false, false, `${ROOT}/user-memory`, `file://${ROOT}/user-memory`],
      ["project", false, true, `${ROOT}/memory`, `file://${ROOT}/memory`],
    ]);
    assert.equal(o.folder.uri.path, `${ROOT}/memory`);
    const asked = [];
    const chosen = await logic.chooseScope(o, { pick: async (items, options) => (asked.push([items, options]), "user") }, "memdir: X");
    assert.deepEqual(asked[0][0], ["project", "user"]);
    assert.deepEqual(asked[0][1].details, [`${ROOT}/memory · default for writes`, `${ROOT}/user-memory`]);
    assert.equal(chosen.scope, "user");
    assert.equal(chosen.memory, o.scopes[1].memory);
    assert.equal(logic.scopedTitle("memdir: History", chosen), "memdir: History (scope user)");
    assert.equal(await logic.chooseScope(o, { pick: async () => undefined }, "t"), undefined);
    // one writable scope: no question; none: null
    const { opened: one } = await opened([SCOPES[0], SCOPES[2]]);
    assert.equal((await logic.chooseScope(one, { pick: () => assert.fail("asked") }, "t")).scope, "project");
    const { opened: none } = await opened([SCOPES[0]]);
    assert.equal(await logic.chooseScope(none, { pick: () => assert.fail("asked") }, "t"), null);
    const refused = await logic.rememberFlow(none.memory, { pick: () => assert.fail("asked") }, "", none);
    assert.equal(refused.refused.code, "INVALID_ARGUMENT");
    // `claude`: the folder an empty memdir.folder means — Claude Code's on the desktop, memory/ in the workspace on the web
    const desktop = new logic.MemoryProvider({
      api: { fs: (await opened([])).vs.fs, joinPath: Uri.joinPath, file: Uri.file },
      platform: { homeDir: "/home/ada", configDir: null },
      settings: () => ({ folder: "", provider: "lexical", model: "", baseUrl: "", staleDays: 90, scopes: [{ name: "local", folder: "claude" }, { name: "shared", folder: "memory" }] }),
      secrets: { get: async () => undefined, store: async () => {}, delete: async () => {} },
      workspace: () => Uri.file(ROOT),
      trusted: () => true,
    });
    assert.deepEqual((await desktop.get()).scopes.map((s) => [s.name, s.folder.source, s.folder.uri.path]), [["local", "claude", "/home/ada/.claude/projects/-work-project/memory"], ["shared", "setting", `${ROOT}/memory`]]);
    const { opened: web } = await opened([{ name: "local", folder: "claude" }]);
    assert.equal(web.scopes[0].folder.uri.path, `${ROOT}/memory`);
    assert.deepEqual(logic.locateMemory(o, "user:a/b.md").file, "a/b.md");
    assert.equal(logic.locateMemory(o, "user:a/b.md").folder.path, `${ROOT}/user-memory`);
    assert.equal(logic.memoryPathOf(o, Uri.file(`${ROOT}/memory/x.md`)), "project:x.md");
    assert.equal(logic.memoryPathOf(o, Uri.file(`${ROOT}/elsewhere/x.md`)), undefined);
  });

  test("memoryTree: one scope is not grouped by scope; the files past a scope's cap stay in its group", async () => {
    const { opened: o } = await opened(SCOPES, { ...FILES, "memory/notes.md": "no frontmatter\n" });
    const capped = await openMemory({ scopes: o.scopes.map((s) => ({ name: s.name, readOnly: s.readOnly, host: s.memory.host, ...(s.name === "project" ? { limits: { maxFiles: 1 } } : {}) })) });
    const scopes = o.scopes.map((s) => ({ name: s.name, readOnly: s.readOnly, isDefault: s.isDefault, folder: s.folder.uri.path }));
    const groups = logic.memoryTree(await capped.scan(), Date.now(), scopes);
    const project = groups.find((g) => g.label === "project");
    assert.deepEqual(project.children.map((g) => [g.label, g.children.map((c) => [c.path, c.file, c.dropped])]), [
      ["Feedback", [["project:feedback_tests.md", "feedback_tests.md", false]]],
      ["Beyond the cap", [["project:notes.md", "notes.md", true]]],
    ]);
    assert.equal(project.description, `${ROOT}/memory · default for writes · 2 memories`);
    const only = await openMemory({ scopes: [{ name: "only", host: o.scopes[2].memory.host }] });
    const flat = logic.memoryTree(await only.scan(), Date.now(), [{ name: "only", readOnly: false, isDefault: true, folder: "/x" }]);
    assert.deepEqual(flat.map((g) => [g.label, g.children.map((c) => [c.path, c.scope, c.file])]), [["Feedback", [["only:feedback_tests.md", "only", "feedback_tests.md"]]], ["No type", [["only:notes.md", "only", "notes.md"]]]]);
  });
});
