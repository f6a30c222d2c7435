// The browser playground (playground/), built into a temporary folder, served on 127.0.0.1 and
// driven in Debian's Chromium as a user would: typing in the editor, pasting, clicking, files
// in and out. The mock Anthropic server answers CORS as the real API does. Figures (load time,
// recall time at 200 files, the longest frame while typing, the bundle's size) are reported as
// test diagnostics, never asserted. Screenshots at laptop and phone widths go to
// MEMDIR_ARTIFACTS (default: a temporary folder, printed); MEMDIR_PLAYGROUND_SCREENSHOT=1 also
// writes docs/playground.png (the page after a recall, laptop width).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { strToU8, unzipSync, zipSync } from "fflate";
import { launchChromium } from "../browser/chromium.mjs";
import { startMockProviders } from "../mock/providers.mjs";
import { buildPlayground, servePlayground } from "../../scripts/playground.mjs";

const root = resolve(import.meta.dirname, "../..");
const artifacts = process.env.MEMDIR_ARTIFACTS ? resolve(process.env.MEMDIR_ARTIFACTS) : join(tmpdir(), "memdir-playground-artifacts");
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let out, server, mock, browser, context, page;
const pageErrors = [];

/** The example memory's files, relative paths. */
function exampleFiles() {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.push(relative(join(root, "examples/memory"), full).split(sep).join("/"));
    }
  };
  walk(join(root, "examples/memory"));
  return files.sort();
}

async function shot(name, viewport = LAPTOP) {
  await page.setViewportSize(viewport);
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: viewport === PHONE });
  await page.setViewportSize(LAPTOP);
}

async function waitReady() {
  await page.waitForSelector("body[data-ready]", { timeout: 30_000 });
  assert.equal(await page.getAttribute("body", "data-ready"), "true", await page.textContent("#status"));
}

async function openFile(path) {
  await page.click(`#file-list li[data-path="${path}"]`);
  await page.waitForFunction((p) => document.querySelector("#file-name").textContent === p, path);
}

async function tab(name) {
  await page.click(`[role=tab][data-tab=${name}]`);
}

