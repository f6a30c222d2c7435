// Runs in a Chromium module worker, as vscode.dev runs a web extension: evaluates
// examples/vscode/dist/web.js as CommonJS with only `vscode` requirable, and runs the scenario.
import { runScenario } from "./scenario.mjs";

self.onmessage = async () => {
  try {
    const source = await (await fetch("/examples/vscode/dist/web.js")).text();
    const required = [];
    const load = (vscode) => {
      const module = { exports: {} };
      const require = (id) => {
        required.push(id);
        if (id === "vscode") return vscode;
        throw new Error(`the web bundle required ${id}`);
      };
      new Function("module", "exports", "require", source)(module, module.exports, require);
      return module.exports;
    };
    const out = await runScenario({ load, memoryDir: "/work/project/memory" });
    self.postMessage({ ok: true, out: { ...out, required, hasProcess: typeof process !== "undefined" } });
  } catch (error) {
    self.postMessage({ ok: false, error: String(error?.stack ?? error) });
  }
};
