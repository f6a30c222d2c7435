// `npm run fuzz [seconds] [target…]`: runs every cargo-fuzz target of fuzz/ in turn for
// `seconds` each (default 60), seeded from tests/fixtures, and prints the executions of each
// and a summary table. Exits non-zero if any target crashed, hung or ran out of memory; the
// input that did it is in fuzz/artifacts/<target>/ (reproduce: `npm run fuzz -- --repro FILE`).
//
// Needs a nightly toolchain (installed with rustup when missing) and cargo-fuzz (installed from
// crates.io once per version under ~/.cache/memdir). Not part of `npm test`.
// Environment: MEMDIR_FUZZ_SANITIZER (default `none`: the core is safe Rust; `address` for
// the C and unsafe parts of dependencies), MEMDIR_FUZZ_ARGS (more libFuzzer flags).
import { spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { seed } from "../fuzz/seed.mjs";
import { cacheDir, root, run, step } from "./toolchain.mjs";

const CARGO_FUZZ_VERSION = "0.13.2";
const TARGETS = ["scan", "frontmatter", "index", "answer", "provider_response", "paths", "tool", "remember", "forget", "doctor", "diff", "render"];
const fuzzDir = join(root, "fuzz");
const sanitizer = process.env.MEMDIR_FUZZ_SANITIZER || "none";
// release build, with overflow checks and debug assertions on: an overflow is a crash
const buildFlags = ["-O", "--debug-assertions", "--sanitizer", sanitizer];

function output(cmd, args, env = process.env) {
  const result = spawnSync(cmd, args, { cwd: root, encoding: "utf8", env });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** The nightly toolchain (cargo-fuzz needs -Z flags); `cargo +nightly` beats rust-toolchain.toml. */
function ensureNightly() {
  const list = output("rustup", ["toolchain", "list"]) ?? "";
  if (list.split("\n").some((l) => l.startsWith("nightly"))) return;
  step("rustup toolchain install nightly", () =>
    run("rustup", ["toolchain", "install", "nightly", "--profile", "minimal"]),
  );
}

/** cargo-fuzz at exactly CARGO_FUZZ_VERSION, cached; returns a PATH that has it. */
function ensureCargoFuzz() {
  const prefix = cacheDir(`cargo-fuzz-${CARGO_FUZZ_VERSION}`);
  const bin = join(prefix, "bin");
  const path = `${bin}:${process.env.PATH}`;
  if (output(join(bin, "cargo-fuzz"), ["--version"])?.endsWith(CARGO_FUZZ_VERSION)) return path;
  step(`cargo install cargo-fuzz ${CARGO_FUZZ_VERSION} (once per version, ~1 min)`, () =>
    run("cargo", ["install", "cargo-fuzz", "--version", CARGO_FUZZ_VERSION, "--root", prefix]),
  );
  return path;
}

/** Runs one target; resolves to {target, execs, seconds, status, artifact}. */
function fuzzTarget(target, seconds, env) {
  const corpus = join(fuzzDir, "corpus", target);
  const args = [
    "+nightly", "fuzz", "run", ...buildFlags, target, corpus, "--",
    `-max_total_time=${seconds}`,
    "-print_final_stats=1",
    `-dict=${join(fuzzDir, "memdir.dict")}`,
    "-timeout=10", // a hang is a crash: no input should take this long
    "-rss_limit_mb=4096",
    ...(process.env.MEMDIR_FUZZ_ARGS?.split(/\s+/).filter(Boolean) ?? []),
  ];
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn("cargo", args, { cwd: root, env: { RUST_BACKTRACE: "0", ...env }, stdio: ["ignore", "inherit", "pipe"] });
    let tail = "";
    let partial = "";
    let inPanic = false;
    child.stderr.on("data", (chunk) => {
      const text = partial + chunk.toString();
      const lines = text.split("\n");
      partial = lines.pop();
      tail = (tail + lines.map((l) => `${l}\n`).join("")).slice(-20_000);
      // libFuzzer's status lines are many: show the milestones, and a panic's message
      for (const line of lines) {
        if (/ panicked at /.test(line)) inPanic = true;
        else if (/^==\d+==/.test(line) || /^\s*\d+: /.test(line)) inPanic = false;
        if (inPanic || /^(#\d+\s+(INITED|DONE)|==\d+==|SUMMARY|Done \d+ runs|artifact_prefix)/.test(line)) {
          process.stderr.write(`  [${target}] ${line}\n`);
        }
      }
    });
    child.on("close", (code, signal) => {
      tail += partial;
      const execs =
        Number(/stat::number_of_executed_units:\s*(\d+)/.exec(tail)?.[1] ??
          [...tail.matchAll(/^#(\d+)\s/gm)].pop()?.[1] ?? 0);
      const artifact = /Test unit written to (\S+)/.exec(tail)?.[1] ?? null;
      const kind = artifact ? basename(artifact).split("-")[0] : null;
      const status = code === 0 ? "ok" : kind ?? `exit ${code ?? signal}`;
      // libFuzzer's own figure (the build before it is not fuzzing time)
      const done = /Done \d+ runs in (\d+) second/.exec(tail)?.[1];
      const seconds = done ? Number(done) : (performance.now() - started) / 1000;
      resolve({ target, execs, seconds, status, artifact });
    });
  });
}

function table(rows) {
  const head = ["target", "execs", "execs/s", "seconds", "result"];
  const body = rows.map((r) => [
    r.target,
    String(r.execs),
    String(Math.round(r.execs / Math.max(r.seconds, 1e-9))),
    r.seconds.toFixed(0),
    r.status + (r.artifact ? ` (${r.artifact})` : ""),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].map((l) => l.trimEnd()).join("\n");
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === "--repro") {
    // `npm run fuzz -- --repro fuzz/artifacts/<target>/crash-…`: runs that one input
    const file = argv[1];
    const target = basename(dirname(file));
    ensureNightly();
    const env = { ...process.env, PATH: ensureCargoFuzz() };
    const r = spawnSync("cargo", ["+nightly", "fuzz", "run", ...buildFlags, target, file], { cwd: root, env, stdio: "inherit" });
    process.exit(r.status ?? 1);
  }
  const seconds = Number(argv.find((a) => /^\d+$/.test(a)) ?? 60);
  const chosen = argv.filter((a) => !/^\d+$/.test(a));
  const unknown = chosen.filter((t) => !TARGETS.includes(t));
  if (unknown.length) throw new Error(`unknown fuzz target(s) ${unknown.join(", ")}; known: ${TARGETS.join(", ")}`);
  const targets = chosen.length ? chosen : TARGETS;

  ensureNightly();
  const env = { ...process.env, PATH: ensureCargoFuzz() };
  const seeds = step("seed corpora from tests/fixtures", seed);
  step("cargo +nightly fuzz build", () => run("cargo", ["+nightly", "fuzz", "build", ...buildFlags], { env }));

  const rows = [];
  for (const target of targets) {
    console.error(`\n== ${target}: ${seconds} s, corpus ${readdirSync(join(fuzzDir, "corpus", target)).length} inputs (${seeds[target] ?? 0} seeds)`);
    const row = await fuzzTarget(target, seconds, env);
    console.error(`  [${target}] ${row.execs} executions, ${row.status}`);
    rows.push(row);
  }
  console.log(`\n${table(rows)}`);
  const failed = rows.filter((r) => r.status !== "ok");
  if (failed.length) {
    console.log(`\n${failed.length} target(s) failed. Reproduce with: npm run fuzz -- --repro <artifact>`);
    process.exit(1);
  }
  console.log(`\nno crash in ${rows.length} target(s)`);
}

main().catch((error) => {
  console.error(`\nfuzz failed: ${error.message}`);
  process.exit(1);
});
