// What a user does with the extension in a real VS Code (code-server), in one workbench: the
// Memory view, the Problems panel, then every command the manifest contributes through the
// command palette, each with its visible effect checked (a file on disk, a notification, a tab,
// a diagnostic, a tree row). Shared by both extension hosts; `memoryDir` is the memory's folder
// on this machine (the server's disk).
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The workspace's memory: a dead link (MEMORY.md line 2), malformed frontmatter (project_broken.md line 4), a stale feedback memory. */
export const FILES = {
  "MEMORY.md": "- [Integration tests](feedback_tests.md) — real database, never mocks\n- [Gone](gone.md) — was here\n- [Broken](project_broken.md) — broken deploys\n- [Role](user_role.md) — the user is a backend engineer\n",
  "feedback_tests.md": "---\nname: Integration tests\ndescription: Integration tests must hit a real postgres database, never mocks\ntype: feedback\n---\nUse a real DB.\n",
  "project_broken.md": "---\nname: Broken\ndescription: &d Broken deploys need a rollback plan\ntype: *d\n---\nbody: Gone was here\n",
  "user_role.md": "---\nname: Role\ndescription: The user is a backend engineer who writes Rust and Go\ntype: user\n---\nBackend engineer.\n",
};
/**
 * What the user types into "memdir: Set API key" for anthropic; the mock provider accepts only it.
 * In the web worker host the request is a CORS request: the mock, as Anthropic, refuses it
 * without the direct-browser-access header (which memdir once sent only where `window` exists).
 */
export const API_KEY = "sk-ant-from-the-prompt";

/** feedback_tests.md's time: old enough for doctor's stale_core_memory (over 90 days). */
export const STALE_MS = Date.UTC(2024, 0, 15);

/** Polls `check` (no timing asserted) until it returns a truthy value; fails after `ms`. */
export async function until(check, what, ms = 30_000) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The Memory view's rows, `label · description` (the groups are expanded). */
async function memoryRows(page) {
  return page.evaluate(() => {
    const header = [...document.querySelectorAll(".pane-header")].find((h) => h.innerText.trim() === "Memory");
    const pane = header?.closest(".pane");
    const text = (row, css) => row.querySelector(css)?.textContent.trim() ?? "";
    return pane ? [...pane.querySelectorAll(".monaco-list-row")].map((r) => [text(r, ".label-name"), text(r, ".label-description")].filter(Boolean).join(" · ")) : null;
  });
}

/**
 * Opens a memory by clicking its row in the Memory view; clicked again if the view re-rendered
 * under the click (a refresh after the previous command), until its tab is active.
 */
async function openFromMemoryView(wb, page, label, file) {
  const pane = page.locator(".pane", { has: page.locator(".pane-header", { hasText: /^Memory$/ }) });
  await until(async () => {
    const row = pane.locator(".monaco-list-row", { has: page.locator(".label-name", { hasText: new RegExp(`^${label}$`) }) });
    if ((await row.count()) === 0) {
      // not rendered: below the fold of the view; scroll it
      await pane.locator(".monaco-list").first().hover();
      await page.mouse.wheel(0, 60);
      return false;
    }
    await row.first().click({ timeout: 5_000 });
    await page.waitForFunction((f) => [...document.querySelectorAll(".editor-group-container.active .tab.active")].some((t) => (t.getAttribute("aria-label") ?? "").split(", ")[0] === f), file, { timeout: 5_000 });
    return true;
  }, `${file} opened from the Memory view`);
  await wb.tab(file);
}

async function problemRows(page) {
  return page.evaluate(() => [...document.querySelectorAll(".markers-panel .monaco-list-row")].map((r) => r.innerText.replace(/\s+/g, " ").trim()));
}

