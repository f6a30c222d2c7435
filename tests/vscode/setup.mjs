// Shared by tests/vscode/*.test.mjs: installs the extension's dev packages when missing
// (examples/vscode/package-lock.json), builds both bundles and the vscode-free logic
// (examples/vscode/out/logic.mjs), and gives paths. The library itself (pkg/) is built by
// `npm test` before this runs.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureExtensionDeps, root } from "../../scripts/toolchain.mjs";

export const extensionDir = join(root, "examples", "vscode");

ensureExtensionDeps();
const { buildExtension } = await import(pathToFileURL(join(extensionDir, "build.mjs")).href);
export const sizes = await buildExtension({ test: true });
export const logic = await import(pathToFileURL(join(extensionDir, "out", "logic.mjs")).href);

/** `vsce package --no-dependencies` (the pinned @vscode/vsce) into `vsix`; the result of the run. */
export function packVsix(vsix) {
  const vsce = join(extensionDir, "node_modules", "@vscode", "vsce", "vsce");
  return spawnSync(process.execPath, [vsce, "package", "--no-dependencies", "--out", vsix], { cwd: extensionDir, encoding: "utf8" });
}
