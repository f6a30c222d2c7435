// Scopes (rules §1.6): one recall over several folders, each labelled; writes to the scope named
// or chosen by type; precedence said to the main model; Claude Code's autoMemoryDirectory and
// agent-memory folders. Real folders (NodeHost) and an in-memory host side by side.
import assert from "node:assert/strict";
import * as fsp from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { claudeCodeScopes, InMemoryHost, openMemory } from "memdir";

const NOW = Date.UTC(2026, 2, 5, 12);
const DAY = 86_400_000;
const dirs = [];
after(() => Promise.all(dirs.map((d) => fsp.rm(d, { recursive: true, force: true }))));

async function folder(files, ageDays = 0) {
  const dir = await fsp.mkdtemp(join(tmpdir(), "memdir-scopes-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await fsp.mkdir(join(dir, path, ".."), { recursive: true });
    await fsp.writeFile(join(dir, path), text);
    const t = new Date(NOW - ageDays * DAY);
    await fsp.utimes(join(dir, path), t, t);
  }
  return dir;
}

const topic = (name, type, description, body = "Body.") => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n${body}\n`;

async function threeScopes() {
  const local = await folder({ "MEMORY.md": "- [Editor](user_editor.md) — uses vim\n", "user_editor.md": topic("Editor", "user", "The user edits in vim on this machine") }, 1);
  const project = await folder({ "MEMORY.md": "- [Deploy](project_deploy.md) — deploy with make ship\n", "project_deploy.md": topic("Deploy", "project", "Deploy with make ship on Fridays"), "user_editor.md": topic("Editor", "user", "The team edits in emacs") }, 3);
  const user = await folder({ "MEMORY.md": "- [Tests](feedback_tests.md) — real database\n", "feedback_tests.md": topic("Tests", "feedback", "Integration tests hit a real database") }, 10);
  return { local, project, user };
}

test("one recall over three scopes: the manifest labels each memory by scope, each is read from its own folder", async () => {
  const { local, project, user } = await threeScopes();
  let seen;
  const memory = await openMemory({
    scopes: [{ name: "local", dir: local, types: ["user"] }, { name: "project", dir: project }, { name: "user", dir: user, types: ["feedback"] }],
    now: () => NOW,
    selector: async (req) => {
      seen = req;
      return { text: JSON.stringify({ selected_memories: ["project:project_deploy.md", "user:feedback_tests.md", "local:user_editor.md", "user_editor.md"] }) };
    },
  });
  try {
    const result = await memory.recall("how do we deploy and test this?");
    assert.equal(result.outcome, "selected");
    // every memory of every scope is in the manifest, by its scoped path, newest first
    const manifest = seen.user.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.replace(/ \(.*$/, ""));
    assert.deepEqual(manifest, ["- [user] local:user_editor.md", "- [project] project:project_deploy.md", "- [user] project:user_editor.md", "- [feedback] user:feedback_tests.md"]);
    // an answer without a scope names no candidate: rejected as data, not thrown
    assert.deepEqual(result.rejected.map((r) => JSON.stringify(r).includes('"user_editor.md"')), [true], JSON.stringify(result.rejected));
    const got = Object.fromEntries(result.memories.map((m) => [m.path, m]));
    assert.deepEqual(Object.keys(got).sort(), ["local:user_editor.md", "project:project_deploy.md", "user:feedback_tests.md"]);
    assert.equal(got["project:project_deploy.md"].scope, "project");
    assert.equal(got["project:project_deploy.md"].absolutePath, join(project, "project_deploy.md"));
    assert.match(got["user:feedback_tests.md"].text, /real database/);
    assert.equal(got["user:feedback_tests.md"].ageDays, 10);
    assert.equal(got["local:user_editor.md"].absolutePath, join(local, "user_editor.md"));
  } finally {
    memory.close();
  }
});

test("the lexical selector over scopes: chooses among every scope, with scoped paths", async () => {
  const { local, project, user } = await threeScopes();
  const memory = await openMemory({ scopes: [{ name: "local", dir: local }, { name: "project", dir: project }, { name: "user", dir: user }], now: () => NOW, selector: { provider: "lexical" } });
  try {
    const result = await memory.recall("integration tests real database");
    assert.equal(result.selector, "lexical");
    assert.equal(result.memories[0]?.path, "user:feedback_tests.md");
    assert.equal(result.memories[0]?.scope, "user");
    // a session passes the scoped paths on as already surfaced
    const session = memory.session();
    const first = await session.recall("integration tests real database");
    assert.ok(first.memories.some((m) => m.path === "user:feedback_tests.md"));
    const second = await session.recall("integration tests real database");
    assert.ok(!second.memories.some((m) => m.path === "user:feedback_tests.md"), "surfaced once a session");
  } finally {
    memory.close();
  }
});

test("index and instructions: each scope's index labelled, the scopes listed in order of precedence", async () => {
  const { local, project, user } = await threeScopes();
  const memory = await openMemory({ scopes: [{ name: "local", dir: local }, { name: "project", dir: project }, { name: "user", dir: user, readOnly: true }], now: () => NOW, selector: { provider: "lexical" } });
  try {
    const index = await memory.index();
    assert.deepEqual(index.scopes.map((s) => s.scope), ["local", "project", "user"]);
    assert.match(index.prompt, new RegExp(`Contents of ${join(local, "MEMORY.md")} \\(the \`local\` scope's memory index`));
    assert.match(index.prompt, /the `project` scope's memory index[^]*make ship/);
    assert.match(index.prompt, /the `user` scope's memory index[^]*real database/);
    assert.ok(index.prompt.indexOf("`local`") < index.prompt.indexOf("`project`") && index.prompt.indexOf("`project`") < index.prompt.indexOf("`user`"));
    const text = memory.instructions();
    assert.match(text, /## Memory scopes/);
    assert.match(text, new RegExp(`1\\. \`local\`: ${local}\\n2\\. \`project\`: ${project}\\n3\\. \`user\`: ${user} \\(read-only\\)`));
    assert.match(text, /trust the one whose scope comes first/);
    assert.equal(memory.writeScope, "local");
  } finally {
    memory.close();
  }
});

