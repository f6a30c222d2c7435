// This machine as a memdir writer on it names itself in a lock file, read independently of
// memdir: os.hostname(), and on Linux the boot id and the pid namespace (null elsewhere).
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

const attempt = (read) => {
  try {
    return read() || null;
  } catch {
    return null;
  }
};

export const machine = {
  host: hostname(),
  boot: attempt(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()),
  pidns: attempt(() => readlinkSync("/proc/self/ns/pid")),
};
