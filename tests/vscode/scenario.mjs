// One scenario, run against the desktop bundle in Node (bundle.test.mjs) and the web bundle in a
// Chromium web worker (web-worker.mjs): activate with the fake `vscode` module, then use what a
// user would — the tree, the diagnostics, Recall, Remember, Doctor: fix (declined, then
// applied), Undo last change, Show history, Set API key. Returns plain data for the test to check. No Node APIs here.
import { createVsCodeModule } from "./fake-vscode.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const NOW_FILES = {
  "MEMORY.md": "- [Integration tests](feedback_tests.md) — real database\n- [Gone](gone.md) — was here\n- [Broken](project_broken.md) — broken\n",
  "feedback_tests.md": "---\nname: Integration tests\ndescription: Integration tests must hit a real postgres database, never mocks\ntype: feedback\n---\nUse a real DB.\n",
  // the dead entry's words are here too, so --fix may remove it (a line whose words are the only copy is kept)
  "project_broken.md": "---\nname: Broken\ndescription: &d Broken deploys\ntype: *d\n---\nbody: Gone was here\n",
};

/** `load(vscode)` returns the bundle's exports with `require("vscode")` answered by the fake; `memoryDir` is where the memory is expected. */
export async function runScenario({ load, memoryDir, settings = {} }) {
  const fake = createVsCodeModule({ settings });
  const { vscode, vs, context } = fake;
  const file = (path) => vscode.Uri.file(`${memoryDir}/${path}`);
  for (const [path, content] of Object.entries(NOW_FILES)) await vs.fs.writeFile(file(path), encoder.encode(content));
  const read = async (path) => decoder.decode(await vs.fs.readFile(file(path)));
  const out = {};

  const loadStart = performance.now();
  const extension = load(vscode);
  out.loadMs = performance.now() - loadStart;
  const start = performance.now();
  await extension.activate(context);
  out.activateMs = performance.now() - start;
  out.commands = [...fake.commands.keys()].sort();
  out.trees = [...fake.trees.keys()];

  const tree = fake.trees.get("memdir.memories");
  const groups = await tree.getChildren();
  out.groups = groups.map((g) => [g.label, g.description, g.children.map((c) => c.path)]);
  const item = tree.getTreeItem(groups[0].children[0]);
  out.item = { label: item.label, description: item.description, resourceUri: item.resourceUri?.toString(), command: item.command?.command, icon: item.iconPath?.id };

  const [collection] = fake.collections;
  out.diagnostics = Object.fromEntries([...collection.map].map(([uri, list]) => [uri.slice(uri.lastIndexOf("/") + 1), list.map((d) => [d.code, d.range.start.line, d.range.end.character, d.severity])]));
  out.glimpses = { seen: [...collection.glimpses], final: collection.map.size };

  fake.answers.push("how should the integration tests use the postgres database?");
  await vscode.commands.executeCommand("memdir.recall");
  const recallDoc = fake.shown.at(-1).doc;
  out.recall = { uri: `${recallDoc.uri.scheme}:${recallDoc.uri.path}`, language: recallDoc.languageId, text: recallDoc.getText() };

  fake.answers.push("user", "Editor", "The user edits with vim keys", "Prefers vim keybindings.");
  await vscode.commands.executeCommand("memdir.remember");
  out.remembered = await read("user_editor.md").catch((e) => `missing: ${e.code}`);
  out.indexAfterRemember = await read("MEMORY.md");

  const indexBeforeFix = await read("MEMORY.md");
  fake.answers.push(undefined); // the modal dismissed
  await vscode.commands.executeCommand("memdir.doctorFix");
  const diffDoc = fake.shown.at(-1).doc;
  out.fixDeclined = { diffLanguage: diffDoc.languageId, diff: diffDoc.getText(), unchanged: (await read("MEMORY.md")) === indexBeforeFix, question: fake.messages.filter((m) => m.kind === "warning").at(-1) };
  fake.answers.push("Apply");
  await vscode.commands.executeCommand("memdir.doctorFix");
  out.indexAfterFix = await read("MEMORY.md");
  out.diagnosticsAfterFix = Object.fromEntries([...collection.map].map(([uri, list]) => [uri.slice(uri.lastIndexOf("/") + 1), list.map((d) => d.code)]));

  // the history: "Undo last change" takes the fix back (its diff, then the modal); "Show history"
  // lists the three changes, labelled vscode; choosing the undo shows its diff, dismissed: nothing written
  fake.answers.push("Undo");
  await vscode.commands.executeCommand("memdir.undoLast");
  const undoDoc = fake.shown.at(-1).doc;
  out.undo = { uri: `${undoDoc.uri.scheme}:${undoDoc.uri.path}`, language: undoDoc.languageId, diff: undoDoc.getText(), question: fake.messages.filter((m) => m.kind === "warning").at(-1), index: await read("MEMORY.md") };
  fake.answers.push((asked) => asked.items[0], undefined);
  await vscode.commands.executeCommand("memdir.history");
  const pick = fake.messages.filter((m) => m.kind === "pick").at(-1);
  out.history = { title: pick.options.title, items: pick.items.map((i) => `${i.label}: ${i.detail.replace(/[0-9a-f-]{8,}/g, "<id>")}`), unchanged: (await read("MEMORY.md")) === out.undo.index };

  fake.answers.push("anthropic", "sk-ant-from-the-prompt");
  await vscode.commands.executeCommand("memdir.setApiKey");
  out.secrets = Object.fromEntries(fake.secretStore);
  out.errors = fake.messages.filter((m) => m.kind === "error").map((m) => m.message);
  // bundle.test.mjs checks `errors` is empty: what the history steps must show is checked here
  const expect = (what, ok) => ok || out.errors.push(`scenario: ${what}: ${JSON.stringify({ undo: out.undo, history: out.history })}`);
  expect("undo diff", out.undo.uri === "memdir:/history.diff" && out.undo.language === "diff" && /^\+- \[Gone\]\(gone\.md\) — was here$/m.test(out.undo.diff));
  expect("undo modal", out.undo.question?.rest?.[0]?.modal === true && out.undo.question.rest[1] === "Undo" && /^Undo the doctor of /.test(out.undo.question.message));
  expect("index after undo", out.undo.index === indexBeforeFix);
  expect("history pick", out.history.title === "memdir: History" && out.history.items.length === 3 && out.history.items.every((i, n) => i.startsWith(["undo · vscode: ", "doctor · vscode: ", "remember · vscode: "][n])));
  expect("history dismissed", out.history.unchanged);

  // "Confirm memory still true": offered as a quick fix on a stale_core_memory diagnostic, it
  // records metadata.modified in the file, nothing else changed
  const [{ provider }] = fake.codeActions;
  const uri = file("feedback_tests.md");
  const actions = provider.provideCodeActions({ uri }, null, { diagnostics: [{ source: "memdir", code: "stale_core_memory" }, { source: "memdir", code: "dead_link" }] });
  expect("touch quick fix", actions.length === 1 && actions[0].command.command === "memdir.touch");
  const beforeTouch = await read("feedback_tests.md");
  await vscode.commands.executeCommand(actions[0].command.command, ...actions[0].command.arguments);
  const touched = await read("feedback_tests.md");
  expect("touched", touched === beforeTouch.replace("type: feedback\n---", `type: feedback\nmetadata:\n  modified: ${/modified: (\S+)/.exec(touched)?.[1]}\n---`) && /modified: \d{4}-/.test(touched));

  // the folder becomes unreadable: the command shows memdir's error instead of rejecting
  const readDirectory = vs.fs.readDirectory;
  vs.fs.readDirectory = (uri) => Promise.reject(vscode.FileSystemError.NoPermissions(uri));
  out.failedDoctor = await vscode.commands.executeCommand("memdir.doctor").then(() => "resolved", (e) => `rejected: ${e}`);
  out.failedDoctorMessage = fake.messages.filter((m) => m.kind === "error").at(-1)?.message;
  vs.fs.readDirectory = readDirectory;
  for (const d of context.subscriptions) d.dispose();
  out.commandsAfterDispose = fake.commands.size;
  return out;
}