test("writes: to the scope named, else by type, else the first that takes any; read-only and unknown scopes refused", async () => {
  const { local, project, user } = await threeScopes();
  const team = new InMemoryHost({ "MEMORY.md": "- [Style](reference_style.md) — the style guide\n", "reference_style.md": topic("Style", "reference", "The team style guide lives in the wiki") });
  const memory = await openMemory({
    scopes: [{ name: "local", dir: local, types: ["user"] }, { name: "project", dir: project }, { name: "team", host: team, readOnly: true }, { name: "user", dir: user, types: ["feedback"] }],
    now: () => NOW,
    selector: { provider: "lexical" },
  });
  try {
    const byType = await memory.remember({ type: "feedback", name: "Small commits", description: "The user wants small commits", body: "Small commits." });
    assert.equal(byType.scope, "user");
    assert.ok((await fsp.readFile(join(user, "MEMORY.md"), "utf8")).includes(byType.file));
    const untyped = await memory.remember({ type: "reference", name: "Dashboards", description: "Grafana holds the dashboards", body: "See grafana." });
    assert.equal(untyped.scope, "project", "no scope types reference: the first that takes any");
    const named = await memory.remember({ scope: "local", type: "project", name: "Laptop", description: "This laptop runs the staging tunnel", body: "Tunnel." });
    assert.equal(named.scope, "local");
    await fsp.access(join(local, named.file));
    await assert.rejects(memory.remember({ scope: "team", type: "project", name: "X", description: "Nothing", body: "x" }), (e) => e.code === "INVALID_ARGUMENT" && /read-only/.test(e.message));
    await assert.rejects(memory.remember({ scope: "nope", type: "project", name: "X", description: "Nothing", body: "x" }), (e) => e.code === "INVALID_ARGUMENT" && /no scope "nope"/.test(e.message));
    assert.equal(team.files.size, 2, "nothing written to the read-only scope");
    // forget and touch by scoped path, or { file, scope }
    await memory.forget(`user:${byType.file}`);
    await assert.rejects(fsp.access(join(user, byType.file)));
    await memory.touch({ file: "project_deploy.md", scope: "project" });
    assert.match(await fsp.readFile(join(project, "project_deploy.md"), "utf8"), /modified: /);
    await assert.rejects(memory.forget("team:reference_style.md"), (e) => e.code === "INVALID_ARGUMENT");
    // a colon in a file's name that names no scope: the default write scope's file, as given
    await fsp.writeFile(join(project, "notes:2026.md"), topic("Notes", "project", "Notes of the year"));
    await memory.forget("notes:2026.md");
    await assert.rejects(fsp.access(join(project, "notes:2026.md")));
    // each scope keeps its own history: the write in `local` is in local's log alone
    assert.equal((await memory.scope("local").history()).length, 1);
    assert.equal((await memory.scope("project").history()).length, 3, "remember, touch, forget of notes:2026.md");
    // the scan spans every scope
    const scan = await memory.scan();
    assert.ok(scan.memories.some((m) => m.path === "team:reference_style.md"));
    assert.ok(scan.memories.every((m) => /^(local|project|team|user):/.test(m.path)));
  } finally {
    memory.close();
  }
});

