// Preloaded (NODE_OPTIONS=--require) by tests/cli/args.test.mjs: says on stderr whenever the
// process compiles a WebAssembly module, so a test can tell which commands load the core.
const wasm = globalThis.WebAssembly;
const say = (how) => process.stderr.write(`[wasm-probe] ${how}\n`);
const Module = wasm.Module;
wasm.Module = new Proxy(Module, { construct: (target, args, nt) => (say("new WebAssembly.Module"), Reflect.construct(target, args, nt)) });
for (const name of ["compile", "compileStreaming", "instantiate", "instantiateStreaming"]) {
  const original = wasm[name];
  if (typeof original === "function") wasm[name] = (...args) => (say(name), original.apply(wasm, args));
}
