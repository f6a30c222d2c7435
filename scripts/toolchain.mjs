// Installs what the build and the tests need, idempotently, and quickly when it is already
// there: npm packages (from package-lock.json), the wasm32 Rust target, wasm-bindgen at exactly
// the Cargo.lock version (tools/wasm-bindgen, cached per version under ~/.cache/memdir, since a
// mismatched one cannot read the module), and Debian's Chromium for the browser test.
// Only Node built-ins are used here: this file runs before `npm install`.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));

/** Runs a command with inherited output; throws with the command line when it fails. */
export function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: "inherit", ...options });
  if (result.error) throw new Error(`${cmd} could not start: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
  return result;
}

function output(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : null;
}

export function step(label, fn) {
  const start = performance.now();
  const value = fn();
  console.error(`  [${((performance.now() - start) / 1000).toFixed(1)} s] ${label}`);
  return value;
}

/** A folder of memdir's cache of built and installed tools, outside any clone: `~/.cache/memdir/<name>` (or under XDG_CACHE_HOME). */
export function cacheDir(name) {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "memdir", name);
}

/** Debian packages, by apt-get as root; anywhere else, an Error saying `why` it cannot be done here. */
export function aptInstall(packages, why) {
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) throw new Error(why);
  step(`apt-get install ${packages.join(" ")}`, () => {
    run("apt-get", ["update", "-qq"]);
    run("apt-get", ["install", "-y", "-qq", ...packages], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  });
}

/** npm packages, reinstalled only when package-lock.json changed. */
export function ensureNpmDeps() {
  const lock = join(root, "package-lock.json");
  const hash = createHash("sha256").update(readFileSync(lock)).digest("hex");
  const stamp = join(root, "node_modules", ".memdir-lock-sha256");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === hash) return;
  // npm_config_dry_run: under `npm pack --dry-run` the prepack build's own npm ci would install nothing
  step("npm ci", () => run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { env: { ...process.env, npm_config_dry_run: "false" } }));
  writeFileSync(stamp, hash);
}

/**
 * The VS Code extension's own dev packages (examples/vscode: @types/vscode, @vscode/vsce, memdir
 * linked from here), reinstalled only when its package-lock.json changed.
 */
export function ensureExtensionDeps() {
  const dir = join(root, "examples", "vscode");
  const hash = createHash("sha256").update(readFileSync(join(dir, "package-lock.json"))).digest("hex");
  const stamp = join(dir, "node_modules", ".memdir-lock-sha256");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === hash) return;
  step("npm ci (examples/vscode)", () => run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir }));
  writeFileSync(stamp, hash);
}

/** The wasm32 target of the pinned toolchain (rust-toolchain.toml). */
export function ensureWasmTarget() {
  const installed = output("rustup", ["target", "list", "--installed"]) ?? "";
  if (installed.split("\n").includes("wasm32-unknown-unknown")) return;
  step("rustup target add wasm32-unknown-unknown", () => run("rustup", ["target", "add", "wasm32-unknown-unknown"]));
}

/** The version `lock` (a Cargo.lock's text) pins for `name`. */
function lockedVersion(lock, name) {
  return new RegExp(`\\[\\[package\\]\\]\\nname = "${name}"\\nversion = "([^"]+)"`).exec(lock)?.[1];
}

/**
 * wasm-bindgen at exactly the version of Cargo.lock: `{ bin, ready }`, `ready` resolving to `bin`
 * once it is there. `bin` is tools/wasm-bindgen, the CLI's `--target web` run over the library the
 * CLI itself calls (wasm-bindgen-cli-support; byte-identical output, ~40 crates where the CLI's
 * package builds ~150), cached under ~/.cache/memdir/ by version and by the tool's own sources.
 * When missing it is built in the background, so the caller compiles the core beside it (on two
 * cores each fills the other's serial stretches).
 */
export function startWasmBindgen() {
  const version = lockedVersion(readFileSync(join(root, "Cargo.lock"), "utf8"), "wasm-bindgen");
  if (!version) throw new Error("Cargo.lock has no wasm-bindgen package");
  const tool = join(root, "tools", "wasm-bindgen");
  const toolVersion = lockedVersion(readFileSync(join(tool, "Cargo.lock"), "utf8"), "wasm-bindgen-cli-support");
  if (toolVersion !== version) {
    throw new Error(`tools/wasm-bindgen builds wasm-bindgen ${toolVersion}, Cargo.lock has ${version}: pin wasm-bindgen-cli-support = "=${version}" in tools/wasm-bindgen/Cargo.toml (then cargo update in that folder)`);
  }
  const sources = createHash("sha256");
  for (const file of ["Cargo.toml", "Cargo.lock", "src/main.rs"]) sources.update(readFileSync(join(tool, file)));
  const prefix = cacheDir(`wasm-bindgen-${version}-${sources.digest("hex").slice(0, 12)}`);
  const bin = join(prefix, "bin", "memdir-wasm-bindgen");
  if (existsSync(bin)) return { bin, ready: Promise.resolve(bin), cancel: () => {} };
  const label = `cargo build tools/wasm-bindgen (wasm-bindgen ${version}; once per version, beside the core's build)`;
  console.error(`  ${label}…`);
  const start = performance.now();
  const target = join(prefix, "target");
  const args = ["build", "--quiet", "--release", "--locked", "--manifest-path", join(tool, "Cargo.toml"), "--target-dir", target];
  const child = spawn("cargo", args, { cwd: root, stdio: "inherit" });
  const ready = new Promise((resolve, reject) => {
    child.on("error", (error) => reject(new Error(`cargo could not start: ${error.message}`)));
    child.on("exit", (code, signal) => {
      if (code !== 0) return reject(new Error(`cargo ${args.join(" ")} exited with ${code ?? signal}`));
      try {
        // the binary in place last, by a rename of a file of this process's own: a build cut short
        // leaves no `bin` to trust, and two builds at once (cargo locks the target folder) each
        // put a whole binary in place; the target folder (~150 MB) stays for the other
        mkdirSync(dirname(bin), { recursive: true });
        const tmp = `${bin}.${process.pid}.tmp`;
        copyFileSync(join(target, "release", "memdir-wasm-bindgen"), tmp);
        renameSync(tmp, bin);
      } catch (error) {
        return reject(new Error(`tools/wasm-bindgen was built but could not be put in place: ${error.message}`));
      }
      // older versions' builds (and the CLI once installed here) are not used again
      try {
        for (const name of readdirSync(dirname(prefix))) {
          if (name.startsWith("wasm-bindgen-") && join(dirname(prefix), name) !== prefix) rmSync(join(dirname(prefix), name), { recursive: true, force: true });
        }
      } catch {
        // a cache that cannot be tidied is still a cache
      }
      console.error(`  [${((performance.now() - start) / 1000).toFixed(1)} s] ${label}`);
      resolve(bin);
    });
  });
  ready.catch(() => {}); // awaited by the caller; not an unhandled rejection while its own build runs
  // the caller's own build failed: no compile left running behind its exit (nor holding cargo's lock)
  const cancel = () => child.exitCode === null && child.kill();
  return { bin, ready, cancel };
}

/** Debian's Chromium for the browser test; installed with apt when missing and root. */
export function ensureChromium() {
  const path = process.env.MEMDIR_CHROMIUM || "/usr/bin/chromium";
  if (existsSync(path)) return path;
  aptInstall(["chromium"], `Chromium not found at ${path}; install Debian's chromium package or set MEMDIR_CHROMIUM`);
  return path;
}
