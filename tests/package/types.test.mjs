// The published declarations as a consumer's compiler sees them: the packed package is
// installed into an ESM project and a CommonJS one, and the consumers of typed/ are
// type-checked with skipLibCheck off, strict plus exactOptionalPropertyTypes and
// noUncheckedIndexedAccess (skipDefaultLibCheck: TypeScript's own lib files are not ours to
// check), `lib: ["es2022"]` with @types/node 20 (the browser consumer: the
// DOM library, no @types/node), under node16 (ESM and CommonJS), nodenext (both) and bundler
// resolution — by TypeScript 7 (the project's), and the node16 and browser cases by TypeScript
// 5.9 (what most projects run). TypeScript 7 also checks each Node case with no `types` option
// (its default loads no @types package): the declarations carry what they need.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { packAndInstall, root, spawnText } from "./packed.mjs";

/** Each compiler, and the cases it runs: TypeScript 5.9 (slower, several seconds a case) runs where versions differ most. */
const COMPILERS = {
  "typescript 7": { tsc: join(root, "node_modules/typescript/bin/tsc"), only: null },
  "typescript 5.9": { tsc: join(root, "node_modules/typescript-5/bin/tsc"), only: ["node16, ESM", "node16, CommonJS", "bundler, browser (DOM, no @types/node)"] },
};

const STRICT = { strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false, skipDefaultLibCheck: true, noEmit: true, target: "es2022" };

/** name → [project, consumer file, compilerOptions]. */
const MATRIX = {
  "node16, ESM": ["esm", "esm.ts", { module: "node16", moduleResolution: "node16", lib: ["es2022"], types: ["node"] }],
  "node16, CommonJS": ["cjs", "cjs.ts", { module: "node16", moduleResolution: "node16", lib: ["es2022"], types: ["node"] }],
  "nodenext, ESM": ["esm", "esm.ts", { module: "nodenext", moduleResolution: "nodenext", lib: ["es2022"], types: ["node"] }],
  "nodenext, CommonJS": ["cjs", "cjs.ts", { module: "nodenext", moduleResolution: "nodenext", lib: ["es2022"], types: ["node"] }],
  "bundler": ["esm", "bundler.ts", { module: "esnext", moduleResolution: "bundler", lib: ["es2022"], types: ["node"] }],
  "bundler, browser (DOM, no @types/node)": ["esm", "browser.ts", { module: "esnext", moduleResolution: "bundler", lib: ["es2022", "dom"], types: [] }],
  // no `types`: TypeScript 7 then loads no @types package by itself, so memdir's declarations
  // must name Node's types where they use them (`/// <reference types="node" />`)
  "node16, ESM, @types/node installed, no `types`": ["esm", "esm.ts", { module: "node16", moduleResolution: "node16", lib: ["es2022"] }],
  "nodenext, CommonJS, @types/node installed, no `types`": ["cjs", "cjs.ts", { module: "nodenext", moduleResolution: "nodenext", lib: ["es2022"] }],
  "bundler, @types/node installed, no `types`": ["esm", "bundler.ts", { module: "esnext", moduleResolution: "bundler", lib: ["es2022"] }],
};

let work;
const projects = {};
const results = new Map();
const times = new Map();

before(async () => {
  work = mkdtempSync(join(tmpdir(), "memdir-types-"));
  projects.esm = packAndInstall(work, "esm", { type: "module" }).project;
  // the CommonJS project (no "type") shares the installed package
  projects.cjs = join(work, "cjs");
  mkdirSync(projects.cjs);
  writeFileSync(join(projects.cjs, "package.json"), JSON.stringify({ name: "cjs", private: true }));
  symlinkSync(join(projects.esm, "node_modules"), join(projects.cjs, "node_modules"), "dir");
  // @types/node 20 and what it imports, from the repository's devDependencies
  mkdirSync(join(projects.esm, "node_modules/@types"), { recursive: true });
  symlinkSync(join(root, "node_modules/@types/node"), join(projects.esm, "node_modules/@types/node"), "dir");
  symlinkSync(join(root, "node_modules/undici-types"), join(projects.esm, "node_modules/undici-types"), "dir");
  const typesNode = JSON.parse(readFileSync(join(root, "node_modules/@types/node/package.json"), "utf8")).version;
  assert.match(typesNode, /^20\./, "the matrix runs against @types/node 20");
  // every (compiler, case) pair, two compilers at a time
  const jobs = Object.entries(COMPILERS).flatMap(([compiler, { tsc, only }]) =>
    Object.entries(MATRIX)
      .filter(([name]) => only === null || only.includes(name))
      .map(([name, [project, file, options]]) => ({ compiler, tsc, name, project, file, options })),
  );
  const slots = Math.max(2, Math.min(4, availableParallelism()));
  let next = 0;
  await Promise.all(
    Array.from({ length: slots }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        const dir = join(projects[job.project], `case-${jobs.indexOf(job)}`);
        mkdirSync(dir);
        cpSync(join(root, "tests/package/typed", job.file), join(dir, job.file));
        writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...STRICT, ...job.options }, files: [job.file] }, null, 2));
        const t0 = performance.now();
        const output = await spawnText(process.execPath, [job.tsc, "-p", dir, "--pretty", "false"]).then(
          () => "",
          (error) => error.stdout || error.message,
        );
        results.set(`${job.compiler}: ${job.name}`, output.trim());
        times.set(`${job.compiler}: ${job.name}`, performance.now() - t0);
      }
    }),
  );
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

for (const [compiler, { only }] of Object.entries(COMPILERS)) {
  for (const name of Object.keys(MATRIX).filter((n) => only === null || only.includes(n))) {
    test(`${compiler}, ${name}: no error in the consumer or in memdir's declarations`, (t) => {
      assert.equal(results.get(`${compiler}: ${name}`), "");
      t.diagnostic(`tsc took ${Math.round(times.get(`${compiler}: ${name}`))} ms`);
    });
  }
}
