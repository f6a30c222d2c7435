// Preloaded (NODE_OPTIONS=--require) by tests/cli/args.test.mjs: says on stderr whenever the
// process compiles a WebAssembly module, so a test can tell which commands load the core, and
// every V8 flag it sets for itself.
const wasm = globalThis.WebAssembly;
const say = (how) => process.stderr.write(`[wasm-probe] ${how}\n`);
const Module = wasm.Module;
wasm.Module = new Proxy(Module, { construct: (target, args, nt) => (say("new WebAssembly.Module"), Reflect.construct(target, args, nt)) });
for (const name of ["compile", "compileStreaming", "instantiate", "instantiateStreaming"]) {
  const original = wasm[name];
  if (typeof original === "function") wasm[name] = (...args) => (say(name), original.apply(wasm, args));
}
// and every V8 flag the process sets for itself, in order with the compilations
const v8 = require("node:v8");
const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => (process.stderr.write(`[v8-flag] ${flags}\n`), setFlags(flags));
