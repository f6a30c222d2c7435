/**
 * The browser entry: nothing is loaded on import. Call `await init()` once (optionally with
 * the URL or bytes of `memdir.wasm`); until then calls throw `NOT_INITIALIZED`.
 */
export * from "../index.js";
export { browserHost, IndexedDbHost, OpfsHost, type IndexedDbHostOptions } from "../hosts/browser.js";
