// Launches Debian's Chromium through playwright-core (no browser download), headless, with
// the flags that keep it off the closed network of this machine; `args` adds flags.
import { chromium } from "playwright-core";

export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export async function launchChromium({ args = [] } = {}) {
  return chromium.launch({
    executablePath: process.env.MEMDIR_CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: [...CHROMIUM_ARGS, ...args],
  });
}
