// The offline selector through the public API (issue 21 §6 and defect 7): bounded work among
// memories holding megabyte data URIs, a file without frontmatter described by its first lines,
// and questions in inflected languages — on a real folder (the Node host), through the opened
// memory's scan memo, turn after turn.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openMemory } from "memdir";
import { lexicalSelect } from "../../pkg/internal.js";

const fm = (name, description, type, body) => `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;

function folder(files) {
  const dir = mkdtempSync(join(tmpdir(), "memdir-lexical-"));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

// Three memories holding ~1 MB base64 data URIs and a long query took 3.4 s in wasm: each
// query term was compared with every term of every memory for a shared stem. The work is now
// bounded by what a query and a memory may count (no timing is asserted: the bounds are).
test("three memories with megabyte data URIs and a long query: recall completes, the query's terms are bounded", async () => {
  const files = {};
  for (const n of ["a", "b", "c"]) {
    const uri = `data:image/png;base64,${randomBytes(768 * 1024).toString("base64")}`;
    files[`reference_${n}_logo.md`] = fm(`Logo ${n}`, `the ${n} logo as an inline image`, "reference", `![logo](${uri})`);
  }
  const dir = folder(files);
  try {
    const memory = await openMemory({ dir, selector: { provider: "lexical" } });
    const query = `deployment pipeline rollback credentials rotation ${randomBytes(9000).toString("base64")}`;
    for (let turn = 0; turn < 2; turn++) {
      const r = await memory.recall(query);
      assert.equal(r.outcome, "none_selected");
      assert.equal(r.selector, "lexical");
    }
    const scan = await memory.scan();
    memory.close();
    const heads = Object.fromEntries(Object.entries(files));
    const selection = lexicalSelect({ query, memories: scan.memories, heads });
    assert.deepEqual(selection.selected, []);
    // the first 256 distinct terms of the query count, none longer than 64 bytes
    assert.ok(selection.queryTerms.length <= 256, `${selection.queryTerms.length} query terms`);
    assert.ok(selection.queryTerms.every((t) => Buffer.byteLength(t.term) <= 64));
    // a token of a megabyte costs what its first 64 bytes do
    const huge = lexicalSelect({ query: `logo ${"A".repeat(1 << 20)}`, memories: scan.memories, heads });
    assert.deepEqual(huge.queryTerms.map((t) => t.term), ["a".repeat(64), "logo"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file without frontmatter is found by its heading; inflected questions find their memory", async () => {
  const dir = folder({
    "notas_despliegue.md": "# Despliegue a producción\n\nSe hace con `make deploy` desde la rama main.\nAntes hay que avisar en el canal de guardia.\n",
    "notes_2024.md": "# Incident runbook\n\nPage the on-call through PagerDuty, then open a channel named after the ticket.\n",
    "reference_hetzner.md": fm("Hetzner sunucusu", "Üretim sunucusu Hetzner'da (Falkenstein); SSH anahtarı 1Password'de", "reference", "Kullanıcı adı deploy."),
    "project_backups.md": fm("Резервные копии базы", "Ночные резервные копии базы данных хранятся в бакете S3, срок хранения 14 дней", "project", "Вчерашняя копия проверяется перед миграцией."),
    "user_role.md": fm("Role", "Backend engineer, writes Go", "user", "Explain frontend code in more detail."),
  });
  try {
    const memory = await openMemory({ dir, selector: { provider: "lexical" } });
    const chosen = async (query) => (await memory.recall(query)).memories.map((m) => m.path);
    for (let turn = 0; turn < 2; turn++) {
      assert.deepEqual(await chosen("where is the incident runbook?"), ["notes_2024.md"]);
      assert.deepEqual(await chosen("¿Cómo se hace el despliegue a producción?"), ["notas_despliegue.md"]);
      assert.deepEqual(await chosen("Hetzner'daki sunucuya nasıl bağlanırım?"), ["reference_hetzner.md"]);
      assert.deepEqual(await chosen("Где найти вчерашнюю резервную копию базы?"), ["project_backups.md"]);
      assert.deepEqual(await chosen("Как настроить принтер в офисе?"), []);
    }
    memory.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
