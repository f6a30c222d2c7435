// The extension's logic (examples/vscode/src/logic/, built to out/logic.mjs) against the
// in-memory `workspace.fs` fake (tests/js/vscode-fake.mjs: FileSystemError codes, Uri objects):
// the host passes the shared conformance suite; the folder, selector, tree, recall (lexical and
// a mock provider on 127.0.0.1), remember, doctor diagnostics and doctor fix, the history and undo.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { openMemory } from "memdir";
import { createFakeVsCode, Uri } from "../js/vscode-fake.mjs";
import { hostCases } from "../js/host-conformance.mjs";
import { startMockProviders } from "../mock/providers.mjs";
import { logic } from "./setup.mjs";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 11, 3, 12);
const ROOT = "/work/project/memory";

/** A fake workspace.fs with `files` under ROOT, each written at `mtimes[path]` (default NOW). */
async function seeded(files, { mtimes = {}, raw = false } = {}) {
  let clock = NOW;
  const vs = createFakeVsCode({ now: () => clock, raw });
  for (const dir of ["/work", "/work/project"]) await vs.fs.createDirectory(Uri.file(dir)).catch(() => {});
  await vs.fs.createDirectory(Uri.file(ROOT)).catch(() => {});
  for (const [path, content] of Object.entries(files)) {
    clock = mtimes[path] ?? NOW;
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) await vs.fs.createDirectory(Uri.file(`${ROOT}/${parts.slice(0, i).join("/")}`)).catch(() => {});
    await vs.fs.writeFile(Uri.file(`${ROOT}/${path}`), encoder.encode(content));
  }
  clock = NOW;
  const api = { fs: vs.fs, joinPath: Uri.joinPath, file: Uri.file };
  return { vs, api, read: async (path) => decoder.decode(await vs.fs.readFile(Uri.file(`${ROOT}/${path}`))), exists: (path) => vs.node(`${ROOT}/${path}`) !== undefined };
}

const memoryFile = (type, name, description, body = "Body.") => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;

function secrets(initial = {}) {
  const map = new Map(Object.entries(initial));
  return { map, get: async (k) => map.get(k), store: async (k, v) => void map.set(k, v), delete: async (k) => void map.delete(k) };
}

const SETTINGS = { folder: "", provider: "lexical", model: "", baseUrl: "", staleDays: 90 };

/** A MemoryProvider over `api`, the workspace at /work/project, as on the web (memory/ in the workspace). */
function provider(api, overrides = {}, secretStore = secrets()) {
  return new logic.MemoryProvider({
    api,
    platform: { homeDir: null, configDir: null },
    settings: () => ({ ...SETTINGS, ...overrides }),
    secrets: secretStore,
    workspace: () => Uri.file("/work/project"),
    trusted: () => true,
    now: () => NOW,
  });
}

/** Prompts answered from a script; records what was asked, in order. */
function scripted(...answers) {
  const asked = [];
  const next = (kind, detail) => {
    asked.push({ kind, ...detail });
    if (answers.length === 0) throw new Error(`unexpected prompt: ${kind} ${JSON.stringify(detail)}`);
    return Promise.resolve(answers.shift());
  };
  return {
    asked,
    input: (options) => next("input", { title: options.title }),
    pick: (items, options) => next("pick", { items, title: options.title }),
    confirm: (message, action) => next("confirm", { message, action }),
  };
}

describe("workspaceFsHost passes the host conformance suite", () => {
  for (const raw of [false, true]) {
    describe(raw ? "over a bare FileSystemProvider" : "over workspace.fs", () => {
      for (const { name, run } of hostCases({ assert, openMemory })) {
        test(name, () =>
          run(async (files = {}, { missing = false } = {}) => {
            const vs = createFakeVsCode({ now: (() => { let t = NOW; return () => (t += 1000); })(), raw });
            await vs.fs.createDirectory(Uri.file("/work"));
            if (!missing) await vs.fs.createDirectory(Uri.file(ROOT.replace(/\/memory$/, ""))).then(() => vs.fs.createDirectory(Uri.file(ROOT)));
            for (const [path, content] of Object.entries(files)) {
              const parts = path.split("/");
              for (let i = 1; i < parts.length; i++) await vs.fs.createDirectory(Uri.file(`${ROOT}/${parts.slice(0, i).join("/")}`)).catch((e) => { if (e.code !== "FileExists") throw e; });
              await vs.fs.writeFile(Uri.file(`${ROOT}/${path}`), typeof content === "string" ? encoder.encode(content) : content);
            }
            if (missing) await vs.fs.createDirectory(Uri.file("/work/project")).catch(() => {});
            const host = logic.workspaceFsHost({ fs: vs.fs, joinPath: Uri.joinPath, file: Uri.file }, Uri.file(ROOT));
            return { host, root: `file://${ROOT}`, absolute: (path) => `file://${ROOT}/${path}` };
          }),
        );
      }
    });
  }

  test("a write goes to a temporary name, then renames over the target with overwrite", async () => {
    const { vs, api, read } = await seeded({ "a.md": "old" });
    const host = logic.workspaceFsHost(api, Uri.file(ROOT));
    vs.calls.length = 0;
    await host.writeFile("a.md", encoder.encode("new"));
    const writes = vs.calls.filter((c) => c.op === "writeFile" || c.op === "rename");
    assert.equal(writes.length, 2);
    assert.match(writes[0].uri, /\/memory\/\.a\.md\.tmp-[0-9a-f]+$/);
    assert.deepEqual([writes[1].op, writes[1].uri, writes[1].target, writes[1].options], ["rename", writes[0].uri, `file://${ROOT}/a.md`, { overwrite: true }]);
    assert.equal(await read("a.md"), "new");
  });
});

