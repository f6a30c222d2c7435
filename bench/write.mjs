// Writes: memdir's memory-tool backend next to the SDK's own local-filesystem tool (what a user
// of the memory tool would otherwise run) on the same 50-file folder, `remember` into 200
// memories (the opened memory has recalled before, as an agent's has) next to two bare file
// writes (no checks, no lock), and doctor on a full folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { appendFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { timeMedian } from "./fixture.mjs";

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
  const out = { tool: [], remember: null, doctorMs: null, sdk: true };
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
      out.sdk = false;
    }
    const edited = [false, false];
    const ops = [
      ["view /memories (50 files)", (t) => t.view({ command: "view", path: "/memories" })],
      ["view a file", (t) => t.view({ command: "view", path: "/memories/project_f7.md" })],
      ["str_replace", (t) => {
        // back and forth: each tool's own file is in the state the last call left
        const on = (edited[t === tool ? 0 : 1] = !edited[t === tool ? 0 : 1]);
        return t.str_replace({ command: "str_replace", path: "/memories/project_f9.md", old_str: on ? "line two" : "line two!", new_str: on ? "line two!" : "line two" });
      }],
      ["create + delete", async (t, i) => {
        await t.create({ command: "create", path: `/memories/tmp_${i + 100}.md`, file_text: "x\n" });
        await t.delete({ command: "delete", path: `/memories/tmp_${i + 100}.md` });
      }],
    ];
    for (const [label, op] of ops) {
      // alternated, so both see the same moment of a shared machine
      const mine = [];
      const theirs = [];
      for (let round = 0; round < 3; round++) {
        mine.push(await timeMedian((i) => op(tool, i + round * 100), 11));
        if (sdk) theirs.push(await timeMedian((i) => op(sdk, i + round * 100), 11));
      }
      const m = mine.sort((a, b) => a - b)[1];
      const s = sdk ? theirs.sort((a, b) => a - b)[1] : null;
      out.tool.push({ command: label, memdirMs: m, sdkMs: s, ratio: s ? m / s : null });
    }
    memory.close();

    // 176 memories, and 22 remembered: the last ones land just under the 200 the scan considers
    // (a 201st is refused: it would push the oldest out of recall)
    const many = join(base, "many");
    filled(many, 176);
    const recalled = await memdir.openMemory({ dir: many, selector: { provider: "lexical" } });
    await recalled.scan();
    await new Promise((r) => setTimeout(r, 150));
    await recalled.scan();
    const r = await timeMedian((i) => recalled.remember({ type: "project", name: `Bench ${i + 10}`, description: `benchmark memory ${i + 10} about topic ${(i + 10) * 104729}`, body: "body" }), 21);
    recalled.close();
    const plainDir = join(base, "plain");
    filled(plainDir, 200);
    const p = await timeMedian(async (i) => {
      await writeFile(join(plainDir, `project_bench_${i + 10}.md`), `---\nname: Bench ${i}\ndescription: d\ntype: project\n---\n\nbody\n`);
      await appendFile(join(plainDir, "MEMORY.md"), `- [Bench ${i}](project_bench_${i + 10}.md) — d\n`);
    }, 21);
    out.remember = { files: "176–198", memdirMs: r, bareWritesMs: p };

    filled(many, 200);
    const doctorMemory = await memdir.openMemory({ dir: many, selector: { provider: "lexical" } });
    out.doctorMs = await timeMedian(() => doctorMemory.doctor(), 7);
    doctorMemory.close();
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return out;
}
