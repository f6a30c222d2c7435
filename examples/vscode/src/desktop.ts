/** The desktop entry (Node extension host): the wasm loads on import; Claude Code's folder is the default. */
import { homedir } from "node:os";
import type * as vscode from "vscode";
import { activateWith } from "./activate.js";

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  await activateWith(context, { homeDir: homedir(), configDir: process.env["CLAUDE_CONFIG_DIR"] || null });
}

export function deactivate(): void {}
