// A provider, or a proxy in front of it, that echoes the request in an HTTP error body (the
// `x-api-key` or `Authorization` header, a dump of every header, the URL with its `?key=`)
// never gets a credential into recall's `error` or the `onEvent` payload (issue 21, defect 2:
// network errors were scrubbed, HTTP bodies were not). Real HTTP to the repo's mock providers
// on 127.0.0.1 (tests/mock/providers.mjs), whose `echo` outcome fills a body from the request.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openMemory } from "memdir";
import { ANTHROPIC_KEY, OPENAI_KEY, assertNoKey as noKey, echoes } from "../mock/echoes.mjs";
import { startMockProviders } from "../mock/providers.mjs";

const URL_KEY = "q-secret-Lp4Rt8Wz2Nk6";

const temps = [];
let mock;
let dir;
before(async () => {
  mock = await startMockProviders({ apiKey: ANTHROPIC_KEY, openaiKey: OPENAI_KEY });
  dir = mkdtempSync(join(tmpdir(), "memdir-key-echo-"));
  temps.push(dir);
  writeFileSync(join(dir, "project_deploys.md"), "---\nname: Deploys\ndescription: production deploys freeze on Fridays\ntype: project\n---\nNo deploys on Friday.\n");
  writeFileSync(join(dir, "MEMORY.md"), "- [Deploys](project_deploys.md) — production deploys freeze on Fridays\n");
});
after(async () => {
  await mock?.close();
  temps.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

const QUERY = "can we deploy to production on friday";

async function recallWith(selector, outcome) {
  const events = [];
  mock.reset();
  if (outcome) mock.script(outcome);
  const memory = await openMemory({ dir, selector: { maxRetries: 0, timeoutMs: 20_000, ...selector }, onEvent: (e) => events.push(e), cache: { watch: false } });
  try {
    return { result: await memory.recall(QUERY), events, sent: mock.requests() };
  } finally {
    memory.close();
  }
}

const assertNoKey = (text, keys, where) => noKey(assert, text, keys, where);

for (const [provider, header, key, base] of [
  ["anthropic", "x-api-key", ANTHROPIC_KEY, () => mock.url],
  ["openai", "authorization", OPENAI_KEY, () => `${mock.url}/v1`],
]) {
  test(`${provider}: an error body that echoes the ${header} header reaches neither the result's error nor onEvent (with and without the fallback)`, async () => {
    for (const outcome of echoes(header, key)) {
      for (const fallback of [false, true]) {
        const { result, events, sent } = await recallWith({ provider, apiKey: key, baseUrl: base(), fallback }, outcome);
        assert.equal(sent.length, 1, "one request, no retry");
        assert.equal(sent[0].headers[header], header === "authorization" ? `Bearer ${key}` : key, "the key was sent");
        assert.equal(result.outcome, fallback ? "selected" : "failed", JSON.stringify(result));
        assert.match(result.error, /http_error: HTTP (401|500)/);
        assert.equal(events.length, 1);
        assertNoKey(JSON.stringify(result), [key], `${provider} result (${JSON.stringify(outcome.body).slice(0, 60)})`);
        assertNoKey(JSON.stringify(events), [key], `${provider} onEvent`);
        assert.equal(events[0].error, result.error);
      }
    }
  });
}

test("a secret in the base URL (a proxy's ?key=, a user and password) is hidden in what an echo or a network error says; ollama and openai", async () => {
  for (const [provider, suffix] of [["ollama", ""], ["openai", "/v1"]]) {
    // the URL's query swallows the provider's path: the proxy answers 404, quoting the path and query it got
    const { result, events, sent } = await recallWith({ provider, baseUrl: `${mock.url}${suffix}?key=${URL_KEY}`, ...(provider === "openai" ? { apiKey: OPENAI_KEY } : {}) });
    assert.equal(sent.length, 1);
    assert.equal(result.outcome, "failed");
    assert.match(result.error, /^http_error: HTTP 404: mock: no route for POST \S*\?key=\[redacted\] \(from http:\/\/127\.0\.0\.1:\d+\S*\?key=redacted\)$/);
    assertNoKey(JSON.stringify(result) + JSON.stringify(events), [URL_KEY, OPENAI_KEY], `${provider} with ?key=`);
  }
  // fetch refuses a URL with a user and password: the network error never quotes them
  const { result, events } = await recallWith({ provider: "ollama", baseUrl: mock.url.replace("http://", `http://memdir-user:${URL_KEY}@`) });
  assert.equal(result.outcome, "failed");
  assert.match(result.error, /^network: /);
  assertNoKey(JSON.stringify(result) + JSON.stringify(events), [URL_KEY], "userinfo");
});
