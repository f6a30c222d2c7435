// The command line as a careless user types it: every mistake gets a sentence (and the
// nearest right spelling) and exit 2, never Node's parser text or a stack trace.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { fm, memdir, memdirIn, removeTemps, tempDir, tempMemory } from "./helpers.mjs";

after(removeTemps);
const version = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;

test("--version prints the version from package.json, wherever it is given", async () => {
  for (const args of [["--version"], ["scan", "--version"], ["--version", "--bogus"]]) {
    const r = await memdirIn(args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
    assert.equal(r.out, `memdir ${version}\n`);
  }
});

test("--version and --help do not load the WebAssembly core; a command does", async () => {
  const probe = { NODE_OPTIONS: `--require ${fileURLToPath(new URL("./wasm-probe.cjs", import.meta.url))}` };
  for (const args of [["--version"], ["--help"], ["recall", "--help"], ["help", "doctor"]]) {
    const r = memdir(args, { env: probe });
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /wasm-probe/, `${args.join(" ")} loaded the core`);
  }
  const dir = tempMemory({ "MEMORY.md": "- [A](a.md) — a\n" });
  const r = memdir(["index", "--dir", dir], { env: probe });
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /\[wasm-probe\]/, "the probe sees a command load the core");
});

test("a command sets V8's WebAssembly flags before it compiles the core: the largest tiering budget, lazy validation", async () => {
  const probe = { NODE_OPTIONS: `--require ${fileURLToPath(new URL("./wasm-probe.cjs", import.meta.url))}` };
  const dir = tempMemory({ "MEMORY.md": "- [A](a.md) — a\n" });
  const r = memdir(["index", "--dir", dir], { env: probe });
  assert.equal(r.code, 0, r.err);
  const events = r.err.split("\n").filter((line) => /^\[(v8-flag|wasm-probe)\]/.test(line));
  assert.deepEqual(events, ["[v8-flag] --wasm-tiering-budget=2147483647", "[v8-flag] --wasm-lazy-validation", "[wasm-probe] new WebAssembly.Module"]);
});

test("help for each command: memdir <command> --help, -h, and memdir help <command>", async () => {
  for (const command of ["path", "index", "scan", "recall", "remember", "forget", "doctor"]) {
    const a = await memdirIn([command, "--help"]);
    assert.equal(a.code, 0, a.err);
    assert.match(a.out, new RegExp(`^memdir ${command} — `));
    assert.match(a.out, new RegExp(`^Usage: memdir ${command}\\b`, "m"));
    assert.equal((await memdirIn(["help", command])).out, a.out);
    assert.equal((await memdirIn([command, "-h"])).out, a.out);
  }
  const recall = (await memdirIn(["recall", "--help"])).out;
  for (const option of ["--provider <name>", "--model <id>", "--base-url <url>", "--timeout <ms>", "--fallback", "--max-files <n>", "--dir <path>", "--json", "--verbose"]) assert.ok(recall.includes(option), option);
  assert.ok(!recall.includes("--stale-core-days"), "only recall's options");
  assert.match((await memdirIn(["doctor", "--help"])).out, /--stale-core-days <n>/);
  // help wins over the rest of the line: a user asking for help gets it
  assert.equal((await memdirIn(["recall", "--help", "--provider", "gemini"])).code, 0);

  const general = await memdirIn(["--help"]);
  assert.equal(general.code, 0);
  assert.match(general.out, /memdir recall "<query>"/);
  assert.match(general.out, /memdir help <command>/);
  assert.equal((await memdirIn(["help"])).out, general.out);
});

test("no command: the help on stderr, exit 2", async () => {
  const r = await memdirIn([]);
  assert.equal(r.code, 2);
  assert.equal(r.out, "");
  assert.match(r.err, /^memdir: a command is required\n\nmemdir — long-term memory/);
  assert.match(r.err, /memdir recall "<query>"/);
});