/** Pastes `text` into the editor at its cursor, as Ctrl+V does (a paste event with the text). */
async function paste(text) {
  await page.evaluate((t) => {
    const data = new DataTransfer();
    data.setData("text/plain", t);
    document.querySelector("#editor .cm-content").dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

async function saved() {
  await page.waitForFunction(() => document.querySelector("#save-state").textContent === "saved", null, { timeout: 15_000 });
}

/** Every entry of a zip's bytes, with its top folder taken off, as path → text. */
function zipTexts(bytes) {
  return Object.fromEntries(Object.entries(unzipSync(bytes)).map(([p, b]) => [p.replace(/^memory\//, ""), new TextDecoder().decode(b)]).sort(([a], [b]) => (a < b ? -1 : 1)));
}

async function exportZip() {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-zip")]);
  const path = await download.path();
  return new Uint8Array(readFileSync(path));
}

async function importZip(bytes, name = "memory.zip") {
  await page.setInputFiles("#zip-input", { name, mimeType: "application/zip", buffer: Buffer.from(bytes) });
  await page.waitForFunction((n) => document.querySelector("#status").textContent.startsWith(`${n}:`), name, { timeout: 30_000 });
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  out = mkdtempSync(join(tmpdir(), "memdir-playground-"));
  const built = await buildPlayground({ outDir: out });
  const js = Buffer.concat(Object.keys(built.sizes).filter((n) => n.endsWith(".js") && n !== "sw.js").map((n) => readFileSync(join(out, n))));
  console.log(`# playground bundle: ${Object.entries(built.sizes).map(([n, s]) => `${n} ${s} B`).join(", ")}; the page's JavaScript ${js.length} B, ${gzipSync(js, { level: 9 }).length} B gzip -9; screenshots in ${artifacts}`);
  server = await servePlayground(out);
  mock = await startMockProviders();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: LAPTOP, acceptDownloads: true });
  page = await context.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("dialog", (d) => void d.accept());
  await page.goto(server.url);
  await waitReady();
});

after(async () => {
  await browser?.close();
  await mock?.close();
  await server?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

test("the page loads, seeded with the example memory, kept in the browser's storage", async () => {
  const paths = await page.$$eval("#file-list li", (lis) => lis.map((li) => li.dataset.path));
  assert.deepEqual([...paths].sort(), exampleFiles());
  assert.equal(paths[0], "MEMORY.md");
  assert.match(await page.textContent("#backend"), /stored in (OPFS|IndexedDB)/);
  assert.match(await page.textContent("#index-lines"), /^45 \/ 200 lines$/);
  assert.match(await page.textContent("#index-state"), /loaded whole/);
  assert.match(await page.textContent("#file-list li[data-path='user_role.md'] .meta"), /user/);
  await tab("manifest");
  assert.match(await page.textContent("#manifest"), /^- \[\w+\] \S+\.md \(/);
  await tab("index");
  await shot("01-loaded-laptop");
  await shot("01-loaded-phone", PHONE);
  assert.deepEqual(pageErrors, []);
});

test("editing a memory in the editor changes the manifest the selector reads", async () => {
  await openFile("project_oidc_migration.md");
  await page.click("#editor .cm-content");
  // line 3 is `description: Login is moving…`: type after `description: `
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Home");
  for (let i = 0; i < "description: ".length; i++) await page.keyboard.press("ArrowRight");
  await page.keyboard.type("(playground edit) ");
  await saved();
  await tab("manifest");
  await page.waitForFunction(() => /^- \[project\] project_oidc_migration\.md \([^)]*\): \(playground edit\) Login is moving from/m.test(document.querySelector("#manifest").textContent), null, { timeout: 15_000 });
  // the list is newest first: the edited file is now at the top, under MEMORY.md
  const paths = await page.$$eval("#file-list li", (lis) => lis.map((li) => li.dataset.path));
  assert.equal(paths[1], "project_oidc_migration.md");
});

test("an index grown past 200 lines shows the warning and where the cut falls", async () => {
  await tab("index");
  await openFile("MEMORY.md");
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+End");
  const extra = Array.from({ length: 180 }, (_, i) => `- [Extra ${i + 1}](project_extra_${i + 1}.md) — padding line ${i + 1}`).join("\n");
  await paste(`${extra}\n`); // the file ends with a newline: these are lines 46–225
  await saved();
  await page.waitForSelector("#index-warning", { timeout: 15_000 });
  assert.match(await page.textContent("#index-warning"), /^WARNING: MEMORY\.md is 225 lines \(limit: 200 lines\), so only part of it was loaded\./);
  assert.match(await page.textContent("#index-state"), /cut: the line limit \(200 lines\)/);
  assert.match(await page.textContent("#index-cut"), /lines 201–225 are not loaded/);
  // the line after the cut is struck out; the one before it is not
  const around = await page.$$eval("#index-lines-view > div", (divs) => {
    const at = divs.findIndex((d) => d.id === "index-cut");
    return { before: divs[at - 1].className, beforeText: divs[at - 1].textContent, after: divs[at + 1].className };
  });
  assert.equal(around.before, "");
  assert.match(around.beforeText, /^200- \[Extra 155\]/);
  assert.equal(around.after, "out");
  assert.match(await page.textContent("#index-prompt"), /padding line 155\n\n> WARNING/);
  await shot("02-index-cut-laptop");
  // undo the paste: the index is whole again
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+z");
  await saved();
  await page.waitForFunction(() => document.querySelector("#index-state").textContent === "loaded whole", null, { timeout: 15_000 });
});

test("recall through the mock Anthropic API: preflight, the browser header, the blocks, the session", async () => {
  mock.reset();
  await tab("recall");
  await page.check("input[name=selector][value=anthropic]");
  assert.equal(await page.isVisible("#api-key"), true);
  await page.fill("#api-key", "sk-ant-test");
  await page.fill("#base-url", mock.url);
  await page.fill("#query", "why were multi-leg invoices over-billed by a cent?");
  await page.press("#query", "Enter");
  await page.waitForSelector("#recall-outcome", { timeout: 20_000 });
  assert.equal(await page.textContent("#recall-outcome"), "selected", (await page.$eval("#recall-result", (e) => e.textContent)));
  const posts = mock.requests().filter((r) => r.method === "POST" && r.path === "/v1/messages");
  assert.equal(posts.length, 1);
  assert.equal(posts[0].headers["anthropic-dangerous-direct-browser-access"], "true");
  assert.equal(posts[0].headers["x-api-key"], "sk-ant-test");
  assert.equal(posts[0].headers.origin, new URL(server.url).origin);
  // the files the mock model named, as the page shows them
  const answer = JSON.parse(JSON.parse((await page.textContent("#recall-exchange pre.answer")).replace(/^HTTP 200\n\n/, "")).content.at(-1).text);
  const chosen = await page.$$eval("#recall-chosen code", (cs) => cs.map((c) => c.textContent));
  assert.ok(chosen.includes("project_invoice_rounding_incident.md"), chosen.join(", "));
  assert.deepEqual(chosen, answer.selected_memories);
  const blocks = await page.$$eval("pre.reminder", (ps) => ps.map((p) => p.textContent));
  assert.equal(blocks.length, chosen.length);
  for (const block of blocks) assert.match(block, /^<system-reminder>[\s\S]*<\/system-reminder>$/);
  // the exact request, key redacted; the raw answer
  const request = await page.textContent("#recall-exchange pre.request");
  assert.match(request, new RegExp(`^POST ${mock.url}/v1/messages\\n`));
  assert.match(request, /^x-api-key: \[redacted\]$/m);
  assert.match(request, /^anthropic-dangerous-direct-browser-access: true$/m);
  assert.ok(!request.includes("sk-ant-test"));
  assert.match(await page.textContent("#recall-exchange pre.answer"), /^HTTP 200\n/);
  assert.match(await page.textContent("#recall-tokens"), /^[1-9][\d,]* in · [1-9]\d* out/);
  assert.match(await page.textContent("#recall-cost"), /^\$0\.\d{6}$|^cost: —$/);
  assert.equal(await page.textContent("#already-surfaced"), chosen.join("\n"));
  await openFile("project_invoice_rounding_incident.md");
  await page.$eval("#tab-recall", (el) => el.scrollTo(0, 0));
  if (process.env.MEMDIR_PLAYGROUND_SCREENSHOT) {
    await page.screenshot({ path: join(root, "docs/playground.png") });
    console.log("# wrote docs/playground.png");
  }
  await shot("03-recall-laptop");
  await shot("03-recall-phone", PHONE);
  // a second query in the session: what surfaced is sent as alreadySurfaced and not offered again
  const budgetBefore = Number((await page.textContent("#session-budget b")).replace(/,/g, ""));
  assert.ok(budgetBefore > 0);
  await page.fill("#query", "invoice rounding incident and pricing cutover");
  await page.press("#query", "Enter");
  await page.waitForFunction(() => document.querySelectorAll("#session tbody tr").length === 2, null, { timeout: 20_000 });
  const second = mock.requests().filter((r) => r.method === "POST" && r.path === "/v1/messages")[1];
  const userText = JSON.stringify(second.body.messages);
  for (const path of chosen) assert.ok(!new RegExp(`\\] ${path.replace(/\./g, "\\.")} \\(`).test(userText), `${path} is not offered again`);
  // a name the model made up is rejected, with the reason
  mock.script({ kind: "text", selected: ["no_such_file.md", "feedback_logging_pii.md"] });
  await page.fill("#query", "what may go into the logs?");
  await page.press("#query", "Enter");
  await page.waitForFunction(() => document.querySelectorAll("#session tbody tr").length === 3, null, { timeout: 20_000 });
  assert.match(await page.textContent("#recall-rejected"), /^"no_such_file\.md"unknown$/);
  assert.deepEqual(await page.$$eval("#recall-chosen code", (cs) => cs.map((c) => c.textContent)), ["feedback_logging_pii.md"]);
});

test("recall through an OpenAI-compatible server (the mock's Ollama /v1), without a key", async () => {
  mock.reset();
  await tab("recall");
  await page.check("input[name=selector][value=openai]");
  await page.fill("#api-key", "");
  await page.fill("#model", "qwen3:8b");
  await page.fill("#base-url", `${mock.url}/ollama/v1`);
  await page.fill("#query", "what is the policy on logging personal data?");
  await page.press("#query", "Enter");
  await page.waitForFunction(() => document.querySelectorAll("#session tbody tr").length === 4, null, { timeout: 20_000 });
  const outcome = await page.textContent("#recall-outcome");
  assert.ok(["selected", "none_selected"].includes(outcome), await page.textContent("#recall-result"));
  const posts = mock.requests().filter((r) => r.method === "POST");
  assert.equal(posts.length, 1);
  assert.equal(posts[0].path, "/ollama/v1/chat/completions");
  assert.equal(posts[0].headers.authorization, undefined);
  assert.equal(posts[0].body.model, "qwen3:8b");
  assert.match(await page.textContent("#recall-exchange pre.request"), new RegExp(`^POST ${mock.url}/ollama/v1/chat/completions\n`));
  assert.match(await page.textContent("#recall-result"), /selector openai · qwen3:8b/);
  await page.check("input[name=selector][value=lexical]");
});

test("remember, a refusal, the memory tool and forget, through the library's rules", async () => {
  await tab("write");
  await page.selectOption("#rm-type", "project");
  await page.fill("#rm-name", "Release freeze");
  await page.fill("#rm-description", "Merges freeze on March 5 for the mobile release");
  await page.fill("#rm-body", "No merges to main from March 5.\n\n**Why:** the store review.\n**How to apply:** hold feature branches.");
  await page.click("#rm-submit");
  await page.waitForSelector("#file-list li[data-path='project_release_freeze.md']", { timeout: 15_000 });
  assert.match(await page.textContent("#rm-result"), /^created: project_release_freeze\.md/);
  // its index line, as the model will see it (the editor draws only the lines on screen)
  await tab("index");
  assert.match(await page.textContent("#index-prompt"), /^- \[Release freeze\]\(project_release_freeze\.md\) — Merges freeze on March 5 for the mobile release$/m);
  // a credential is refused by the core, and nothing is written
  await tab("write");
  await page.fill("#rm-name", "Deploy key");
  await page.fill("#rm-description", "The key the deploy job uses for the bucket");
  await page.fill("#rm-body", "AKIAIOSFODNN7EXAMPLF is the key.");
  await page.click("#rm-submit");
  await page.waitForSelector("#rm-error");
  assert.match(await page.textContent("#rm-error"), /^SECRET_DETECTED: /);
  assert.equal(await page.$("#file-list li[data-path='project_deploy_key.md']"), null);
  // the memory tool: view the folder, then a refused path
  await tab("tool");
  await page.selectOption("#tool-command", "view");
  await page.click("#tool-run");
  await page.waitForSelector("#tool-output");
  assert.match(await page.textContent("#tool-output"), /\/memories\/project_release_freeze\.md/);
  // str_replace on the file open in the editor: the editor shows the change
  await openFile("project_flaky_eta_test.md");
  await tab("tool");
  await page.selectOption("#tool-command", "str_replace");
  assert.equal(await page.inputValue("[data-key=path]"), "/memories/project_flaky_eta_test.md");
  await page.fill("[data-key=old_str]", "\nname: ");
  await page.fill("[data-key=new_str]", "\nname: (tool) ");
  await page.click("#tool-run");
  await page.waitForFunction(() => /^The memory file has been edited/.test(document.querySelector("#tool-output")?.textContent ?? ""), null, { timeout: 15_000 });
  await page.waitForFunction(() => document.querySelector("#editor .cm-content").textContent.includes("name: (tool) "), null, { timeout: 15_000 });
  assert.equal(await page.textContent("#save-state"), "reloaded: changed on disk");
  await page.selectOption("#tool-command", "create");
  await page.fill("[data-key=path]", "/memories/../escape.md");
  await page.click("#tool-run");
  await page.waitForFunction(() => document.querySelector("#tool-output")?.classList.contains("error-box"));
  // forget: the file and its index line
  await openFile("project_release_freeze.md");
  await page.click("#forget-file");
  await page.waitForFunction(() => !document.querySelector("#file-list li[data-path='project_release_freeze.md']"), null, { timeout: 15_000 });
  await tab("index");
  assert.doesNotMatch(await page.textContent("#index-prompt"), /release_freeze/);
});

test("doctor's safe fix is shown as a diff and applied", async () => {
  await openFile("MEMORY.md");
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+End");
  // a dead entry whose words are all elsewhere in the folder (an older copy of a live entry): its fix removes it
  await paste("- [Answer style preferences](project_gone.md) — terse, diffs not whole files\n");
  await saved();
  await tab("doctor");
  await page.waitForFunction(() => /dead_link/.test(document.querySelector("#findings")?.textContent ?? ""), null, { timeout: 15_000 });
  await page.click("#plan-fixes");
  await page.waitForSelector("#fix-plan pre.diff");
  assert.match(await page.textContent("#fix-plan pre.diff"), /^-- \[Answer style preferences\]\(project_gone\.md\) — terse, diffs not whole files$/m);
  await page.click("#apply-fixes");
  await page.waitForFunction(() => !/dead_link/.test(document.querySelector("#tab-doctor").textContent), null, { timeout: 15_000 });
});

/** The History tab's entries, newest first: route, label, status and each file's action. */
async function historyEntries() {
  await tab("history");
  await page.waitForSelector("#history-list > li.history-item", { timeout: 15_000 });
  return page.$$eval("#history-list > li.history-item", (lis) =>
    lis.map((li) => ({
      route: li.dataset.route,
      label: li.querySelector(".label")?.textContent ?? null,
      status: li.querySelector(".status").textContent,
      changes: Array.from(li.querySelectorAll(".changes li")).map((c) => `${c.dataset.action} ${c.dataset.path}`),
    })),
  );
}

const NEWEST = "#history-list > li.history-item:first-child";

test("the history panel lists memdir's changes; undo shows the diff, then takes one back; a later edit is refused until Overwrite", async () => {
  // what the tests above made through memdir, newest first, each recorded as the playground's
  const entries = await historyEntries();
  assert.deepEqual(entries.slice(0, 4), [
    // doctor's safe fixes, all at once: the dead link, and the example memory's own fixable finding
    { route: "doctor", label: "playground", status: "done", changes: ["changed MEMORY.md", "changed project_pricing_service_cutover.md"] },
    { route: "forget", label: "playground", status: "done", changes: ["changed MEMORY.md", "removed project_release_freeze.md"] },
    { route: "tool", label: "playground", status: "done", changes: ["changed project_flaky_eta_test.md"] },
    { route: "remember", label: "playground", status: "done", changes: ["changed MEMORY.md", "created project_release_freeze.md"] },
  ]);
  // the editor's saves are a person's edits: none is in the history
  assert.equal(entries.length, 4);
  await tab("index");
  const fixed = await page.textContent("#index-prompt");
  assert.doesNotMatch(fixed, /project_gone\.md/);

  // undo doctor's fix: the diff first, nothing changed until applied
  await tab("history");
  await page.click(`${NEWEST} button.undo`);
  await page.waitForSelector(`${NEWEST} .undo-box pre.diff`);
  assert.match(await page.textContent(`${NEWEST} .undo-box pre.diff`), /^\+- \[Answer style preferences\]\(project_gone\.md\) — terse, diffs not whole files$/m);
  await tab("index");
  assert.equal(await page.textContent("#index-prompt"), fixed);
  await tab("history");
  await page.click(`${NEWEST} button.undo-apply`);
  await page.waitForFunction(() => document.querySelector("#history-list > li")?.dataset.route === "undo", null, { timeout: 15_000 });
  assert.match(await page.textContent(`${NEWEST} .hint`), /^takes back the doctor of /);
  assert.deepEqual((await historyEntries())[0], { route: "undo", label: "playground", status: "done", changes: ["changed MEMORY.md", "changed project_pricing_service_cutover.md"] });
  // the file is back as it was before the fix: the dead link, and doctor's finding on it
  await tab("index");
  assert.match(await page.textContent("#index-prompt"), /^- \[Answer style preferences\]\(project_gone\.md\) — terse, diffs not whole files$/m);
  await tab("doctor");
  await page.waitForFunction(() => /dead_link/.test(document.querySelector("#findings")?.textContent ?? ""), null, { timeout: 15_000 });
  // the undo is a change like any other: undone in turn, the fix is back, byte for byte
  await tab("history");
  await page.click(`${NEWEST} button.undo`);
  await page.waitForSelector(`${NEWEST} .undo-box pre.diff`);
  await page.click(`${NEWEST} button.undo-apply`);
  await page.waitForFunction(() => document.querySelectorAll("#history-list > li").length === 6, null, { timeout: 15_000 });
  await tab("index");
  assert.equal(await page.textContent("#index-prompt"), fixed);

  // remember a memory, then the person edits it in the editor: undoing the remember is refused
  await tab("write");
  await page.selectOption("#rm-type", "project");
  await page.fill("#rm-name", "Undo probe");
  await page.fill("#rm-description", "A memory remembered to be taken back");
  await page.fill("#rm-body", "Remembered through memdir.");
  await page.fill("#rm-file", "");
  await page.click("#rm-submit");
  await page.waitForSelector("#file-list li[data-path='project_undo_probe.md']", { timeout: 15_000 });
  await page.waitForFunction(() => document.querySelector("#file-name").textContent === "project_undo_probe.md");
  assert.deepEqual((await historyEntries())[0], { route: "remember", label: "playground", status: "done", changes: ["changed MEMORY.md", "created project_undo_probe.md"] });
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+End");
  await page.keyboard.type("A person's later line.");
  await saved();
  const before = await historyEntries();
  assert.equal(before.length, 7);
  assert.equal(before[0].route, "remember");
  await page.click(`${NEWEST} button.undo`);
  await page.waitForSelector(`${NEWEST} .undo-changed`, { timeout: 15_000 });
  assert.match(await page.textContent(`${NEWEST} .undo-changed`), /^CHANGED: project_undo_probe\.md changed since change /);
  // nothing changed: the file with the person's line, its index line, no new record
  assert.ok(await page.$("#file-list li[data-path='project_undo_probe.md']"));
  assert.match(await page.textContent("#editor .cm-content"), /A person's later line\.$/);
  await tab("index");
  assert.match(await page.textContent("#index-prompt"), /\(project_undo_probe\.md\)/);
  await tab("history");
  assert.equal(await page.$$eval("#history-list > li", (lis) => lis.length), 7);
  // Overwrite: the remember is taken back whole, the person's edit with it
  await page.click(`${NEWEST} button.undo-overwrite`);
  await page.waitForFunction(() => !document.querySelector("#file-list li[data-path='project_undo_probe.md']"), null, { timeout: 15_000 });
  assert.deepEqual((await historyEntries())[0], { route: "undo", label: "playground", status: "done", changes: ["changed MEMORY.md", "removed project_undo_probe.md"] });
  await tab("index");
  assert.equal(await page.textContent("#index-prompt"), fixed);
  await page.waitForFunction(() => document.querySelector("#save-state").textContent === "removed from the folder", null, { timeout: 15_000 });
  await openFile("MEMORY.md");
  await tab("history");
  await shot("05-history-laptop");
  assert.deepEqual(pageErrors, []);
});

/** The manifest's paths, newest first (the order the 200-file cap goes by). */
async function manifestOrder() {
  await tab("manifest");
  return (await page.textContent("#manifest")).split("\n").map((line) => /^- \[\w+\] (\S+) \(/.exec(line)?.[1]);
}

test("export as a zip, import it back, and find the same folder; it persists across a reload", async () => {
  const order = await manifestOrder();
  // files edited by the tests above are the newest: the order is not the order of the paths
  assert.notDeepEqual(order, [...order].sort().reverse());
  const first = await exportZip();
  const files = zipTexts(first);
  // the user's files only: memdir's own folder (the history) is not exported
  assert.deepEqual(Object.keys(files).sort(), exampleFiles());
  assert.match(files["project_oidc_migration.md"], /\(playground edit\)/);
  // change the folder, then import the export: the folder is back as it was
  await page.click("#reset");
  await page.waitForFunction(() => document.querySelector("#status").textContent.startsWith("the example memory:"), null, { timeout: 15_000 });
  await tab("manifest");
  assert.doesNotMatch(await page.textContent("#manifest"), /playground edit/);
  await importZip(first, "exported.zip");
  const again = zipTexts(await exportZip());
  assert.deepEqual(again, files);
  // written oldest first: the newest files are still the newest
  assert.deepEqual(await manifestOrder(), order);
  await page.reload();
  await waitReady();
  await tab("manifest");
  assert.match(await page.textContent("#manifest"), /\(playground edit\)/);
  assert.deepEqual(zipTexts(await exportZip()), files);
});

test("works offline after the first load (the service worker)", async () => {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
  await context.setOffline(true);
  try {
    await page.reload();
    await waitReady();
    assert.ok((await page.$$("#file-list li")).length > 30);
  } finally {
    await context.setOffline(false);
  }
});

/** 205 topic files (5 past the cap), some old enough to be stale, and an index of 150 lines. */
function bigFolder() {
  const tree = {};
  const types = ["user", "feedback", "project", "reference"];
  const topics = ["billing", "deploy", "oncall", "schema", "invoices", "mobile", "search", "auth", "caching", "queues"];
  const index = [];
  for (let i = 1; i < 205; i++) {
    const type = types[i % 4];
    const topic = topics[i % topics.length];
    const file = `${type}_${topic}_${i}.md`;
    const modified = new Date(Date.UTC(2026, 0, 1) + i * 86_400_000).toISOString();
    tree[`memory/${file}`] = strToU8(`---\nname: ${topic} note ${i}\ndescription: How the team handles ${topic} case ${i} in production\ntype: ${type}\nmetadata:\n  modified: ${modified}\n---\n\nNote ${i} about ${topic}.\n\n**Why:** case ${i}.\n**How to apply:** check ${topic} first.\n`);
    if (i < 150) index.push(`- [${topic} note ${i}](${file}) — ${topic} case ${i}`);
  }
  // written last (a zip is imported in its order): the newest file, within the cap
  tree["memory/project_invoice_rounding.md"] = strToU8("---\nname: Invoice rounding\ndescription: Invoice totals are rounded once, in integer cents, since the pricing cutover\ntype: project\n---\n\nRound once, at the total.\n");
  tree["memory/MEMORY.md"] = strToU8(`${index.join("\n")}\n`);
  return zipSync(tree);
}

test("200 files: load time, recall time and the longest frame while typing (reported, not asserted)", async (t) => {
  await importZip(bigFolder(), "big.zip");
  await page.reload();
  await waitReady();
  await page.waitForSelector("body[data-doctor-ms]");
  const load = await page.evaluate(() => ({ scriptMs: Number(document.body.dataset.loadMs), navigationMs: Number(document.body.dataset.readyMs), doctorMs: Number(document.body.dataset.doctorMs), steps: document.body.dataset.steps }));
  assert.equal((await page.$$("#file-list li")).length, 206);
  assert.equal(await page.$$eval("#file-list .tag.dropped", (t) => t.length), 5);
  assert.ok((await page.$$eval("#file-list .tag.stale", (t) => t.length)) > 100);
  await tab("manifest");
  assert.equal((await page.textContent("#dropped")).split("\n").length, 5);
  await tab("recall");
  await page.check("input[name=selector][value=lexical]");
  await page.fill("#query", "why is an invoice total off by a cent since the pricing cutover?");
  await page.press("#query", "Enter");
  await page.waitForSelector("#recall-outcome", { timeout: 20_000 });
  assert.equal(await page.textContent("#recall-outcome"), "selected");
  assert.ok((await page.$$eval("#recall-chosen code", (cs) => cs.map((c) => c.textContent))).includes("project_invoice_rounding.md"));
  const recallShown = await page.textContent("#recall-latency");
  await shot("04-200-files-recall-laptop");
  await shot("04-200-files-recall-phone", PHONE);

  // typing in the editor: long tasks and gaps between animation frames
  await openFile("project_invoices_194.md");
  await page.evaluate(() => {
    const w = window;
    w.__frames = { longTasks: [], maxGapMs: 0, observed: PerformanceObserver.supportedEntryTypes.includes("longtask") };
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__frames.longTasks.push(e.duration);
    }).observe({ type: "longtask" });
    let last = performance.now();
    const tick = (now) => {
      w.__frames.maxGapMs = Math.max(w.__frames.maxGapMs, now - last);
      last = now;
      if (!w.__frames.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+End");
  // three bursts with pauses past the save delay: saves and re-reads of the folder run between them
  for (const burst of ["\nTyping into one of two hundred memories", " while the page saves and re-reads", " the folder after each pause."]) {
    await page.keyboard.type(burst, { delay: 25 });
    await page.waitForTimeout(450);
  }
  await saved();
  const frames = await page.evaluate(() => ((window.__frames.stop = true), window.__frames));
  const worstLongTask = frames.longTasks.length ? Math.max(...frames.longTasks) : 0;
  const figures = `load average ${loadavg().map((x) => x.toFixed(2)).join(" / ")}; 200 files: load ${load.navigationMs.toFixed(0)} ms from navigation (${load.scriptMs.toFixed(0)} ms from the script's start: ${load.steps}), doctor's findings ${load.doctorMs.toFixed(0)} ms from the script's start; lexical recall shown ${recallShown}; while typing: ${frames.observed ? "" : "(long tasks not observable here) "}${frames.longTasks.length} long tasks, the longest ${worstLongTask.toFixed(0)} ms, the longest gap between frames ${frames.maxGapMs.toFixed(0)} ms`;
  console.log(`# ${figures}`);
  t.diagnostic(figures);
  assert.deepEqual(pageErrors, []);
});

test("open a folder from disk: the File System Access picker, and the folder upload where there is none", async () => {
  // the picker, answered with a real directory handle (made in OPFS: the native dialog cannot be driven)
  const picked = await context.newPage();
  picked.on("dialog", (d) => void d.accept());
  await picked.addInitScript(() => {
    window.showDirectoryPicker = async () => {
      const root = await navigator.storage.getDirectory();
      await root.removeEntry("picked", { recursive: true }).catch(() => {});
      const dir = await root.getDirectoryHandle("picked", { create: true });
      const put = async (at, name, text) => {
        const w = await (await at.getFileHandle(name, { create: true })).createWritable();
        await w.write(text);
        await w.close();
      };
      await put(dir, "MEMORY.md", "- [A](project_a.md) — the a project\n");
      await put(dir, "project_a.md", "---\nname: A\ndescription: the a project\ntype: project\n---\n\nA.\n");
      await put(dir, "notes.txt", "not a memory");
      await put(await dir.getDirectoryHandle(".git", { create: true }), "config", "[core]");
      await put(await dir.getDirectoryHandle("sub", { create: true }), "reference_b.md", "---\nname: B\ndescription: the b reference\ntype: reference\n---\n\nB.\n");
      return dir;
    };
  });
  await picked.goto(server.url);
  await picked.waitForSelector("body[data-ready=true]");
  await picked.click("#open-folder");
  await picked.waitForFunction(() => document.querySelector("#status").textContent.startsWith("the folder picked:"), null, { timeout: 15_000 });
  assert.match(await picked.textContent("#status"), /^the folder picked: 3 files\. Skipped 1: notes\.txt: not a Markdown file$/);
  assert.deepEqual((await picked.$$eval("#file-list li", (lis) => lis.map((li) => li.dataset.path))).sort(), ["MEMORY.md", "project_a.md", "sub/reference_b.md"]);
  await picked.close();

  // no picker: the folder upload (<input type=file webkitdirectory>)
  const dir = mkdtempSync(join(tmpdir(), "memdir-folder-"));
  try {
    mkdirSync(join(dir, "memory/team"), { recursive: true });
    writeFileSync(join(dir, "memory/MEMORY.md"), "- [C](user_c.md) — the c user\n");
    writeFileSync(join(dir, "memory/user_c.md"), "---\nname: C\ndescription: the c user\ntype: user\n---\n\nC.\n");
    writeFileSync(join(dir, "memory/team/feedback_d.md"), "---\nname: D\ndescription: the d feedback\ntype: feedback\n---\n\nD.\n");
    const upload = await context.newPage();
    upload.on("dialog", (d) => void d.accept());
    await upload.addInitScript(() => delete window.showDirectoryPicker);
    await upload.goto(server.url);
    await upload.waitForSelector("body[data-ready=true]");
    const [chooser] = await Promise.all([upload.waitForEvent("filechooser"), upload.click("#open-folder")]);
    await chooser.setFiles(join(dir, "memory"));
    await upload.waitForFunction(() => document.querySelector("#status").textContent.startsWith("the folder:"), null, { timeout: 15_000 });
    assert.deepEqual((await upload.$$eval("#file-list li", (lis) => lis.map((li) => li.dataset.path))).sort(), ["MEMORY.md", "team/feedback_d.md", "user_c.md"]);
    await upload.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
