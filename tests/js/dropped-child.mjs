// Run by dropped.test.mjs as `node --expose-gc tests/js/dropped-child.mjs`: opens memories on one
// folder, scans each, drops them without close(), collects, and prints what was freed as JSON.
// Half are opened with `dir` (what people write), half on a NodeHost that counts its open watchers.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeHost, openMemory } from "memdir";

const N = Number(process.argv[2] ?? 40);
const fm = (name, description) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\nbody\n`;
const dir = mkdtempSync(join(tmpdir(), "memdir-dropped-"));
for (let i = 0; i < 60; i++) writeFileSync(join(dir, `project_${i}.md`), fm(`Topic ${i}`, `how deploys of service ${i} go out`));
for (const sub of ["team", "old"]) {
  mkdirSync(join(dir, sub));
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, sub, `note_${i}.md`), fm(`${sub} ${i}`, `a note kept in ${sub}`));
}
writeFileSync(join(dir, "MEMORY.md"), "- [Topic 1](project_1.md) — how deploys of service 1 go out\n");

/** Watches the kernel holds for this process (Linux: the inotify lines of /proc/self/fdinfo); `null` elsewhere. */
function inotifyWatches() {
  try {
    let n = 0;
    for (const fd of readdirSync("/proc/self/fd")) {
      let target;
      try {
        target = readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        continue;
      }
      if (target.includes("inotify")) n += (readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").match(/^inotify wd:/gm) ?? []).length;
    }
    return n;
  } catch {
    return null;
  }
}

/** A NodeHost that counts the watchers it has open (its own and, in `live`, every host's). */
let live = 0;
class CountingHost extends NodeHost {
  open = 0;
  watch(folder, onChange) {
    const watcher = super.watch(folder, onChange);
    if (!watcher) return watcher;
    live++;
    this.open++;
    let open = true;
    const host = this;
    return {
      close() {
        if (open) {
          open = false;
          live--;
          host.open--;
        }
        watcher.close();
      },
    };
  }
}

const memories = { registered: 0, collected: 0 };
const hosts = { registered: 0, collected: 0 };
const memoryGone = new FinalizationRegistry(() => memories.collected++);
const hostGone = new FinalizationRegistry(() => hosts.collected++);
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

const baseline = inotifyWatches();
global.gc();
const heapBefore = process.memoryUsage().heapUsed;

async function openScanDrop(i) {
  const memory = i % 2 === 0 ? await openMemory({ dir, selector: { provider: "lexical" } }) : await openMemory({ host: new CountingHost(dir), selector: { provider: "lexical" } });
  const scan = await memory.scan();
  if (scan.memories.length < 60) throw new Error(`scan saw ${scan.memories.length} memories`);
  await memory.recall("how do deploys go out?");
  memoryGone.register(memory, i);
  memories.registered++;
  hostGone.register(memory.host, i);
  hosts.registered++;
}
for (let i = 0; i < N; i++) await openScanDrop(i);
await settle(); // the checks each turn leaves for after it
const whileOpen = { live, inotify: inotifyWatches() };

// one memory kept (and not closed): collection must not take its watchers
const kept = await openMemory({ host: new CountingHost(dir), selector: { provider: "lexical" } });
await kept.scan();

for (let round = 0; round < 30; round++) {
  global.gc();
  await settle();
  if (memories.collected === memories.registered && hosts.collected === hosts.registered && live === kept.host.open) break;
}
const afterDrop = { live, inotify: inotifyWatches(), keptOpen: kept.host.open };
// the kept memory still works, and close() closes its watchers at once
writeFileSync(join(dir, "project_new.md"), fm("New topic", "a memory written after the collection"));
const keptScan = await kept.scan();
kept.close();
const afterClose = { live, keptOpen: kept.host.open, inotify: inotifyWatches() };
global.gc();
await settle();
const heapAfter = process.memoryUsage().heapUsed;

console.log(
  JSON.stringify({
    n: N,
    memories,
    hosts,
    baseline: { inotify: baseline },
    whileOpen,
    afterDrop,
    keptSawNewFile: keptScan.memories.some((m) => m.path === "project_new.md"),
    afterClose,
    heapGrowthBytes: heapAfter - heapBefore,
  }),
);
rmSync(dir, { recursive: true, force: true });
