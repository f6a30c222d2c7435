// Drives VS Code's workbench in a page as a user does: the command palette, the quick input
// (input boxes and picks), modal dialogs, notifications, the Problems panel and tree views.
// Every wait has a bound (playwright's own timeouts); a failure says what was on screen.

const WAIT_MS = 30_000;

export class Workbench {
  constructor(page) {
    this.page = page;
    /** The palette labels of the commands run. */
    this.ran = new Set();
  }

  /** Waits until the workbench is up and the explorer shows the workspace. */
  async ready() {
    await this.page.locator(".monaco-workbench").waitFor({ timeout: 90_000 });
    await this.page.locator(".explorer-folders-view .monaco-list-row").first().waitFor({ timeout: 90_000 });
  }

  quickInput() {
    // not the one still closing (its animation) when the next opens
    return this.page.locator(".quick-input-widget:not(.quick-input-widget-closing)");
  }

  /** Opens the quick input with `key` (F1: the command palette; Ctrl+P: Quick Open), closing one still open. */
  async openQuickInput(key) {
    const widget = this.quickInput();
    if (await widget.isVisible()) {
      await this.page.keyboard.press("Escape");
      await widget.waitFor({ state: "hidden", timeout: WAIT_MS });
    }
    await this.page.keyboard.press(key);
    await widget.waitFor({ state: "visible", timeout: WAIT_MS });
    return widget;
  }

  /** Opens the command palette and runs the command whose palette label is `label` exactly. */
  async command(label) {
    const widget = await this.openQuickInput("F1");
    const input = widget.locator("input.input");
    await input.fill(`>${label}`);
    const row = widget.locator(".quick-input-list .monaco-list-row").filter({ has: this.page.locator(".label-name", { hasText: new RegExp(`^${escape(label)}$`) }) });
    await row.first().waitFor({ timeout: WAIT_MS }).catch(async (error) => {
      throw new Error(`${error.message}\ncommands shown for "${label}": ${JSON.stringify(await widget.locator(".quick-input-list .label-name").allInnerTexts())}`);
    });
    await row.first().click();
    this.ran.add(label);
  }

  /** Opens a workspace file through Quick Open (Ctrl+P), as a user does. */
  async open(file) {
    const widget = await this.openQuickInput("Control+P");
    await widget.locator("input.input").fill(file);
    const row = widget.locator(".quick-input-list .monaco-list-row").filter({ has: this.page.locator(".label-name", { hasText: new RegExp(`^${escape(file)}$`) }) });
    await row.first().click({ timeout: WAIT_MS });
    await this.tab(file);
  }

  /** The quick input once it is shown, and titled `title` when given. */
  async shownQuickInput(title) {
    const widget = this.quickInput();
    await widget.waitFor({ state: "visible", timeout: WAIT_MS });
    if (title) await widget.locator(".quick-input-title", { hasText: title }).waitFor({ timeout: WAIT_MS });
    return widget;
  }

  /** Its list's rows, once there is one, and their texts. */
  async quickInputRows(widget) {
    const rows = widget.locator(".quick-input-list .monaco-list-row");
    await rows.first().waitFor({ timeout: WAIT_MS });
    return { rows, texts: await rows.allInnerTexts() };
  }

  /** The open quick input: waits for `title` (a regex or text) then types `value` and accepts. */
  async answer(value, { title, placeholder } = {}) {
    const widget = await this.shownQuickInput(title);
    if (placeholder) await this.page.waitForFunction((p) => document.querySelector(".quick-input-widget input.input")?.getAttribute("placeholder")?.includes(p), placeholder, { timeout: WAIT_MS });
    const input = widget.locator("input.input");
    await input.fill(value);
    await input.press("Enter");
  }

  /** The open quick pick: the row labelled `label`, chosen. Returns every row's text. */
  async pick(label, { title } = {}) {
    const widget = await this.shownQuickInput(title);
    const { rows, texts } = await this.quickInputRows(widget);
    const row = rows.filter({ has: this.page.locator(".label-name", { hasText: typeof label === "string" ? new RegExp(`^${escape(label)}$`) : label }) });
    await row.first().click({ timeout: WAIT_MS }).catch((error) => {
      throw new Error(`${error.message}\nrows shown: ${JSON.stringify(texts)}`);
    });
    return texts;
  }

  /** The open quick input titled `title`: the rows shown, then dismissed with Escape. */
  async dismissQuickInput({ title } = {}) {
    const widget = await this.shownQuickInput(title);
    const { texts } = await this.quickInputRows(widget);
    await this.page.keyboard.press("Escape");
    await widget.waitFor({ state: "hidden", timeout: WAIT_MS });
    return texts;
  }

  /** A modal dialog: its message, after pressing `button` (a label, or null to dismiss it with Escape). */
  async modal(button) {
    const dialog = this.page.locator(".monaco-dialog-box");
    await dialog.waitFor({ state: "visible", timeout: WAIT_MS });
    const message = await dialog.evaluate((d) => [...d.querySelectorAll(".dialog-message, .dialog-message-detail")].map((e) => e.textContent.trim()).filter(Boolean).join("\n"));
    if (button === null) await this.page.keyboard.press("Escape");
    else await dialog.locator(".dialog-buttons .monaco-button", { hasText: new RegExp(`^${escape(button)}$`) }).click();
    await dialog.waitFor({ state: "hidden", timeout: WAIT_MS });
    return message;
  }

  /**
   * Waits for a notification whose text matches `pattern` and that no earlier call returned (each
   * one read is marked, so a toast still on screen is not taken for the next); returns its text.
   */
  async notification(pattern) {
    const toast = this.page.locator(".notifications-toasts .notification-list-item-message:not([data-memdir-seen])", { hasText: pattern });
    await toast.first().waitFor({ timeout: WAIT_MS }).catch(async (error) => {
      throw new Error(`${error.message}\nnotifications shown: ${JSON.stringify(await this.notifications())}`);
    });
    return toast.first().evaluate((e) => {
      e.setAttribute("data-memdir-seen", "");
      return e.textContent.trim();
    });
  }

  /** Every notification's text in the toasts now. */
  async notifications() {
    return (await this.page.locator(".notifications-toasts .notification-list-item-message").allInnerTexts()).map((t) => t.trim());
  }

  /** The active editor tab's title. */
  async activeTab() {
    return this.page.evaluate(() => [...document.querySelectorAll(".editor-group-container.active .tab.active")].map((e) => (e.getAttribute("aria-label") ?? "").split(", ")[0]).join(" | "));
  }

  /** Waits until the active editor tab is `title`. */
  async tab(title) {
    const end = Date.now() + WAIT_MS;
    let last;
    while ((last = await this.activeTab()) !== title) {
      if (Date.now() > end) throw new Error(`the tab ${title}: not within ${WAIT_MS / 1000} s (active: ${JSON.stringify(last)})`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  /** The text of the visible editor lines (Monaco renders the visible ones; short documents fit). */
  async editorText() {
    const lines = this.page.locator(".editor-instance .monaco-editor .view-lines .view-line");
    await lines.first().waitFor({ timeout: WAIT_MS });
    return this.page.evaluate(() => {
      const rows = [...document.querySelectorAll(".editor-group-container.active .monaco-editor .view-lines .view-line")];
      rows.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
      return rows.map((r) => r.textContent.replace(/\u00a0/g, " ")).join("\n");
    });
  }
}

export function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
