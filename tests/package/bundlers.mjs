// Builds the consumer of tests/package/app/ with each bundler through its API, the way its
// documentation starts a project: no plugin or option for memdir (rollup's node-resolve is how
// rollup finds any package; `exportConditions: ["node"]` is how it is told the target is Node).
// Each build reports its output folder, the file to run or the page to open, and every
// warning the bundler printed.
import { cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { root, spawnText } from "./packed.mjs";

// the bundlers are the repository's devDependencies, loaded when a build needs one
const require = createRequire(import.meta.url);

/** Copies the consumer (tests/package/app/) into `project/src`, and vite's index.html into `project`. */
export function writeConsumer(project) {
  cpSync(join(root, "tests/package/app"), join(project, "src"), { recursive: true, filter: (path) => !path.endsWith("index.html") });
  cpSync(join(root, "tests/package/app/index.html"), join(project, "index.html"));
}

function page(outDir, script, type = "") {
  writeFileSync(join(outDir, "index.html"), `<!doctype html><meta charset="utf-8"><title>memdir</title><link rel="icon" href="data:,"><script ${type}src="./${script}"></script>\n`);
}

/** Every file under `dir`, relative, with its size. */
export function outputFiles(dir) {
  const walk = (d) => readdirSync(d).flatMap((name) => (statSync(join(d, name)).isDirectory() ? walk(join(d, name)) : [join(d, name)]));
  return walk(dir).map((path) => ({ path: relative(dir, path), bytes: statSync(path).size }));
}

const esbuildBuild = (target, format) => async (project, outDir) => {
  const ext = { cjs: "cjs", esm: "mjs", iife: "js" }[format];
  const result = await require("esbuild").build({
    absWorkingDir: project,
    entryPoints: [target === "node" ? "src/node-app.js" : "src/browser-app.js"],
    bundle: true,
    platform: target,
    ...(format === "iife" ? {} : { format }),
    outfile: join(outDir, `app.${ext}`),
    logLevel: "silent",
  });
  if (target === "browser") page(outDir, "app.js");
  return { run: `app.${ext}`, warnings: result.warnings.map((w) => w.text) };
};

function webpackRun(config) {
  const webpack = require("webpack");
  return new Promise((resolve, reject) =>
    webpack(config, (error, stats) => {
      if (error) return reject(error);
      const info = stats.toJson({ all: false, errors: true, warnings: true });
      if (stats.hasErrors()) return reject(new Error(info.errors.map((e) => e.message).join("\n")));
      resolve(info.warnings.map((w) => w.message));
    }),
  );
}

const webpackBuild = (target) => async (project, outDir) => {
  const warnings = await webpackRun(
    target === "node"
      ? // as `yo code` (webpack) writes a VS Code extension's config: target node, CommonJS, one file
        { context: project, mode: "none", target: "node", entry: "./src/node-app.js", output: { path: outDir, filename: "app.cjs", library: { type: "commonjs2" } } }
      : { context: project, mode: "production", entry: "./src/browser-app.js", output: { path: outDir, filename: "main.js" } },
  );
  if (target === "browser") page(outDir, "main.js");
  return { run: target === "node" ? "app.cjs" : undefined, warnings };
};

const rollupBuild = (target) => async (project, outDir) => {
  const warnings = [];
  const { rollup } = await import("rollup");
  const { nodeResolve } = await import("@rollup/plugin-node-resolve");
  const bundle = await rollup({
    input: join(project, target === "node" ? "src/node-app.js" : "src/browser-app.js"),
    plugins: [nodeResolve(target === "node" ? { exportConditions: ["node"] } : {})],
    onwarn: (warning) => warnings.push(warning.message),
  });
  // a browser app's config writes a folder: the module memdir carries is a chunk of its own,
  // loaded by init() (with `file:` instead, rollup asks for `inlineDynamicImports: true`)
  await bundle.write(target === "node" ? { file: join(outDir, "app.mjs"), format: "es" } : { dir: outDir, entryFileNames: "app.mjs", format: "es" });
  await bundle.close();
  if (target === "browser") page(outDir, "app.mjs", 'type="module" ');
  return { run: target === "node" ? "app.mjs" : undefined, warnings };
};

const loadVite = () => import("vite");

function viteLogger(vite, warnings) {
  const logger = vite.createLogger("warn", { allowClearScreen: false });
  return { ...logger, warn: (msg) => warnings.push(msg), warnOnce: (msg) => warnings.push(msg), info: () => {}, error: (msg) => warnings.push(`error: ${msg}`) };
}

const viteBuild = (target) => async (project, outDir) => {
  const warnings = [];
  const vite = await loadVite();
  await vite.build({
    root: project,
    configFile: false,
    logLevel: "warn",
    customLogger: viteLogger(vite, warnings),
    // the chunk holding the wasm's inlined copy (imported only when init() is given no source)
    // is ~550 kB since issue 21, ~610 kB with issue 23's history and ~705 kB with issue 24's
    // automatic writers, past Vite's 500 kB advisory: a user sees that notice until issue 26
    // shrinks the module (or splits doctor's, the history's and the writers' code out of it);
    // any chunk past 740 kB still fails here
    build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 740, ...(target === "node" ? { ssr: "src/node-app.js" } : {}) },
  });
  return { run: target === "node" ? "node-app.js" : undefined, warnings };
};

