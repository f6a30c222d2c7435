// Writes: memdir's memory-tool backend next to the SDK's own local-filesystem tool (what a user
// of the memory tool would otherwise run), `remember` next to two bare file writes (what an
// agent does with no library: no checks, no lock), and doctor on a full directory.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { appendFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

async function medianAsync(fn, runs = 31) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

function filled(dir, count) {
  mkdirSync(dir, { recursive: true });
  const lines = [];
  for (let i = 0; i < count; i++) {
    writeFileSync(join(dir, `project_f${i}.md`), `---\nname: F${i}\ndescription: fact ${i} about subsystem ${i * 7919} and its owner\ntype: project\n---\n\nline one\nline two\n`);
    lines.push(`- [F${i}](project_f${i}.md) — fact ${i}`);
  }
  writeFileSync(join(dir, "MEMORY.md"), `${lines.join("\n")}\n`);
}

export async function benchWrites(memdir) {
  const base = mkdtempSync(join(tmpdir(), "memdir-bench-write-"));
  try {
    const ours = join(base, "ours");
    filled(ours, 50);
    filled(join(base, "sdk", "memories"), 50);
    const memory = await memdir.openMemory({ dir: ours, selector: { provider: "lexical" } });
    const tool = memory.tool();
    let sdk = null;
    try {
      const { BetaLocalFilesystemMemoryTool } = await import("@anthropic-ai/sdk/tools/memory/node");
      sdk = await BetaLocalFilesystemMemoryTool.init(join(base, "sdk"));
    } catch {
      console.log("memory tool: @anthropic-ai/sdk not installed, no comparison");
    }
    const ops = [
      ["view /memories (50 files)", (t) => t.view({ command: "view", path: "/memories" })],
      ["view a file", (t) => t.view({ command: "view", path: "/memories/project_f7.md" })],
      ["str_replace", (t, i) => t.str_replace({ command: "str_replace", path: "/memories/project_f9.md", old_str: i % 2 ? "line two!" : "line two", new_str: i % 2 ? "line two" : "line two!" })],
      ["create + delete", async (t, i) => {
        await t.create({ command: "create", path: `/memories/tmp_${i}.md`, file_text: "x\n" });
        await t.delete({ command: "delete", path: `/memories/tmp_${i}.md` });
      }],
    ];
    for (const [label, op] of ops) {
      const mine = await medianAsync((i) => op(tool, i));
      if (!sdk) {
        console.log(`memory tool ${label}: memdir ${mine.toFixed(2)} ms`);
        continue;
      }
      const theirs = await medianAsync((i) => op(sdk, i));
      console.log(`memory tool ${label} (median): memdir ${mine.toFixed(2)} ms, SDK local tool ${theirs.toFixed(2)} ms, ratio ${(mine / theirs).toFixed(2)}`);
    }

    const plainDir = join(base, "plain");
    filled(plainDir, 50);
    const r = await medianAsync((i) => memory.remember({ type: "project", name: `Bench ${i}`, description: `benchmark memory ${i} about topic ${i * 104729}`, body: "body" }));
    const p = await medianAsync(async (i) => {
      await writeFile(join(plainDir, `project_bench_${i}.md`), `---\nname: Bench ${i}\ndescription: d\ntype: project\n---\n\nbody\n`);
      await appendFile(join(plainDir, "MEMORY.md"), `- [Bench ${i}](project_bench_${i}.md) — d\n`);
    });
    console.log(`remember into 50 memories (median): memdir ${r.toFixed(2)} ms (checks, lock, atomic writes), two bare fs writes ${p.toFixed(2)} ms, ratio ${(r / p).toFixed(1)}`);

    const full = join(base, "full");
    filled(full, 200);
    const doctorMemory = await memdir.openMemory({ dir: full, selector: { provider: "lexical" } });
    const d = await medianAsync(() => doctorMemory.doctor(), 11);
    console.log(`doctor on 200 memories (median, reads every file): ${d.toFixed(1)} ms`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
