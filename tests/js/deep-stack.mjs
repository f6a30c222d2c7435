// Run by hostile.test.mjs in a fresh process (the engine's tiers change how much stack a call
// takes, so a cold start keeps this repeatable): memdir called at every depth of a recursion
// that ran the JS stack out. Prints what was thrown, by kind, and whether answers were exact
// afterwards.
import "memdir";
import * as memdir from "../../pkg/internal.js";

const nested = (levels) => Array.from({ length: levels - 1 }).reduce((v) => [v], []);
const command = { command: "view", path: "/memories", x: nested(63) };
const seen = {};
const dive = () => {
  try {
    dive();
  } catch {
    // the stack ran out below: call memdir at every depth on the way up
  }
  try {
    memdir.planToolCommand(command);
  } catch (error) {
    const kind = error instanceof memdir.MemdirError ? error.code : error instanceof RangeError ? "RangeError" : String(error);
    seen[kind] = (seen[kind] ?? 0) + 1;
  }
};
for (let i = 0; i < 2; i++) dive();
let exact = 0;
for (let i = 0; i < 1000; i++) {
  const plan = memdir.planToolCommand({ command: "view", path: `/memories/a${i}.md` });
  if (plan.read[0] === `a${i}.md`) exact++;
}
process.stdout.write(JSON.stringify({ seen, exact }));
