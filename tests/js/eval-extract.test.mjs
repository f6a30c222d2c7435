// The extraction eval (scripts/eval-extract.mjs) checked on itself: on the hand-written answers
// of tests/eval/extract/recorded.json, a right answer scores full marks and each answer made
// imperfect on purpose lowers exactly its own figures; suggest mode writes nothing; the core's
// refusals count; the live path runs against the mock provider.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { dataset, recorded, runAll, runOne, score, totals } from "../../scripts/eval-extract.mjs";
import { startMockProviders } from "../mock/providers.mjs";

let mock;
before(async () => (mock = await startMockProviders()));
after(() => mock.close());

test("the dataset: at least 30 conversations, each with an answer, some with nothing to save, some in other languages, some with a credential", () => {
  const all = dataset();
  const answers = recorded();
  assert.ok(all.length >= 30, `${all.length} conversations`);
  assert.equal(new Set(all.map((c) => c.id)).size, all.length, "ids are unique");
  for (const c of all) {
    assert.ok(answers[c.id], `an answer for ${c.id}`);
    assert.doesNotThrow(() => JSON.parse(answers[c.id]), c.id);
    for (const s of c.expect.save) assert.ok(s.mustMention.length > 0, c.id);
  }
  assert.ok(all.filter((c) => c.expect.save.length === 0).length >= 8, "conversations with nothing worth saving");
  assert.ok(all.some((c) => /[\u4e00-\u9fff]/.test(JSON.stringify(c.messages))) && all.some((c) => /Deutsch/.test(JSON.stringify(c.messages))));
  assert.ok(all.some((c) => c.existing?.length), "conversations that update or supersede a saved memory");
});

test("on the recorded answers: full marks where the answer is right, lower exactly where it is not, nothing written", async () => {
  const { scores, totals: t } = await runAll();
  const by = Object.fromEntries(scores.map((s) => [s.id, s]));
  for (const s of scores) assert.equal(s.wroteNothing, true, `${s.id}: suggest writes nothing`);
  assert.deepEqual([by["tabs-in-go"].matched, by["tabs-in-go"].extra, by["tabs-in-go"].violations], [1, 0, []]);
  assert.deepEqual(by["temporary-branch"].violations, ["fix/tmp-4471", "test_login"], "a one-off detail proposed is a violation");
  assert.deepEqual(by["password-in-chat"].violations, ["hunter2"], "a password no pattern knows passes the core: the eval catches it");
  assert.equal(by["aws-key"].secretsStopped, 1, "the key is refused by the core");
  assert.deepEqual(by["aws-key"].refused, ["SECRET_DETECTED"]);
  assert.equal(by["aws-key"].proposed, 0);
  assert.deepEqual([by["two-facts"].matched, by["two-facts"].expected], [1, 2], "a missed memory lowers recall");
  assert.deepEqual([by["db-migrated"].actionsRight, by["db-migrated"].actionsAsked], [0, 1], "an update where a supersession was wanted");
  assert.deepEqual([by["moved-team"].actionsRight, by["moved-team"].actionsAsked], [1, 1], "a create under the saved name: the core made it an update");
  assert.deepEqual([by["switch-to-spaces"].actionsRight, by["german-replaces-english"].actionsRight], [1, 1]);
  const imperfect = new Set(["temporary-branch", "password-in-chat", "aws-key", "two-facts", "db-migrated"]);
  for (const s of scores.filter((s) => !imperfect.has(s.id))) {
    assert.deepEqual([s.matched, s.extra, s.violations.length, s.actionsRight], [s.expected, 0, 0, s.actionsAsked], s.id);
  }
  assert.ok(t.recall < 1 && t.precision < 1 && t.violations === 3 && t.failed === 0);
});

test("the scorer: a proposal matches by type and every mention (alternatives allowed); extra proposals lower precision", () => {
  const conversation = { id: "x", expect: { save: [{ type: ["feedback"], action: "create", mustMention: ["tabs", ["go", "golang"]] }], mustNot: ["secret"] } };
  const planned = (type, body) => ({ proposal: { action: "create", file: null, type, name: "n", description: "d", body }, file: "f.md", action: "created" });
  const result = (proposals, refused = []) => ({ outcome: "proposed", proposals, refused, usage: null, costUsd: null });
  assert.equal(score(conversation, result([planned("feedback", "Tabs in Golang.")])).matched, 1);
  assert.equal(score(conversation, result([planned("user", "Tabs in Golang.")])).matched, 0, "the type counts");
  assert.equal(score(conversation, result([planned("feedback", "Tabs.")])).matched, 0, "every mention counts");
  const s = score(conversation, result([planned("feedback", "tabs go"), planned("project", "a secret plan")]));
  assert.deepEqual([s.matched, s.extra, s.violations], [1, 1, ["secret"]]);
  const t = totals([s]);
  assert.deepEqual([t.recall, t.precision], [1, 0.5]);
});

test("the live path: a provider config runs the same way (the mock Anthropic server answers nothing to save)", async () => {
  const conversation = dataset().find((c) => c.id === "tabs-in-go");
  const s = await runOne(conversation, { provider: "anthropic", apiKey: "sk-ant-test", baseUrl: mock.url });
  assert.equal(s.outcome, "nothing", s.error);
  assert.deepEqual([s.matched, s.expected], [0, 1]);
  assert.ok(s.usage.inputTokens > 0);
});