test("an unknown command or option names the nearest one; never Node's parser text", async () => {
  for (const [args, message] of [
    [["scna"], /^memdir: unknown command "scna"; did you mean scan\?\nmemdir: see memdir --help\n$/],
    [["recal", "a b"], /^memdir: unknown command "recal"; did you mean recall\?/],
    [["help", "docter"], /^memdir: unknown command "docter"; did you mean doctor\?/],
    [["frobnicate"], /^memdir: unknown command "frobnicate"; see memdir --help\n/],
    [["scan", "--dri", "x"], /^memdir: unknown option --dri; did you mean --dir\?\nmemdir: see memdir scan --help\n$/],
    [["scan", "--dri=x"], /^memdir: unknown option --dri; did you mean --dir\?/],
    [["recall", "a b", "--fallbak"], /^memdir: unknown option --fallbak; did you mean --fallback\?/],
    [["recall", "a b", "--base_url", "x"], /^memdir: unknown option --base_url; did you mean --base-url\?/],
    [["doctor", "--stale", "3"], /^memdir: unknown option --stale; did you mean --stale-core-days\?/],
    [["scan", "--fixx"], /^memdir: unknown option --fixx; did you mean --fix\?/],
    [["scan", "-v"], /^memdir: unknown option -v; did you mean --verbose or --version\?/],
    [["recall", "a b", "--provider", "OpenAI"], /^memdir: unknown provider "OpenAI"; did you mean openai\? \(anthropic, openai, ollama or lexical\)/],
    [["recall", "a b", "--provider", "gemini"], /^memdir: unknown provider "gemini" \(anthropic, openai, ollama or lexical\)\nmemdir: see memdir recall --help\n$/],
    [["scan", "--zzzzzz"], /^memdir: unknown option --zzzzzz\nmemdir: see memdir scan --help\n$/],
    // an option of another command
    [["scan", "--fix"], /^memdir: --fix is not an option of scan \(it is one of doctor\)\nmemdir: see memdir scan --help\n$/],
    [["index", "--provider", "openai"], /^memdir: --provider is not an option of index \(it is one of recall, extract, consolidate, mcp\)/],
    [["scan", "--read-only"], /^memdir: --read-only is not an option of scan \(it is one of mcp\)/],
    // one name per setting across the API, CLI and MCP: the old spellings say the new one
    [["doctor", "--stale-days", "3"], /^memdir: --stale-days is now --stale-core-days \(the API's staleCoreDays, MCP's stale_core_days\)\n/],
    [["recall", "a b", "--no-fallback"], /^memdir: --no-fallback is gone: recall never falls back unless --fallback is given/],
    [["mcp", "--no-fallback"], /^memdir: --no-fallback is gone/],
    // values
    [["scan", "--dir"], /^memdir: --dir needs a value: --dir <path>\nmemdir: see memdir scan --help\n$/],
    [["scan", "--dir", "--json"], /^memdir: --dir needs a value: --dir <path>/],
    [["scan", "--json=yes"], /^memdir: --json takes no value \(got --json=yes\)/],
    [["scan", "--dir", "a", "--dir", "b"], /^memdir: --dir is given twice/],
    [["scan", "--dir", "a", "--project", "b"], /^memdir: give --dir or --project, not both/],
    [["scan", "--dir", ""], /^memdir: --dir needs a path/],
    // arguments
    [["scan", "extra"], /^memdir: scan takes no arguments \(got "extra"\)/],
    [["recall"], /^memdir: recall takes one query in quotes: memdir recall "how do we deploy\?"/],
    [["recall", "how", "do", "we", "deploy"], /^memdir: recall takes one query in quotes: memdir recall "how do we deploy"\n/],
    [["recall", "   "], /^memdir: the query is empty/],
    [["forget"], /^memdir: forget takes one file: memdir forget feedback_testing\.md/],
  ]) {
    const r = await memdirIn(args);
    assert.equal(r.code, 2, `${args.join(" ")} → ${r.err}`);
    assert.match(r.err, message, args.join(" "));
    assert.ok(!/To specify a positional argument|ERR_PARSE_ARGS|\n +at /.test(r.err), `no parser text or stack: ${r.err}`);
    assert.equal(r.out, "", "nothing on stdout");
  }
});

