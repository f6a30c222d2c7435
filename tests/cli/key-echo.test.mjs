// `memdir recall` against a provider, or a proxy, that echoes the request's key in an HTTP
// error body: the key is in none of its output, plain, --json or --fallback, stdout or stderr
// (issue 21, defect 2). The mock providers on 127.0.0.1 (tests/mock/providers.mjs) echo it.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ANTHROPIC_KEY, OPENAI_KEY, assertNoKey, echoes } from "../mock/echoes.mjs";
import { startMockProviders } from "../mock/providers.mjs";
import { memdirAsync, removeTemps, tempDir } from "./helpers.mjs";

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
  removeTemps();
});

for (const [provider, header, key, base, env] of [
  ["anthropic", "x-api-key", ANTHROPIC_KEY, () => mock.url, { ANTHROPIC_API_KEY: ANTHROPIC_KEY }],
  ["openai", "authorization", OPENAI_KEY, () => `${mock.url}/v1`, { OPENAI_API_KEY: OPENAI_KEY }],
]) {
  test(`${provider}: an error body echoing the ${header} header leaves the key out of recall's output (plain, --json, --fallback)`, async () => {
    for (const outcome of echoes(header, key)) {
      for (const flags of [[], ["--json"], ["--fallback"], ["--fallback", "--json"]]) {
        mock.reset();
        mock.script(outcome);
        const r = await memdirAsync(["recall", QUERY, "--dir", dir, "--provider", provider, "--base-url", base(), ...flags], { env });
        assert.equal(mock.requests().length, 1);
        const fallback = flags.includes("--fallback");
        assert.equal(r.code, fallback ? 0 : 1, r.err);
        assert.match(r.out + r.err, /http_error: HTTP (401|500)/);
        assertNoKey(assert, r.out + r.err, [key], `memdir recall ${flags.join(" ")} (${JSON.stringify(outcome.body).slice(0, 60)})`);
        if (flags.includes("--json")) assert.match(JSON.parse(r.out).error, /\[redacted\]/);
      }
    }
  });
}
