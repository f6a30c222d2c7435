// The Node consumer: `node app.js <memory dir> <mock server url>` prints what exercise() found.
// Written as an application would be, with no bundler-specific code.
import { MemdirError, NodeHost, openMemory } from "memdir";
import { exercise } from "./exercise.js";

const [dir, mockUrl] = process.argv.slice(2);
exercise({ MemdirError, openMemory }, { dir }, mockUrl).then(
  (result) => console.log(JSON.stringify({ ...result, nodeHost: typeof NodeHost })),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
