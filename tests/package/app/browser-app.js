// The browser consumer: `await init()` with no argument, an in-memory folder, then exercise().
// The page reads the mock server's URL from its query string and the result from
// `globalThis.memdirResult`. Written as an application would be, with no bundler-specific code.
import { InMemoryHost, init, MemdirError, openMemory } from "memdir";
import { exercise, FILES } from "./exercise.js";

globalThis.memdirResult = (async () => {
  await init();
  const mockUrl = new URLSearchParams(location.search).get("mock");
  return exercise({ MemdirError, openMemory }, { host: new InMemoryHost(FILES) }, mockUrl);
})();
