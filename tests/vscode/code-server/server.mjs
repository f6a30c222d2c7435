// code-server for tests/vscode/code-server.test.mjs: the extension's .vsix packed and installed,
// one server started per extension host on 127.0.0.1 with its own HOME, user-data and extensions
// folders, off the network (no gallery, no update check, no telemetry), and stopped with its
// whole process group whatever happened.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Every wait is bounded: a line that does not come within `ms` is a failure, never a hang. */
export function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise.finally(() => clearTimeout(timer)), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms / 1000} s`)), ms)))]);
}

// The server's own network: code-server reads EXTENSIONS_GALLERY as product.json's
// extensionsGallery; one without a serviceUrl turns the marketplace off (no query at all).
const NO_GALLERY = "{}";

function environment(home) {
  return { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", EXTENSIONS_GALLERY: NO_GALLERY, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local", "share"), XDG_CACHE_HOME: join(home, ".cache") };
}

/** Settings for a quiet, offline workbench (user settings of the user-data-dir). */
export function userSettings(extra = {}) {
  return {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "extensions.ignoreRecommendations": true,
    "npm.fetchOnlinePackageInfo": false,
    "chat.disableAIFeatures": true,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "git.enabled": false,
    "window.dialogStyle": "custom",
    ...extra,
  };
}

/**
 * Installs `vsix` into fresh folders under `dir` and starts code-server on `workspace`;
 * returns `{ url, userDataDir, stop }`. `settings` go to the user's settings.json.
 */
export async function startCodeServer({ paths, vsix, dir, workspace, settings, log = () => {} }) {
  const home = join(dir, "home");
  const userDataDir = join(dir, "user-data");
  const extensionsDir = join(dir, "extensions");
  for (const d of [home, userDataDir, extensionsDir, join(userDataDir, "User")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(userDataDir, "User", "settings.json"), JSON.stringify(settings, null, 2));
  const env = environment(home);
  const common = ["--user-data-dir", userDataDir, "--extensions-dir", extensionsDir, "--disable-telemetry", "--disable-update-check"];
  const installed = spawnSync(paths.node, [paths.entry, ...common, "--install-extension", vsix], { env, encoding: "utf8", timeout: 120_000 });
  if (installed.status !== 0) throw new Error(`code-server --install-extension exited with ${installed.status ?? installed.signal}\n${installed.stdout}\n${installed.stderr}`);
  log(installed.stdout.trim());

  const child = spawn(paths.node, [paths.entry, ...common, "--bind-addr", "127.0.0.1:0", "--auth", "none", "--disable-workspace-trust", "--disable-getting-started-override", "--disable-file-downloads", "--disable-proxy", "--ignore-last-opened", workspace], {
    env,
    cwd: home,
    detached: true, // its own process group: stop() ends code-server and every process it started
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    const ended = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 5_000))]);
    if (!ended) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    }
  };
  try {
    const url = await withTimeout(
      new Promise((resolve, reject) => {
        const look = (chunk) => {
          output += chunk;
          const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+\/?)/.exec(output);
          if (m) resolve(m[1]);
        };
        child.stdout.setEncoding("utf8").on("data", look);
        child.stderr.setEncoding("utf8").on("data", look);
        exited.then((code) => reject(new Error(`code-server exited with ${code} before listening:\n${output}`)));
      }),
      90_000,
      "code-server listening",
    );
    return { url, userDataDir, home, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