/** Runs the scenario; `log` names each step as it goes. Returns what the test reports. */
export async function runScenario({ wb, page, memoryDir, workspace, mock, log, hostKind }) {
  const read = (file) => readFileSync(join(memoryDir, file), "utf8");
  const step = async (name, fn) => {
    log(`  · ${name}`);
    return fn();
  };
  const seen = {};

  await step("the Memory view lists the memories by type", async () => {
    await wb.command("Explorer: Focus on Memory View");
    // the workspace's file tree collapsed, as a user makes room: the Memory view gets the side bar's
    // height, so its rows are rendered (a list renders only what it shows)
    const folders = page.locator('.pane-header[aria-expanded="true"]', { hasText: /^workspace$/ });
    if (await folders.count()) await folders.first().click();
    const rows = await until(async () => {
      const r = await memoryRows(page);
      return r && r.some((t) => t.startsWith("Integration tests · ")) && r;
    }, "the Memory view's rows");
    assert.deepEqual(rows, ["User · 1", "Role · user · today", "Feedback · 1, 1 stale", rows[3], "No type · 1", "project_broken.md · no type · today"]);
    assert.match(rows[3], /^Integration tests · feedback · \d+ days ago · stale$/);
    seen.tree = rows;
  });

  await step("the Problems panel shows memdir's diagnostics on their lines", async () => {
    await page.keyboard.press("Control+Shift+M"); // View: Problems
    const rows = await until(async () => {
      const r = await problemRows(page);
      return r.length >= 6 && r;
    }, "the Problems panel's rows");
    assert.ok(rows.includes("MEMORY.mdmemory 1"), JSON.stringify(rows));
    assert.ok(rows.includes("the entry links to gone.md, which does not exist (fix: remove line 2) memdir dead_link [Ln 2, Col 1]"), JSON.stringify(rows));
    assert.ok(rows.includes("project_broken.mdmemory 1"), JSON.stringify(rows));
    assert.ok(rows.includes("frontmatter could not be parsed: YAML aliases are not supported in frontmatter memdir frontmatter_malformed [Ln 4, Col 1]"), JSON.stringify(rows));
    assert.ok(rows.some((r) => /^a feedback memory last changed \d+ days ago .* memdir stale_core_memory \[Ln 1, Col 1\]$/.test(r)), JSON.stringify(rows));
    seen.problems = rows;
  });

  await step("memdir: Doctor", async () => {
    await wb.command("memdir: Doctor");
    seen.doctor = await wb.notification(/^memdir doctor: 2 error\(s\), 1 warning\(s\), 0 note\(s\); 1 fixable/);
  });

  await step("memdir: Recall for this question…", async () => {
    // memdir.provider is anthropic (the mock), but no key yet: the lexical selector, and why
    await wb.command("memdir: Recall for this question…");
    seen.noKey = await wb.notification('memdir: no API key for anthropic: run "memdir: Set API key"; using the lexical selector');
    await wb.answer("how should the integration tests use the postgres database?");
    await wb.tab("Recall.md");
    const text = await until(async () => {
      const t = await wb.editorText();
      return t.includes("feedback_tests.md") && t;
    }, "Recall.md's text");
    assert.match(text, /selected\*\* by `lexical`/);
    seen.recall = text.split("\n").slice(0, 6).join("\n");
  });

  await step("memdir: Set API key, then Recall through the model with that key", async () => {
    await wb.command("memdir: Set API key");
    await wb.pick("anthropic", { title: "memdir: Set API key" });
    await wb.quickInput().locator("input.input[type=password]").waitFor({ timeout: 30_000 });
    await wb.answer(API_KEY, { title: "memdir: anthropic API key" });
    await wb.quickInput().waitFor({ state: "hidden", timeout: 30_000 });
    const before = mock.requests().length;
    await wb.command("memdir: Recall for this question…");
    await wb.answer("which database do the integration tests hit?");
    const text = await until(async () => {
      const t = await wb.editorText();
      return /selected\*\* by `anthropic`/.test(t) && t;
    }, "Recall.md through the model");
    assert.match(text, /`feedback_tests\.md`/);
    const asked = mock.requests().slice(before);
    assert.equal(asked.length, 1, JSON.stringify(asked.map((r) => r.path)));
    assert.equal(asked[0].path, "/v1/messages");
    assert.equal(asked[0].headers["x-api-key"], API_KEY, "the key from the prompt, kept in VS Code's secret storage");
    // from the web worker host the call crosses origins: Anthropic's browser header must be there
    if (hostKind === "web") assert.equal(asked[0].headers["anthropic-dangerous-direct-browser-access"], "true");
    seen.modelRecall = text.split("\n").slice(0, 3).join("\n");
  });

  await step("memdir: Remember…", async () => {
    await wb.command("memdir: Remember…");
    await wb.pick("user", { title: "memdir: Remember (1/4)" });
    await wb.answer("Editor", { title: "memdir: Remember (2/4)" });
    await wb.answer("The user edits with vim keys", { title: "memdir: Remember (3/4)" });
    await wb.answer("Prefers vim keybindings.", { title: "memdir: Remember (4/4)" });
    seen.remember = await wb.notification(/^memdir: \w+ user_editor\.md$/);
    assert.match(read("user_editor.md"), /^---\nname: Editor\ndescription: The user edits with vim keys\n[\s\S]*\n {2}type: user\n[\s\S]*---\n\nPrefers vim keybindings\.\n$/);
    assert.match(read("MEMORY.md"), /- \[Editor\]\(user_editor\.md\) — The user edits with vim keys\n$/);
    await until(async () => (await memoryRows(page))?.includes("User · 2"), "the Memory view after remember");
  });

  const withDeadLink = read("MEMORY.md");
  await step("memdir: Doctor: fix — declined, then applied", async () => {
    await wb.command("memdir: Doctor: fix");
    await wb.tab("doctor-fixes.diff");
    const diff = await wb.editorText();
    assert.match(diff, /-- \[Gone\]\(gone\.md\) — was here/);
    seen.fixQuestion = await wb.modal(null);
    await wb.notification("memdir doctor: nothing was changed");
    assert.equal(read("MEMORY.md"), withDeadLink);
    await wb.command("memdir: Doctor: fix");
    await wb.modal("Apply");
    seen.fix = await wb.notification(/^memdir doctor: fixed 1; memdir doctor: 1 error\(s\)/);
    assert.equal(read("MEMORY.md"), withDeadLink.replace("- [Gone](gone.md) — was here\n", ""));
    await until(async () => !(await problemRows(page)).some((r) => r.includes("dead_link")), "dead_link gone from the Problems panel");
  });

  await step("memdir: Undo last change", async () => {
    await wb.command("memdir: Undo last change");
    await wb.tab("history.diff");
    seen.undoLastQuestion = await wb.modal("Undo");
    assert.match(seen.undoLastQuestion, /^Undo the doctor of /);
    await wb.notification(/^memdir: undid the doctor of /);
    assert.equal(read("MEMORY.md"), withDeadLink);
  });

  await step("memdir: Show history", async () => {
    await wb.command("memdir: Show history");
    const rows = await wb.dismissQuickInput({ title: "memdir: History" });
    assert.equal(rows.length, 3, JSON.stringify(rows));
    assert.match(rows[0], /^undo · vscode/);
    assert.match(rows[1], /^doctor · vscode/);
    assert.match(rows[2], /^remember · vscode/);
    seen.history = rows;
  });

  await step("memdir: Undo change… (the remember: the only change still undoable)", async () => {
    await wb.command("memdir: Undo change…");
    seen.undoable = await wb.pick(/^remember · vscode/, { title: "memdir: Undo change" });
    assert.equal(seen.undoable.length, 1, JSON.stringify(seen.undoable));
    await wb.tab("history.diff");
    await wb.modal("Undo");
    await wb.notification(/^memdir: undid the remember of .* \(changed MEMORY\.md, created user_editor\.md\)$/);
    assert.equal(existsSync(join(memoryDir, "user_editor.md")), false);
    assert.equal(read("MEMORY.md"), FILES["MEMORY.md"]);
  });

  await step("memdir: Restore to… (just after the remember)", async () => {
    await wb.command("memdir: Restore to…");
    await wb.pick(/^remember · vscode/, { title: "memdir: Restore to…" });
    seen.restoreQuestion = await wb.modal("Restore");
    await wb.notification(/^memdir: restored the memory to just after the remember of /);
    assert.equal(read("MEMORY.md"), withDeadLink);
    assert.ok(existsSync(join(memoryDir, "user_editor.md")));
  });

  await step("memdir: Confirm memory still true (the stale memory, opened from the Memory view)", async () => {
    const before = read("feedback_tests.md");
    await openFromMemoryView(wb, page, "Integration tests", "feedback_tests.md");
    await wb.command("memdir: Confirm memory still true");
    seen.touch = await wb.notification("memdir: feedback_tests.md confirmed true now");
    const after = read("feedback_tests.md");
    assert.match(after, /\nmetadata:\n {2}modified: \d{4}-\d\d-\d\d/);
    assert.equal(after.replace(/metadata:\n {2}modified: \S+\n/, ""), before);
    await until(async () => (await memoryRows(page))?.includes("Integration tests · feedback · today"), "the Memory view: no longer stale");
  });

  await step("memdir: Forget memory… (the open file)", async () => {
    await openFromMemoryView(wb, page, "Role", "user_role.md");
    await wb.command("memdir: Forget memory…");
    seen.forgetQuestion = await wb.modal("Forget");
    assert.match(seen.forgetQuestion, /^Forget user_role\.md\?/);
    await wb.notification("memdir: forgot user_role.md");
    assert.equal(existsSync(join(memoryDir, "user_role.md")), false);
    assert.doesNotMatch(read("MEMORY.md"), /user_role\.md/);
    await until(async () => !(await memoryRows(page))?.some((r) => r.startsWith("Role · ")), "Role gone from the Memory view");
  });

  await step("memdir: Extract memories from the selection… (the model proposes, the modal saves)", async () => {
    writeFileSync(join(workspace, "chat.txt"), "Please always use tabs in Go files.\n");
    await wb.open("chat.txt");
    mock.script({ kind: "text", text: JSON.stringify({ operations: [{ action: "create", file: null, type: "feedback", name: "Indentation", description: "The user wants tabs, not spaces, in every Go file", body: "Use tabs in Go files." }] }) });
    await wb.command("memdir: Extract memories from the selection…");
    seen.extractQuestion = await wb.modal("Save");
    assert.match(seen.extractQuestion, /^Save this feedback memory\? \(new file (\S+\.md)\)/);
    seen.extract = await wb.notification(/^memdir: saved \S+\.md$/);
    const file = /saved (\S+\.md)$/.exec(seen.extract)[1];
    assert.match(read(file), /^---\nname: Indentation\ndescription: The user wants tabs, not spaces, in every Go file\n[\s\S]*Use tabs in Go files\.\n$/);
    assert.match(read("MEMORY.md"), new RegExp(`\\(${file.replace(".", "\\.")}\\)`));
  });

  await step("memdir: Consolidate memory…", async () => {
    await wb.command("memdir: Consolidate memory…");
    seen.consolidate = await wb.notification(/^memdir: (nothing to consolidate|consolidated|nothing was changed|another)/);
  });

  await step("memdir: Refresh (a memory written outside VS Code)", async () => {
    writeFileSync(join(memoryDir, "reference_dashboards.md"), "---\nname: Dashboards\ndescription: Where the team's Grafana dashboards for the API live\ntype: reference\n---\nSee grafana/api.\n");
    await wb.command("memdir: Refresh");
    await until(async () => (await memoryRows(page))?.includes("Reference · 1"), "the Memory view after Refresh");
    seen.treeAfter = await memoryRows(page);
    // Refresh runs doctor again: its diagnostics are back in the Problems panel (MEMORY.md has its dead link again since the restore)
    await until(async () => {
      const rows = await problemRows(page);
      return rows.some((r) => r.includes("memdir dead_link [Ln 2, Col 1]")) && rows.some((r) => r.includes("memdir frontmatter_malformed [Ln 4, Col 1]"));
    }, "the Problems panel after Refresh");
  });
  return seen;
}
