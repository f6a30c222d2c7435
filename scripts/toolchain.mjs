// Installs what the build and the tests need, idempotently, and quickly when it is already
// there: npm packages (from package-lock.json), the wasm32 Rust target, the wasm-bindgen CLI
// at exactly the Cargo.lock version (cached per version under ~/.cache/memdir, since a
// mismatched CLI cannot read the module), and Debian's Chromium for the browser test.
// Only Node built-ins are used here: this file runs before `npm install`.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
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

/** npm packages, reinstalled only when package-lock.json changed. */
export function ensureNpmDeps() {
  const lock = join(root, "package-lock.json");
  const hash = createHash("sha256").update(readFileSync(lock)).digest("hex");
  const stamp = join(root, "node_modules", ".memdir-lock-sha256");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === hash) return;
  step("npm ci", () => run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"]));
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

/**
 * The wasm-bindgen CLI matching Cargo.lock: `{ bin, ready }`, `ready` resolving to `bin` once it
 * is there. A missing CLI is installed by `cargo install` in the background, so the caller builds
 * the core beside it (on two cores the two compiles fill each other's serial stretches). Only the
 * `wasm-bindgen` binary, without the default `rustls-tls` feature: that TLS stack (ring, rustls,
 * webpki) serves only the test runner's downloads, and the CLI's output is the same without it.
 */
export function startWasmBindgen() {
  const lock = readFileSync(join(root, "Cargo.lock"), "utf8");
  const version = /\[\[package\]\]\nname = "wasm-bindgen"\nversion = "([^"]+)"/.exec(lock)?.[1];
  if (!version) throw new Error("Cargo.lock has no wasm-bindgen package");
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  const prefix = join(cache, "memdir", `wasm-bindgen-${version}`);
  const bin = join(prefix, "bin", "wasm-bindgen");
  if (output(bin, ["--version"]) === `wasm-bindgen ${version}`) return { bin, ready: Promise.resolve(bin) };
  const label = `cargo install wasm-bindgen-cli ${version} (once per version, beside the core's build)`;
  console.error(`  ${label}…`);
  const start = performance.now();
  // Not --locked: the CLI's own lock file pins a webpki-roots the registry here lacks.
  const args = ["install", "wasm-bindgen-cli", "--version", version, "--no-default-features", "--bin", "wasm-bindgen", "--root", prefix];
  const child = spawn("cargo", args, { cwd: root, stdio: "inherit" });
  const ready = new Promise((resolve, reject) => {
    child.on("error", (error) => reject(new Error(`cargo could not start: ${error.message}`)));
    child.on("exit", (code, signal) => {
      if (code !== 0) return reject(new Error(`cargo ${args.join(" ")} exited with ${code ?? signal}`));
      console.error(`  [${((performance.now() - start) / 1000).toFixed(1)} s] ${label}`);
      resolve(bin);
    });
  });
  ready.catch(() => {}); // awaited by the caller; not an unhandled rejection while its own build runs
  return { bin, ready };
}

/** Debian's Chromium for the browser test; installed with apt when missing and root. */
export function ensureChromium() {
  const path = process.env.MEMDIR_CHROMIUM || "/usr/bin/chromium";
  if (existsSync(path)) return path;
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) {
    throw new Error(`Chromium not found at ${path}; install Debian's chromium package or set MEMDIR_CHROMIUM`);
  }
  step("apt-get install chromium", () => {
    run("apt-get", ["update", "-qq"]);
    run("apt-get", ["install", "-y", "-qq", "chromium"], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  });
  return path;
}
