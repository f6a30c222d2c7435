// Run by history-kill.test.mjs: one journaled change on `dir`, through a host that SIGKILLs this
// process before its `killAt`-th mutating call (write, remove or rename; 0: never). Prints the
// number of mutating calls when it lives to the end.
import { NodeHost } from "../../pkg/internal.js";
import { openMemory } from "../../pkg/entry/node.js";

const [dir, scenario, killAtText] = process.argv.slice(2);
const killAt = Number(killAtText);
const inner = new NodeHost(dir);
let calls = 0;
const counted = async (run) => {
  if (++calls === killAt) process.kill(process.pid, "SIGKILL");
  return run();
};
const host = {
  root: inner.root,
  absolutePath: (p) => inner.absolutePath(p),
  list: () => inner.list(),
  stat: (p) => inner.stat(p),
  readFile: (p, max) => inner.readFile(p, max),
  writeFile: (p, data, options) => counted(() => inner.writeFile(p, data, options)),
  remove: (p) => counted(() => inner.remove(p)),
  rename: (a, b) => counted(() => inner.rename(a, b)),
  links: inner.links,
  locks: inner.locks,
};
const rotate = scenario.endsWith("+rotate");
const memory = await openMemory({ host, cache: false, history: { label: "drill", ...(rotate ? { policy: { segmentBytes: 64, maxBytes: 1500 } } : {}) } });
const name = scenario.replace(/\+rotate$/, "");
const tool = memory.tool();
const must = (r) => {
  if (r.isError) throw new Error(r.content);
};
if (name === "remember") await memory.remember({ type: "project", name: "Freeze", description: "Deploys stop for the December code freeze", body: "No deploys from the 20th.\n" });
else if (name === "update") await memory.remember({ type: "project", name: "Deploys", description: "We deploy on Wednesdays now", body: "Wednesdays.\n", file: "project_deploys.md" });
else if (name === "forget") await memory.forget({ file: "project_deploys.md" });
else if (name === "tool-delete-folder") must(await tool.execute({ command: "delete", path: "/memories/team" }));
else if (name === "tool-rename") must(await tool.execute({ command: "rename", old_path: "/memories/team/a.md", new_path: "/memories/team/b.md" }));
else if (name === "undo") {
  const [last] = await memory.history();
  await memory.undo(last.id);
} else throw new Error(`unknown scenario ${scenario}`);
process.stdout.write(String(calls));