describe("memoryFolder", () => {
  const platform = { homeDir: "/home/ada", configDir: null };
  test("desktop default: Claude Code's folder, keyed by the git root (a worktree keys by its main worktree)", async () => {
    const { vs, api } = await seeded({});
    await vs.fs.createDirectory(Uri.file("/work/project/.git"));
    await vs.fs.createDirectory(Uri.file("/work/project/sub"));
    const found = await logic.memoryFolder("", Uri.file("/work/project/sub"), api, platform);
    assert.deepEqual([found.source, found.uri.path], ["claude", "/home/ada/.claude/projects/-work-project/memory"]);
    await vs.fs.createDirectory(Uri.file("/work/project/.git/worktrees/wt"));
    await vs.fs.writeFile(Uri.file("/work/project/.git/worktrees/wt/commondir"), encoder.encode("../..\n"));
    await vs.fs.createDirectory(Uri.file("/work/wt"));
    await vs.fs.writeFile(Uri.file("/work/wt/.git"), encoder.encode("gitdir: /work/project/.git/worktrees/wt\n"));
    const fromWorktree = await logic.memoryFolder("", Uri.file("/work/wt"), api, { homeDir: "/home/ada", configDir: "/cfg" });
    assert.equal(fromWorktree.uri.path, "/cfg/projects/-work-project/memory");
  });
  test("outside git: the folder itself; web (no home): memory/ in the workspace; setting: relative or absolute", async () => {
    const { api } = await seeded({});
    assert.equal((await logic.memoryFolder("", Uri.file("/work/project"), api, platform)).uri.path, "/home/ada/.claude/projects/-work-project/memory");
    const web = await logic.memoryFolder("", Uri.file("/work/project"), api, { homeDir: null, configDir: null });
    assert.deepEqual([web.source, web.uri.path], ["workspace", "/work/project/memory"]);
    assert.equal((await logic.memoryFolder("notes/mem", Uri.file("/work/project"), api, platform)).uri.path, "/work/project/notes/mem");
    assert.equal((await logic.memoryFolder("~/mem", Uri.file("/work/project"), api, platform)).uri.path, "/home/ada/mem");
    await assert.rejects(logic.memoryFolder("/abs", Uri.file("/work/project"), api, { homeDir: null, configDir: null }), /on the web only a folder relative to the workspace/);
    assert.equal(await logic.memoryFolder("", undefined, api, platform), null);
  });
});

describe("resolveSelector", () => {
  test("the key comes from secrets; no key, an untrusted workspace or an unknown provider mean lexical, with the reason", async () => {
    const store = secrets({ [logic.secretKey("anthropic")]: "sk-ant-secret" });
    const s = { provider: "anthropic", model: "claude-haiku-4-5", baseUrl: "http://127.0.0.1:9/" };
    assert.deepEqual(await logic.resolveSelector(s, store, { trusted: true }), { selector: { provider: "anthropic", fallback: "lexical", apiKey: "sk-ant-secret", model: "claude-haiku-4-5", baseUrl: "http://127.0.0.1:9/" } });
    const untrusted = await logic.resolveSelector(s, store, { trusted: false });
    assert.deepEqual(untrusted.selector, { provider: "lexical" });
    assert.match(untrusted.warning, /not trusted/);
    const noKey = await logic.resolveSelector({ ...s, provider: "openai" }, store, { trusted: true });
    assert.deepEqual(noKey.selector, { provider: "lexical" });
    assert.match(noKey.warning, /no API key for openai.*Set API key/);
    assert.deepEqual((await logic.resolveSelector({ provider: "ollama", model: "", baseUrl: "" }, store, { trusted: true })).selector, { provider: "ollama", fallback: "lexical" });
    assert.match((await logic.resolveSelector({ ...s, provider: "bard" }, store, { trusted: true })).warning, /not one of lexical, anthropic, openai, ollama/);
  });
});

