// The browser playground (playground/): `npm run playground` builds it and serves it on
// 127.0.0.1 (`--port N` or PORT, default 5178, 0 = any free port); `npm run playground:build`
// writes the static folder (default dist/playground/, `--out DIR`) that any static host can
// serve: every URL in it is relative. The example memory (examples/memory/) is embedded in the
// bundle at build time, as the first-load seed.
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { extname, join, normalize, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(import.meta.dirname, "..");
const source = join(root, "playground");

/** Every file under `dir`, as `{path: bytes}`. */
function readTreeBytes(dir) {
  const out = {};
  const walk = (at) => {
    for (const name of readdirSync(at).sort()) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full).split(sep).join("/")] = readFileSync(full);
    }
  };
  walk(dir);
  return out;
}

/** Every file under `dir`, as `{path: text}`. */
const readTree = (dir) => Object.fromEntries(Object.entries(readTreeBytes(dir)).map(([path, bytes]) => [path, bytes.toString("utf8")]));

/** esbuild: `virtual:seed` is the example memory, `memdir/browser` the built package's browser entry, `memdir/core` its core wrappers. */
const playgroundPlugin = {
  name: "playground",
  setup(build) {
    build.onResolve({ filter: /^virtual:seed$/ }, () => ({ path: "seed", namespace: "playground-seed" }));
    build.onLoad({ filter: /.*/, namespace: "playground-seed" }, () => ({
      contents: `export default ${JSON.stringify(readTree(join(root, "examples/memory")))};`,
      loader: "js",
      watchFiles: [join(root, "examples/memory")],
    }));
    build.onResolve({ filter: /^memdir\/browser$/ }, () => ({ path: join(root, "pkg/entry/browser.js") }));
    // the core's functions beyond the public entry (the playground is memdir's own page)
    build.onResolve({ filter: /^memdir\/core$/ }, () => ({ path: join(root, "pkg/core.js") }));
  },
};

/**
 * Builds the playground into `outDir`: app.js (the page, CodeMirror and memdir, minified; chunks/
 * for what it imports on demand), app.css, index.html and sw.js (the service worker, which
 * caches the rest by a content hash so the page works offline). Returns the files' sizes.
 */
export async function buildPlayground({ outDir = join(root, "dist/playground") } = {}) {
  const { build: esbuild } = await import("esbuild");
  statSync(join(root, "pkg/entry/browser.js")); // pkg/ must be built first (node scripts/build.mjs)
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await esbuild({
    entryPoints: { app: join(source, "src/main.ts") },
    bundle: true,
    format: "esm",
    splitting: true, // what the page imports on demand (memdir's inlined module, where its entry does) is a chunk of its own
    chunkNames: "chunks/[name]-[hash]",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    outdir: outDir,
    plugins: [playgroundPlugin],
    logLevel: "warning",
  });
  writeFileSync(join(outDir, "app.css"), readFileSync(join(source, "style.css")));
  writeFileSync(join(outDir, "index.html"), readFileSync(join(source, "index.html")));
  const files = Object.keys(readTreeBytes(outDir));
  const hash = createHash("sha256");
  for (const name of files) hash.update(name).update(readFileSync(join(outDir, name)));
  const version = hash.digest("hex").slice(0, 12);
  const assets = ["./", ...files.map((name) => `./${name}`)];
  const worker = readFileSync(join(source, "sw.js"), "utf8").replace("__VERSION__", version).replace('"__ASSETS__"', JSON.stringify(assets));
  writeFileSync(join(outDir, "sw.js"), worker);
  const sizes = Object.fromEntries(Object.entries(readTreeBytes(outDir)).map(([name, bytes]) => [name, bytes.length]));
  return { outDir, version, sizes };
}

const TYPES = { ".js": "text/javascript", ".css": "text/css", ".html": "text/html; charset=utf-8", ".json": "application/json", ".png": "image/png", ".svg": "image/svg+xml" };

/** Serves `dir` read-only on 127.0.0.1:`port` (0: any free port). Resolves with its URL and `close`. */
export async function servePlayground(dir, { port = 0 } = {}) {
  const server = createServer((req, res) => {
    let path;
    try {
      path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    } catch {
      return res.writeHead(400).end();
    }
    if (path.includes("..") || path.includes("\0")) return res.writeHead(403).end();
    if (path.endsWith("/")) path += "index.html";
    try {
      const body = readFileSync(join(dir, path));
      // no-cache: a rebuild is seen on reload; the service worker keeps the offline copy
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream", "cache-control": "no-cache" }).end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", ok);
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { url, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

function option(args, name) {
  const at = args.indexOf(name);
  if (at >= 0) return args[at + 1];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [command = "serve", ...args] = process.argv.slice(2);
  try {
    const { build } = await import("./build.mjs");
    await build(); // pkg/, only when its sources changed
    const out = option(args, "--out");
    const { outDir, sizes } = await buildPlayground(out ? { outDir: resolve(out) } : {});
    const total = Object.values(sizes).reduce((a, b) => a + b, 0);
    console.log(`playground built in ${relative(process.cwd(), outDir) || "."}: ${Object.entries(sizes).map(([n, s]) => `${n} ${(s / 1024).toFixed(0)} KB`).join(", ")} (${(total / 1024).toFixed(0)} KB)`);
    if (command === "serve") {
      const raw = option(args, "--port") ?? process.env.PORT ?? "5178";
      const port = Number(raw);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a whole number from 0 to 65535, not ${raw}`);
      const { url } = await servePlayground(outDir, { port });
      console.log(`playground: ${url}  (Ctrl+C stops it)`);
    } else if (command !== "build") {
      throw new Error(`unknown command ${command}: use serve or build`);
    }
  } catch (error) {
    console.error(`playground: ${error.message}`);
    process.exit(1);
  }
}
