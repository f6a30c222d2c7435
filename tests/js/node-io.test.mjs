// The Node host's I/O driver (js/hosts/node-io.ts): what a listing keeps of each `lstat`, and a
// long loop between calls letting the event loop through.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { IoDriver, StatColumns } from "../../pkg/hosts/node-io.js";

const temps = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

for (const mode of ["sync", "async"]) {
  test(`lstatMany (${mode}) keeps each stat in columns, equal to lstat's, and errors in place`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "memdir-io-"));
    temps.push(dir);
    writeFileSync(join(dir, "a.md"), "hello\n");
    mkdirSync(join(dir, "sub"));
    symlinkSync("a.md", join(dir, "link"));
    const paths = ["a.md", "sub", "link", "missing"].map((n) => join(dir, n));
    const driver = new IoDriver(fs, mode);
    const got = await driver.run(
      (function* () {
        return yield { op: "lstatMany", dir, names: ["a.md", "sub", "link", "missing"] };
      })(),
    );
    assert.ok(got instanceof StatColumns, "columns, not a Stats (four Dates, fourteen boxed numbers) an entry");
    for (const column of [got.mtimesMs, got.ctimesMs, got.sizesBytes, got.inos]) assert.ok(column instanceof Float64Array && column.length === 4);
    assert.deepEqual([...got.kinds.slice(0, 3)], [StatColumns.FILE, StatColumns.DIRECTORY, StatColumns.LINK]);
    for (let i = 0; i < 3; i++) {
      const want = fs.lstatSync(paths[i]);
      const one = got.at(i);
      assert.ok(!(one instanceof fs.Stats) && !(one instanceof Error));
      for (const key of ["mtimeMs", "ctimeMs", "size", "ino"]) assert.equal(one[key], want[key], `${paths[i]} ${key}`);
      for (const kind of ["isFile", "isDirectory", "isSymbolicLink"]) assert.equal(one[kind](), want[kind](), `${paths[i]} ${kind}`);
    }
    assert.deepEqual([...got.errors.keys()], [3], "the one error in its place");
    assert.ok(got.at(3) instanceof Error);
    assert.equal(got.at(3).code, "ENOENT");
  });
}

test("a pause lets the event loop through once the slice has run its time, and not before", async () => {
  const driver = new IoDriver(fs, "sync");
  let ticks = 0;
  let on = true;
  const tick = () => {
    ticks++;
    if (on) setImmediate(tick);
  };
  setImmediate(tick);
  const spin = (ms) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };
  // quick work with pauses between: no slice is up, nothing yields
  const quick = await driver.run(
    (function* () {
      for (let i = 0; i < 10; i++) yield { op: "pause" };
      return "quick";
    })(),
  );
  assert.equal(quick, "quick");
  assert.equal(driver.yields, 0);
  const before = ticks;
  await driver.run(
    (function* () {
      for (let i = 0; i < 5; i++) {
        spin(5); // longer than a slice
        yield { op: "pause" };
      }
    })(),
  );
  on = false;
  assert.ok(driver.yields >= 4, `yielded ${driver.yields} times`);
  assert.ok(ticks > before, "other work ran between the slices");
});
