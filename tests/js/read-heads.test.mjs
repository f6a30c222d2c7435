// Heads are read in chunks until 30 lines are seen, so a head ends wherever its last chunk
// ended: inside a Korean or Russian character, more often than not. Valid UTF-8 files must not
// be reported as invalid for it (issue 21: 10 real files, Korean, Russian, Portuguese), on a
// real folder through the Node host, and through a host that cuts heads the way the browser
// hosts do (the core's own rule).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { InMemoryHost, openMemory } from "memdir";
import { NodeHost } from "../../pkg/hosts/node.js";

const temps = [];
function temp() {
  const d = mkdtempSync(join(tmpdir(), "memdir-heads-"));
  temps.push(d);
  return d;
}
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

const CHUNK = 4096;
const bytesOf = (text) => new TextEncoder().encode(text);
const strict = new TextDecoder("utf-8", { fatal: true });
const validUtf8 = (bytes) => {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
};
/** Where the `n`-th newline ends (the byte after it), or -1. */
function afterLine(bytes, n) {
  let seen = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10 && ++seen === n) return i + 1;
  return -1;
}
/** The first of `build(a, b)` whose bytes satisfy `ok`: the paddings that put the cuts inside characters. */
function construct(build, ok) {
  for (let a = 0; a < 8; a++) {
    for (let b = 0; b < 8; b++) {
      const text = build(a, b);
      if (ok(bytesOf(text))) return text;
    }
  }
  throw new Error("no padding puts the cut inside a character");
}

/** Korean: 30 lines within the first 4,096 bytes, the chunk's end inside a character after them. */
const korean = construct(
  (pad) => {
    const lines = ["---", "name: 배포 점검 목록", "description: 스테이징 먼저 확인하는 deploy checklist", "type: project", "---"];
    for (let i = 6; i <= 30; i++) lines.push(`${i}. 스테이징 서버에서 먼저 확인하고 운영 서버에 배포한다`);
    lines.push("x".repeat(pad) + "배포 기록은 운영 채널에 남긴다 ".repeat(400));
    return lines.join("\n") + "\n";
  },
  (b) => afterLine(b, 30) > 0 && afterLine(b, 30) < CHUNK && b.length > 2 * CHUNK && !validUtf8(b.subarray(0, CHUNK)),
);

/**
 * Russian: line 30 ends past the first chunk, whose end falls inside a character before it; the
 * second chunk's end (where the reading stops) falls inside a character after it.
 */
const russian = construct(
  (a, b) => {
    const lines = ["---", "name: Счета и платежи", "description: Как выставлять счета billing runbook", "type: reference", "---"];
    for (let i = 6; i <= 30; i++) lines.push(`${i}. ${i === 20 ? "x".repeat(a) : ""}Счета выставляются первого числа каждого месяца, платежи проверяются вручную по реестру банка`);
    lines.push("x".repeat(b) + "Итоговый реестр ".repeat(1000));
    return lines.join("\n") + "\n";
  },
  (b) => afterLine(b, 30) > CHUNK && afterLine(b, 30) < 2 * CHUNK && b.length > 4 * CHUNK && !validUtf8(b.subarray(0, CHUNK)) && !validUtf8(b.subarray(0, 2 * CHUNK)),
);

const fields = (scan, path) => {
  const m = scan.memories.find((x) => x.path === path);
  return m && { name: m.name, description: m.description, type: m.type };
};

async function checkFolder(memory) {
  const scan = await memory.scan();
  assert.deepEqual(scan.diagnostics, [], "valid UTF-8 read as a head is not invalid_utf8");
  assert.deepEqual(fields(scan, "project_deploy.md"), { name: "배포 점검 목록", description: "스테이징 먼저 확인하는 deploy checklist", type: "project" });
  assert.deepEqual(fields(scan, "reference_billing.md"), { name: "Счета и платежи", description: "Как выставлять счета billing runbook", type: "reference" });
  const recalled = await memory.recall("deploy checklist");
  assert.deepEqual(recalled.memories.map((m) => m.path), ["project_deploy.md"]);
  assert.ok(!recalled.reminders.join("").includes("\ufffd"), "no replacement character in what is injected");
  const report = await memory.doctor();
  assert.deepEqual(report.findings.filter((f) => f.code === "invalid_utf8"), []);
}

const index = "- [Deploy](project_deploy.md) — 배포 점검\n- [Billing](reference_billing.md) — счета\n";

