// VS Code's workbench services (monaco-vscode-api) with the web worker extension host: an
// in-memory `file://` workspace holding a memory folder, memdir's web extension registered from
// its manifest and dist/web.js (served at /ext/ by the test), and a local "probe" extension that
// drives it through the real `vscode` API: the commands it registered, `memdir.doctor`, and the
// diagnostics the worker published. The result is `window.__result`.
import "vscode/localExtensionHost";
import { initialize } from "@codingame/monaco-vscode-api";
import getConfigurationServiceOverride from "@codingame/monaco-vscode-configuration-service-override";
import getExtensionsServiceOverride from "@codingame/monaco-vscode-extensions-service-override";
import getFilesServiceOverride, { RegisteredFileSystemProvider, RegisteredMemoryFile, registerFileSystemOverlay } from "@codingame/monaco-vscode-files-service-override";
import { registerExtension, ExtensionHostKind } from "@codingame/monaco-vscode-api/extensions";
import { URI } from "@codingame/monaco-vscode-api/vscode/vs/base/common/uri";
import extHostWorkerUrl from "@codingame/monaco-vscode-api/workers/extensionHost.worker?worker&url";

window.MonacoEnvironment = {
  getWorkerUrl: (_id, label) => {
    if (label === "extensionHostWorkerMain") return new URL(extHostWorkerUrl, location.href).toString();
    throw new Error(`no worker for ${label}`);
  },
  getWorkerOptions: () => ({ type: "module" }),
};

const log = [];
window.__result = (async () => {
  const files = new RegisteredFileSystemProvider(false);
  const index = "- [Integration tests](feedback_tests.md) — real database\n- [Gone](gone.md) — was here\n";
  files.registerFile(new RegisteredMemoryFile(URI.file("/workspace/memory/MEMORY.md"), index));
  files.registerFile(new RegisteredMemoryFile(URI.file("/workspace/memory/feedback_tests.md"), "---\nname: Integration tests\ndescription: Integration tests must hit a real postgres database, never mocks\ntype: feedback\n---\nUse a real DB. (Gone was here.)\n"));
  registerFileSystemOverlay(1, files);
  await initialize(
    { ...getFilesServiceOverride(), ...getConfigurationServiceOverride(), ...getExtensionsServiceOverride({ enableWorkerExtensionHost: true }) },
    document.getElementById("workbench"),
    { workspaceProvider: { trusted: true, workspace: { folderUri: URI.file("/workspace") }, open: async () => false } },
  );
  const manifest = await (await fetch("/ext/package.json")).json();
  // this trimmed workbench evaluates neither `workspaceContains` nor the implicit `onCommand`/`onView` events
  manifest.activationEvents = ["*"];
  const memdir = registerExtension(manifest, ExtensionHostKind.LocalWebWorker);
  memdir.registerFileUrl("/package.json", new URL("/ext/package.json", location.href).toString());
  memdir.registerFileUrl("/dist/web.js", new URL("/ext/dist/web.js", location.href).toString());
  await memdir.whenReady();
  const probe = registerExtension({ name: "probe", publisher: "memdir-test", version: "0.0.1", engines: { vscode: "*" } }, ExtensionHostKind.LocalProcess);
  const vscode = await probe.getApi();
  let doctor = null;
  const deadline = Date.now() + 30_000;
  while (doctor === null && Date.now() < deadline) {
    doctor = await vscode.commands.executeCommand("memdir.doctor").then(
      () => "ran",
      (e) => (log.push(String(e?.message ?? e)), String(e?.message ?? e).includes("not found") ? null : `failed: ${e?.message ?? e}`),
    );
    if (doctor === null) await new Promise((r) => setTimeout(r, 250));
  }
  const commands = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith("memdir.")).sort();
  const diagnostics = vscode.languages.getDiagnostics().map(([uri, list]) => [uri.toString(), list.map((d) => ({ code: d.code, source: d.source, severity: d.severity, range: [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character], message: d.message }))]);
  return { doctor, commands, diagnostics, log };
})().catch((e) => ({ error: String(e?.stack ?? e), log }));
