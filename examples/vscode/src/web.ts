/**
 * The web entry (vscode.dev, github.dev: a web worker): no Node, no home folder. The wasm
 * travels inside this bundle and is inflated by `init()`; the memory folder defaults to
 * `memory/` in the workspace.
 */
import { init } from "memdir/browser";
import type * as vscode from "vscode";
import { activateWith } from "./activate.js";

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  await init();
  await activateWith(context, { homeDir: null, configDir: null });
}

export function deactivate(): void {}