test("numbers are whole numbers in range: --max-files abc, --timeout -1, a timeout past what a timer holds", async () => {
  const dir = tempMemory({ "project_a.md": [fm("the harbor lantern is lit at dusk", "project"), 1] });
  for (const [args, message] of [
    [["scan", "--dir", dir, "--max-files", "abc"], /^memdir: --max-files takes a whole number of files from 1 to 4,294,967,295, not "abc"/],
    [["scan", "--dir", dir, "--max-files", "0"], /--max-files takes a whole number of files from 1/],
    [["scan", "--dir", dir, "--max-files", "1e3"], /not "1e3"/],
    [["scan", "--dir", dir, "--max-files", "99999999999"], /not "99999999999"/],
    [["recall", "a b", "--dir", dir, "--timeout", "-1"], /^memdir: --timeout takes a whole number of milliseconds from 1 to 2,147,483,647, not "-1"/],
    [["recall", "a b", "--dir", dir, "--timeout=-1"], /not "-1"/],
    [["recall", "a b", "--dir", dir, "--timeout", "99999999999"], /not "99999999999"/],
    [["recall", "a b", "--dir", dir, "--timeout", " 5"], /not " 5"/],
    [["doctor", "--dir", dir, "--stale-core-days", "-3"], /^memdir: --stale-core-days takes a whole number of days from 0/],
  ]) {
    const r = await memdirIn(args);
    assert.equal(r.code, 2, `${args.join(" ")} → ${r.err}`);
    assert.match(r.err, message);
    assert.ok(!/\n +at /.test(r.err), r.err);
  }
  assert.equal((await memdirIn(["scan", "--dir", dir, "--max-files", "4294967295", "--json"])).code, 0, "the largest value the core takes");
});

test("--base-url must be an http(s) URL the provider path can be appended to", async () => {
  for (const [url, message] of [
    ["localhost:8080", /--base-url takes an http:\/\/ or https:\/\/ URL, not "localhost:8080" \(did you mean http:\/\/localhost:8080\?\)/],
    ["ftp://x", /not "ftp:\/\/x"/],
    ["http://user:pw@127.0.0.1:1", /--base-url cannot hold a user or password/],
    ["http://127.0.0.1:1/?key=abc", /--base-url cannot hold a query or fragment/],
  ]) {
    const r = await memdirIn(["recall", "a b", "--provider", "ollama", "--base-url", url]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, message);
  }
});

test("a --dir that is a file, or missing, exits 3 and says which", async () => {
  const root = tempDir();
  const file = join(root, "notes.txt");
  writeFileSync(file, "a file\n");
  for (const command of [["scan"], ["index"], ["doctor"], ["recall", "a b"]]) {
    const r = await memdirIn([...command, "--dir", file]);
    assert.equal(r.code, 3, `${command[0]}: ${r.err}`);
    assert.equal(r.err, `memdir: ${file} is a file, not a memory directory\n`);
    const missing = await memdirIn([...command, "--dir", join(root, "nope")]);
    assert.equal(missing.code, 3);
    assert.equal(missing.err, `memdir: no memory directory at ${join(root, "nope")}\n`);
  }
  const project = await memdirIn(["scan", "--project", root], { env: { HOME: root, CLAUDE_CONFIG_DIR: "" } });
  assert.equal(project.code, 3);
  assert.match(project.err, /no memory directory at .*\(the memory of project .*; memdir remember creates it, or use --dir to point at another\)/);
});

test("memdir mcp --help: no --json (stdout is the protocol) and the server's own exit statuses; --json refused (issue 26)", () => {
  const help = memdir(["mcp", "--help"]);
  assert.equal(help.code, 0);
  assert.doesNotMatch(help.out, /--json/);
  assert.match(help.out, /^Exit status: 0 when the client disconnects \(stdin ends\) or on SIGTERM\/SIGINT; 2 bad arguments;\n3 the memory directory is a file \(or a folder above it is\); 4 @modelcontextprotocol\/sdk is missing\.$/m);
  assert.doesNotMatch(help.out, /3 no memory directory \(missing/);
  const json = memdir(["mcp", "--json"]);
  assert.equal(json.code, 2);
  assert.match(json.err, /--json is not an option of mcp/);
  // the other commands keep --json and the general statuses
  assert.match(memdir(["recall", "--help"]).out, /--json +machine-readable output on stdout[\s\S]*3 no memory directory/);
});
