// `forget` takes the same shape as `remember` (an object), with the file alone as its short form.
import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemoryHost, openMemory } from "memdir";

test("forget({ file }) removes what remember wrote; forget(file) is the short form; any other shape is INVALID_ARGUMENT", async () => {
  const memory = await openMemory({ host: new InMemoryHost({}), selector: { provider: "lexical" } });
  const a = await memory.remember({ type: "project", name: "Alpha", description: "the first memory", body: "a" });
  const b = await memory.remember({ type: "project", name: "Beta", description: "the second memory", body: "b" });
  assert.equal((await memory.forget({ file: a.file })).action, "forgotten");
  assert.equal((await memory.forget(b.file)).action, "forgotten");
  assert.deepEqual((await memory.scan()).memories, []);
  for (const bad of [{}, { path: a.file }, null, 7]) await assert.rejects(memory.forget(bad), (e) => e.code === "INVALID_ARGUMENT", JSON.stringify(bad));
  memory.close();
});
