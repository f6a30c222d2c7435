// The package as a user gets it: `npm pack` of the built pkg/ (--ignore-scripts: the tests pack what
// npm test built; a prepack build per pack, three at a time, would rewrite pkg/ under the others),
// installed from the tarball
// alone into an empty project (`npm install --offline`: no registry, nothing but the tarball).
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../..", import.meta.url));

/** Packs into `work` and installs into `work/<name>` (package.json `extra` merged in); returns paths. */
export function packAndInstall(work, name = "app", extra = { type: "module" }) {
  const tgz = join(work, execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", work], { cwd: root, encoding: "utf8" }).trim().split("\n").pop());
  return { tgz, project: installTarball(tgz, work, name, extra) };
}

/** A new project `work/<name>` (package.json `extra` merged in) with the tarball `tgz` installed, offline; returns its path. */
export function installTarball(tgz, work, name, extra = { type: "module" }) {
  const project = join(work, name);
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name, private: true, ...extra }, null, 2));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", "--loglevel=error", tgz], { cwd: project, stdio: "pipe" });
  return project;
}

/** Runs `cmd` and resolves with its stdout, or rejects with its stderr (async, so several can run at once). */
export function spawnText(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: "utf8", maxBuffer: 64 * 2 ** 20, ...options }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(new Error(`${[cmd, ...args].join(" ")} failed:\n${stdout}${stderr}`), { stdout, stderr, code: error.code }));
      else resolve(stdout);
    });
  });
}
