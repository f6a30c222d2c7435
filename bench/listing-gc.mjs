// Why a scan of 20,000 files still holds the event loop past 10 ms: the listing's own entries.
// Lists a folder of 20,000 memories through the Node host six times, keeping the last listings
// alive as an opened memory keeps its own, in a child run with `--trace-gc`, and prints the
// longest young-generation pause (scavenge) and the longest full one. Nothing else runs.
//
//   node bench/listing-gc.mjs [files]
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { memoryFolder } from "./fixture.mjs";

if (process.argv[2] === "--child") {
  const { NodeHost } = await import("../pkg/hosts/node.js");
  const host = new NodeHost(process.argv[3]);
  let kept = [];
  // in columns, as an opened memory keeps it (`list()` gives the same as objects)
  for (let i = 0; i < 6; i++) kept = [...kept.slice(-2), await host.fast.listing()];
  process.stdout.write(`listed ${kept.at(-1).length} entries\n`);
} else {
  const n = Number(process.argv[2] ?? 20_000);
  const folder = memoryFolder(n);
  try {
    const out = execFileSync(process.execPath, ["--trace-gc", fileURLToPath(import.meta.url), "--child", folder.dir], { encoding: "utf8" });
    const pauses = (kind) => [...out.matchAll(new RegExp(`${kind}[^,]*, ([0-9.]+) /`, "g"))].map((m) => Number(m[1]));
    const scavenges = pauses("Scavenge");
    const full = pauses("Mark-Compact");
    const max = (xs) => (xs.length ? Math.max(...xs).toFixed(1) : "none");
    console.log(`${n} files listed six times: ${scavenges.length} scavenges, longest ${max(scavenges)} ms; ${full.length} full collections, longest ${max(full)} ms`);
  } finally {
    folder.remove();
  }
}