test("bad scopes are INVALID_ARGUMENT before anything opens", async () => {
  const dir = await folder({});
  const cases = [
    [{ scopes: [] }, /1 to 8/],
    [{ scopes: [{ name: "Project", dir }] }, /scope name/],
    [{ scopes: [{ name: "a", dir }, { name: "a", dir }] }, /twice/],
    [{ scopes: [{ name: "a" }] }, /needs `dir`/],
    [{ scopes: [{ name: "a", dir, types: ["secrets"] }] }, /unknown memory type/],
    [{ dir, scopes: [{ name: "a", dir }] }, /each scope names its own folder/],
    [{ scopes: "user" }, /list/],
    [{ scopes: [{ name: "a", dir }, { name: "b", dir: dir + "/" }] }, /same folder/],
    [{ scopes: [{ name: "a", dir }, { name: "b", dir: join(dir, "team") }] }, /inside scope "a"/],
  ];
  for (const [options, message] of cases) {
    await assert.rejects(openMemory(options), (e) => e.code === "INVALID_ARGUMENT" && message.test(e.message), JSON.stringify(options));
  }
});

test("every scope read-only: recall works, every writer is refused and nothing is written", async () => {
  const { local, project } = await threeScopes();
  const memory = await openMemory({ scopes: [{ name: "a", dir: local, readOnly: true }, { name: "b", dir: project, readOnly: true }], now: () => NOW, selector: { provider: "lexical" } });
  try {
    assert.equal(memory.writeScope, null);
    assert.ok((await memory.recall("deploy with make ship")).memories.length > 0);
    const before = await fsp.readFile(join(local, "MEMORY.md"), "utf8");
    await assert.rejects(memory.remember({ type: "user", name: "X", description: "Nothing here", body: "x" }), (e) => e.code === "INVALID_ARGUMENT");
    for (const write of [() => memory.tool(), () => memory.extract({ messages: [{ role: "user", content: "remember I use vim" }], mode: "auto" }), () => memory.consolidate({ mode: "auto" }), () => memory.undo("x"), () => memory.restore({ at: 0 })]) {
      await assert.rejects(async () => write(), (e) => e.code === "INVALID_ARGUMENT" && /read-only/.test(e.message));
    }
    assert.equal(await fsp.readFile(join(local, "MEMORY.md"), "utf8"), before);
    assert.ok((await memory.doctor()).findings !== undefined, "doctor still reads");
  } finally {
    memory.close();
  }
});

test("Claude Code's layout: autoMemoryDirectory from trusted settings only, and a subagent's own scopes", async () => {
  const home = await folder({});
  const projectRoot = await folder({});
  await fsp.mkdir(join(projectRoot, ".git"));
  const before = process.env.CLAUDE_CONFIG_DIR;
  process.env.CLAUDE_CONFIG_DIR = join(home, ".claude");
  try {
    // the project's shared settings cannot move memory (a repository must not point it elsewhere)
    await fsp.mkdir(join(projectRoot, ".claude"), { recursive: true });
    await fsp.writeFile(join(projectRoot, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: join(projectRoot, "evil") }));
    let memory = await openMemory({ projectRoot });
    assert.equal(memory.dir, join(home, ".claude", "projects", projectRoot.replace(/[^a-zA-Z0-9]/g, "-"), "memory"));
    memory.close();
    // the user's settings can
    await fsp.mkdir(join(home, ".claude"), { recursive: true });
    await fsp.writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: join(home, "notes", "memory") }));
    memory = await openMemory({ projectRoot });
    assert.equal(memory.dir, join(home, "notes", "memory"));
    memory.close();
    // and the project's local settings come before the user's
    await fsp.writeFile(join(projectRoot, ".claude", "settings.local.json"), JSON.stringify({ autoMemoryDirectory: join(home, "local-memory") }));
    const scopes = await claudeCodeScopes({ projectRoot, agent: "code:reviewer" });
    assert.deepEqual(scopes.map((s) => [s.name, s.dir]), [
      ["agent-local", join(projectRoot, ".claude", "agent-memory-local", "code-reviewer") + "/"],
      ["agent-project", join(projectRoot, ".claude", "agent-memory", "code-reviewer") + "/"],
      ["agent-user", join(home, ".claude", "agent-memory", "code-reviewer") + "/"],
      ["project", join(home, "local-memory") + "/"],
    ]);
    memory = await openMemory({ scopes, selector: { provider: "lexical" } });
    const saved = await memory.remember({ scope: "agent-project", type: "feedback", name: "Review style", description: "Reviews point at the line", body: "Point at the line." });
    await fsp.access(join(projectRoot, ".claude", "agent-memory", "code-reviewer", saved.file));
    memory.close();
  } finally {
    if (before === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = before;
  }
});