/**
 * The builds: name → how. `single`: the Node output is one file that runs alone, with no
 * node_modules beside it (vite's SSR build leaves packages external: it runs in the project).
 */
export const BUILDS = [
  { name: "esbuild-node-cjs", target: "node", single: true, build: esbuildBuild("node", "cjs") },
  { name: "esbuild-node-esm", target: "node", single: true, build: esbuildBuild("node", "esm") },
  { name: "esbuild-browser", target: "browser", build: esbuildBuild("browser", "iife") },
  { name: "webpack-node", target: "node", single: true, build: webpackBuild("node") },
  { name: "webpack-browser", target: "browser", build: webpackBuild("browser") },
  { name: "rollup-node", target: "node", single: true, build: rollupBuild("node") },
  { name: "rollup-browser", target: "browser", build: rollupBuild("browser") },
  { name: "vite-ssr", target: "node", single: false, build: viteBuild("node") },
  { name: "vite-browser", target: "browser", build: viteBuild("browser") },
];

/**
 * Runs every build in two child processes (the machine has two cores): webpack's two builds,
 * the slowest, in one; the rest in the other. Returns name → {outDir, run, warnings, ms} or
 * {error}, and the wall time.
 */
export async function buildAll(project) {
  const groups = [["webpack-browser"], BUILDS.map((b) => b.name).filter((n) => n !== "webpack-browser")];
  const started = performance.now();
  const results = await Promise.all(groups.map(async (names) => JSON.parse(await spawnText(process.execPath, [fileURLToPath(import.meta.url), project, ...names]))));
  return { builds: Object.assign({}, ...results), wallMs: performance.now() - started };
}

async function buildNamed(project, names) {
  const out = {};
  for (const name of names) {
    const { build } = BUILDS.find((b) => b.name === name);
    const outDir = join(project, "out", name);
    mkdirSync(outDir, { recursive: true });
    const t0 = performance.now();
    try {
      out[name] = { outDir, ...(await build(project, outDir)), ms: performance.now() - t0 };
    } catch (error) {
      out[name] = { outDir, error: String(error?.stack ?? error), ms: performance.now() - t0 };
    }
  }
  return out;
}

// as a child process: node bundlers.mjs <project> <build name>… prints {name: result} as JSON
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [project, ...names] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(await buildNamed(project, names)));
}

/** Starts vite's dev server on 127.0.0.1 (dependency pre-bundling included); returns its URL, warnings and close(). */
export async function viteDev(project) {
  const warnings = [];
  const vite = await loadVite();
  const server = await vite.createServer({ root: project, configFile: false, logLevel: "warn", customLogger: viteLogger(vite, warnings), server: { host: "127.0.0.1", port: 0 } });
  await server.listen();
  const url = server.resolvedUrls.local[0].replace(/\/$/, "");
  return { url, warnings, close: () => server.close() };
}
