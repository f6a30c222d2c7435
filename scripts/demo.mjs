// `npm run demo`: a real recall on the bundled example memory, through the `memdir` CLI.
// Git does not keep modification times, so each file's age is first set from
// examples/ages.json (days before now): that is what makes some memories stale, as they would
// be in a memory directory that has lived a while. The side query goes to Anthropic when
// ANTHROPIC_API_KEY is set, otherwise to the offline lexical selector; the output says which.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { applyAges, exampleDir as dir } from "../examples/ages.mjs";

applyAges(dir);

const query = "a customer says their invoice total is a few cents off on a multi-leg shipment — where do I start?";
const provider = process.env.ANTHROPIC_API_KEY ? "anthropic" : "lexical";
console.log(`$ memdir recall "${query}" --dir examples/memory --provider ${provider}${provider === "anthropic" ? " --fallback" : ""}`);
console.log(provider === "anthropic" ? "(ANTHROPIC_API_KEY is set: the side query goes to Anthropic)\n" : "(no ANTHROPIC_API_KEY: the offline lexical selector chooses; set the key for a model-backed recall)\n");
const cli = fileURLToPath(new URL("../pkg/cli/main.js", import.meta.url));
const args = [cli, "recall", query, "--dir", dir, "--provider", provider, ...(provider === "anthropic" ? ["--fallback"] : [])];
const { status } = spawnSync(process.execPath, args, { stdio: "inherit" });
process.exit(status ?? 1);
