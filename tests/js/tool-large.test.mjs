// The memory tool on files as large as memdir reads whole (1 MiB): its edits take time linear in
// the file, so a model's one-character old_str never holds the event loop (issue 21, defect 1:
// str_replace counted lines from the file's start once per occurrence, 159 s for 1 MB). Each
// test has a timeout: a hang guard that fails the test where it would otherwise run for minutes,
// not a speed assertion (each answers in well under a second).
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { MemoryToolError, openMemory } from "memdir";

const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
function folder(files) {
  const dir = mkdtempSync(join(tmpdir(), "memdir-tool-large-"));
  temps.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const HANG_GUARD = { timeout: 20_000 };

test("str_replace of a one-character old_str in a 1 MB file is refused at once, naming the first 20 lines", HANG_GUARD, async () => {
  // ~1 MB, the character `a` ~500,000 times on 250,000 lines
  const big = "a;a\n".repeat(250_000);
  const dir = folder({ "MEMORY.md": "- [Big](big.md) — a large note\n", "big.md": big });
  const tool = (await openMemory({ dir, selector: { provider: "lexical" } })).tool();
  const lines = Array.from({ length: 20 }, (_, i) => i + 1).join(", ");
  await assert.rejects(
    tool.str_replace({ command: "str_replace", path: "/memories/big.md", old_str: "a", new_str: "b" }),
    (e) => e instanceof MemoryToolError && e.message === `No replacement was performed. Multiple occurrences of old_str \`a\` in lines: ${lines} and more. Please ensure it is unique`,
  );
  assert.equal(readFileSync(join(dir, "big.md"), "utf8"), big, "nothing was written");
  // a unique old_str at the end of the same file is replaced, its snippet numbered right
  writeFileSync(join(dir, "big.md"), `${big}the end\n`);
  const done = await tool.str_replace({ command: "str_replace", path: "/memories/big.md", old_str: "the end", new_str: "THE END" });
  assert.match(done, /\n250001\tTHE END\n/);
  assert.equal(readFileSync(join(dir, "big.md"), "utf8"), `${big}THE END\n`);
});

test("an edit of a 1 MB index of 36,000 entries answers at once (entries per file counted once, not per entry)", HANG_GUARD, async () => {
  // an index far over its limits (a tool a person ran wrote it): every edit makes the
  // one-line-per-memory pass over all its entries; one that grows it is refused
  const index = Array.from({ length: 36_000 }, (_, i) => `- [N${i}](n${i}.md) — h\n`).join("");
  assert.ok(Buffer.byteLength(index) < 1 << 20, "read whole");
  const dir = folder({ "MEMORY.md": index });
  const tool = (await openMemory({ dir, selector: { provider: "lexical" } })).tool();
  await assert.rejects(
    tool.insert({ command: "insert", path: "/memories/MEMORY.md", insert_line: 1, insert_text: "- [N7](n7.md) — seven" }),
    (e) => e instanceof MemoryToolError && /^Refused: MEMORY\.md would be .* over its limit .*Nothing was written\.$/s.test(e.message),
  );
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), index);
  // one that shrinks it goes through: the new entry for n3.md replaces its earlier one
  const done = await tool.str_replace({ command: "str_replace", path: "/memories/MEMORY.md", old_str: "- [N35999](n35999.md) — h", new_str: "- [N3](n3.md) — three" });
  assert.match(done, /\n 35999\t- \[N3\]\(n3\.md\) — three\n/);
  assert.match(done, /\nAlso removed the earlier entry for n3\.md: \/memories\/MEMORY\.md holds one line per memory\.$/);
  const lines = index.split("\n");
  lines[35_999] = "- [N3](n3.md) — three";
  lines.splice(3, 1);
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), lines.join("\n"));
});

test("an edit of a 1 MB index of 200,000 unclosed `<!--` lines answers at once (where comments close found once, not per line)", HANG_GUARD, async () => {
  const index = `${"<!--\n".repeat(200_000)}the end\n`;
  const dir = folder({ "MEMORY.md": index });
  const tool = (await openMemory({ dir, selector: { provider: "lexical" } })).tool();
  for (const run of [
    () => tool.str_replace({ command: "str_replace", path: "/memories/MEMORY.md", old_str: "the end", new_str: "the start" }),
    () => tool.insert({ command: "insert", path: "/memories/MEMORY.md", insert_line: 0, insert_text: "a note" }),
  ]) {
    await assert.rejects(run(), (e) => e instanceof MemoryToolError && /^Refused: MEMORY\.md is the index: .*Nothing was written\.$/s.test(e.message));
  }
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), index);
});

test("view and insert of a 1 MB file of 250,000 lines answer at once", HANG_GUARD, async () => {
  const big = "a;a\n".repeat(250_000);
  const dir = folder({ "big.md": big });
  const tool = (await openMemory({ dir, selector: { provider: "lexical" } })).tool();
  const shown = await tool.view({ command: "view", path: "/memories/big.md", view_range: [249_999, -1] });
  assert.equal(shown, "Here's the content of /memories/big.md with line numbers:\n249999\ta;a\n250000\ta;a\n250001\t");
  await tool.insert({ command: "insert", path: "/memories/big.md", insert_line: 250_000, insert_text: "end" });
  assert.equal(readFileSync(join(dir, "big.md"), "utf8"), `${big.slice(0, -1)}\nend\n`);
});
