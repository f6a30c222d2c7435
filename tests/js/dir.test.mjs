// memory.dir says which folder an opened memory is (issue 22).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { InMemoryHost, openMemory } from "memdir";

test("a folder opened by path says its absolute path", async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "memdir-dir-")));
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  try {
    assert.ok(isAbsolute(memory.dir));
    assert.equal(memory.dir, memory.host.root);
    assert.equal(realpathSync(memory.dir), dir);
  } finally {
    await memory.close?.();
  }
});

test("any other host's memory says host.root", async () => {
  const host = new InMemoryHost({});
  const memory = await openMemory({ host, selector: { provider: "lexical" } });
  assert.equal(memory.dir, host.root);
  await memory.close?.();
});