describe("the tree", () => {
  test("groups by type, newest first, with age, the stale marker and the files past the cap", async () => {
    const { api } = await seeded(
      {
        "MEMORY.md": "- [Tests](feedback_tests.md) — tests\n",
        "feedback_tests.md": memoryFile("feedback", "Tests", "Integration tests hit a real database"),
        "feedback_style.md": memoryFile("feedback", "Style", "Prefer small functions"),
        "user_role.md": memoryFile("user", "Role", "The user is a data scientist"),
        "project_old.md": memoryFile("project", "Old", "The old freeze"),
        "notes.md": "no frontmatter at all\n",
      },
      { mtimes: { "feedback_style.md": NOW - 10 * DAY, "user_role.md": NOW - DAY - 1000, "project_old.md": NOW - 400 * DAY, "notes.md": NOW - 500 * DAY } },
    );
    const memory = await openMemory({ host: logic.workspaceFsHost(api, Uri.file(ROOT)), limits: { maxFiles: 4 }, now: () => NOW });
    const tree = logic.memoryTree(await memory.scan(), NOW);
    assert.deepEqual(tree.map((g) => [g.label, g.description, g.children.map((c) => c.path)]), [
      ["User", "1", ["user_role.md"]],
      ["Feedback", "2, 1 stale", ["feedback_tests.md", "feedback_style.md"]],
      ["Project", "1, 1 stale", ["project_old.md"]],
      ["Beyond the cap", "1, 1 stale recall never sees", ["notes.md"]],
    ]);
    const [role] = tree[0].children;
    assert.deepEqual([role.label, role.description, role.ageDays, role.stale], ["Role", "user · yesterday", 1, false]);
    const style = tree[1].children[1];
    assert.deepEqual([style.description, style.ageDays, style.stale], ["feedback · 10 days ago · stale", 10, true]);
    assert.match(style.tooltip, /Prefer small functions\nsaved 10 days ago — recall sends it with a staleness caveat/);
    const notes = tree[3].children[0];
    assert.deepEqual([notes.label, notes.dropped, notes.description], ["notes.md", true, "no type · 500 days ago · stale · beyond the cap"]);
  });

  test("a replaced memory says what replaces it and is not offered as stale (nothing to confirm)", async () => {
    const { api } = await seeded(
      {
        "feedback_old.md": "---\nname: Old rule\ndescription: Deploys on Tuesdays\ntype: feedback\nsuperseded_by: feedback_new.md\n---\nTuesdays.\n",
        "feedback_new.md": memoryFile("feedback", "New rule", "Deploys on Thursdays"),
      },
      { mtimes: { "feedback_old.md": NOW - 400 * DAY, "feedback_new.md": NOW - 1000 } },
    );
    const memory = await openMemory({ host: logic.workspaceFsHost(api, Uri.file(ROOT)), now: () => NOW });
    const [group] = logic.memoryTree(await memory.scan(), NOW);
    const old = group.children.find((c) => c.path === "feedback_old.md");
    assert.deepEqual([old.stale, old.description, group.description], [false, "feedback · 400 days ago · replaced by feedback_new.md", "2"]);
    assert.match(old.tooltip, /replaced by feedback_new\.md: recall chooses that one/);
  });

  test("a file with bad frontmatter carries the scan's diagnostic", async () => {
    const { api } = await seeded({ "project_broken.md": "---\nname: Broken\ndescription: &d Broken deploys\ntype: *d\n---\nbody\n" });
    const memory = await openMemory({ host: logic.workspaceFsHost(api, Uri.file(ROOT)), now: () => NOW });
    const [group] = logic.memoryTree(await memory.scan(), NOW);
    assert.equal(group.label, "No type");
    assert.equal(group.children[0].problems.length, 1);
    assert.match(group.children[0].problems[0], /YAML|frontmatter/);
  });
});

const MEMORIES = {
  "MEMORY.md": "- [Integration tests](feedback_tests.md) — real database\n- [Deploys](project_deploy.md) — deploy freeze\n",
  "feedback_tests.md": memoryFile("feedback", "Integration tests", "Integration tests must hit a real postgres database, never mocks", "Use a real DB.\n\n**Why:** mocks hid a migration bug.\n**How to apply:** integration suites."),
  "project_deploy.md": memoryFile("project", "Deploys", "Deploy freeze during the holiday code freeze", "No deploys from Dec 20."),
};

