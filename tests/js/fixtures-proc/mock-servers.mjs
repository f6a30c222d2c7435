// Mock providers in a process of their own, for tests/js/load.test.mjs: the load test measures
// the memory and handles of the process that recalls, not of the servers it talks to. Starts
// one server per name given (argv[2], a JSON array), prints `{name: url}` as one JSON line,
// scripts them through their control plane (POST /__mock/script), and runs until killed.
import { startMockProviders } from "../../mock/providers.mjs";

const names = JSON.parse(process.argv[2] ?? "[]");
const urls = {};
for (const name of names) urls[name] = (await startMockProviders()).url;
process.stdout.write(`${JSON.stringify(urls)}\n`);
