// The CLI's output arrives whole through a pipe, however slowly it is read; a reader that
// leaves early costs no stack trace; a terminal is never handed a memory's escape sequences.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { bin, memdir, removeTemps, spawnMemdir, tempDir, tempMemory } from "./helpers.mjs";

after(removeTemps);

const FILES = 3000;
let big;
before(() => {
  big = tempDir("memdir-cli-big-");
  for (let i = 0; i < FILES; i++) {
    const description = `project number ${i}, with a description long enough to make the output large, ${"lorem ipsum ".repeat(8)}`;
    writeFileSync(join(big, `project_${i}.md`), `---\nname: P${i}\ndescription: ${description}\ntype: project\n---\nbody ${i}\n`);
  }
});

/**
 * Reads a child's stdout the way a slow consumer does: nothing for the first 300 ms (the
 * pipe's 64 KiB fill and the child reaches its end with output still queued), then a chunk
 * every few milliseconds.
 */
function readSlowly(child) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    child.stdout.pause();
    setTimeout(() => {
      child.stdout.on("data", (chunk) => {
        chunks.push(chunk);
        child.stdout.pause();
        setTimeout(() => child.stdout.resume(), 3);
      });
      child.stdout.resume();
    }, 300);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out: Buffer.concat(chunks).toString("utf8"), err }));
  });
}

test("scan --json and doctor --json of more than 1 MB arrive whole through a pipe read slowly", async () => {
  const scan = await readSlowly(spawnMemdir(["scan", "--json", "--dir", big, "--max-files", String(FILES)]));
  assert.equal(scan.code, 0, scan.err);
  assert.ok(scan.out.length > 1_000_000, `${scan.out.length} bytes`);
  assert.equal(JSON.parse(scan.out).memories.length, FILES, "the whole JSON, parsed");

  const doctor = await readSlowly(spawnMemdir(["doctor", "--json", "--dir", big]));
  assert.equal(doctor.code, 0, doctor.err);
  assert.ok(doctor.out.length > 1_000_000, `${doctor.out.length} bytes`);
  const report = JSON.parse(doctor.out);
  assert.equal(report.findings.filter((f) => f.code === "beyond_cap").length, FILES - 200);
});

test("the human scan table arrives whole too: its last line is the count", async () => {
  const r = await readSlowly(spawnMemdir(["scan", "--dir", big, "--max-files", String(FILES)]));
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`\\n${FILES} memories, 0 dropped, 0 diagnostics\\n$`));
});

test("a reader that leaves early (| head -c 10): no stack trace, no error, exit 0", async () => {
  const r = spawnSync("sh", ["-c", `"$MEMDIR" scan --json --dir "$DIR" --max-files ${FILES} | head -c 10`], {
    encoding: "utf8",
    env: { ...process.env, MEMDIR: bin, DIR: big, ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "" },
  });
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '{\n  "memor');
  assert.equal(r.stderr, "", "nothing on stderr");

  // the same with a reader that closes its end after the first chunk, and the exit status seen
  const child = spawnMemdir(["doctor", "--json", "--dir", big]);
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
  child.stdout.once("data", () => child.stdout.destroy());
  const code = await new Promise((resolve) => child.on("close", resolve));
  assert.equal(err, "");
  assert.equal(code, 0, "doctor found no errors; the closed pipe is not one");
});

const hasScript = existsSync("/usr/bin/script") && spawnSync("script", ["-qec", "true", "/dev/null"]).status === 0;

test("on a terminal a memory's control characters are shown, not obeyed; piped, they pass byte for byte", { skip: !hasScript && "needs script(1)" }, () => {
  const dir = tempMemory({
    "user_e.md": ['---\nname: E\ndescription: "red \\e[31mALERT\\e[0m, a bell \\a"\ntype: user\n---\nbody\n', 0],
    "MEMORY.md": ["- [E](user_e.md) \x1b]0;pwned\x07 — retitles the window\n", 0],
  });
  const tty = spawnSync("script", ["-qec", `"${bin}" scan --dir "${dir}"; "${bin}" index --dir "${dir}"`, "/dev/null"], { encoding: "utf8", env: { ...process.env, ANTHROPIC_API_KEY: "" } });
  assert.equal(tty.status, 0, tty.stdout);
  assert.ok(!/[\x07\x1b]/.test(tty.stdout), JSON.stringify(tty.stdout));
  assert.match(tty.stdout, /red \^\[\[31mALERT\^\[\[0m, a bell \^G/);
  assert.match(tty.stdout, /- \[E\]\(user_e\.md\) \^\[\]0;pwned\^G — retitles the window/);

  const piped = memdir(["index", "--dir", dir]);
  assert.equal(piped.out, "- [E](user_e.md) \x1b]0;pwned\x07 — retitles the window\n", "piped output is the index as it goes into the prompt");
  assert.match(memdir(["scan", "--dir", dir]).out, /red \x1b\[31mALERT\x1b\[0m/);
});

test("on a terminal, remember without --body says how to give the body instead of waiting", { skip: !hasScript && "needs script(1)" }, () => {
  const dir = tempDir();
  const t0 = Date.now();
  const r = spawnSync("script", ["-qec", `"${bin}" remember --dir "${dir}" --type user --name A --description "likes tea"; echo "status=$?"`, "/dev/null"], { encoding: "utf8", timeout: 20_000 });
  assert.ok(Date.now() - t0 < 15_000);
  assert.match(r.stdout, /^memdir: remember needs .*--body/m);
  assert.match(r.stdout, /status=2/);
});