describe("recall", () => {
  test("with the lexical selector: the matching memory, and the document shows the injected block", async () => {
    const { api } = await seeded(MEMORIES, { mtimes: { "project_deploy.md": NOW - 30 * DAY } });
    const opened = await provider(api).get();
    assert.equal(opened.folder.uri.path, ROOT);
    const prompts = scripted("how should the integration tests use the postgres database?");
    const { query, result } = await logic.recallFlow(opened.memory, prompts, "");
    assert.equal(result.outcome, "selected");
    assert.equal(result.selector, "lexical");
    assert.deepEqual(result.memories.map((m) => m.path), ["feedback_tests.md"]);
    const doc = logic.recallMarkdown(query, result);
    assert.match(doc, /^# Recall: how should the integration tests use the postgres database\?\n\n\*\*selected\*\* by `lexical`/);
    assert.match(doc, /- `feedback_tests.md` — today/);
    assert.ok(doc.includes(result.reminders[0]), "the exact block an agent gets");
    assert.match(result.reminders[0], /<system-reminder>[\s\S]*Use a real DB\./);
  });

  test("a model that failed, the lexical selector choosing instead: the header names no model, the failure names it", () => {
    const result = { outcome: "selected", selector: "lexical", model: "claude-sonnet-5-5", memories: [], reminders: [], rejected: [], usage: {}, costUsd: 0, latencyMs: 12, modelLatencyMs: 3, error: "anthropic failed (http_error: HTTP 401 authentication_error); the lexical selector chose" };
    const doc = logic.recallMarkdown("how do we deploy?", result);
    assert.match(doc, /\*\*selected\*\* by `lexical` in 12 ms/);
    assert.doesNotMatch(doc, /`lexical` \(claude/);
    assert.match(doc, /^Note: anthropic failed \(http_error: HTTP 401 authentication_error\); the lexical selector chose$/m);
  });

  test("cancelled or empty question: no recall", async () => {
    const { api } = await seeded(MEMORIES);
    const opened = await provider(api).get();
    assert.equal(await logic.recallFlow(opened.memory, scripted(undefined)), undefined);
    assert.equal(await logic.recallFlow(opened.memory, scripted("  ")), undefined);
  });

  describe("with a model provider (the mock on 127.0.0.1), its key from secrets", () => {
    let mock;
    before(async () => {
      mock = await startMockProviders();
    });
    after(() => mock.close());

    test("the key reaches the provider and its choice is the result", async () => {
      const { api } = await seeded(MEMORIES);
      const store = secrets({ [logic.secretKey("anthropic")]: "sk-ant-test" });
      mock.script({ kind: "text", selected: ["project_deploy.md"] });
      const opened = await provider(api, { provider: "anthropic", baseUrl: mock.url, model: "claude-haiku-4-5" }, store).get();
      assert.equal(opened.selectorWarning, undefined);
      const { result } = await logic.recallFlow(opened.memory, scripted("can we deploy on december 22?"));
      assert.equal(result.outcome, "selected", result.error);
      assert.equal(result.selector, "anthropic");
      assert.deepEqual(result.memories.map((m) => m.path), ["project_deploy.md"]);
      const [request] = mock.requests();
      assert.equal(request.path, "/v1/messages");
      assert.equal(request.headers["x-api-key"], "sk-ant-test");
      assert.equal(request.body.model, "claude-haiku-4-5");
    });

    test("a wrong key: the provider refuses and recall falls back to the lexical selector", async () => {
      mock.reset();
      const { api } = await seeded(MEMORIES);
      const store = secrets({ [logic.secretKey("anthropic")]: "sk-ant-wrong" });
      const opened = await provider(api, { provider: "anthropic", baseUrl: mock.url }, store).get();
      const { result } = await logic.recallFlow(opened.memory, scripted("how should the integration tests use the postgres database?"));
      assert.equal(mock.requests()[0].headers["x-api-key"], "sk-ant-wrong");
      assert.equal(mock.requests()[0].status, 401);
      assert.match(result.selector, /lexical/);
      assert.deepEqual(result.memories.map((m) => m.path), ["feedback_tests.md"]);
    });
  });
});

describe("remember", () => {
  test("asks type, name, description and body, and writes the file and its index line", async () => {
    const { api, read } = await seeded(MEMORIES);
    const opened = await provider(api).get();
    const prompts = scripted("user", "Editor", "The user edits in VS Code with vim keys", "Prefers vim keybindings.");
    const outcome = await logic.rememberFlow(opened.memory, prompts);
    assert.deepEqual(prompts.asked.map((a) => a.kind), ["pick", "input", "input", "input"]);
    assert.deepEqual(prompts.asked[0].items, ["user", "feedback", "project", "reference"]);
    assert.equal(outcome.written.action, "created");
    assert.equal(outcome.written.file, "user_editor.md");
    assert.equal(await read("user_editor.md"), "---\nname: Editor\ndescription: The user edits in VS Code with vim keys\nmetadata:\n  node_type: memory\n  type: user\n  modified: 2026-12-03T12:00:00.000Z\n---\n\nPrefers vim keybindings.\n");
    assert.match(await read("MEMORY.md"), /- \[Editor\]\(user_editor\.md\) — The user edits in VS Code with vim keys\n$/);
  });

  test("the selection is the body; a refusal comes back with memdir's code and nothing is written", async () => {
    const { api, read, exists } = await seeded(MEMORIES);
    const opened = await provider(api).get();
    const before = await read("MEMORY.md");
    const outcome = await logic.rememberFlow(opened.memory, scripted("reference", "AWS", "The deploy account key"), "key: AKIAIOSFODNN7EXAMPLE");
    assert.equal(outcome.refused.code, "SECRET_DETECTED");
    assert.equal(await read("MEMORY.md"), before);
    assert.equal(exists("reference_aws.md"), false);
    assert.equal(await logic.rememberFlow(opened.memory, scripted(undefined)), undefined);
  });
});

const BROKEN = {
  "MEMORY.md": "- [Broken](project_broken.md) — broken\n- [Gone](gone.md) — was here\n",
  // the dead entry's words are here too, so --fix may remove it (a line whose words are the only copy is kept)
  "project_broken.md": "---\nname: Broken\ndescription: &d Broken deploys\ntype: *d\n---\nbody: Gone was here\n",
  "feedback_tests.md": memoryFile("feedback", "Tests", "Integration tests hit a real database"),
};

describe("doctor", () => {
  test("findings become diagnostics on their line, the range covering the line's text", async () => {
    const { api, read } = await seeded(BROKEN);
    const opened = await provider(api).get();
    const report = await opened.memory.doctor();
    const texts = new Map();
    for (const f of ["MEMORY.md", "project_broken.md", "feedback_tests.md"]) texts.set(f, await read(f));
    const diags = logic.doctorDiagnostics(report, texts);
    const [malformed] = diags.get("project_broken.md");
    assert.deepEqual(malformed.range, { startLine: 3, startCharacter: 0, endLine: 3, endCharacter: "type: *d".length });
    assert.deepEqual([malformed.code, malformed.severity, malformed.source], ["frontmatter_malformed", 0, "memdir"]);
    assert.match(malformed.message, /frontmatter could not be parsed/);
    const [dead] = diags.get("MEMORY.md");
    assert.deepEqual(dead.range, { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: "- [Gone](gone.md) — was here".length });
    assert.match(dead.message, /gone\.md.*\(fix: remove line 2\)/);
    const [notIndexed] = diags.get("feedback_tests.md");
    assert.deepEqual([notIndexed.range.startLine, notIndexed.severity], [0, 1]);
    assert.equal(logic.reportSummary(report), 'memdir doctor: 2 error(s), 1 warning(s), 0 note(s); 2 fixable with "memdir: Doctor: fix"');
  });

  test("a line past the end of the file's text is clamped to its last line", () => {
    const report = { findings: [{ code: "x", severity: "info", file: "a.md", line: 9, message: "m", fix: null }], errors: 0, warnings: 0, infos: 1, fixable: 0 };
    const [d] = logic.doctorDiagnostics(report, new Map([["a.md", "one\ntwo"]])).get("a.md");
    assert.deepEqual([d.range, d.severity], [{ startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 3 }, 2]);
  });

  test("fix: the diff is shown first, and nothing is written unless the user confirms", async () => {
    const { api, read } = await seeded(BROKEN);
    const opened = await provider(api).get();
    const before = await read("MEMORY.md");
    const order = [];
    const ui = (answer) => ({
      showDiff: async (diff) => void order.push(["diff", diff]),
      confirm: async (message, action) => (order.push(["confirm", message, action]), answer),
    });
    const declined = await logic.doctorFixFlow(opened.memory, ui(false));
    assert.equal(declined.status, "declined");
    assert.equal(await read("MEMORY.md"), before);
    assert.deepEqual(order.map((o) => o[0]), ["diff", "confirm"]);
    assert.match(order[0][1], /^--- a\/MEMORY\.md\n\+\+\+ b\/MEMORY\.md\n[\s\S]*\n-- \[Gone\]\(gone\.md\) — was here\n\+- \[Tests\]\(feedback_tests\.md\) — Integration tests hit a real database\n/);
    assert.equal(order[1][1], "Apply 2 fixes to 1 file in the memory folder? The diff shows every change.");

    const applied = await logic.doctorFixFlow(opened.memory, ui(true));
    assert.equal(applied.status, "applied");
    assert.equal(await read("MEMORY.md"), "- [Broken](project_broken.md) — broken\n- [Tests](feedback_tests.md) — Integration tests hit a real database\n");
    assert.deepEqual(applied.after.findings.map((f) => f.code), ["frontmatter_malformed"]);
    const again = await logic.doctorFixFlow(opened.memory, ui(true));
    assert.equal(again.status, "nothing_to_fix");
  });
});

describe("history and undo", () => {
  /** The history UI answered from a script: `pick` chooses the item `choose(items)` returns; each confirm takes the next answer. */
  function historyUi({ choose = () => undefined, answers = [] } = {}) {
    const order = [];
    return {
      order,
      pick: async (items, options) => (order.push(["pick", items, options]), choose(items)),
      showDiff: async (diff, entry) => void order.push(["diff", diff, entry.id]),
      confirm: async (message, action) => {
        order.push(["confirm", message, action]);
        if (answers.length === 0) throw new Error(`unexpected question: ${message}`);
        return answers.shift();
      },
    };
  }
  /** Every file of the memory folder (the history under .memdir/ left out): path → text. */
  async function files(vs) {
    const out = {};
    const walk = async (dir, prefix) => {
      for (const [name, type] of await vs.fs.readDirectory(Uri.file(dir))) {
        if (name === ".memdir") continue;
        if (type === vs.FileType.Directory) await walk(`${dir}/${name}`, `${prefix}${name}/`);
        else out[`${prefix}${name}`] = decoder.decode(await vs.fs.readFile(Uri.file(`${dir}/${name}`)));
      }
    };
    await walk(ROOT, "");
    return out;
  }
  const REMEMBER = ["user", "Editor", "The user edits in VS Code with vim keys", "Prefers vim keybindings."];

  test("the history pick lists a remember and a forget made through the extension, newest first, labelled vscode", async () => {
    const { api } = await seeded(MEMORIES);
    const opened = await provider(api).get();
    await logic.rememberFlow(opened.memory, scripted(...REMEMBER));
    await opened.memory.forget({ file: "project_deploy.md" });
    const ui = historyUi();
    assert.deepEqual(await logic.historyFlow(opened.memory, ui), { status: "dismissed" });
    const [[kind, items, options]] = ui.order;
    assert.equal(kind, "pick");
    assert.equal(options.title, "memdir: History");
    assert.deepEqual(
      items.map((p) => [p.label, p.description, p.detail]),
      [
        ["forget · vscode", logic.historyTime(NOW), "changed MEMORY.md, removed project_deploy.md"],
        ["remember · vscode", logic.historyTime(NOW), "changed MEMORY.md, created user_editor.md"],
      ],
    );
    assert.match(items[0].description, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.deepEqual(items.map((p) => [p.entry.route, p.entry.label, p.entry.status]), [["forget", "vscode", "done"], ["remember", "vscode", "done"]]);
  });

  test("undo of a forget: its diff first, then the modal Undo; the file and its index line come back", async () => {
    const { vs, api, read } = await seeded(MEMORIES);
    const opened = await provider(api).get();
    const before = await files(vs);
    await opened.memory.forget({ file: "project_deploy.md" });
    assert.doesNotMatch(await read("MEMORY.md"), /project_deploy/);
    const ui = historyUi({ choose: (items) => items.find((p) => p.entry.route === "forget"), answers: [true] });
    const outcome = await logic.historyFlow(opened.memory, ui);
    assert.equal(outcome.status, "applied", JSON.stringify(outcome));
    assert.equal(outcome.forced, false);
    assert.deepEqual(ui.order.map((o) => o[0]), ["pick", "diff", "confirm"]);
    assert.match(ui.order[1][1], /^\+- \[Deploys\]\(project_deploy\.md\) — deploy freeze$/m);
    assert.match(ui.order[1][1], /^\+No deploys from Dec 20\.$/m);
    assert.deepEqual(ui.order[2].slice(1), [logic.undoQuestion(outcome.entry), "Undo"]);
    assert.match(ui.order[2][1], /^Undo the forget of .* \(changed MEMORY\.md, removed project_deploy\.md\)\? The diff shows every change\.$/);
    assert.deepEqual(await files(vs), before, "the file and its index line back, byte for byte");
    // the undo is in the history too; the forget is undone, so "Undo last change" has nothing left
    const picks = logic.historyPicks(await opened.memory.history());
    assert.deepEqual(picks.map((p) => [p.label, p.detail]), [
      ["undo · vscode", `changed MEMORY.md, created project_deploy.md (undoes ${outcome.entry.id})`],
      ["forget · vscode", `changed MEMORY.md, removed project_deploy.md (undone by ${picks[0].entry.id})`],
    ]);
    assert.deepEqual(await logic.undoLastFlow(opened.memory, historyUi()), { status: "empty" });
    assert.equal(logic.undoSummary({ status: "empty" }).message, "memdir: no change to undo in the history");
  });

  test("a file changed since: CHANGED names it, and nothing is written unless the user picks Overwrite", async () => {
    const { vs, api, read, exists } = await seeded(MEMORIES);
    const opened = await provider(api).get();
    await logic.rememberFlow(opened.memory, scripted(...REMEMBER));
    const edited = (await read("user_editor.md")).replace("Prefers vim keybindings.", "Prefers vim keybindings, and Emacs on Sundays.");
    await vs.fs.writeFile(Uri.file(`${ROOT}/user_editor.md`), encoder.encode(edited));
    const before = await files(vs);

    const declined = historyUi({ answers: [true, false] });
    const outcome = await logic.undoLastFlow(opened.memory, declined);
    assert.equal(outcome.status, "changed", JSON.stringify(outcome));
    assert.match(outcome.message, /^user_editor\.md changed since change \S+: undoing it would overwrite a later edit/);
    assert.deepEqual(declined.order.map((o) => [o[0], o[2]]), [["diff", outcome.entry.id], ["confirm", "Undo"], ["confirm", "Overwrite"]]);
    assert.match(declined.order[0][1], /^-Prefers vim keybindings, and Emacs on Sundays\.$/m, "the diff shown is the one that overwrites the edit");
    assert.equal(declined.order[2][1], "user_editor.md changed since change " + outcome.entry.id + ": undoing it would overwrite a later edit. Overwrite the later edit with the content from before the change?");
    assert.deepEqual(await files(vs), before, "nothing written");
    assert.equal((await opened.memory.history()).length, 1, "no undo recorded");
    assert.match(logic.undoSummary(outcome).message, /^memdir: nothing was changed: user_editor\.md changed since/);

    const overwrite = historyUi({ answers: [true, true] });
    const forced = await logic.undoLastFlow(opened.memory, overwrite);
    assert.equal(forced.status, "applied", JSON.stringify(forced));
    assert.equal(forced.forced, true);
    assert.equal(exists("user_editor.md"), false);
    assert.equal(await read("MEMORY.md"), MEMORIES["MEMORY.md"]);
  });

  test("Restore to…: the memory as it was just after the chosen change, its diff and the modal Restore first", async () => {
    let clock = NOW;
    const { vs, api } = await seeded(MEMORIES);
    const opened = await new logic.MemoryProvider({ api, platform: { homeDir: null, configDir: null }, settings: () => SETTINGS, secrets: secrets(), workspace: () => Uri.file("/work/project"), trusted: () => true, now: () => clock }).get();
    await logic.rememberFlow(opened.memory, scripted(...REMEMBER));
    const afterRemember = await files(vs);
    clock += 60_000;
    await opened.memory.forget({ file: "project_deploy.md" });
    await opened.memory.forget({ file: "feedback_tests.md" });
    const ui = historyUi({ choose: (items) => items.find((p) => p.entry.route === "remember"), answers: [true] });
    const outcome = await logic.historyFlow(opened.memory, ui, { mode: "restore" });
    assert.equal(outcome.status, "applied", JSON.stringify(outcome));
    assert.equal(outcome.kind, "restore");
    const [[, items, options]] = ui.order;
    assert.equal(options.title, "memdir: Restore to…");
    assert.deepEqual(items.map((p) => p.label), ["forget · vscode", "forget · vscode", "remember · vscode"]);
    assert.deepEqual(ui.order.map((o) => o[0]), ["pick", "diff", "confirm"]);
    assert.deepEqual(ui.order[2].slice(1), [logic.restoreQuestion(outcome.entry), "Restore"]);
    assert.deepEqual(await files(vs), afterRemember);
    assert.equal((await opened.memory.history())[0].route, "restore");
  });

  test("Cancel at the first question writes nothing and asks nothing more; an unknown id is memdir's NOT_FOUND", async () => {
    const { vs, api } = await seeded(MEMORIES);
    const opened = await provider(api).get();
    await opened.memory.forget({ file: "project_deploy.md" });
    const before = await files(vs);
    const ui = historyUi({ answers: [false] });
    const outcome = await logic.undoLastFlow(opened.memory, ui);
    assert.equal(outcome.status, "cancelled");
    assert.deepEqual(ui.order.map((o) => o[0]), ["diff", "confirm"]);
    assert.deepEqual(await files(vs), before);
    assert.equal((await opened.memory.history()).length, 1);
    assert.equal(logic.undoSummary(outcome).message, "memdir: nothing was changed");

    const unknown = { ...outcome.entry, id: "no-such-change" };
    const refused = await logic.undoFlow(opened.memory, historyUi(), unknown);
    assert.deepEqual([refused.status, refused.code], ["refused", "NOT_FOUND"]);
    assert.deepEqual(await files(vs), before);
  });
});

describe("extract from the selection", () => {
  const ops = [
    { action: "create", file: null, type: "feedback", name: "Indentation", description: "Tabs, not spaces, in Go files", body: "Use tabs." },
    { action: "create", file: null, type: "reference", name: "On-call rota", description: "Where the payments on-call rota lives", body: "#pay-oncall" },
  ];
  test("JSON messages or plain text are the conversation; each proposal is saved only when the modal says Save", async () => {
    assert.deepEqual(logic.conversationOf('[{"role":"user","content":"hi"}]'), [{ role: "user", content: "hi" }]);
    assert.deepEqual(logic.conversationOf("User: I like tabs"), [{ role: "user", content: "User: I like tabs" }]);
    const { api, exists, read } = await seeded({ "MEMORY.md": "# Memory\n" });
    const asked = [];
    const selector = async (request) => (asked.push(request.user), JSON.stringify({ operations: ops }));
    const memory = await openMemory({ host: logic.workspaceFsHost(api, Uri.file(ROOT)), selector, now: () => NOW });
    const questions = [];
    const prompts = { confirm: async (message, action) => (questions.push([message, action]), message.includes("Indentation")) };
    const result = await logic.extractFlow(memory, prompts, "I always want tabs in Go. The rota is in #pay-oncall.");
    assert.match(asked[0], /\[user\] I always want tabs in Go\./);
    assert.equal(questions.length, 2);
    assert.equal(questions[0][1], "Save");
    assert.match(questions[0][0], /^Save this feedback memory\? \(new file feedback_indentation\.md\)/);
    assert.equal(result.outcome, "saved");
    assert.ok(exists("feedback_indentation.md"));
    assert.ok(!exists("reference_on_call_rota.md"), "the declined proposal is not written");
    assert.match(await read("MEMORY.md"), /feedback_indentation\.md/);
    assert.deepEqual(logic.extractSummary(result), { level: "info", message: "memdir: saved feedback_indentation.md" });
    assert.equal(await logic.extractFlow(memory, prompts, "   "), undefined);
    const lexical = await openMemory({ host: logic.workspaceFsHost(api, Uri.file(ROOT)), selector: { provider: "lexical" } });
    assert.equal(logic.extractSummary(await logic.extractFlow(lexical, prompts, "I like tabs")).level, "error");
  });
});

describe("consolidate", () => {
  const fm = (name, description, body) => `---\nname: ${name}\ndescription: ${description}\ntype: feedback\n---\n\n${body}\n`;
  const answer = { merges: [{ files: ["a.md", "b.md"], file: "b.md", type: "feedback", name: "Testing", description: "Integration tests hit a real database, never mocks", body: "Tests: use a real Postgres. Never mock it." }], supersessions: [], removals: [], index: [] };
  test("the diff first; nothing is written unless the modal says Apply; applied, it is one change", async () => {
    const files = { "MEMORY.md": "- [Tests](a.md) — Integration tests hit a real database\n- [Testing](b.md) — Integration tests hit a real database, never mocks\n", "a.md": fm("Tests", "Integration tests hit a real database", "Use a real Postgres."), "b.md": fm("Testing", "Integration tests hit a real database, never mocks", "Never mock it.") };
    const { api, exists } = await seeded(files);
    const memory = await openMemory({ host: logic.workspaceFsHost(api, Uri.file(ROOT)), selector: async () => JSON.stringify(answer), now: () => NOW });
    const diffs = [];
    const questions = [];
    const ui = (yes) => ({ showDiff: async (d) => void diffs.push(d), confirm: async (m, action) => (questions.push([m, action]), yes) });
    const declined = await logic.consolidateFlow(memory, ui(false));
    assert.equal(declined.outcome, "declined");
    assert.ok(exists("a.md"), "declined: nothing written");
    assert.match(diffs[0], /^--- a\/MEMORY\.md/m);
    assert.equal(questions[0][1], "Apply");
    assert.match(questions[0][0], /^Apply these changes to 3 files \(merge\)\?/);
    const applied = await logic.consolidateFlow(memory, ui(true));
    assert.equal(applied.outcome, "consolidated");
    assert.ok(!exists("a.md"));
    assert.deepEqual(logic.consolidateSummary(applied), { level: "info", message: "memdir: consolidated MEMORY.md, a.md, b.md" });
    assert.equal((await memory.history())[0].route, "consolidate");
  });
});
