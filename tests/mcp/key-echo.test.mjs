// The MCP recall tool against a provider, or a proxy, that echoes the request's key in an HTTP
// error body: the key is not in the tool's result, with the lexical fallback or without it
// (issue 21, defect 2). The real server over stdio, the mock providers on 127.0.0.1 echoing.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ANTHROPIC_KEY, OPENAI_KEY, assertNoKey, echoes } from "../mock/echoes.mjs";
import { startMockProviders } from "../mock/providers.mjs";
import { baseEnv, cleanUp, connect, tempDir } from "./connect.mjs";

const QUERY = "can we deploy to production on friday";
let mock;
let dir;
before(async () => {
  mock = await startMockProviders({ apiKey: ANTHROPIC_KEY, openaiKey: OPENAI_KEY });
  dir = tempDir();
  writeFileSync(join(dir, "project_deploys.md"), "---\nname: Deploys\ndescription: production deploys freeze on Fridays\ntype: project\n---\nNo deploys on Friday.\n");
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploys](project_deploys.md) — production deploys freeze on Fridays\n");
});
after(async () => {
  await mock?.close();
  cleanUp();
});

for (const [provider, header, key, base, env] of [
  ["anthropic", "x-api-key", ANTHROPIC_KEY, () => mock.url, { ANTHROPIC_API_KEY: ANTHROPIC_KEY }],
  ["openai", "authorization", OPENAI_KEY, () => `${mock.url}/v1`, { OPENAI_API_KEY: OPENAI_KEY }],
]) {
  test(`${provider}: the recall tool's result never holds the key an error body echoed (fallback on and off)`, async () => {
    for (const fallback of [true, false]) {
      const s = await connect(["--dir", dir, "--provider", provider, "--base-url", base(), ...(fallback ? ["--fallback"] : [])], { env: baseEnv(env) });
      try {
        for (const outcome of echoes(header, key)) {
          mock.reset();
          mock.script(outcome);
          const r = await s.call("recall", { query: QUERY });
          assert.equal(mock.requests().length, 1);
          assert.equal(r.isError, !fallback, r.text);
          assert.match(r.text, /http_error: HTTP (401|500)/);
          assertNoKey(assert, r.text, [key], `recall (fallback ${fallback}, ${JSON.stringify(outcome.body).slice(0, 60)})`);
        }
        assertNoKey(assert, s.stderr, [key], "the server's stderr");
      } finally {
        await s.close();
      }
    }
  });
}