function folder() {
  const dir = temp();
  writeFileSync(join(dir, "MEMORY.md"), index);
  writeFileSync(join(dir, "project_deploy.md"), korean);
  writeFileSync(join(dir, "reference_billing.md"), russian);
  return dir;
}

test("the construction: each file's chunk ends fall inside characters where the test says", () => {
  const ko = bytesOf(korean);
  assert.ok(afterLine(ko, 30) < CHUNK && !validUtf8(ko.subarray(0, CHUNK)));
  const ru = bytesOf(russian);
  assert.ok(afterLine(ru, 30) > CHUNK && !validUtf8(ru.subarray(0, CHUNK)) && !validUtf8(ru.subarray(0, 2 * CHUNK)));
  assert.ok(validUtf8(ko) && validUtf8(ru));
});

test("a real folder of Korean and Russian files: scan, recall and doctor find no invalid UTF-8", async () => {
  await checkFolder(await openMemory({ dir: folder(), selector: { provider: "lexical" } }));
});

test("the same through the Node host's slower reads (no fast reads)", async () => {
  const host = new NodeHost(folder(), { rawFs: null });
  await checkFolder(await openMemory({ host, selector: { provider: "lexical" } }));
});

test("a host whose heads (fast.readHeads) are the chunks as they were read: the core cuts them at the lines it reads", async () => {
  class ChunkedHost extends InMemoryHost {
    async chunked(path, maxLines) {
      const data = await this.readFile(path);
      let end = 0;
      let lines = 0;
      while (end < data.length && lines < maxLines) {
        const next = Math.min(data.length, end + CHUNK);
        for (let i = end; i < next; i++) if (data[i] === 10) lines++;
        end = next;
      }
      return { bytes: data.slice(0, end) };
    }
    fast = { readHeads: (paths, maxLines) => Promise.all(paths.map((p) => this.chunked(p, maxLines).catch((error) => error))) };
  }
  const host = new ChunkedHost({ "MEMORY.md": index, "project_deploy.md": korean, "reference_billing.md": russian });
  const [{ bytes: ko }] = await host.fast.readHeads(["project_deploy.md"], 30);
  assert.ok(!validUtf8(ko), "the host's head ends inside a character");
  await checkFolder(await openMemory({ host, selector: { provider: "lexical" } }));
});

test("a file that is not UTF-8 within the lines read is still reported", async () => {
  const dir = folder();
  const broken = bytesOf(korean);
  broken[20] = 0xff; // inside the name, line 2
  writeFileSync(join(dir, "project_deploy.md"), broken);
  const memory = await openMemory({ dir, selector: { provider: "lexical" } });
  const scan = await memory.scan();
  assert.deepEqual(scan.diagnostics.map((d) => [d.path, d.code]), [["project_deploy.md", "invalid_utf8"]]);
  const report = await memory.doctor();
  assert.deepEqual(report.findings.filter((f) => f.code === "invalid_utf8").map((f) => f.file), ["project_deploy.md"]);
});

test("the Node host's own cut lands on a character boundary, with every line the core reads", async () => {
  const dir = folder();
  // the fast paths, and the base host's own head (what they fall back to past a link or once calls turn slow)
  for (const host of [new NodeHost(dir), new NodeHost(dir, { rawFs: null })]) {
    const heads = host.fast ? await host.fast.readHeads(["project_deploy.md", "reference_billing.md"], 30) : [await host.head("project_deploy.md", 30), await host.head("reference_billing.md", 30)];
    const one = (await host.head("reference_billing.md", 30)).bytes;
    for (const [bytes, text] of [[heads[0].bytes, korean], [heads[1].bytes, russian], [one, russian]]) {
      assert.ok(validUtf8(bytes), "the head ends on a character boundary");
      assert.ok(bytes.length >= afterLine(bytesOf(text), 30) && bytes.length < bytesOf(text).length);
    }
  }
  // a file read whole is given whole, even when it ends inside a character
  const broken = bytesOf("---\ndescription: 배포\n---\n배").slice(0, -1);
  writeFileSync(join(dir, "project_broken.md"), broken);
  assert.equal((await new NodeHost(dir).fast.readHeads(["project_broken.md"], 30))[0].bytes.length, broken.length);
  assert.equal((await new NodeHost(dir).head("project_broken.md", 30)).bytes.length, broken.length);
});
