// A real PostgreSQL server for the tests and the bench: Debian's package (installed when missing
// and we are root, like Chromium in toolchain.mjs), `initdb` into a fresh temporary folder as an
// unprivileged user (root runs it as `nobody`, the folder chowned to it), a free port on
// 127.0.0.1, its unix socket in the folder, trust authentication on loopback only. `stop()` ends
// it (`pg_ctl stop -m fast`) and removes the folder. Nothing here reaches past 127.0.0.1.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aptInstall } from "./toolchain.mjs";

const BASE = "/usr/lib/postgresql";

/** The newest Debian PostgreSQL's bin folder, or null. */
function findBin() {
  if (!existsSync(BASE)) return null;
  const versions = readdirSync(BASE)
    .filter((v) => existsSync(join(BASE, v, "bin", "initdb")) && existsSync(join(BASE, v, "bin", "pg_ctl")))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  return versions.length ? join(BASE, versions[0], "bin") : null;
}

/**
 * The folder of `initdb`, `pg_ctl` and `postgres` (Debian's /usr/lib/postgresql/<v>/bin, the
 * newest; `MEMDIR_PG_BIN` to choose another). Installs Debian's `postgresql` with apt-get when
 * none is there and we are root; otherwise throws, saying how to get one.
 */
export function ensurePostgres() {
  const given = process.env.MEMDIR_PG_BIN;
  if (given) {
    if (!existsSync(join(given, "initdb"))) throw new Error(`MEMDIR_PG_BIN=${given} has no initdb`);
    return given;
  }
  const found = findBin();
  if (found) return found;
  aptInstall(["postgresql"], `PostgreSQL not found under ${BASE}/<version>/bin; install Debian's postgresql package or set MEMDIR_PG_BIN`);
  const installed = findBin();
  if (!installed) throw new Error(`apt-get installed postgresql, but no initdb is under ${BASE}/<version>/bin`);
  return installed;
}

/** A port free on 127.0.0.1 right now (the OS's choice). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** `nobody`'s uid and gid when we are root (PostgreSQL refuses to run as root), else null. */
function unprivileged() {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/**
 * Starts a fresh server; resolves `{ url, stop(), dir, port }`. `url` is
 * `postgres://postgres@127.0.0.1:<port>/postgres` (trust on loopback, no password). A throwaway
 * server: `fsync`, `synchronous_commit` and `full_page_writes` are off unless `durable: true`
 * (a bench that times writes as a real server commits them). `maxConnections` default 200.
 */
export async function startPostgres(options = {}) {
  const bin = ensurePostgres();
  const dir = mkdtempSync(join(tmpdir(), "memdir-pg-"));
  const data = join(dir, "data");
  const socket = join(dir, "socket");
  const log = join(dir, "server.log");
  mkdirSync(socket);
  const user = unprivileged();
  if (user) {
    for (const p of [dir, socket]) chownSync(p, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  // as the unprivileged user: runuser when root (setpriv as the fallback), else as we are
  const as = (cmd, args) => {
    const [file, argv] = user ? (existsSync("/usr/sbin/runuser") || existsSync("/sbin/runuser") ? ["runuser", ["-u", "nobody", "--", cmd, ...args]] : ["setpriv", [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", cmd, ...args]]) : [cmd, args];
    return execFileSync(file, argv, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", env: { ...process.env, LC_ALL: "C", LANG: "C" } });
  };
  let started = false;
  const stop = async () => {
    if (started) {
      try {
        as(join(bin, "pg_ctl"), ["stop", "-D", data, "-m", "fast", "-w", "-t", "30"]);
      } catch {
        // already gone
      }
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    as(join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"]);
    let lastError;
    for (let attempt = 0; attempt < 5; attempt++) {
      const port = await freePort();
      const fast = options.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"];
      const settings = [`-p ${port}`, "-c listen_addresses=127.0.0.1", `-k ${socket}`, ...fast, `-c max_connections=${options.maxConnections ?? 200}`];
      try {
        as(join(bin, "pg_ctl"), ["start", "-D", data, "-w", "-t", "60", "-l", log, "-o", settings.join(" ")]);
        started = true;
        return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, dir, stop };
      } catch (error) {
        // the port may have been taken meanwhile: another one
        lastError = error;
      }
    }
    const tail = existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-8).join("\n") : "";
    throw new Error(`PostgreSQL did not start: ${lastError?.stderr || lastError?.message}\n${tail}`);
  } catch (error) {
    await stop();
    if (error.stderr && !String(error.message).includes(error.stderr)) error.message += `\n${error.stderr}`;
    throw error;
  }
}
