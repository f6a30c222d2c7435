// Credentials through the public API (issue 21 §5): shapes a real folder held that passed the
// write guard and doctor — a Telegram bot token, a 32-hex key under `Key:`/`Token:`/`Secret:`,
// a `pit-` private integration token, a password on a `password:` line — are refused by
// `remember` with SECRET_DETECTED (the secret never echoed) and reported by doctor as `secret`
// findings on their line; placeholders, hashes, UUIDs and `x-access-token:PAT@` pass both.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { MemdirError, openMemory } from "memdir";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-secrets-"));
  temps.push(d);
  return join(d, "memory");
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const open = (dir) => openMemory({ dir, selector: { provider: "lexical" } });

// fakes, built so that no complete token is written in this file
const TELEGRAM = "7123456789" + ":AAH" + "k9Qz_T4-vWx2Lp8".repeat(2) + "Rm";
const HEX32 = "9f3b" + "a17c5e02d84b".repeat(2) + "6d2c";
const PIT = "pit-" + "3f9c2a1e-7b4d-4e8a-9c61-2d5f0b7e8a14";
const PASSWORD = "Tr0ub4" + "dor&3x";

// [what, body, the secret's line in the body, what the refusal names]
const shapes = [
  ["Telegram bot token", `The deploy bot posts here.\nbot token ${TELEGRAM}\n`, 2, /Telegram bot token on line 2/],
  ["Key: 32 hex", `Staging proxy.\nKey: ${HEX32}\n`, 2, /labelled key, token or secret on line 2/],
  ["Token: 32 hex", `Token: ${HEX32}`, 1, /labelled key, token or secret on line 1/],
  ["Secret: 32 hex", `Webhook signing.\n\nSecret: ${HEX32}`, 3, /labelled key, token or secret on line 3/],
  ["pit- token", `CRM sync uses ${PIT} for the location.`, 1, /private integration token on line 1/],
  ["password: line", `Admin panel login.\nuser: admin\npassword: ${PASSWORD}\n`, 3, /password on line 3/],
];

const placeholders = [
  "Set the key in the env: API_KEY=YOUR_API_KEY, token: <your-token>, secret: ${WEBHOOK_SECRET}.",
  "password: see 1Password (vault \"Ops\"); password: changeme on first boot; token: the JWT from login.",
  "git clone https://x-access-token:PAT@github.com/acme/app.git",
  "commit: 1770a92e0b5f7f0c7a1de0b1e8d9b8d4f1f3a2c1, sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08, checksum: 5d41402abc4b2a76b9719d911017c592",
  "request id: 123e4567-e89b-12d3-a456-426614174000; the secret is to cache the index; key: value; OPENAI_API_KEY=sk-...",
];

test("remember refuses each shape with SECRET_DETECTED, naming kind and line, never the secret, writing nothing", async () => {
  const dir = temp();
  const memory = await open(dir);
  for (const [what, body, , named] of shapes) {
    const error = await memory.remember({ type: "reference", name: `Creds ${what}`, description: `Where the ${what} lives`, body }).catch((e) => e);
    assert.ok(error instanceof MemdirError, `${what}: refused`);
    assert.equal(error.code, "SECRET_DETECTED", what);
    assert.match(error.message, named, what);
    for (const secret of [TELEGRAM.slice(11), HEX32, PIT.slice(4), PASSWORD]) {
      assert.ok(!error.message.includes(secret.slice(0, 12)), `${what}: the secret is not echoed: ${error.message}`);
    }
  }
  assert.deepEqual(existsSync(dir) ? readdirSync(dir) : [], [], "nothing written");
});

test("remember accepts placeholders, hashes, UUIDs and x-access-token:PAT@", async () => {
  const memory = await open(temp());
  for (const [i, body] of placeholders.entries()) {
    const done = await memory.remember({ type: "reference", name: `Where creds live ${i}`, description: `How credential ${i} is referenced, not stored`, body });
    assert.equal(done.action, "created", body);
  }
  assert.deepEqual((await memory.doctor()).findings.filter((f) => f.code === "secret"), []);
});

test("doctor reports each shape as a secret finding on its line, and none for the placeholders", async () => {
  const dir = temp();
  mkdirSync(dir, { recursive: true });
  const index = [];
  const expected = [];
  const file = (name, body) => {
    const text = `---\nname: ${name}\ndescription: notes on ${name}\ntype: reference\n---\n\n${body}`;
    writeFileSync(join(dir, `${name}.md`), text);
    index.push(`- [${name}](${name}.md) — notes on ${name}`);
  };
  shapes.forEach(([, body, line], i) => {
    file(`shape_${i}`, body);
    expected.push([`shape_${i}.md`, line + 6]); // after 5 lines of frontmatter and a blank line
  });
  placeholders.forEach((body, i) => file(`placeholder_${i}`, body));
  writeFileSync(join(dir, "MEMORY.md"), `${index.join("\n")}\n`);

  const report = await (await open(dir)).doctor();
  const secrets = report.findings.filter((f) => f.code === "secret");
  assert.deepEqual(secrets.map((f) => [f.file, f.line]).sort(), expected.sort());
  assert.ok(secrets.every((f) => f.severity === "error"));
  for (const f of secrets) {
    for (const secret of [TELEGRAM.slice(11), HEX32, PIT.slice(4), PASSWORD]) assert.ok(!f.message.includes(secret.slice(0, 12)), f.message);
  }
});
