// The scan on the real file system at 20 / 200 / 2,000 / 20,000 files, side by side with what a
// user would otherwise write and with the floor of the system calls:
//
// - memdir cold: a new `openMemory` after a file changed (nothing kept), then `scan()`;
// - memdir per turn: the same opened memory, nothing changed / one file changed;
// - plain JavaScript: list, `readFile` every topic file whole through `fs/promises`, YAML with
//   gray-matter (js-yaml), the same filtering and order;
// - the syscall floor: synchronous `readdir` and `stat` of everything, 4 KB read of the newest
//   200 — no parsing at all.
//
// While memdir scans, `monitorEventLoopDelay` records how long the event loop was held. The
// heap is collected before (a full collection, forced): the plain JavaScript scan just before
// leaves megabytes of garbage, and a collection of it inside memdir's window is not memdir's.
// memdir's own garbage is collected inside the window, and counts.
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { memoryFolder, ratio, timeMedian, touchOne } from "./fixture.mjs";
import { scanWithGrayMatter } from "./scan.mjs";

/** What a user would write: every file read whole, YAML parsed by gray-matter, the same rules. */
export async function plainScan(dir) {
  const files = [];
  const walk = async (rel) => {
    for (const e of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(path);
      else if (e.isFile() && e.name.endsWith(".md") && e.name !== "MEMORY.md") files.push(path);
    }
  };
  await walk("");
  // 256 files at a time (all 20,000 at once run out of descriptors)
  const heads = [];
  for (let i = 0; i < files.length; i += 256) {
    heads.push(
      ...(await Promise.all(
        files.slice(i, i + 256).map(async (path) => {
          const [text, st] = await Promise.all([readFile(join(dir, path), "utf8"), stat(join(dir, path))]);
          return { path, mtimeMs: st.mtimeMs, head: text };
        }),
      )),
    );
  }
  return scanWithGrayMatter(heads);
}

/** The floor: synchronous readdir and stat of everything, then 4 KB of the newest 200, nothing parsed. */
export function syscallFloor(dir) {
  const files = [];
  const walk = (rel) => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      const st = statSync(join(dir, path));
      if (st.isDirectory()) walk(path);
      else files.push({ path, mtimeMs: st.mtimeMs });
    }
  };
  walk("");
  files.sort((a, b) => b.mtimeMs - a.mtimeMs);
  const buffer = Buffer.allocUnsafe(4096);
  for (const f of files.slice(0, 200)) {
    const fd = openSync(join(dir, f.path), "r");
    readSync(fd, buffer, 0, 4096, 0);
    closeSync(fd);
  }
  return files.length;
}

/** A full collection now (`gc` exposed at run time for this), so that earlier garbage is not collected inside a measurement. */
export const settleHeap = (() => {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc");
    return typeof gc === "function" ? () => gc() : () => {};
  } catch {
    return () => {};
  }
})();

/** Runs of each measurement by folder size (the large ones take seconds). */
const RUNS = { 20: 25, 200: 15, 2000: 7, 20000: 3 };

export async function benchScans(memdir, sizes = [20, 200, 2000, 20000]) {
  const rows = [];
  for (const n of sizes) {
    const folder = memoryFolder(n);
    const runs = RUNS[n] ?? 5;
    const open = () => memdir.openMemory({ dir: folder.dir, selector: { provider: "lexical" } });
    try {
      await new Promise((r) => setTimeout(r, 150)); // past the moment the files were written
      const plain = await timeMedian(() => plainScan(folder.dir), Math.min(runs, 5));
      const floor = await timeMedian(() => syscallFloor(folder.dir), runs);
      const warm = await open();
      await warm.scan();
      warm.close();
      settleHeap();
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const cold = await timeMedian(
        async () => {
          const memory = await open();
          await memory.scan();
          memory.close();
        },
        runs,
        1,
        (k) => touchOne(folder, k + 1000),
      );
      const memory = await open();
      await memory.scan();
      await new Promise((r) => setTimeout(r, 150)); // the edited file past its racy moment
      await memory.scan();
      const unchanged = await timeMedian(() => memory.scan(), runs * 2, 2);
      const oneChanged = await timeMedian(() => memory.scan(), runs * 2, 2, (k) => touchOne(folder, k + 2000));
      memory.close();
      delay.disable();
      rows.push({ files: n, coldMs: cold, unchangedMs: unchanged, oneChangedMs: oneChanged, plainJsMs: plain, floorMs: floor, vsPlainJs: ratio(plain, cold), vsFloor: ratio(cold, floor), maxEventLoopDelayMs: delay.max / 1e6 });
    } finally {
      folder.remove();
    }
  }
  return rows;
}
